// Embeddings and hybrid search end to end: the CLI in-process and the real `openai` SDK against a
// loopback /v1/embeddings server with deterministic vectors (test/fake-embeddings.ts).

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CAR_GARDEN_DB, embedServer, type EmbedServer } from '../fake-embeddings.js';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run } from '../run.js';

const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanup();
});

const NO_EMBED = { MEM_EMBED_MODEL: undefined, MEM_EMBED_BASE_URL: undefined, MEM_EMBED_PROVIDER: undefined, MEM_EMBED_DIMENSIONS: undefined, MEM_EMBED_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

async function server() {
  const s = await embedServer();
  servers.push(s);
  return s;
}

/** A vault whose one file holds four entries; the car entry shares no word with "automobile upkeep". */
function vault(config = '') {
  const v = tempVault();
  v.write('MEMORY.md', [
    ...CAR_GARDEN_DB,
    entry('misc-1', '# Coffee\nThe office coffee machine needs descaling monthly.', { type: 'procedural' }),
  ].join(''));
  if (config) v.write('.mem/config.yaml', config);
  return v;
}

const envFor = (s: EmbedServer, model = 'fake-embed') => ({ ...NO_EMBED, MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: model });
const texts = (s: EmbedServer) => s.requests.flatMap((r) => r.input);

describe('mem index --embed', () => {
  it('embeds each entry once through the SDK (float encoding), in batches, and reports it', async () => {
    const s = await server();
    const v = vault('embeddings:\n  batch_size: 3\n');
    const r = await run(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env: envFor(s) });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().embeddings).toMatchObject({ model: 'fake-embed', embedded: 4, vectors: 4, requests: 2 });
    expect(s.requests.map((q) => q.input.length)).toEqual([3, 1]);
    expect(s.requests.every((q) => q.model === 'fake-embed' && q.encoding_format === 'float')).toBe(true);
    expect(texts(s)).toContain('Car servicing schedule\nChange the engine oil every 10000 km and rotate the tyres.');
  });

  it('caches by content: a second run, a renamed file and a rebuild make no request; an edit embeds one entry', async () => {
    const s = await server();
    const v = vault();
    const env = envFor(s);
    expect((await run(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    expect(s.requests).toHaveLength(1);
    const again = await run(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env });
    expect(again.json().embeddings).toMatchObject({ embedded: 0, vectors: 4, requests: 0 });
    fs.renameSync(v.path('MEMORY.md'), v.path('notes-renamed.md'));
    fs.writeFileSync(v.path('.mem/config.yaml'), 'include: ["notes-renamed.md"]\n');
    const renamed = await run(['index', '--json'], { cwd: v.root, home: v.home, env });
    expect(renamed.status, renamed.stderr).toBe(0);
    expect(renamed.json()).toMatchObject({ entries: 4, embeddings: { embedded: 0, vectors: 4 } });
    const rebuilt = await run(['index', '--rebuild', '--json'], { cwd: v.root, home: v.home, env });
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.json().embeddings).toMatchObject({ embedded: 0, vectors: 4 });
    expect(s.requests).toHaveLength(1);
    fs.appendFileSync(v.path('notes-renamed.md'), entry('new-1', '# Bike chain\nOil the bike chain monthly.'));
    const edited = await run(['index', '--json'], { cwd: v.root, home: v.home, env });
    expect(edited.json().embeddings).toMatchObject({ embedded: 1, vectors: 5 });
    expect(s.requests[1].input).toEqual(['Bike chain\nOil the bike chain monthly.']);
  });

  it('a model change re-embeds everything and drops the old vectors', async () => {
    const s = await server();
    const v = vault();
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env: envFor(s) });
    const r = await run(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env: envFor(s, 'other-model') });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().embeddings).toMatchObject({ model: 'other-model', embedded: 4, vectors: 4 });
    expect(s.requests.map((q) => q.model)).toEqual(['fake-embed', 'other-model']);
    // Back to the first model: its vectors were dropped, so it pays again (never mixes the two).
    const back = await run(['index', '--embed', '--json'], { cwd: v.root, home: v.home, env: envFor(s) });
    expect(back.json().embeddings).toMatchObject({ model: 'fake-embed', embedded: 4 });
  });

  it('--embed without a model is a usage error; with the endpoint down it fails (exit 1), plain index only warns', async () => {
    const v = vault();
    const none = await run(['index', '--embed'], { cwd: v.root, home: v.home, env: NO_EMBED });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^mem: no embedding model is configured/m);
    const s = await server();
    const url = s.url;
    await s.close();
    servers.length = 0;
    const env = { ...NO_EMBED, MEM_EMBED_BASE_URL: url, MEM_EMBED_MODEL: 'fake-embed' };
    const down = await run(['index', '--embed'], { cwd: v.root, home: v.home, env: { ...env } });
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/^mem: cannot reach the embeddings endpoint \(fake-embed\)/m);
    const plain = await run(['index'], { cwd: v.root, home: v.home, env });
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/entries not embedded: cannot reach/);
  });
});

describe('hybrid search', () => {
  it('RRF ranks an entry that shares no word with the query; --explain shows both ranks, cosine and fused score', async () => {
    const s = await server();
    const v = vault();
    const env = envFor(s);
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    const lexical = await run(['search', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env: NO_EMBED });
    expect(lexical.json().results.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
    const r = await run(['search', 'automobile upkeep', '--json', '--explain'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const hits = r.json().results as { id: string; components: Record<string, number | null> }[];
    expect(hits.map((h) => h.id).slice(0, 2).sort()).toEqual(['car-1', 'upk-1']);
    const car = hits.find((h) => h.id === 'car-1')!;
    expect(car.components).toMatchObject({ bm25_rank: null, vector_rank: 1 });
    expect(car.components.vector).toBeGreaterThan(0.3);
    expect(car.components.fused).toBeCloseTo(1 / 61, 6);
    const garden = hits.find((h) => h.id === 'upk-1')!;
    expect(garden.components.bm25_rank).toBe(1);
    expect(garden.components.fused).toBeCloseTo(1 / 61 + 1 / (60 + garden.components.vector_rank!), 6);
    // The query was embedded in one request, after the index's one.
    expect(s.requests.at(-1)!.input).toEqual(['automobile upkeep']);
    const human = await run(['search', 'automobile upkeep', '--explain'], { cwd: v.root, home: v.home, env });
    expect(human.stdout).toMatch(/vector #1 cos 0\.\d+ · bm25 – · fused 0\.016/);
  });

  it('mem context finds the task\'s learnings the same way (hybrid), and falls back to lexical with one warning', async () => {
    const s = await server();
    const v = vault();
    const env = envFor(s);
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    const lexical = await run(['context', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env: NO_EMBED });
    expect(lexical.json().learnings.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
    const r = await run(['context', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().learnings.map((h: { id: string }) => h.id).slice(0, 2).sort()).toEqual(['car-1', 'upk-1']);
    await s.close();
    servers.length = 0;
    const down = await run(['context', 'automobile upkeep', '--json'], { cwd: v.root, home: v.home, env });
    expect(down.status).toBe(0);
    expect(down.stderr).toMatch(/^mem: warning: embeddings unavailable: .*; lexical results only$/m);
    expect(down.json().learnings.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
  });

  it('filters apply to the vector list too', async () => {
    const s = await server();
    const v = vault();
    const env = envFor(s);
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    const r = await run(['search', 'automobile', '--type', 'corrective', '--json', '--explain'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().results.map((h: { id: string }) => h.id)).toEqual(['db-1']);
  });

  it('blend fusion (search.fusion: blend) scores 0.7 × cosine + 0.3 × BM25 relevance', async () => {
    const s = await server();
    const v = vault('search:\n  fusion: blend\n');
    const env = envFor(s);
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    const r = await run(['search', 'automobile upkeep', '--json', '--explain'], { cwd: v.root, home: v.home, env });
    const car = r.json().results.find((h: { id: string }) => h.id === 'car-1');
    expect(car.components.fused).toBeCloseTo(0.7 * car.components.vector, 6);
    const garden = r.json().results.find((h: { id: string }) => h.id === 'upk-1');
    expect(garden.components.fused).toBeCloseTo(0.7 * Math.max(0, garden.components.vector ?? 0) + 0.3, 6);
  });

  it('the embeddings: block of .mem/config.yaml is enough (no environment)', async () => {
    const s = await server();
    const v = vault(`embeddings:\n  provider: openai-compatible\n  model: fake-embed\n  base_url: ${s.url}\n`);
    await run(['index'], { cwd: v.root, home: v.home, env: NO_EMBED });
    expect(s.requests).toHaveLength(1);
    const r = await run(['search', 'automobile', '--ids', '--limit', '1'], { cwd: v.root, home: v.home, env: NO_EMBED });
    expect(r.stdout.trim()).toBe('car-1');
  });

  it('outage: the endpoint down → one warning and lexical results, exit 0', async () => {
    const s = await server();
    const v = vault();
    const env = envFor(s);
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    await s.close();
    servers.length = 0;
    const r = await run(['search', 'automobile upkeep', '--json', '--explain'], { cwd: v.root, home: v.home, env });
    expect(r.status).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mem: warning: embeddings unavailable: cannot reach the embeddings endpoint \(fake-embed\).*; lexical results only$/);
    const hits = r.json().results;
    expect(hits.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
    expect(Object.keys(hits[0].components)).not.toContain('fused');
  });

  it('no vectors for the configured model yet: a warning, lexical results, and no request', async () => {
    const s = await server();
    const v = vault();
    const r = await run(['search', 'automobile upkeep', '--ids', '--no-refresh'], { cwd: v.root, home: v.home, env: envFor(s) });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('upk-1');
    expect(r.stderr).toMatch(/no vectors stored for embedding model fake-embed yet \(run `mem index --embed`\)/);
    expect(s.requests).toHaveLength(0);
  });

  it('batch search embeds all queries in one request', async () => {
    const s = await server();
    const v = vault();
    const env = envFor(s);
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    const input = '{"id":"a","query":"automobile"}\n{"id":"b","query":"release database"}\n';
    const r = await run(['search', '--batch', '-', '--limit', '1'], { cwd: v.root, home: v.home, env, input });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => JSON.parse(l).results[0].id)).toEqual(['car-1', 'db-1']);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1].input).toEqual(['automobile', 'release database']);
  });

  it('a blank query in a batch is not embedded: the endpoint refusing "" does not turn the others lexical', async () => {
    const s = await embedServer({ rejectEmpty: true });
    servers.push(s);
    const v = vault();
    const env = envFor(s);
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    const input = '{"id":"a","query":"automobile"}\n{"id":"b","query":""}\n{"id":"c","query":"   "}\n';
    const r = await run(['search', '--batch', '-', '--limit', '1'], { cwd: v.root, home: v.home, env, input });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/embeddings unavailable/);
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    // "automobile" shares no word with the car entry: only the vector finds it.
    expect(out.map((o) => [o.id, o.results.map((h: { id: string }) => h.id)])).toEqual([['a', ['car-1']], ['b', []], ['c', []]]);
    expect(s.requests.at(-1)!.input).toEqual(['automobile']);
  });

  it('without embeddings the lexical output is unchanged (no hybrid fields)', async () => {
    const v = vault();
    const r = await run(['search', 'upkeep', '--json', '--explain'], { cwd: v.root, home: v.home, env: NO_EMBED });
    expect(Object.keys(r.json().results[0].components)).toEqual(['bm25', 'vector', 'relevance', 'importance', 'decay', 'reinforcement', 'scope_multiplier', 'retrievability', 'prominence', 'mmr']);
    expect(r.json().results[0].components.vector).toBeNull();
  });
});
