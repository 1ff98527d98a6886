// Rating entries after use, for `mem reinforce` / `mem review` and the MCP `reinforce` / `review`
// tools: each id once (an id or a unique prefix; one that names no entry, or several, fails the
// whole call before anything is written), the entries' files rewritten under their locks, and
// what was found on the way as warnings. Nothing is printed here.

import type { ReviewRating } from '../fsrs/state.js';
import type { ReinforceIdsResult } from '../lifecycle/reinforce-ids.js';
import type { ReviewIdsResult } from '../lifecycle/review.js';
import type { Vault } from '../vault/vault.js';
import { warningsFor, type WarningSink } from './fresh.js';

/** Warnings: the notes of locating the ids (an id in several files, a file that cannot be read), then the index's lag after the write. */
export interface RatingRun extends WarningSink {
  dryRun?: boolean;
}

/**
 * +1 reinforcement and today's date for each entry; `used` (the assistant's words) makes it
 * usage-aware, and `review` records an FSRS review with it. `logged`: ids from a session's
 * retrieval log, matched exactly; those gone since are returned as unknown, not an error.
 */
export async function reinforceEntries(vault: Vault, ids: string[], opts: RatingRun & { today: string; used?: Set<string>; review?: { now: number }; logged?: string[] }): Promise<ReinforceIdsResult & { warnings: string[] }> {
  const { reinforceIds } = await import('../lifecycle/reinforce-ids.js');
  const w = warningsFor(opts);
  const res = await reinforceIds(vault, { typed: ids, logged: opts.logged }, { today: opts.today, used: opts.used, review: opts.review, dryRun: opts.dryRun, onNotes: (n) => w.add(...n) });
  if (res.lag) w.add(res.lag);
  return { ...res, warnings: w.list };
}

/** One FSRS review of each entry (a second within a day is skipped). */
export async function reviewEntries(vault: Vault, ids: string[], opts: RatingRun & { rating: ReviewRating; now: number }): Promise<ReviewIdsResult & { warnings: string[] }> {
  const { reviewIds } = await import('../lifecycle/review.js');
  const w = warningsFor(opts);
  const res = await reviewIds(vault, { typed: ids }, { rating: opts.rating, now: opts.now, dryRun: opts.dryRun, onNotes: (n) => w.add(...n) });
  if (res.lag) w.add(res.lag);
  return { ...res, warnings: w.list };
}
