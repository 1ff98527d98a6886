import { describe, expect, it } from 'vitest';
import { jaccard, selectMmr, tokenSet } from '../../src/retrieve/mmr.js';

describe('MMR and budget', () => {
  it('jaccard over body tokens', () => {
    expect(jaccard(tokenSet('alpha beta gamma'), tokenSet('alpha beta delta'))).toBeCloseTo(2 / 4);
    expect(jaccard(tokenSet(''), tokenSet(''))).toBe(0);
  });
  it('prefers a diverse second result over a near-duplicate', () => {
    const items = [
      { score: 1.0, text: 'run database migrations before api tests', size: 10 },
      { score: 0.95, text: 'run database migrations before api tests please', size: 10 },
      { score: 0.8, text: 'deploy needs the vpn to be up', size: 10 },
    ];
    expect(selectMmr(items, 2).map((p) => p.index)).toEqual([0, 2]);
    expect(selectMmr(items, 3).map((p) => p.index)).toEqual([0, 2, 1]);
  });
  it('skips an item that does not fit the budget and keeps going', () => {
    const items = [
      { score: 1.0, text: 'a one', size: 50 },
      { score: 0.9, text: 'b two', size: 80 },
      { score: 0.8, text: 'c three', size: 30 },
    ];
    expect(selectMmr(items, 10, 100).map((p) => p.index)).toEqual([0, 2]);
  });
  it('respects the limit', () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ score: 1 - i / 100, text: `doc ${i} unique${i}`, size: 1 }));
    expect(selectMmr(items, 5)).toHaveLength(5);
  });
  it('picks exactly what the plain greedy loop picks (sorted or not, with or without a budget)', () => {
    const plain = (items: { score: number; text: string; size: number }[], limit: number, maxChars?: number, lambda = 0.7) => {
      const top = Math.max(...items.map((i) => i.score)) || 1;
      const toks = items.map((i) => tokenSet(i.text));
      const maxSim = new Float64Array(items.length);
      const done = new Uint8Array(items.length);
      const like = new Array<number | null>(items.length).fill(null);
      const picks: { index: number; mmr: number; like: number | null }[] = [];
      let budget = maxChars ?? Infinity;
      while (picks.length < limit) {
        let best = -1;
        let bestVal = -Infinity;
        for (let i = 0; i < items.length; i++) {
          if (done[i]) continue;
          const val = lambda * (items[i].score / top) - (1 - lambda) * maxSim[i];
          if (val > bestVal) {
            bestVal = val;
            best = i;
          }
        }
        if (best === -1) break;
        done[best] = 1;
        if (items[best].size > budget) continue;
        budget -= items[best].size;
        picks.push({ index: best, mmr: bestVal, like: like[best] });
        for (let i = 0; i < items.length; i++) {
          const s = jaccard(toks[i], toks[best]);
          if (!done[i] && s > maxSim[i]) {
            maxSim[i] = s;
            like[i] = picks.length - 1;
          }
        }
      }
      return picks;
    };
    let seed = 5;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    const vocab = Array.from({ length: 30 }, (_, i) => `w${i}`);
    for (let round = 0; round < 300; round++) {
      const n = 1 + rand(70);
      const items = Array.from({ length: n }, () => ({
        score: rand(4) === 0 ? 0.5 : rand(1000) / 1000, // ties too
        text: Array.from({ length: 1 + rand(12) }, () => vocab[rand(rand(2) ? 8 : 30)]).join(' '),
        size: 1 + rand(400),
      }));
      if (round % 2 === 0) items.sort((a, b) => b.score - a.score);
      const limit = 1 + rand(15);
      const maxChars = rand(3) === 0 ? 500 + rand(2000) : undefined;
      expect(selectMmr(items, limit, maxChars), `round ${round}`).toEqual(plain(items, limit, maxChars));
    }
  });
});
