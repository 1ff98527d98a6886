// search.vector_weight end to end: the CLI in-process, the real `openai` SDK and the loopback embeddings
// server (test/fake-embeddings.ts). The weight scales the vector list's share of the fused score.

import { afterEach, describe, expect, it } from 'vitest';
import { embedServer, type EmbedServer } from '../fake-embeddings.js';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run } from '../run.js';

const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanup();
});

const NO_EMBED = { MEM_EMBED_MODEL: undefined, MEM_EMBED_BASE_URL: undefined, MEM_EMBED_PROVIDER: undefined, MEM_EMBED_DIMENSIONS: undefined, MEM_EMBED_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };

/**
 * "espresso" matches its word in the title (BM25's best) but is far from the query's concepts;
 * "vehicle" says "automobile" once in a long body (BM25's second) and is all car and maintenance
 * (the vector list's best); the fillers push the espresso entry down the vector list.
 */
function vault() {
  const v = tempVault();
  v.write('MEMORY.md', [
    entry('espresso', '# Automobile espresso\nDescale the espresso machine monthly.'),
    entry('vehicle', '# Vehicle repair\nThe car needs service and the vehicle needs repair at the garage; take the automobile in on Monday morning before the weekly planning meeting with the whole team.'),
    entry('fleet', '# Fleet cars\nCars get maintenance and upkeep each spring.'),
    entry('bikes', '# Bike upkeep\nService the bikes and repair flat tyres.'),
    entry('db', '# Postgres\nRun the database migrations first.'),
  ].join(''));
  return v;
}

type Hit = { id: string; components: { bm25_rank: number | null; vector_rank: number | null; vector: number | null; fused: number } };

async function search(weight: string | null) {
  const s = await embedServer();
  servers.push(s);
  const v = vault();
  if (weight !== null) v.write('.mem/config.yaml', `search:\n  vector_weight: ${weight}\n`);
  const env = { ...NO_EMBED, MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' };
  const idx = await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
  expect(idx.status, idx.stderr).toBe(0);
  const r = await run(['search', 'automobile servicing', '--json', '--explain'], { cwd: v.root, home: v.home, env });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return { v, env, hits: r.json().results as Hit[] };
}

const ids = (hits: Hit[]) => hits.map((h) => h.id);
const before = (hits: Hit[], a: string, b: string) => ids(hits).indexOf(a) < ids(hits).indexOf(b);

/** The RRF score an entry should have from the ranks --explain reports. */
const rrf = (h: Hit, w: number) => (h.components.bm25_rank ? 1 / (60 + h.components.bm25_rank) : 0) + (h.components.vector_rank ? w / (60 + h.components.vector_rank) : 0);

describe('search.vector_weight', () => {
  it('unset is plain RRF; a lower weight lets BM25\'s best stay on top; --explain shows the weighted fused score', async () => {
    const plain = await search(null);
    for (const h of plain.hits) expect(h.components.fused).toBeCloseTo(rrf(h, 1), 9);
    expect(before(plain.hits, 'vehicle', 'espresso')).toBe(true);
    const one = await search('1.0');
    expect(one.hits).toEqual(plain.hits);

    const low = await search('0.3');
    expect(before(low.hits, 'espresso', 'vehicle')).toBe(true);
    for (const h of low.hits) expect(h.components.fused).toBeCloseTo(rrf(h, 0.3), 9);
    // The vector list still brings its candidates (and shows their ranks and cosine).
    const fleet = low.hits.find((h) => h.id === 'fleet')!;
    expect(fleet.components).toMatchObject({ bm25_rank: null, vector_rank: 1 });
    expect(fleet.components.vector).toBeGreaterThan(0);
    const human = await run(['search', 'automobile servicing', '--explain'], { cwd: low.v.root, home: low.v.home, env: low.env });
    expect(human.stdout).toMatch(new RegExp(`vector #1 cos 0\\.\\d+ · bm25 – · fused ${(0.3 / 61).toFixed(3).replace('.', '\\.')}`));
  });

  it('weight 0: the lexical order, vector-only entries after every BM25 hit', async () => {
    const lexical = vault();
    const lex = await run(['search', 'automobile servicing', '--json'], { cwd: lexical.root, home: lexical.home, env: NO_EMBED });
    const lexIds = ids(lex.json().results as Hit[]);
    const zero = await search('0');
    // Every BM25 hit before every vector-only one, in the lexical search's order of relevance
    // (diversity may swap near-ties after fusion: adjacent RRF ranks differ by under 2%).
    expect(new Set(ids(zero.hits).slice(0, lexIds.length))).toEqual(new Set(lexIds));
    const byBm25 = zero.hits.filter((h) => h.components.bm25_rank !== null).sort((a, b) => a.components.bm25_rank! - b.components.bm25_rank!);
    expect(ids(byBm25)).toEqual(lexIds);
    expect(ids(zero.hits).length).toBeGreaterThan(lexIds.length);
  });

  it('blend: the vector share is weight × 0.7 × cosine', async () => {
    const s = await embedServer();
    servers.push(s);
    const v = vault();
    v.write('.mem/config.yaml', 'search:\n  fusion: blend\n  vector_weight: 0.5\n');
    const env = { ...NO_EMBED, MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' };
    await run(['index', '--embed'], { cwd: v.root, home: v.home, env });
    const r = await run(['search', 'automobile servicing', '--json', '--explain'], { cwd: v.root, home: v.home, env });
    const fleet = (r.json().results as Hit[]).find((h) => h.id === 'fleet')!;
    expect(fleet.components.bm25_rank).toBeNull();
    expect(fleet.components.fused).toBeCloseTo(0.5 * 0.7 * fleet.components.vector!, 9);
  });

  for (const bad of ['3', '-1', 'lots']) {
    it(`vector_weight: ${bad} is one mem: line naming .mem/config.yaml, exit 1`, async () => {
      const s = await embedServer();
      servers.push(s);
      const v = vault();
      v.write('.mem/config.yaml', `search:\n  vector_weight: ${bad}\n`);
      const r = await run(['search', 'automobile', '--json'], { cwd: v.root, home: v.home, env: { ...NO_EMBED, MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' } });
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('hint:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^mem: search\.vector_weight must be a number from 0 to 2 \(got .+\) \(\.mem\/config\.yaml\)$/);
      expect(s.requests).toHaveLength(0);
    });
  }
});
