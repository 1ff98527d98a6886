// Reinforcement: entries retrieved in a session gain +1 and today's date. With the session's
// transcript, usage-aware: an entry the assistant actually used (at least 30% of its distinctive
// words appear in the assistant's text) gains +1, one it ignored loses 1 (floor 0) and keeps its
// date. Retired entries are never touched. With `review`, each decision is also an FSRS review
// (review.ts): `good` for an entry reinforced, `again` for one ignored, unless a model's rating
// of how the entry was used is given for it.

import type { Entry } from '../vault/entry.js';
import { updateBlockMeta, type ParsedFile } from '../vault/format.js';
import { distinctiveWords } from './words.js';
import { reviewEntry, type ReviewDecision } from './review.js';
import type { ReviewRating } from '../fsrs/state.js';

export const USAGE_SHARE = 0.3;

export type ReinforceAction = 'reinforced' | 'weakened' | 'unchanged' | 'skipped-retired' | 'read-only';

export interface ReinforceDecision {
  id: string;
  path: string;
  line: number;
  action: ReinforceAction;
  before: number;
  after: number;
  /** Share of the entry's distinctive words found in the assistant's text (usage-aware mode). */
  share?: number;
  /** The FSRS review recorded with it (reinforce --session/--transcript). */
  review?: Pick<ReviewDecision, 'rating' | 'action' | 'before' | 'after' | 'hours_since'>;
}

/** Share of an entry's distinctive words that appear in `used` (a stemmed word set). */
export function usageShare(entry: Pick<Entry, 'title' | 'body'>, used: Set<string>): number {
  const words = distinctiveWords(`${entry.title}\n${entry.body}`);
  if (words.size === 0) return 0;
  let hit = 0;
  for (const w of words) if (used.has(w)) hit++;
  return hit / words.size;
}

export interface ReinforceOptions {
  today: string;
  /**
   * Stemmed words of the assistant's text; present = usage-aware mode. A function gives each id
   * its own (the text after the entry was retrieved).
   */
  used?: Set<string> | ((id: string) => Set<string>);
  /**
   * Record an FSRS review at this time (ms) with each decision; `ratings`: a model's rating per
   * id, in place of the rule (used → good, ignored → again) for the ids it names.
   */
  review?: { now: number; ratings?: ReadonlyMap<string, ReviewRating> };
}

/** Apply reinforcement to the entries of `ids` in one parsed file; returns the new file and decisions. */
export function reinforceFile(file: ParsedFile, path: string, ids: Set<string>, opts: ReinforceOptions): { file: ParsedFile | null; decisions: ReinforceDecision[] } {
  const decisions: ReinforceDecision[] = [];
  let changed = false;
  const blocks = file.blocks.map((b) => {
    const e = b.entry;
    if (!e || !ids.has(e.id)) return b;
    const base = { id: e.id, path, line: e.line, before: e.reinforcement_count, after: e.reinforcement_count };
    if (e.kind !== 'entry' || !b.header) {
      decisions.push({ ...base, action: 'read-only' });
      return b;
    }
    if (e.status === 'retired') {
      decisions.push({ ...base, action: 'skipped-retired' });
      return b;
    }
    const share = opts.used ? usageShare(e, typeof opts.used === 'function' ? opts.used(e.id) : opts.used) : undefined;
    const used = share === undefined || share >= USAGE_SHARE;
    // The review that goes with the decision: what the code can observe is use (the entry's words
    // in the assistant's text, or retrieval alone without a transcript) or its absence.
    const review = opts.review ? reviewEntry(e, path, opts.review.ratings?.get(e.id) ?? (used ? 'good' : 'again'), opts.review.now) : undefined;
    const reviewNote = review && { rating: review.decision.rating, action: review.decision.action, before: review.decision.before, after: review.decision.after, hours_since: review.decision.hours_since };
    const withReview = (changes: Record<string, unknown>) => ({ ...changes, ...review?.change });
    if (used) {
      changed = true;
      decisions.push({ ...base, after: e.reinforcement_count + 1, action: 'reinforced', share, review: reviewNote });
      return updateBlockMeta(b, withReview({ reinforcement_count: e.reinforcement_count + 1, last_reinforced: opts.today }));
    }
    if (e.reinforcement_count === 0) {
      decisions.push({ ...base, action: 'unchanged', share, review: reviewNote });
      if (!review?.change) return b;
      changed = true;
      return updateBlockMeta(b, review.change);
    }
    changed = true;
    decisions.push({ ...base, after: e.reinforcement_count - 1, action: 'weakened', share, review: reviewNote });
    return updateBlockMeta(b, withReview({ reinforcement_count: e.reinforcement_count - 1 }));
  });
  return { file: changed ? { ...file, blocks } : null, decisions };
}
