// Ranking policies: how a candidate's relevance and its metadata become one score. `prominence` is
// the default; `relevance` ignores metadata. New policies (fsrs) plug in by implementing
// RankingPolicy; `fsrs` ranks by FSRS-6 retrievability (src/fsrs/state.ts).

import type { Scope } from '../vault/scope.js';
import { dateMs } from '../vault/entry.js';
import { fsrsStateOf, retrievability } from '../fsrs/state.js';

export const HALF_LIFE_DAYS = 90;
export const DECAY_FLOOR = 0.1;
const DAY_MS = 86_400_000;

export interface RankInput {
  relevance: number;
  importance: number;
  reinforcement_count: number;
  last_reinforced: string | null;
  created_at: string | null;
  status: string;
  scope: Scope | string;
  /** The entry's frontmatter as the index stores it (JSON); the fsrs policy reads `fsrs` from it. */
  metadata_json?: string;
}

export interface RankContext {
  now: number;
  scopeMultipliers: Record<string, number>;
}

export interface ScoreParts {
  relevance: number;
  importance: number;
  decay: number;
  reinforcement: number;
  scope_multiplier: number;
  retrievability: number | null;
  prominence: number;
  score: number;
}

export interface RankingPolicy {
  readonly name: string;
  score(input: RankInput, ctx: RankContext): ScoreParts;
}

/** Days since the entry was last reinforced (or created); 0 when unknown or in the future. */
export function ageDays(input: Pick<RankInput, 'last_reinforced' | 'created_at'>, now: number): number {
  const s = input.last_reinforced ?? input.created_at;
  const t = dateMs(s);
  if (t === null || s === null) return 0;
  // A plain date counts whole calendar days (UTC): an entry dated today has age 0.
  const ref = /^\d{4}-\d{2}-\d{2}$/.test(s) ? Math.floor(now / DAY_MS) * DAY_MS : now;
  return Math.max(0, (ref - t) / DAY_MS);
}

export function recencyDecay(age: number): number {
  return Math.max(DECAY_FLOOR, Math.exp((-Math.LN2 / HALF_LIFE_DAYS) * age));
}

function parts(input: RankInput, ctx: RankContext) {
  const decay = recencyDecay(ageDays(input, ctx.now));
  const reinforcement = 1 + Math.max(0, input.reinforcement_count);
  const scope_multiplier = ctx.scopeMultipliers[input.scope] ?? 1;
  const retired = input.status === 'retired';
  const prominence = retired ? 0 : input.importance * decay * reinforcement;
  return { decay, reinforcement, scope_multiplier, prominence, retired };
}

export const prominencePolicy: RankingPolicy = {
  name: 'prominence',
  score(input, ctx) {
    const p = parts(input, ctx);
    const score = p.retired ? 0 : input.relevance * p.prominence * p.scope_multiplier;
    return { relevance: input.relevance, importance: input.importance, decay: p.decay, reinforcement: p.reinforcement,
      scope_multiplier: p.scope_multiplier, retrievability: null, prominence: p.prominence, score };
  },
};

export const relevancePolicy: RankingPolicy = {
  name: 'relevance',
  score(input, ctx) {
    const p = parts(input, ctx);
    return { relevance: input.relevance, importance: input.importance, decay: p.decay, reinforcement: p.reinforcement,
      scope_multiplier: p.scope_multiplier, retrievability: null, prominence: p.prominence, score: p.retired ? 0 : input.relevance };
  },
};

function fsrsField(json: string | undefined): unknown {
  if (!json || !json.includes('"fsrs"')) return undefined;
  try {
    return (JSON.parse(json) as Record<string, unknown>).fsrs;
  } catch {
    return undefined;
  }
}

/**
 * fsrs: relevance × R(t) × scope multiplier, R the FSRS-6 retrievability of the entry's state
 * (defaults from importance when it has none). The scope multiplier is kept so project and global
 * memories weigh as they do under prominence; importance and reinforcement count enter only through
 * the state (initial stability, reviews).
 */
export const fsrsPolicy: RankingPolicy = {
  name: 'fsrs',
  score(input, ctx) {
    const p = parts(input, ctx);
    const { state } = fsrsStateOf({ ...input, fsrs: fsrsField(input.metadata_json) });
    const r = p.retired ? 0 : retrievability(state, ctx.now);
    return { relevance: input.relevance, importance: input.importance, decay: p.decay, reinforcement: p.reinforcement,
      scope_multiplier: p.scope_multiplier, retrievability: r, prominence: p.prominence, score: p.retired ? 0 : input.relevance * r * p.scope_multiplier };
  },
};

export const POLICIES: Record<string, RankingPolicy> = {
  prominence: prominencePolicy,
  relevance: relevancePolicy,
  fsrs: fsrsPolicy,
};
