// leaveOneOutScales (src/episodes/segment.ts): the same numbers as distanceScale on every
// leave-one-out list, which segment() used to compute with a sort per message.

import { describe, expect, it } from 'vitest';
import { distanceScale, leaveOneOutScales } from '../../src/episodes/segment.js';

/** A deterministic pseudo-random list with ties (values on a coarse grid) and outliers. */
function list(n: number, seed: number): number[] {
  let x = seed;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: n }, () => (next() < 0.1 ? 1 - next() * 0.01 : Math.round(next() * 40) / 40));
}

describe('leaveOneOutScales', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 50, 333])('equals distanceScale of each list without one value (n = %i)', (n) => {
    for (const seed of [1, 2, 3]) {
      const xs = list(n, seed + n);
      const fast = leaveOneOutScales(xs);
      expect(fast).toEqual(xs.map((_, i) => distanceScale(xs.filter((_, j) => j !== i))));
    }
  });

  it('all equal values and a single outlier', () => {
    const xs = [0.5, 0.5, 0.5, 0.5, 0.9];
    expect(leaveOneOutScales(xs)).toEqual(xs.map((_, i) => distanceScale(xs.filter((_, j) => j !== i))));
  });

  it('scales to 100k values', () => {
    const xs = list(100_000, 9);
    expect(leaveOneOutScales(xs)).toHaveLength(100_000); // a quadratic pass would run past the timeout
  });
});
