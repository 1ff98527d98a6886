// The int8 vector sidecar (.memory.db-vec) end to end through the CLI in-process, with the real
// `openai` SDK (mem index) and the plain HTTP query path (mem search) against a loopback
// embeddings server: the sidecar answers exactly what the exact scan answers, stays put through
// a one-file edit and a rebuild. What is found in its place (a FIFO among others) is tested with
// the CLI as a process: test/process/vector-sidecar.test.ts.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { nearestBySidecar, nearestExact } from '../../src/embeddings/stored-vectors.js';
import { normalize } from '../../src/embeddings/vectors.js';
import { fakeVector, type EmbedServer } from '../fake-embeddings.js';
import { cleanup, entry, type TempVault } from '../helpers.js';
import { run } from '../run.js';
import { headerToken, searchHits, sidecarVault, tokenOf, vectorPart } from '../sidecar-vault.js';

const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanup();
});

const setup = () => sidecarVault(run, servers);
const search = (v: TempVault, env: Record<string, string | undefined>, q: string, extra: string[] = []) => searchHits(run, v, env, q, extra);

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
    const r = await run(['index', '--json'], { cwd: v.root, home: v.home, env });
    expect(r.json().embeddings).toMatchObject({ embedded: 1, vectors: 61 });
    expect(s.requests.at(-1)!.input).toEqual(['Vehicle upkeep\nAutomobile servicing twice a year.']);
    expect(headerToken(sidecar)).toBe(token);
    expect(fs.statSync(sidecar).mtimeMs).toBe(before);
    // "car maintenance" shares no word with it; the synonyms make its vector the closest.
    const hits = await search(v, env, 'car maintenance');
    const fresh = hits.find((h) => h.id === 'new-1')!;
    expect(fresh.components.vector_rank).toBe(1);
    const rebuilt = await run(['index', '--rebuild', '--json'], { cwd: v.root, home: v.home, env });
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.json().embeddings).toMatchObject({ embedded: 0, vectors: 61 });
    expect(tokenOf(v.path('.memory.db'))).toBe(headerToken(sidecar));
    expect(vectorPart(await search(v, env, 'car maintenance'))).toEqual(vectorPart(hits));
    expect(fs.readdirSync(v.root).filter((f) => f.includes('-vec'))).toEqual(['.memory.db-vec']);
  });
});
