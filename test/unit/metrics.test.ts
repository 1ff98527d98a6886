import { describe, expect, it } from 'vitest';
import { ndcgAt, recallAt, reciprocalRank, score } from '../../src/eval/metrics.js';

describe('retrieval metrics', () => {
  const j = { ranked: ['a', 'x', 'b', 'y'], relevant: ['a', 'b', 'c'] };
  it('recall@k, MRR, nDCG@k', () => {
    expect(recallAt(j, 1)).toBeCloseTo(1 / 3);
    expect(recallAt(j, 3)).toBeCloseTo(2 / 3);
    expect(reciprocalRank({ ranked: ['x', 'b'], relevant: ['b'] })).toBe(0.5);
    expect(reciprocalRank({ ranked: ['x'], relevant: ['b'] })).toBe(0);
    expect(ndcgAt({ ranked: ['a', 'b'], relevant: ['a', 'b'] }, 2)).toBeCloseTo(1);
    expect(ndcgAt(j, 3)).toBeCloseTo((1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3) + 1 / Math.log2(4)));
  });
  it('a query without relevant ids counts as found; means over queries', () => {
    expect(recallAt({ ranked: [], relevant: [] }, 5)).toBe(1);
    const s = score([j, { ranked: [], relevant: ['z'] }], [3]);
    expect(s.recall['3']).toBeCloseTo(1 / 3);
    expect(s.queries).toBe(2);
  });
});
