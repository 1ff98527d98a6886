// What a project hands to agents that run without mem's hooks (`mem export --agents-md`): its
// norms and its most prominent learnings, chosen as the session-start hook chooses them when no
// task is known yet, but ranked as of the newest entry's date rather than the clock, so the
// choice changes when memory does and not as days pass.

import type { Db } from '../index/db.js';
import { ageDates, countMatching, type EntryFilter, type EntryRow } from '../index/queries.js';
import { dateMs } from '../vault/entry.js';
import { orderedNorms } from './context.js';
import { prominentLearnings } from './hook-context.js';
import type { RankedHit } from './search.js';

export interface ProjectMemoryRequest {
  /** The entries that count (the caller leaves out episodes, and what is not the project's). */
  filter: EntryFilter;
  scopeMultipliers: Record<string, number>;
  /** Most learnings to rank and return, best first. */
  limit: number;
}

export interface ProjectMemory {
  /** Every norm, in the order a budget takes them (orderedNorms). */
  norms: EntryRow[];
  /** The most prominent task learnings, best first (at most `limit`). */
  learnings: RankedHit[];
  /** How many task learnings there are in all. */
  learningsTotal: number;
  /** The newest date an entry was reinforced or created (ms): the ranking's "now"; null when no entry has a date. */
  asOf: number | null;
}

/** The newest of the dates (ms), null when none can be read. */
export function newestDate(dates: readonly string[]): number | null {
  let best: number | null = null;
  for (const d of dates) {
    const ms = dateMs(d);
    if (ms !== null && (best === null || ms > best)) best = ms;
  }
  return best;
}

/**
 * The norms and the most prominent learnings. Recency counts from the newest entry: with the
 * clock instead, a file regenerated a week later with no memory changed could list other
 * learnings (old ones reaching the decay floor), and a CI check of it would fail for no edit.
 */
export function projectMemory(db: Db, req: ProjectMemoryRequest): ProjectMemory {
  const asOf = newestDate(ageDates(db, req.filter));
  const learnings = prominentLearnings(db, {
    filter: req.filter, now: asOf ?? 0, scopeMultipliers: req.scopeMultipliers, limit: req.limit, maxChars: Number.POSITIVE_INFINITY,
  });
  return {
    norms: orderedNorms(db, req.filter),
    learnings,
    learningsTotal: countMatching(db, { ...req.filter, learningTypes: ['task'] }),
    asOf,
  };
}
