import { afterEach, describe, expect, it } from 'vitest';
import { putVectors, prepareVectors } from '../../src/embeddings/stored-vectors.js';
import { normalize, topByCosine } from '../../src/embeddings/vectors.js';
import { withIndex } from '../../src/index/open.js';
import { fuse, hybridHook, RRF_K } from '../../src/retrieve/hybrid.js';
import { runSearch, type SearchRequest } from '../../src/retrieve/search.js';
import { DEFAULT_SCOPE_MULTIPLIERS } from '../../src/vault/scope.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';

afterEach(cleanup);

/** A seeded generator, so the random vectors are the same on every run. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

describe('topByCosine', () => {
  it('equals the exact top-N of a full sort (best first, ties by row)', () => {
    const r = rng(7);
    const dims = 16;
    const rows = 500;
    const m = new Float32Array(rows * dims);
    for (let i = 0; i < rows; i++) m.set(normalize(Float32Array.from({ length: dims }, r)), i * dims);
    m.set(m.subarray(3 * dims, 4 * dims), 9 * dims); // a tie: row 9 equals row 3
    const q = normalize(Float32Array.from(m.subarray(3 * dims, 4 * dims)));
    const all = Array.from({ length: rows }, (_, i) => {
      let s = 0;
      for (let d = 0; d < dims; d++) s += q[d] * m[i * dims + d];
      return { index: i, score: s };
    }).sort((a, b) => b.score - a.score || a.index - b.index);
    const top = topByCosine(q, m, dims, 50);
    expect(top.map((t) => t.index)).toEqual(all.slice(0, 50).map((t) => t.index));
    expect(top.slice(0, 2).map((t) => t.index)).toEqual([3, 9]);
    expect(topByCosine(q, m, dims, 1000)).toHaveLength(rows);
    const mask = new Uint8Array(rows).fill(1);
    mask[3] = 0;
    expect(topByCosine(q, m, dims, 2, mask).map((t) => t.index)).toEqual([9, all[2].index]);
  });
});

describe('fuse', () => {
  it('RRF: 1/(k + rank) summed over the lists an entry is in, k = 60', () => {
    const f = fuse([{ key: 1, relevance: 1 }, { key: 2, relevance: 0.5 }], [{ key: 2, cosine: 0.9 }, { key: 3, cosine: 0.4 }], 'rrf');
    expect(RRF_K).toBe(60);
    expect(f.get(1)).toEqual({ vector: null, vector_rank: null, bm25_rank: 1, fused: 1 / 61 });
    expect(f.get(2)).toEqual({ vector: 0.9, vector_rank: 1, bm25_rank: 2, fused: 1 / 62 + 1 / 61 });
    expect(f.get(3)).toEqual({ vector: 0.4, vector_rank: 2, bm25_rank: null, fused: 1 / 62 });
  });

  it('blend: 0.7 × cosine (negative counts 0) + 0.3 × BM25 relevance scaled to the best', () => {
    const f = fuse([{ key: 1, relevance: 2 }, { key: 2, relevance: 1 }], [{ key: 2, cosine: 0.5 }, { key: 3, cosine: -0.2 }], 'blend');
    expect(f.get(1)!.fused).toBeCloseTo(0.3, 12);
    expect(f.get(2)!.fused).toBeCloseTo(0.7 * 0.5 + 0.3 * 0.5, 12);
    expect(f.get(3)!.fused).toBe(0);
  });
});

describe('runSearch with a hybrid hook', () => {
  const NOW = Date.parse('2026-11-25T12:00:00Z');
  const base: Omit<SearchRequest, 'query'> = { limit: 10, candidates: 100, filter: {}, rank: 'relevance', now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS } };

  it('adds vector-only entries, keeps retired ones out of both lists, and scales the fused score so the best is 1', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('a', '# Kafka lag\nconsumer lag grows') + entry('b', '# Broker tuning\nnothing in common') + entry('r', '# Retired\nold', { status: 'retired' }));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const missing = prepareVectors(ix.db, 'm');
      expect(missing).toHaveLength(2); // retired entries are not embedded
      const vecs: Record<string, Float32Array> = { a: Float32Array.of(0, 1), b: Float32Array.of(1, 0) };
      const hashes = ix.db.prepare('SELECT entry_id, content_hash FROM entries').all() as { entry_id: string; content_hash: string }[];
      putVectors(ix.db, 'm', hashes.map((h) => ({ hash: h.content_hash, vec: vecs[h.entry_id] ?? Float32Array.of(1, 0) })));
      const res = runSearch(ix.db, { ...base, query: 'kafka', hybrid: hybridHook(Float32Array.of(1, 0), 'm', 'rrf') });
      expect(res.results.map((h) => h.id)).toEqual(['a', 'b']);
      // a: first by BM25 and second by vector; b: first by vector only.
      expect(res.results[0].components.relevance).toBe(1);
      expect(res.results[1].components.relevance).toBeCloseTo((1 / 61) / (1 / 61 + 1 / 62), 12);
      expect(res.results[1].components).toMatchObject({ bm25: -0, bm25_rank: null, vector_rank: 1, vector: 1 });
      // A query with no indexed word still finds by vector.
      const none = runSearch(ix.db, { ...base, query: 'zzzunknownword', hybrid: hybridHook(Float32Array.of(0, 1), 'm', 'rrf') });
      expect(none.results.map((h) => h.id)).toEqual(['a', 'b']);
      // Another model's hook sees no vectors: lexical candidates only.
      const other = runSearch(ix.db, { ...base, query: 'kafka', hybrid: hybridHook(Float32Array.of(1, 0), 'other', 'rrf') });
      expect(other.results.map((h) => h.id)).toEqual(['a']);
    });
  });
});
