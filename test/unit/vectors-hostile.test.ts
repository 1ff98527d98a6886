// The exact top-N scan (src/embeddings/vectors.ts topByCosine) over rows holding NaN or Infinity,
// as a damaged vector table can: such rows are no candidates and the order of the rest holds.

import { describe, expect, it } from 'vitest';
import { topByCosine } from '../../src/embeddings/vectors.js';

describe('topByCosine with non-finite rows', () => {
  it('skips NaN and Infinity rows and ranks the others as without them', () => {
    const q = Float32Array.of(1, 0);
    const rows = Float32Array.of(NaN, NaN, 0.6, 0.8, Infinity, 0, 1, 0, -Infinity, 1, 0, 1);
    const top = topByCosine(q, rows, 2, 10);
    expect(top.map((t) => t.index)).toEqual([3, 1, 5]);
    expect(top.every((t) => Number.isFinite(t.score))).toBe(true);
    // A NaN row first does not poison the floor: the best two are still found.
    expect(topByCosine(q, rows, 2, 2).map((t) => t.index)).toEqual([3, 1]);
  });
});
