// FSRS state of an entry (FSRS-6: open-spaced-repetition, ts-fsrs): the `fsrs:` frontmatter map ↔ a
// ts-fsrs Card, the defaults of an entry that was never reviewed, FSRS-6 retrievability and one
// review step. ts-fsrs is loaded on first use only, so a plain `mem search` never parses it.

import { createRequire } from 'node:module';
import type * as TsFsrs from 'ts-fsrs';
import { dateMs } from '../vault/entry.js';

const DAY_MS = 86_400_000;

export const RATINGS = ['again', 'hard', 'good', 'easy'] as const;
export type ReviewRating = (typeof RATINGS)[number];

const STATES = ['new', 'learning', 'review', 'relearning'] as const;
export type FsrsStateName = (typeof STATES)[number];

/** The `fsrs:` map as mem writes it into an entry's frontmatter. */
export interface FsrsState {
  stability: number;
  difficulty: number;
  /** ISO timestamp (UTC) of the last review; null when the entry was never reviewed. */
  last_review: string | null;
  reps: number;
  lapses: number;
  state: FsrsStateName;
}

/**
 * FSRS-6 defaults (ts-fsrs `default_w`): initial stability after a first Hard, Good and Easy
 * rating (w1, w2, w3, in days), the decay w20, and the initial difficulty after Good,
 * D0(3) = w4 − e^(w5·2) + 1 ≈ 2.118. A unit test holds these equal to the package's own values.
 */
export const W_HARD_S0 = 1.2931;
export const W_GOOD_S0 = 2.3065;
export const W_EASY_S0 = 8.2956;
export const FSRS6_DECAY = 0.1542;
export const DEFAULT_DIFFICULTY = 2.118;
/**
 * The stabilities (days) ts-fsrs accepts (its S_MIN and S_MAX): a hand-edited or damaged `fsrs:`
 * map outside them is clamped in, since the scheduler throws on a stability below S_MIN.
 */
export const STABILITY_MIN = 0.001;
export const STABILITY_MAX = 36500;
/**
 * Reviews of one entry less than this apart: the second is skipped, so one session (or a hook that
 * runs twice) counts once, and the scheduler, short-term steps off, sees at most a review a day.
 */
export const MIN_REVIEW_GAP_MS = DAY_MS;

/**
 * Initial stability (days) of an entry never reviewed, from its `importance` (0–1): log-linear
 * between FSRS's own first-review stabilities, so importance 0 decays like a first "hard"
 * (1.29 d), the default 0.5 like a first "good" (2.31 d, an episode's base) and 1 like a first
 * "easy" (8.30 d). Monotone increasing; out-of-range or missing importance is clamped / 0.5.
 */
export function stabilityFromImportance(importance: number): number {
  const i = Number.isFinite(importance) ? Math.min(1, Math.max(0, importance)) : 0.5;
  if (i <= 0.5) return W_HARD_S0 * (W_GOOD_S0 / W_HARD_S0) ** (i / 0.5);
  return W_GOOD_S0 * (W_EASY_S0 / W_GOOD_S0) ** ((i - 0.5) / 0.5);
}

const COUNT_MAX = 1_000_000_000;

const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};

function stateName(v: unknown): FsrsStateName | null {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < STATES.length) return STATES[v];
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if ((STATES as readonly string[]).includes(s)) return s as FsrsStateName;
  }
  return null;
}

/** What the policy and a review need to know about an entry. */
export interface FsrsSubject {
  importance: number;
  last_reinforced: string | null;
  created_at: string | null;
  /** The raw `fsrs` frontmatter value, whatever it is. */
  fsrs?: unknown;
}

/**
 * The entry's FSRS state: its `fsrs:` map where it holds usable numbers (an episode written by
 * `mem segment` carries stability and difficulty only), the rest from defaults. Without a
 * recorded last review, the entry's last reinforcement (else its creation date) stands in for it:
 * that is when it was last known useful. `recorded` says whether a review was ever written.
 */
export function fsrsStateOf(e: FsrsSubject): { state: FsrsState; recorded: boolean } {
  const m = e.fsrs !== null && typeof e.fsrs === 'object' && !Array.isArray(e.fsrs) ? (e.fsrs as Record<string, unknown>) : {};
  const s = num(m.stability);
  const d = num(m.difficulty);
  const lrRaw = typeof m.last_review === 'string' ? m.last_review.trim() : null;
  const lr = lrRaw && dateMs(lrRaw) !== null ? lrRaw : null;
  const reps = num(m.reps);
  const lapses = num(m.lapses);
  return {
    recorded: lr !== null,
    state: {
      stability: s !== null && s > 0 ? Math.min(STABILITY_MAX, Math.max(STABILITY_MIN, s)) : stabilityFromImportance(e.importance),
      difficulty: d !== null && d >= 1 && d <= 10 ? d : DEFAULT_DIFFICULTY,
      last_review: lr ?? e.last_reinforced ?? e.created_at,
      // Counts past 2^53 are no counts (1e308 + 1 is 1e308): capped so a review still adds one.
      reps: reps !== null && reps >= 0 ? Math.min(COUNT_MAX, Math.floor(reps)) : 0,
      lapses: lapses !== null && lapses >= 0 ? Math.min(COUNT_MAX, Math.floor(lapses)) : 0,
      state: stateName(m.state) ?? 'review',
    },
  };
}

/** Fractional days from `last_review` to `now`; 0 when unknown or in the future. */
export function elapsedDays(lastReview: string | null, now: number): number {
  const t = dateMs(lastReview);
  return t === null ? 0 : Math.max(0, (now - t) / DAY_MS);
}

let lib: typeof TsFsrs | undefined;
/** ts-fsrs, loaded synchronously on first use (the ranking pipeline is synchronous). */
function tsFsrs(): typeof TsFsrs {
  lib ??= createRequire(import.meta.url)('ts-fsrs') as typeof TsFsrs;
  return lib;
}

/** FSRS-6 retrievability R(t) = (1 + f·t/S)^(−w20), through ts-fsrs's forgetting curve. */
export function retrievability(state: Pick<FsrsState, 'stability' | 'last_review'>, now: number): number {
  const t = elapsedDays(state.last_review, now);
  return tsFsrs().forgetting_curve(FSRS6_DECAY, t, state.stability);
}

let scheduler: TsFsrs.FSRS | undefined;
function fsrsScheduler(): TsFsrs.FSRS {
  // Short-term (same-day learning steps) off: a memory entry is reviewed at most once a day.
  scheduler ??= tsFsrs().fsrs({ enable_short_term: false, enable_fuzz: false });
  return scheduler;
}

const round = (n: number, places: number) => Number(n.toFixed(places));

/** An ISO timestamp to the second, as written into frontmatter. */
export function isoSecond(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export type ReviewOutcome =
  | { action: 'reviewed'; before: FsrsState; after: FsrsState }
  | { action: 'skipped-recent'; before: FsrsState; hoursSince: number };

/**
 * One review: the next state by ts-fsrs for `rating` at `now`. A review less than a day after
 * the last recorded one is skipped (the last reinforcement alone never causes a skip).
 */
export function reviewState(e: FsrsSubject, rating: ReviewRating, now: number): ReviewOutcome {
  const { state: before, recorded } = fsrsStateOf(e);
  if (recorded) {
    const since = now - (dateMs(before.last_review) ?? -Infinity);
    if (since >= 0 && since < MIN_REVIEW_GAP_MS) return { action: 'skipped-recent', before, hoursSince: round(since / 3_600_000, 1) };
  }
  const T = tsFsrs();
  const last = dateMs(before.last_review);
  const card: TsFsrs.Card = {
    due: new Date(now),
    stability: before.stability,
    difficulty: before.difficulty,
    elapsed_days: 0,
    scheduled_days: 0,
    learning_steps: 0,
    reps: before.reps,
    lapses: before.lapses,
    // With no date at all, the first review initialises the card as FSRS does a new one.
    state: last === null ? T.State.New : (T.State[(before.state[0].toUpperCase() + before.state.slice(1)) as keyof typeof T.State] as TsFsrs.State),
    last_review: last === null ? undefined : new Date(Math.min(last, now)),
  };
  const grade = { again: T.Rating.Again, hard: T.Rating.Hard, good: T.Rating.Good, easy: T.Rating.Easy }[rating] as TsFsrs.Grade;
  const next = fsrsScheduler().next(card, new Date(now), grade).card;
  return {
    action: 'reviewed',
    before,
    after: {
      stability: round(next.stability, 4),
      difficulty: round(next.difficulty, 4),
      last_review: isoSecond(now),
      reps: next.reps,
      lapses: next.lapses,
      state: STATES[next.state] ?? 'review',
    },
  };
}
