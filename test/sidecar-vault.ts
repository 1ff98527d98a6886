// A vault of 60 entries indexed with vectors from the loopback embeddings server, and readers of
// its int8 sidecar (.memory.db-vec), for the sidecar tests run in-process and as a process.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { embedServer, type EmbedServer } from './fake-embeddings.js';
import { entry, tempVault, type RunResult, type TempVault } from './helpers.js';

/** run() of test/run.ts, or memAsync() of helpers.ts. */
export type Cli = (args: string[], opts: { cwd: string; home?: string; env?: Record<string, string | undefined> }) => Promise<RunResult>;

export const NO_EMBED = { MEM_EMBED_MODEL: undefined, MEM_EMBED_BASE_URL: undefined, MEM_EMBED_PROVIDER: undefined, MEM_EMBED_DIMENSIONS: undefined, MEM_EMBED_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
const WORDS = ['car', 'engine', 'oil', 'tyres', 'garden', 'roses', 'lawn', 'postgres', 'migrations', 'deploy', 'release', 'coffee', 'cache', 'queue', 'kafka', 'vpn', 'login', 'billing'];

/** A vault of 60 entries over three files, each a few words of WORDS (deterministic), indexed with --embed; its server joins `servers`. */
export async function sidecarVault(cli: Cli, servers: EmbedServer[]) {
  const s = await embedServer();
  servers.push(s);
  const v = tempVault();
  for (let f = 0; f < 3; f++) {
    const body = Array.from({ length: 20 }, (_, k) => {
      const i = f * 20 + k;
      const words = [WORDS[i % WORDS.length], WORDS[(i * 7 + 3) % WORDS.length], WORDS[(i * 11 + 5) % WORDS.length]];
      return entry(`e-${i}`, `# Note ${i} on ${words[0]}\nThe ${words.join(' and ')} note number ${i}.`, { type: i % 3 === 0 ? 'corrective' : 'procedural' });
    }).join('');
    v.write(`memory/part-${f}.md`, `# Part ${f}\n\n${body}`);
  }
  const env = { ...NO_EMBED, MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' };
  const r = await cli(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env });
  expect(r.status, r.stderr).toBe(0);
  expect(r.json().embeddings).toMatchObject({ embedded: 60, vectors: 60 });
  return { s, v, env, sidecar: v.path('.memory.db-vec') };
}

/** The sidecar token the index records. */
export function tokenOf(dbPath: string): string | undefined {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = 'vec_sidecar'").get() as { value: string } | undefined)?.value;
  } finally {
    db.close();
  }
}

/** The token in the sidecar's header. */
export function headerToken(file: string): string {
  const b = fs.readFileSync(file);
  return JSON.parse(b.toString('utf8', 12, 12 + b.readUInt32LE(8))).token;
}

export type Hit = { id: string; components: { vector: number | null; vector_rank: number | null; fused: number } };
export const vectorPart = (hits: Hit[]) => hits.map((h) => [h.id, h.components.vector_rank, h.components.vector === null ? null : Number(h.components.vector.toFixed(6)), Number(h.components.fused.toFixed(9))]);

/** `mem search Q --json --explain --limit 20`: its hits, after checking it succeeded without a word on stderr. */
export async function searchHits(cli: Cli, v: TempVault, env: Record<string, string | undefined>, q: string, extra: string[] = []) {
  const r = await cli(['search', q, '--json', '--explain', '--limit', '20', ...extra], { cwd: v.root, home: v.home, env });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return r.json().results as Hit[];
}
