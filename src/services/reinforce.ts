// Rating entries after use, for `mem reinforce` / `mem review` and the MCP `reinforce` / `review`
// tools: each id once, the entries' files rewritten under their locks, and what was found on the
// way as warnings. Nothing is printed here.

import type { ReviewRating } from '../fsrs/state.js';
import type { ReinforceIdsResult } from '../lifecycle/reinforce-ids.js';
import type { ReviewIdsResult } from '../lifecycle/review.js';
import type { Vault } from '../vault/vault.js';

/**
 * How a rating's warnings reach the front-end. The notes of locating the ids (an id in several
 * files, a file that cannot be read) are known before the write, which may still fail: a
 * front-end that shows them as they come passes `onNotes`; otherwise they lead the warnings.
 */
export interface RatingRun {
  dryRun?: boolean;
  onNotes?: (notes: string[]) => void;
}

/** The index not updated after the write, last: the markdown is written. */
function warningsOf(notes: string[], lag: string | undefined): string[] {
  return [...notes, ...(lag ? [lag] : [])];
}

/**
 * +1 reinforcement and today's date for each entry; `used` (the assistant's words) makes it
 * usage-aware, and `review` records an FSRS review with it.
 */
export async function reinforceEntries(vault: Vault, ids: string[], opts: RatingRun & { today: string; used?: Set<string>; review?: { now: number } }): Promise<ReinforceIdsResult & { warnings: string[] }> {
  const { reinforceIds } = await import('../lifecycle/reinforce-ids.js');
  const notes: string[] = [];
  const res = await reinforceIds(vault, [...new Set(ids)], { today: opts.today, used: opts.used, review: opts.review, dryRun: opts.dryRun, onNotes: opts.onNotes ?? ((n) => notes.push(...n)) });
  return { ...res, warnings: warningsOf(notes, res.lag) };
}

/** One FSRS review of each entry (a second within a day is skipped). */
export async function reviewEntries(vault: Vault, ids: string[], opts: RatingRun & { rating: ReviewRating; now: number }): Promise<ReviewIdsResult & { warnings: string[] }> {
  const { reviewIds } = await import('../lifecycle/review.js');
  const notes: string[] = [];
  const res = await reviewIds(vault, [...new Set(ids)], { rating: opts.rating, now: opts.now, dryRun: opts.dryRun, onNotes: opts.onNotes ?? ((n) => notes.push(...n)) });
  return { ...res, warnings: warningsOf(notes, res.lag) };
}
