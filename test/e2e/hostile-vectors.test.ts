// A broken or hostile embeddings endpoint, and hostile FSRS state, end to end: the built CLI and
// the real `openai` SDK against a loopback server that answers garbage (test/fake-embeddings.ts
// `hostile`). Search falls back to lexical with one warning; `mem index --embed` fails with one
// `mem: …` line and stores nothing; nothing waits longer than the configured timeout.

import { afterEach, describe, expect, it } from 'vitest';
import { embedServer, type EmbedServer, type Hostile } from '../fake-embeddings.js';
import { cleanup, entry, mem, memAsync, tempVault } from '../helpers.js';

const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanup();
});

const NO_EMBED = { MEM_EMBED_MODEL: undefined, MEM_EMBED_BASE_URL: undefined, MEM_EMBED_PROVIDER: undefined, MEM_EMBED_DIMENSIONS: undefined, MEM_EMBED_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

/** A server that answers honestly until `mode.hostile` is set. */
async function server() {
  const mode: { hostile: Hostile | null } = { hostile: null };
  const s = await embedServer({ hostile: (input, honest) => mode.hostile?.(input, honest) ?? null });
  servers.push(s);
  return { s, mode };
}

function vault(config = '') {
  const v = tempVault();
  v.write('MEMORY.md', [
    entry('car-1', '# Car servicing schedule\nChange the engine oil every 10000 km and rotate the tyres.', { type: 'procedural' }),
    entry('upk-1', '# Garden upkeep\nMow the lawn on Saturdays; water the roses daily in summer.', { type: 'procedural' }),
    entry('db-1', '# Postgres migrations\nRun the migrations before the API tests.', { type: 'corrective' }),
  ].join(''));
  v.write('.mem/config.yaml', `embeddings:\n  timeout_ms: 1500\n  max_retries: 0\n${config}`);
  return v;
}

const envFor = (s: EmbedServer) => ({ ...NO_EMBED, MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' });

type Data = { data: { index: number; embedding: unknown[] }[] };
/** The honest answer with each vector passed through `f`. */
const mapVectors = (f: (v: number[]) => unknown[]): Hostile => (_i, h) => ({ body: JSON.stringify({ data: h.data.map((d) => ({ ...d, embedding: f(d.embedding) })) }) });
const raw = (f: (h: Data) => unknown): Hostile => (_i, h) => ({ body: JSON.stringify(f(h)) });

const HOSTILE: [string, Hostile, RegExp][] = [
  ['a null in a vector', mapVectors((v) => [null, ...v.slice(1)]), /answered a vector with null in it/],
  ['a string in a vector', mapVectors((v) => ['NaN', ...v.slice(1)]), /answered a vector with "NaN" in it/],
  ['a number beyond float32 (1e39)', mapVectors((v) => [1e39, ...v.slice(1)]), /answered a vector with 1e\+39 in it/],
  ['Infinity written as 1e400', (_i, h) => ({ body: JSON.stringify(h).replace(/"embedding":\[/g, '"embedding":[1e400,') }), /(a vector with Infinity|vectors of \d+ dimensions)/],
  ['a vector of zeros', mapVectors((v) => v.map(() => 0)), /answered a vector of zeros/],
  ['indexes shifted by one', raw((h) => ({ data: h.data.map((d) => ({ ...d, index: d.index + 1 })) })), /vector indexes that are not 0 to/],
  ['a fractional index', raw((h) => ({ data: h.data.map((d) => ({ ...d, index: d.index + 0.5 })) })), /vector indexes that are not 0 to/],
  ['a negative index', raw((h) => ({ data: h.data.map((d) => ({ ...d, index: -1 })) })), /vector indexes that are not 0 to/],
  ['more vectors than texts', raw((h) => ({ data: [...h.data, { ...h.data[0], index: h.data.length }] })), /answered \d+ vectors for \d+ texts/],
  ['a million numbers in a vector', mapVectors(() => new Array(1_000_000).fill(0.5)), /answered (more than \d+ MB|vectors of 1000000 dimensions)/],
  ['HTTP 200 with HTML', () => ({ type: 'text/html', body: '<html><body>Welcome to the captive portal</body></html>' }), /(other than JSON|answered 0 vectors)/],
  ['a redirect to another host', () => ({ status: 307, headers: { location: 'http://127.0.0.2:9/v1/embeddings' }, body: '' }), /answered with an error \(307\)/],
  ['a 30 MB body', () => ({ body: Buffer.alloc(30 * 1_048_576, 32) }), /answered more than \d+ MB/],
];

describe('mem search against a hostile embeddings endpoint', () => {
  it.each(HOSTILE)('%s: one warning naming it, lexical results, exit 0', async (_name, hostile, why) => {
    const { s, mode } = await server();
    const v = vault();
    const env = envFor(s);
    expect((await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    mode.hostile = hostile;
    const r = await memAsync(['search', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^mem: warning: embeddings unavailable: .*; lexical results only$/);
    expect(lines[0]).toMatch(why);
    expect(r.json().results.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
  });

  it('a body dripped one byte every 200 ms: the whole answer is bounded by timeout_ms, then lexical', async () => {
    const { s, mode } = await server();
    const v = vault();
    const env = envFor(s);
    expect((await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    mode.hostile = (_i, h) => ({ body: JSON.stringify(h), dripMs: 200 });
    const t0 = Date.now();
    const r = await memAsync(['search', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env });
    const ms = Date.now() - t0;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: embeddings unavailable: the embeddings endpoint \(fake-embed\) did not answer within 1500 ms; lexical results only\n$/);
    expect(ms).toBeLessThan(8000);
    expect(r.json().results.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
  });
});

describe('mem index --embed against a hostile embeddings endpoint', () => {
  it.each(HOSTILE)('%s: one mem: line, exit 1, no vector stored', async (_name, hostile, why) => {
    const { s, mode } = await server();
    const v = vault();
    const env = envFor(s);
    mode.hostile = hostile;
    const r = await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^mem: /);
    expect(r.stderr).toMatch(why);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Nothing of the garbage was kept: an honest run embeds every entry.
    mode.hostile = null;
    const again = await memAsync(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.json().embeddings).toMatchObject({ embedded: 3, vectors: 3 });
  });

  it('a body dripped one byte every 200 ms: fails within timeout_ms (the SDK\'s own timeout stops at the headers)', async () => {
    const { s, mode } = await server();
    const v = vault();
    mode.hostile = (_i, h) => ({ body: JSON.stringify(h), dripMs: 200 });
    const t0 = Date.now();
    const r = await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env: envFor(s) });
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: the embeddings endpoint \(fake-embed\) did not answer within 1500 ms/);
  });
});

describe('hostile fsrs: state', () => {
  const ID = 'aaaaaaaa-0000-4000-8000-000000000001';
  const withFsrs = (fsrs: string) => `---\nid: ${ID}\ntype: procedural\ncreated_at: "2026-11-01"\nfsrs: ${fsrs}\n---\n## Run the migrations first\n\nThe API tests need npm run db:migrate.\n`;

  it.each([
    ['a stability below FSRS\'s minimum (1e-300)', '{stability: 1e-300, difficulty: 1, last_review: "2026-01-01T00:00:00Z", reps: 1, lapses: 0, state: review}'],
    ['a stability of 1e308 and reps of 1e308', '{stability: 1e308, difficulty: 5, last_review: "2026-01-01T00:00:00Z", reps: 1e308, lapses: 1e308, state: review}'],
  ])('%s: mem review records a review (exit 0), search --rank fsrs and lint run', (_name, fsrs) => {
    const v = tempVault();
    v.write('MEMORY.md', withFsrs(fsrs));
    const env = { MEM_NOW: '2026-11-26T10:00:00Z' };
    const r = mem(['review', ID, '--rating', 'good', '--json'], { cwd: v.root, home: v.home, env });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const after = r.json().decisions[0].after;
    expect(after.stability).toBeGreaterThanOrEqual(0.001);
    expect(after.stability).toBeLessThanOrEqual(36500);
    expect(after.reps).toBeLessThanOrEqual(1_000_000_001);
    expect(v.read('MEMORY.md')).toMatch(/^fsrs: \{stability: [\d.]+, difficulty: [\d.]+, last_review: '2026-11-26T10:00:00Z', reps: \d+, lapses: \d+, state: review\}$/m);
    const s = mem(['search', 'migrations', '--rank', 'fsrs', '--ids'], { cwd: v.root, home: v.home, env });
    expect(s.status, s.stderr).toBe(0);
    expect(s.stdout.trim()).toBe(ID);
  });
});
