// A broken or hostile embeddings endpoint, and hostile FSRS state, end to end: the CLI and the
// real `openai` SDK against a loopback server that answers garbage (test/fake-embeddings.ts
// `hostile`). Search falls back to lexical with one warning; `mem index --embed` fails with one
// `mem: …` line and stores nothing; a dripping answer ends at the configured timeout.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CAR_GARDEN_DB, embedServer, type EmbedServer, type Hostile } from '../fake-embeddings.js';
import { anthropicMessage, closeServers, fakeServer, openaiCompletion } from '../fake-llm.js';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run } from '../run.js';

const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await closeServers();
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

/**
 * The client's timeout where the server answers: generous, since a busy machine can take long
 * over an answer that must come (a search waits 10 s at most whatever it says). Only a server
 * that drips for minutes meets DRIP_TIMEOUT_MS.
 */
const ANSWER_TIMEOUT_MS = 120_000;
const DRIP_TIMEOUT_MS = 1500;
const embedConfig = (timeoutMs: number) => `embeddings:\n  timeout_ms: ${timeoutMs}\n  max_retries: 0\n`;

function vault() {
  const v = tempVault();
  v.write('MEMORY.md', [
    ...CAR_GARDEN_DB,
  ].join(''));
  v.write('.mem/config.yaml', embedConfig(ANSWER_TIMEOUT_MS));
  return v;
}

const envFor = (s: EmbedServer) => ({ ...NO_EMBED, MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' });

type Data = { data: { index: number; embedding: unknown[] }[] };
/** The honest answer with each vector passed through `f`. */
const mapVectors = (f: (v: number[]) => unknown[]): Hostile => (_i, h) => ({ body: JSON.stringify({ data: h.data.map((d) => ({ ...d, embedding: f(d.embedding) })) }) });
const raw = (f: (h: Data) => unknown): Hostile => (_i, h) => ({ body: JSON.stringify(f(h)) });
/**
 * The honest answer with every vector replaced by the JSON text `vector`, spliced in: the bytes
 * mapVectors would send, without the server serialising a huge array for each request (in the
 * same process as the CLI, that work would eat the client's timeout).
 */
const spliceVectors = (vector: string): Hostile => (_i, h) => ({ body: JSON.stringify({ data: h.data.map((d) => ({ ...d, embedding: '\u0000' })) }).replaceAll('"\\u0000"', () => vector) });
/** A vector of a million numbers (0.5) as JSON.stringify writes it. */
const MILLION = `[${'0.5,'.repeat(999_999)}0.5]`;

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
  ['a million numbers in a vector', spliceVectors(MILLION), /answered (more than \d+ MB|vectors of 1000000 dimensions)/],
  ['HTTP 200 with HTML', () => ({ type: 'text/html', body: '<html><body>Welcome to the captive portal</body></html>' }), /(other than JSON|answered 0 vectors)/],
  ['a redirect to another host', () => ({ status: 307, headers: { location: 'http://127.0.0.2:9/v1/embeddings' }, body: '' }), /answered with an error \(307\)/],
  ['a 30 MB body', () => ({ body: Buffer.alloc(30 * 1_048_576, 32) }), /answered more than \d+ MB/],
];

describe('mem search against a hostile embeddings endpoint', () => {
  it.each(HOSTILE)('%s: one warning naming it, lexical results, exit 0', async (_name, hostile, why) => {
    const { s, mode } = await server();
    const v = vault();
    const env = envFor(s);
    expect((await run(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    mode.hostile = hostile;
    const r = await run(['search', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env });
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
    expect((await run(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    // Over a kilobyte at 200 ms a byte: minutes, past this test's timeout. The answer can only
    // come from mem's own deadline, which the warning names.
    v.write('.mem/config.yaml', embedConfig(DRIP_TIMEOUT_MS));
    mode.hostile = (_i, h) => ({ body: JSON.stringify(h), dripMs: 200 });
    const r = await run(['search', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: embeddings unavailable: the embeddings endpoint \(fake-embed\) did not answer within 1500 ms; lexical results only\n$/);
    expect(r.json().results.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
  });
});

describe('mem index --embed against a hostile embeddings endpoint', () => {
  it.each(HOSTILE)('%s: one mem: line, exit 1, no vector stored', async (_name, hostile, why) => {
    const { s, mode } = await server();
    const v = vault();
    const env = envFor(s);
    mode.hostile = hostile;
    const r = await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^mem: /);
    expect(r.stderr).toMatch(why);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Nothing of the garbage was kept: an honest run embeds every entry.
    mode.hostile = null;
    const again = await run(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.json().embeddings).toMatchObject({ embedded: 3, vectors: 3 });
  });

  it('a body dripped one byte every 200 ms: fails within timeout_ms (the SDK\'s own timeout stops at the headers)', async () => {
    const { s, mode } = await server();
    const v = vault();
    v.write('.mem/config.yaml', embedConfig(DRIP_TIMEOUT_MS));
    // Kilobytes at 200 ms a byte: the end comes from mem's own deadline, which the error names.
    mode.hostile = (_i, h) => ({ body: JSON.stringify(h), dripMs: 200 });
    const r = await run(['index', '--embed'], { cwd: v.root, home: v.home, env: envFor(s) });
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
  ])('%s: mem review records a review (exit 0), search --rank fsrs and lint run', async (_name, fsrs) => {
    const v = tempVault();
    v.write('MEMORY.md', withFsrs(fsrs));
    const env = { MEM_NOW: '2026-11-26T10:00:00Z' };
    const r = await run(['review', ID, '--rating', 'good', '--json'], { cwd: v.root, home: v.home, env });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const after = r.json().decisions[0].after;
    expect(after.stability).toBeGreaterThanOrEqual(0.001);
    expect(after.stability).toBeLessThanOrEqual(36500);
    expect(after.reps).toBeLessThanOrEqual(1_000_000_001);
    expect(v.read('MEMORY.md')).toMatch(/^fsrs: \{stability: [\d.]+, difficulty: [\d.]+, last_review: '2026-11-26T10:00:00Z', reps: \d+, lapses: \d+, state: review\}$/m);
    const s = await run(['search', 'migrations', '--rank', 'fsrs', '--ids'], { cwd: v.root, home: v.home, env });
    expect(s.status, s.stderr).toBe(0);
    expect(s.stdout.trim()).toBe(ID);
  });
});

describe('a damaged vector table or sidecar in .memory.db', () => {
  /** Six entries embedded; `damage` then edits the index's vectors table or its sidecar. */
  async function damaged(damage: (db: Database.Database, sidecar: string) => void) {
    const { s } = await server();
    const v = vault();
    v.write('MEMORY.md', [1, 2, 3, 4, 5].map((i) => entry(`car-${i}`, `# Car note ${i}\nServicing the car engine oil, note ${i}.`)).join('')
      + entry('upk-1', '# Garden upkeep\nMow the lawn on Saturdays.'));
    const env = envFor(s);
    expect((await run(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    const db = new Database(v.path('.memory.db'));
    try {
      damage(db, v.path('.memory.db-vec'));
    } finally {
      db.close();
    }
    const before = v.read('MEMORY.md');
    const r = await run(['search', 'automobile servicing', '--json', '--explain'], { cwd: v.root, home: v.home, env });
    expect(v.read('MEMORY.md')).toBe(before);
    return { v, env, r };
  }
  const firstId = (db: Database.Database) => (db.prepare("SELECT v.id FROM vectors v JOIN entries e ON e.content_hash = v.hash WHERE e.entry_id = 'car-1'").get() as { id: number }).id;
  const setVec = (db: Database.Database, vec: unknown) => db.prepare('UPDATE vectors SET vec = ? WHERE id = ?').run(vec, firstId(db));
  const floats = (n: number, x: number) => Buffer.from(new Float32Array(n).fill(x).buffer);
  const dimsOf = (db: Database.Database) => (db.prepare('SELECT length(vec) / 4 AS d FROM vectors LIMIT 1').get() as { d: number }).d;

  it.each([
    ['a NaN vector, sidecar kept', (db: Database.Database) => setVec(db, floats(dimsOf(db), NaN)), false],
    ['a NaN vector, no sidecar (exact scan)', (db: Database.Database, sc: string) => (setVec(db, floats(dimsOf(db), NaN)), fs.rmSync(sc)), false],
    ['an Infinity vector, no sidecar', (db: Database.Database, sc: string) => (setVec(db, floats(dimsOf(db), Infinity)), fs.rmSync(sc)), false],
    ['a text value for the vector, no sidecar', (db: Database.Database, sc: string) => (setVec(db, 'hello'), fs.rmSync(sc)), true],
    ['a 3-byte vector as the first row, no sidecar', (db: Database.Database, sc: string) => (setVec(db, Buffer.from([1, 2, 3])), fs.rmSync(sc)), true],
    ['a 50 MB vector, no sidecar', (db: Database.Database, sc: string) => (setVec(db, Buffer.alloc(50_000_000)), fs.rmSync(sc)), true],
  ])('%s: search ranks the sound vectors and no NaN (exit 0, nothing on stderr); mem index --embed repairs what it can', async (_name, damage, repaired) => {
    const { v, env, r } = await damaged(damage);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const hits = r.json().results as { id: string; components: { vector: number | null; fused: number } }[];
    // The damaged entry has no vector score; every other car note has a finite one, and ranks above it.
    expect(hits.find((h) => h.id === 'car-1')?.components.vector ?? null).toBeNull();
    for (const i of [2, 3, 4, 5]) expect(Number.isFinite(hits.find((h) => h.id === `car-${i}`)!.components.vector)).toBe(true);
    expect(hits[0].id).not.toBe('car-1');
    expect(hits.every((h) => Number.isFinite(h.components.fused))).toBe(true);
    const again = await run(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.json().embeddings.embedded).toBe(repaired ? 1 : 0);
  });

  /** The sidecar's header and where its parts start (src/embeddings/quantized.ts layout). */
  const parts = (sc: string) => {
    const b = fs.readFileSync(sc);
    const len = b.readUInt32LE(8);
    const h = JSON.parse(b.toString('utf8', 12, 12 + len));
    const scalesAt = Math.ceil((12 + len) / 16) * 16;
    return { b, h, len, scalesAt, hashesAt: scalesAt + 4 * h.n, matrixAt: Math.ceil((scalesAt + 4 * h.n + h.hashLen * h.n) / 16) * 16 };
  };
  /** The sidecar with its header replaced (same length, padded with spaces), the rest as it was. */
  const rehead = (sc: string, f: (h: Record<string, unknown>) => Record<string, unknown>) => {
    const { b, h, len } = parts(sc);
    const json = Buffer.from(JSON.stringify(f(h)).padEnd(len, ' '));
    if (json.length === len) json.copy(b, 12);
    else b.writeUInt32LE(json.length, 8), b.set(json.subarray(0, len), 12);
    fs.writeFileSync(sc, b);
  };

  it.each([
    ['NaN scales', (_db: Database.Database, sc: string) => {
      const { b, h, scalesAt } = parts(sc);
      for (let i = 0; i < h.n; i++) b.writeFloatLE(NaN, scalesAt + 4 * i);
      fs.writeFileSync(sc, b);
    }],
    ['garbage hashes and rows', (_db: Database.Database, sc: string) => {
      const { b, hashesAt } = parts(sc);
      for (let i = hashesAt; i < b.length; i++) b[i] = (i * 7919) & 0xff;
      fs.writeFileSync(sc, b);
    }],
    ['a header counting a million rows', (_db: Database.Database, sc: string) => rehead(sc, (h) => ({ ...h, n: 1_000_000 }))],
    ['a header with negative and fractional numbers', (_db: Database.Database, sc: string) => rehead(sc, (h) => ({ ...h, n: -1, dims: 1.5 }))],
    ['a header with huge dims', (_db: Database.Database, sc: string) => rehead(sc, (h) => ({ ...h, dims: 2 ** 31, stride: 2 ** 31 }))],
    ['a header with a maxId beyond every row', (_db: Database.Database, sc: string) => rehead(sc, (h) => ({ ...h, maxId: 1e300 }))],
    ['a truncated file', (_db: Database.Database, sc: string) => fs.truncateSync(sc, fs.statSync(sc).size - 7)],
    ['a header length of 4 GB', (_db: Database.Database, sc: string) => {
      const b = fs.readFileSync(sc);
      b.writeUInt32LE(0xffffffff, 8);
      fs.writeFileSync(sc, b);
    }],
    ['a directory', (_db: Database.Database, sc: string) => (fs.rmSync(sc), fs.mkdirSync(sc))],
  ])('a sidecar with %s: search answers from the sound vectors (exit 0, nothing on stderr)', async (_name, damage) => {
    const { r } = await damaged(damage);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const hits = r.json().results as { id: string; components: { vector: number | null } }[];
    expect(hits.filter((h) => h.id.startsWith('car-')).length).toBe(5);
    expect(hits.every((h) => h.components.vector === null || Number.isFinite(h.components.vector))).toBe(true);
  });
});

describe('mem segment on a very long transcript', () => {
  it('40,000 messages are segmented, every one counted (the time it takes: npm run bench)', async () => {
    const v = tempVault();
    const words = 'deploy database car garden coffee migration test build release schema index vector cache queue lambda'.split(' ');
    const t0 = Date.parse('2026-11-01T00:00:00Z');
    const lines: string[] = [];
    for (let i = 0; i < 40_000; i++) {
      const role = i % 2 ? 'assistant' : 'user';
      const text = `message ${i} about ${Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 13 + Math.floor(i / 500)) % words.length]).join(' ')}`;
      lines.push(JSON.stringify({ type: role, sessionId: 'S', uuid: `u${i}`, timestamp: new Date(t0 + i * 60_000).toISOString(), message: role === 'user' ? { role, content: text } : { role, content: [{ type: 'text', text }] } }));
    }
    v.write('long.jsonl', lines.join('\n'));
    const r = await run(['segment', 'long.jsonl', '--session', 'long', '--dry-run', '--json', '--provider', 'heuristic'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().messages).toBe(40_000);
  }, 60_000);
});

describe('an episodes file with hostile surprise, dates and fsrs: maps', () => {
  const ep = (n: string, f: Record<string, string>) => `---\nid: ep-x-${n}\ntype: declarative\nimportance: 0.5\nstatus: active\ncreated_at: '2026-11-01'\nkind: episode\nsession_id: x\n`
    + Object.entries(f).map(([k, v]) => `${k}: ${v}\n`).join('') + `---\n## [2026-11-01] episode ${n} about deploys\n\nthe deploy failed ${n}\n\n`;
  const FILE = '# Episodes of session x\n\n'
    + ep('001', { start_at: "'99999-01-01T00:00:00Z'", end_at: "'+275760-09-13T00:00:00Z'", surprise: '1e308', key_moment: 'true', fsrs: "{stability: 1e308, difficulty: 1e308, last_review: '99999-12-31', reps: -5, lapses: abc, state: 99}" })
    + ep('002', { start_at: '{a: 1}', end_at: '[1, 2]', message_start: '-1', message_end: '1e400', surprise: 'NaN', key_moment: 'maybe', fsrs: '{stability: {x: 1}, difficulty: [1], last_review: {}, state: {}}' })
    + ep('003', { start_at: "'not a date'", surprise: '-3', fsrs: "'a string'" })
    + ep('004', { start_at: "'2026-11-01T00:00:00Z'", end_at: "'2026-11-01T00:00:00Z'", surprise: '.nan', fsrs: '[1, 2, 3]' })
    + ep('005', { start_at: "'2026-11-02T00:00:00Z'", end_at: "'2026-11-02T00:00:00Z'", surprise: '0.9', fsrs: "{stability: 1e-300, difficulty: 0.5, last_review: '2026-11-01T00:00:00Z', state: relearning}" });
  const env = { MEM_NOW: '2026-11-26T10:00:00Z' };

  it('recent, search and context read it without a crash or a false key moment; nothing is written', async () => {
    const v = tempVault();
    v.write('.mem/episodes/x.md', FILE);
    for (const args of [['recent'], ['recent', '--detail', 'full'], ['recent', '--json'], ['search', 'deploy', '--rank', 'fsrs', '--json'], ['search', 'deploy', '--json'], ['context', 'deploy']]) {
      const r = await run(args, { cwd: v.root, home: v.home, env });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/\n\s+at |looks like a bug/);
    }
    const recent = (await run(['recent', '--json'], { cwd: v.root, home: v.home, env })).json().episodes as { id: string; surprise: number | null; key_moment: boolean }[];
    // Only 0.9 is a surprise (and a key moment); 1e308, -3, NaN are none.
    expect(Object.fromEntries(recent.map((e) => [e.id, [e.surprise, e.key_moment]]))).toEqual({
      'ep-x-001': [null, false], 'ep-x-002': [null, false], 'ep-x-003': [null, false], 'ep-x-004': [null, false], 'ep-x-005': [0.9, true],
    });
    const hits = (await run(['search', 'deploy', '--json'], { cwd: v.root, home: v.home, env })).json().results as { id: string; key_moment?: boolean; episode?: { key_moment: boolean } }[];
    const marked = hits.filter((h) => (h.episode?.key_moment ?? h.key_moment) === true).map((h) => h.id);
    expect(marked).toEqual(['ep-x-005']);
    expect(v.read('.mem/episodes/x.md')).toBe(FILE);
  });

  it('mem lint names each bad value (exit 1); mem review of each records a review and changes only its fsrs line', async () => {
    const v = tempVault();
    v.write('.mem/episodes/x.md', FILE);
    const lint = await run(['lint'], { cwd: v.root, home: v.home, env });
    expect(lint.status).toBe(1);
    expect(lint.stdout + lint.stderr).toMatch(/surprise must be a number from 0 to 1 \(got 1e\+308\)/);
    for (const n of ['001', '002', '003', '004', '005']) {
      const before = v.read('.mem/episodes/x.md');
      const r = await run(['review', `ep-x-${n}`, '--rating', 'again', '--json'], { cwd: v.root, home: v.home, env });
      expect(r.status, `${n}: ${r.stderr}`).toBe(0);
      const after = v.read('.mem/episodes/x.md');
      const changed = after.split('\n').filter((l, i) => l !== before.split('\n')[i]);
      expect(changed, n).toHaveLength(1);
      expect(changed[0]).toMatch(/^fsrs: \{stability: [\d.]+, difficulty: [\d.]+, last_review: '2026-11-26T10:00:00Z', reps: \d+, lapses: \d+, state: \w+\}$/);
    }
  });
});

describe('a language model that drips its answer (the SDKs\' timeout stops at the headers)', () => {
  const LLM_ENV = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined };
  const transcript = () => [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => JSON.stringify({
    type: i % 2 ? 'assistant' : 'user', sessionId: 'S', uuid: `u${i}`, timestamp: new Date(Date.parse('2026-11-01T00:00:00Z') + i * 60_000).toISOString(),
    message: i % 2 ? { role: 'assistant', content: [{ type: 'text', text: `answer ${i} about the deploy pipeline` }] } : { role: 'user', content: `question ${i} about the deploy pipeline and its cache` },
  })).join('\n');

  // Padded, so that the whole answer would take minutes to drip, past the test's timeout: an end
  // at all is mem's own deadline, which its message names.
  const padded = (answer: unknown) => `${JSON.stringify(answer)}${' '.repeat(2000)}`;

  it('mem segment (topic channel, openai wire): one warning within llm.timeout_ms, the offline episodes', async () => {
    const srv = await fakeServer([{ body: padded(openaiCompletion(JSON.stringify({ boundaries: [] }))), dripMs: 200 }]);
    const v = tempVault();
    v.write('.mem/config.yaml', 'llm:\n  timeout_ms: 1500\n  max_retries: 0\nepisodes:\n  topic: true\n');
    v.write('t.jsonl', transcript());
    const r = await run(['segment', 't.jsonl', '--json', '--dry-run', '--provider', 'openai', '--base-url', `${srv.url}/v1`, '--model', 'm'], { cwd: v.root, home: v.home, env: LLM_ENV });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: topic channel failed \(openai \(m\) did not answer within 1500 ms\); episodes cut by the rules and surprise only\n$/);
    expect(r.json().channels.topic).toBe(false);
  });

  it('mem extract (anthropic wire): fails within --timeout with one line, nothing written', async () => {
    const srv = await fakeServer([{ body: padded(anthropicMessage({ learnings: [] })), dripMs: 200 }]);
    const v = tempVault();
    v.write('.mem/config.yaml', 'llm:\n  max_retries: 0\n');
    v.write('t.jsonl', transcript());
    v.write('MEMORY.md', '# Project memory\n');
    const before = v.read('MEMORY.md');
    const r = await run(['extract', 't.jsonl', '--no-fallback', '--timeout', '1500'], { cwd: v.root, home: v.home, env: { ...LLM_ENV, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: anthropic \(claude-haiku-4-5\) did not answer within 1500 ms$/m);
    expect(v.read('MEMORY.md')).toBe(before);
  });
});

describe('consolidation of an episode with a hostile surprise', () => {
  const file = (surprise: string) => `# Episodes of session y\n\n---\nid: ep-y-001\ntype: declarative\nimportance: 0.5\nstatus: active\ncreated_at: '2026-11-01'\nkind: episode\nsession_id: y\n`
    + `start_at: '2026-11-01T00:00:00Z'\nend_at: '2026-11-01T00:10:00Z'\nmessage_start: 1\nmessage_end: 2\nsurprise: ${surprise}\nkey_moment: true\nconsolidated_at: null\n---\n`
    + '## [2026-11-01] the deploy broke\n\nthe deploy broke because the cache was stale\n\n<details>\n<summary>Messages 1–2 (2)</summary>\n\n'
    + '**user** · 2026-11-01T00:00:00Z\n\n> the deploy keeps failing, always clear the CDN cache before deploying\n\n**assistant** · 2026-11-01T00:01:00Z\n\n> Cleared the cache; the deploy now passes.\n\n</details>\n';

  it.each([['1e308', false, null], ['-1', false, null], ['0.9', true, 'flashbulb']])('surprise %s: due %s (a flashbulb only from 0.85 to 1)', async (surprise, due, why) => {
    const v = tempVault();
    v.write('.mem/episodes/y.md', file(surprise));
    const r = await run(['consolidate', '--episodes', '--dry-run', '--json', '--provider', 'heuristic'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ due, why, waiting: 1 });
    expect(v.read('.mem/episodes/y.md')).toBe(file(surprise));
  });
});
