import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import {
  DEFAULT_DIFFICULTY, FSRS6_DECAY, W_EASY_S0, W_GOOD_S0, W_HARD_S0, fsrsStateOf, retrievability, reviewState, stabilityFromImportance,
} from '../../src/fsrs/state.js';
import { fsrsPolicy, prominencePolicy } from '../../src/retrieve/policy.js';
import { parseMemoryFile, serializeFile } from '../../src/vault/format.js';
import { reviewFile } from '../../src/lifecycle/review.js';
import { reinforceFile } from '../../src/lifecycle/reinforce.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T12:00:00Z');

/** FSRS-6 retrievability computed here, independently of ts-fsrs: R = (1 + f·t/S)^(−w20), f = 0.9^(−1/w20) − 1. */
function formulaR(tDays: number, s: number, w20 = 0.1542): number {
  const f = 0.9 ** (-1 / w20) - 1;
  return (1 + (f * tDays) / s) ** -w20;
}

describe('FSRS-6 retrievability through ts-fsrs', () => {
  it('matches the FSRS-6 formula for many (t, S)', () => {
    for (const s of [0.5, 1.2931, 2.3065, 3.4598, 10, 35.3, 365]) {
      for (const t of [0, 0.25, 1, 2.5, 7, 30, 90, 400]) {
        const state = { stability: s, last_review: new Date(NOW - t * DAY).toISOString() };
        expect(retrievability(state, NOW)).toBeCloseTo(formulaR(t, s), 7);
      }
    }
  });

  it('is 0.9 after exactly S days (the definition of stability) and 1 at t = 0', () => {
    expect(retrievability({ stability: 12, last_review: new Date(NOW - 12 * DAY).toISOString() }, NOW)).toBeCloseTo(0.9, 7);
    expect(retrievability({ stability: 12, last_review: new Date(NOW).toISOString() }, NOW)).toBe(1);
    // A review in the future (clock skew) counts as just now; no date at all as well.
    expect(retrievability({ stability: 12, last_review: new Date(NOW + DAY).toISOString() }, NOW)).toBe(1);
    expect(retrievability({ stability: 12, last_review: null }, NOW)).toBe(1);
  });

  it('uses the constants of ts-fsrs itself (FSRS-6 default parameters)', () => {
    const T = createRequire(import.meta.url)('ts-fsrs');
    expect(T.FSRS6_DEFAULT_DECAY).toBe(FSRS6_DECAY);
    expect(T.default_w[20]).toBe(FSRS6_DECAY);
    expect([T.default_w[1], T.default_w[2], T.default_w[3]]).toEqual([W_HARD_S0, W_GOOD_S0, W_EASY_S0]);
    // D0(good) = w4 − e^(w5·(3−1)) + 1 ≈ 2.118, the difficulty an episode starts with.
    expect(T.default_w[4] - Math.exp(T.default_w[5] * 2) + 1).toBeCloseTo(DEFAULT_DIFFICULTY, 3);
  });
});

describe('initial stability from importance', () => {
  it('is monotone and anchored on FSRS first-review stabilities', () => {
    expect(stabilityFromImportance(0)).toBeCloseTo(W_HARD_S0, 10);
    expect(stabilityFromImportance(0.5)).toBeCloseTo(W_GOOD_S0, 10);
    expect(stabilityFromImportance(1)).toBeCloseTo(W_EASY_S0, 10);
    let prev = 0;
    for (let i = 0; i <= 100; i++) {
      const s = stabilityFromImportance(i / 100);
      expect(s).toBeGreaterThan(prev);
      prev = s;
    }
    expect(stabilityFromImportance(7)).toBe(stabilityFromImportance(1));
    expect(stabilityFromImportance(Number.NaN)).toBe(stabilityFromImportance(0.5));
  });
});

describe('fsrs state from frontmatter', () => {
  const subject = { importance: 0.5, last_reinforced: '2026-11-20', created_at: '2026-11-01' };
  it('defaults: stability from importance, difficulty 2.118, last review = last reinforcement', () => {
    const { state, recorded } = fsrsStateOf(subject);
    expect(recorded).toBe(false);
    expect(state).toEqual({ stability: W_GOOD_S0, difficulty: DEFAULT_DIFFICULTY, last_review: '2026-11-20', reps: 0, lapses: 0, state: 'review' });
  });
  it('reads an episode\'s plain numbers and a full recorded state; ignores garbage', () => {
    expect(fsrsStateOf({ ...subject, fsrs: { stability: 3.4598, difficulty: 2.118 } }).state.stability).toBe(3.4598);
    const full = fsrsStateOf({ ...subject, fsrs: { stability: '10', difficulty: 5, last_review: '2026-11-25T08:00:00Z', reps: 3, lapses: 1, state: 2 } });
    expect(full).toEqual({ recorded: true, state: { stability: 10, difficulty: 5, last_review: '2026-11-25T08:00:00Z', reps: 3, lapses: 1, state: 'review' } });
    const bad = fsrsStateOf({ ...subject, fsrs: { stability: -1, difficulty: 99, last_review: 'yesterday', reps: 'x', state: 'odd' } });
    expect(bad).toEqual(fsrsStateOf(subject));
    expect(fsrsStateOf({ ...subject, fsrs: [1, 2] })).toEqual(fsrsStateOf(subject));
  });
});

describe('reviews', () => {
  const subject = { importance: 0.5, last_reinforced: '2026-11-20', created_at: '2026-11-01' };
  it('good grows stability, again shrinks it and counts a lapse; easy > good > hard', () => {
    const out = Object.fromEntries((['again', 'hard', 'good', 'easy'] as const).map((r) => [r, reviewState(subject, r, NOW)]));
    const s = (r: string) => (out[r].action === 'reviewed' ? (out[r] as { after: { stability: number } }).after.stability : NaN);
    expect(s('again')).toBeLessThan(W_GOOD_S0);
    expect(s('hard')).toBeLessThan(s('good'));
    expect(s('good')).toBeLessThan(s('easy'));
    const again = out.again as Extract<ReturnType<typeof reviewState>, { action: 'reviewed' }>;
    expect(again.after.lapses).toBe(1);
    expect(again.after.reps).toBe(1);
    expect(again.after.last_review).toBe('2026-11-26T12:00:00Z');
  });
  it('a review less than a day after the last recorded one is skipped; a day later it counts', () => {
    const fsrs = { stability: 10, difficulty: 5, last_review: '2026-11-26T00:00:00Z', reps: 1, lapses: 0, state: 'review' };
    const r = reviewState({ ...subject, fsrs }, 'good', NOW);
    expect(r.action).toBe('skipped-recent');
    expect(r.action === 'skipped-recent' && r.hoursSince).toBe(12);
    expect(reviewState({ ...subject, fsrs }, 'good', Date.parse('2026-11-27T00:00:00Z')).action).toBe('reviewed');
    // The last reinforcement (a date, no recorded review) never causes a skip.
    expect(reviewState({ ...subject, last_reinforced: '2026-11-26' }, 'good', NOW).action).toBe('reviewed');
  });
});

describe('the fsrs ranking policy', () => {
  const ctx = { now: NOW, scopeMultipliers: { project: 1.2 } };
  const base = { relevance: 0.8, importance: 0.5, reinforcement_count: 0, last_reinforced: null, created_at: '2026-11-01', status: 'active', scope: 'project' };
  it('score = relevance × R(t) × scope multiplier; retired 0', () => {
    const meta = JSON.stringify({ fsrs: { stability: 5, difficulty: 3, last_review: '2026-11-16T12:00:00Z' } });
    const p = fsrsPolicy.score({ ...base, metadata_json: meta }, ctx);
    expect(p.retrievability).toBeCloseTo(formulaR(10, 5), 7);
    expect(p.score).toBeCloseTo(0.8 * formulaR(10, 5) * 1.2, 7);
    expect(fsrsPolicy.score({ ...base, status: 'retired', metadata_json: meta }, ctx).score).toBe(0);
    // No state: from importance and created_at (a plain date is its midnight UTC: 25.5 days).
    expect(fsrsPolicy.score(base, ctx).retrievability).toBeCloseTo(formulaR(25.5, W_GOOD_S0), 7);
    expect(prominencePolicy.score(base, ctx).retrievability).toBeNull();
  });
  it('a recently reviewed entry outranks an equal one reviewed long ago', () => {
    const recent = JSON.stringify({ fsrs: { stability: 5, difficulty: 3, last_review: '2026-11-25T12:00:00Z' } });
    const old = JSON.stringify({ fsrs: { stability: 5, difficulty: 3, last_review: '2026-10-01T12:00:00Z' } });
    expect(fsrsPolicy.score({ ...base, metadata_json: recent }, ctx).score).toBeGreaterThan(fsrsPolicy.score({ ...base, metadata_json: old }, ctx).score);
  });
});

describe('writing the state', () => {
  const text = '\uFEFF# Memory\r\n\r\n---\r\nid: a1\r\nimportance: 0.5 # keep me\r\ncreated_at: 2026-11-01\r\n---\r\n## Title\r\n\r\nBody.\r\n';
  it('adds one fsrs line; every other byte stays (BOM, CRLF, comments)', () => {
    const parsed = parseMemoryFile(text, 'MEMORY.md');
    const r = reviewFile(parsed, 'MEMORY.md', new Map([['a1', 'good']]), NOW);
    expect(r.decisions[0].action).toBe('reviewed');
    const out = serializeFile(r.file!);
    const line = out.split('\r\n').find((l) => l.startsWith('fsrs: '))!;
    expect(out).toBe(text.replace('created_at: 2026-11-01\r\n', `created_at: 2026-11-01\r\n${line}\r\n`));
    expect(line).toMatch(/^fsrs: \{stability: [\d.]+, difficulty: [\d.]+, last_review: '2026-11-26T12:00:00Z', reps: 1, lapses: 0, state: review\}$/);
    // Read back, the state is the one written.
    const again = parseMemoryFile(out, 'MEMORY.md').blocks.find((b) => b.entry)!.entry!;
    expect((again.meta.fsrs as { reps: number }).reps).toBe(1);
  });

  it('reinforce with a review: good when used, again when ignored, in one header edit', () => {
    const parsed = parseMemoryFile(text, 'MEMORY.md');
    const used = reinforceFile(parsed, 'MEMORY.md', new Set(['a1']), { today: '2026-11-26', review: { now: NOW } });
    expect(used.decisions[0]).toMatchObject({ action: 'reinforced', review: { rating: 'good', action: 'reviewed' } });
    const ignored = reinforceFile(parsed, 'MEMORY.md', new Set(['a1']), { today: '2026-11-26', used: new Set(['unrelated']), review: { now: NOW } });
    expect(ignored.decisions[0]).toMatchObject({ action: 'unchanged', review: { rating: 'again', action: 'reviewed' } });
    expect(serializeFile(ignored.file!)).toMatch(/lapses: 1/);
    // Without review, reinforce writes no fsrs state (as before).
    const plain = reinforceFile(parsed, 'MEMORY.md', new Set(['a1']), { today: '2026-11-26' });
    expect(serializeFile(plain.file!)).not.toContain('fsrs');
  });

  it('an episode\'s block-style fsrs map is read, and replaced by exactly its own lines', () => {
    const ep = '---\nid: ep1\nkind: episode\nsurprise: 0.4\nfsrs:\n  stability: 2.7678\n  difficulty: 2.118\ncreated_at: 2026-11-20\n---\n## Episode\n\nText.\n';
    const parsed = parseMemoryFile(ep, '.mem/episodes/s.md');
    const r = reviewFile(parsed, '.mem/episodes/s.md', new Map([['ep1', 'good']]), NOW);
    expect(r.decisions[0]).toMatchObject({ action: 'reviewed', before: { stability: 2.7678, difficulty: 2.118, last_review: '2026-11-20' } });
    const out = serializeFile(r.file!);
    const line = out.split('\n').find((l) => l.startsWith('fsrs: '))!;
    expect(out).toBe(ep.replace('fsrs:\n  stability: 2.7678\n  difficulty: 2.118\n', `${line}\n`));
  });
});
