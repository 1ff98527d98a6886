// The int8 vector sidecar (.memory.db-vec) end to end through the built CLI, with the real
// `openai` SDK (mem index) and the plain HTTP query path (mem search) against a loopback
// embeddings server: the sidecar answers exactly what the exact scan answers, stays put through
// a one-file edit and a rebuild, and whatever is found in its place is never trusted or written through.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { nearestBySidecar, nearestExact } from '../../src/embeddings/store.js';
import { normalize } from '../../src/embeddings/vectors.js';
import { embedServer, fakeVector, type EmbedServer } from '../fake-embeddings.js';
import { cleanup, entry, memAsync, tempVault } from '../helpers.js';

const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanup();
});

const NO_EMBED = { MEM_EMBED_MODEL: undefined, MEM_EMBED_BASE_URL: undefined, MEM_EMBED_PROVIDER: undefined, MEM_EMBED_DIMENSIONS: undefined, MEM_EMBED_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
const WORDS = ['car', 'engine', 'oil', 'tyres', 'garden', 'roses', 'lawn', 'postgres', 'migrations', 'deploy', 'release', 'coffee', 'cache', 'queue', 'kafka', 'vpn', 'login', 'billing'];

/** A vault of 60 entries over three files, each a few words of WORDS (deterministic). */
async function setup() {
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
  const r = await memAsync(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env });
  expect(r.status, r.stderr).toBe(0);
  expect(r.json().embeddings).toMatchObject({ embedded: 60, vectors: 60 });
  return { s, v, env, sidecar: v.path('.memory.db-vec') };
}

function tokenOf(dbPath: string): string | undefined {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = 'vec_sidecar'").get() as { value: string } | undefined)?.value;
  } finally {
    db.close();
  }
}

function headerToken(file: string): string {
  const b = fs.readFileSync(file);
  return JSON.parse(b.toString('utf8', 12, 12 + b.readUInt32LE(8))).token;
}

type Hit = { id: string; components: { vector: number | null; vector_rank: number | null; fused: number } };
const vectorPart = (hits: Hit[]) => hits.map((h) => [h.id, h.components.vector_rank, h.components.vector === null ? null : Number(h.components.vector.toFixed(6)), Number(h.components.fused.toFixed(9))]);

async function search(v: ReturnType<typeof tempVault>, env: Record<string, string | undefined>, q: string, extra: string[] = []) {
  const r = await memAsync(['search', q, '--json', '--explain', '--limit', '20', ...extra], { cwd: v.root, home: v.home, env });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return r.json().results as Hit[];
}

describe('the vector sidecar', () => {
  it('is written by mem index --embed, belongs to its index, and answers as the exact scan does', async () => {
    const { v, env, sidecar } = await setup();
    expect(fs.statSync(sidecar).isFile()).toBe(true);
    expect(headerToken(sidecar)).toBe(tokenOf(v.path('.memory.db')));
    // The index the CLI wrote is searched through the sidecar (not the fallback), to the same answer.
    const db = new Database(v.path('.memory.db'), { readonly: true });
    try {
      const q = normalize(Float32Array.from(fakeVector('automobile servicing', 64)));
      const via = nearestBySidecar(db, 'fake-embed', q, {}, 10);
      expect(via).not.toBeNull();
      expect(via).toEqual(nearestExact(db, 'fake-embed', q, {}, 10));
    } finally {
      db.close();
    }
    const queries = ['automobile servicing', 'database release', 'coffee queue vpn', 'the lawn'];
    const withSidecar = await Promise.all(queries.map((q) => search(v, env, q)));
    const filtered = await search(v, env, 'automobile servicing', ['--type', 'corrective']);
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((h) => Number(h.id.slice(2)) % 3 === 0)).toBe(true);
    // Derived and deletable: without it the exact scan gives the same answer.
    fs.rmSync(sidecar);
    const exact = await Promise.all(queries.map((q) => search(v, env, q)));
    for (let i = 0; i < queries.length; i++) {
      expect(withSidecar[i].some((h) => h.components.vector_rank !== null)).toBe(true);
      expect(vectorPart(withSidecar[i])).toEqual(vectorPart(exact[i]));
    }
    expect(vectorPart(filtered)).toEqual(vectorPart(await search(v, env, 'automobile servicing', ['--type', 'corrective'])));
  });

  it('a one-file edit embeds one entry and leaves the sidecar as it is (the new vector is scored exactly); a rebuild keeps it valid', async () => {
    const { s, v, env, sidecar } = await setup();
    const token = headerToken(sidecar);
    const before = fs.statSync(sidecar).mtimeMs;
    fs.appendFileSync(v.path('memory/part-2.md'), entry('new-1', '# Vehicle upkeep\nAutomobile servicing twice a year.'));
    const r = await memAsync(['index', '--json'], { cwd: v.root, home: v.home, env });
    expect(r.json().embeddings).toMatchObject({ embedded: 1, vectors: 61 });
    expect(s.requests.at(-1)!.input).toEqual(['Vehicle upkeep\nAutomobile servicing twice a year.']);
    expect(headerToken(sidecar)).toBe(token);
    expect(fs.statSync(sidecar).mtimeMs).toBe(before);
    // "car maintenance" shares no word with it; the synonyms make its vector the closest.
    const hits = await search(v, env, 'car maintenance');
    const fresh = hits.find((h) => h.id === 'new-1')!;
    expect(fresh.components.vector_rank).toBe(1);
    const rebuilt = await memAsync(['index', '--rebuild', '--json'], { cwd: v.root, home: v.home, env });
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.json().embeddings).toMatchObject({ embedded: 0, vectors: 61 });
    expect(tokenOf(v.path('.memory.db'))).toBe(headerToken(sidecar));
    expect(vectorPart(await search(v, env, 'car maintenance'))).toEqual(vectorPart(hits));
    expect(fs.readdirSync(v.root).filter((f) => f.includes('-vec'))).toEqual(['.memory.db-vec']);
  });

  it('garbage, a FIFO or a symlink in its place: search answers exactly (no hang), and the next mem index replaces it without writing through', async () => {
    const { v, env, sidecar } = await setup();
    const good = vectorPart(await search(v, env, 'automobile servicing'));
    // Garbage of the right name.
    fs.writeFileSync(sidecar, 'MEMVEC01 not really');
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
    // A FIFO: opening it must not block.
    fs.rmSync(sidecar);
    expect(spawnSync('mkfifo', [sidecar]).status).toBe(0);
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
    const r1 = await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env });
    expect(r1.status, r1.stderr).toBe(0);
    expect(fs.lstatSync(sidecar).isFile()).toBe(true);
    // A symlink to a file out of the vault: replaced, the target untouched.
    const outside = path.join(path.dirname(v.root), 'outside.bin');
    fs.writeFileSync(outside, 'keep me');
    fs.rmSync(sidecar);
    fs.symlinkSync(outside, sidecar);
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
    const r2 = await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env });
    expect(r2.status, r2.stderr).toBe(0);
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep me');
    expect(fs.lstatSync(sidecar).isSymbolicLink()).toBe(false);
    expect(headerToken(sidecar)).toBe(tokenOf(v.path('.memory.db')));
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
  });
});
