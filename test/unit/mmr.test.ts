import { describe, expect, it } from 'vitest';
import { jaccard, selectMmr, tokenSet } from '../../src/retrieve/mmr.js';

describe('MMR and budget', () => {
  it('jaccard over body tokens', () => {
    expect(jaccard(tokenSet('alpha beta gamma'), tokenSet('alpha beta delta'))).toBeCloseTo(2 / 4);
    expect(jaccard(tokenSet(''), tokenSet(''))).toBe(0);
  });
  it('prefers a diverse second result over a near-duplicate', () => {
    const items = [
      { score: 1.0, body: 'run database migrations before api tests', size: 10 },
      { score: 0.95, body: 'run database migrations before api tests please', size: 10 },
      { score: 0.8, body: 'deploy needs the vpn to be up', size: 10 },
    ];
    expect(selectMmr(items, 2).map((p) => p.index)).toEqual([0, 2]);
    expect(selectMmr(items, 3).map((p) => p.index)).toEqual([0, 2, 1]);
  });
  it('skips an item that does not fit the budget and keeps going', () => {
    const items = [
      { score: 1.0, body: 'a one', size: 50 },
      { score: 0.9, body: 'b two', size: 80 },
      { score: 0.8, body: 'c three', size: 30 },
    ];
    expect(selectMmr(items, 10, 100).map((p) => p.index)).toEqual([0, 2]);
  });
  it('respects the limit', () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ score: 1 - i / 100, body: `doc ${i} unique${i}`, size: 1 }));
    expect(selectMmr(items, 5)).toHaveLength(5);
  });
});
