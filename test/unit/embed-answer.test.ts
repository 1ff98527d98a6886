// The embeddings answer check (src/embeddings/query.ts checkedVectors, answerCap) and the clamping
// of a hostile `fsrs:` map (src/fsrs/state.ts fsrsStateOf): pure logic, hostile inputs.

import { describe, expect, it } from 'vitest';
import { answerCap, checkedVectors, MAX_DIMS, type EmbedSettings } from '../../src/embeddings/query.js';
import { fsrsStateOf, reviewState, STABILITY_MAX, STABILITY_MIN } from '../../src/fsrs/state.js';

const S = { model: 'm', batchSize: 64, timeoutMs: 1000, maxRetries: 0, fusion: 'rrf', vectorWeight: 1 } as EmbedSettings;
const row = (index: unknown, embedding: unknown) => ({ index, embedding });

describe('checkedVectors', () => {
  it('places vectors by index and makes them unit length', () => {
    const out = checkedVectors(S, [row(1, [0, 2]), row(0, [3, 4])], 2);
    expect(out[0][0]).toBeCloseTo(0.6, 6);
    expect(out[0][1]).toBeCloseTo(0.8, 6);
    expect(Array.from(out[1])).toEqual([0, 1]);
  });

  it('an answer with no indexes at all keeps its order', () => {
    expect(Array.from(checkedVectors(S, [{ embedding: [1, 0] }, { embedding: [0, 1] }], 2)[1])).toEqual([0, 1]);
  });

  it.each([
    ['a repeated index', [row(0, [1]), row(0, [1])], /indexes that are not 0 to 1 once each/],
    ['an index out of range', [row(0, [1]), row(2, [1])], /indexes that are not 0 to 1 once each/],
    ['a fractional index', [row(0, [1]), row(0.5, [1])], /indexes that are not 0 to 1 once each/],
    ['a string index', [row('0', [1]), row(1, [1])], /indexes that are not 0 to 1 once each/],
    ['null', [row(0, [null]), row(1, [1])], /a vector with null in it \(text 1\)/],
    ['a numeric string', [row(0, [1]), row(1, ['1'])], /a vector with "1" in it \(text 2\)/],
    ['a nested array', [row(0, [[1]]), row(1, [1])], /a vector with \[1\] in it/],
    ['Infinity', [row(0, [Infinity]), row(1, [1])], /a vector with Infinity in it/],
    ['a number beyond float32', [row(0, [1e39]), row(1, [1])], /a vector with 1e\+39 in it/],
    ['zeros', [row(0, [0, 0]), row(1, [1, 0])], /a vector of zeros \(text 1\)/],
    ['mixed sizes', [row(0, [1, 0]), row(1, [1])], /of mixed sizes/],
    ['too few', [row(0, [1])], /answered 1 vectors for 2 texts/],
    ['not a list', { 0: row(0, [1]) }, /answered 0 vectors for 2 texts/],
    ['non-objects', [1, 'x'], /answered 2 vectors for 2 texts/],
  ])('refuses %s', (_name, data, why) => {
    expect(() => checkedVectors(S, data, 2)).toThrow(why);
  });

  it('refuses vectors longer than MAX_DIMS, and the size cap allows MAX_DIMS vectors', () => {
    const long = new Array(MAX_DIMS + 1).fill(0.1);
    expect(() => checkedVectors(S, [row(0, long)], 1)).toThrow(`vectors of ${MAX_DIMS + 1} dimensions (at most ${MAX_DIMS})`);
    const ok = JSON.stringify({ data: [row(0, new Array(MAX_DIMS).fill(-0.12345678901234567))] });
    expect(ok.length).toBeLessThan(answerCap(1));
    expect(checkedVectors(S, JSON.parse(ok).data, 1)[0]).toHaveLength(MAX_DIMS);
  });
});

describe('fsrsStateOf on a hostile fsrs: map', () => {
  const subject = (fsrs: unknown) => ({ importance: 0.5, last_reinforced: null, created_at: '2026-01-01', fsrs });

  it('clamps stability into ts-fsrs\'s range and caps the counts', () => {
    expect(fsrsStateOf(subject({ stability: 1e-300 })).state.stability).toBe(STABILITY_MIN);
    expect(fsrsStateOf(subject({ stability: 1e308 })).state.stability).toBe(STABILITY_MAX);
    const s = fsrsStateOf(subject({ reps: 1e308, lapses: '1e300' })).state;
    expect(s.reps).toBe(1_000_000_000);
    expect(s.lapses).toBe(1_000_000_000);
  });

  it('a review of any of them does not throw (ts-fsrs throws below its S_MIN)', () => {
    const now = Date.parse('2026-11-26T00:00:00Z');
    for (const stability of [1e-300, 0.0009, 1e308, Number.MIN_VALUE]) {
      for (const rating of ['again', 'hard', 'good', 'easy'] as const) {
        const out = reviewState(subject({ stability, difficulty: 1, last_review: '2026-01-01T00:00:00Z', reps: 1e308, state: 'review' }), rating, now);
        expect(out.action).toBe('reviewed');
        if (out.action === 'reviewed') expect(Number.isFinite(out.after.stability) && out.after.stability > 0).toBe(true);
      }
    }
  });
});
