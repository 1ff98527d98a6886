// Reviews: an entry's FSRS state moved one step by a rating and written back into its `fsrs:`
// frontmatter with the byte-stable header edit, under the files' locks. `mem review` and `mem
// reinforce --session/--transcript` both come through here.

import type { Entry } from '../vault/entry.js';
import { updateBlockMeta, type Block, type ParsedFile } from '../vault/format.js';
import type { Vault, VaultFile } from '../vault/vault.js';
import type { IdRequest } from './vault-ops.js';
import { reviewState, type FsrsState, type ReviewRating } from '../fsrs/state.js';

export type ReviewAction = 'reviewed' | 'skipped-recent' | 'skipped-retired' | 'read-only';

export interface ReviewDecision {
  id: string;
  path: string;
  line: number;
  rating: ReviewRating;
  action: ReviewAction;
  before?: FsrsState;
  after?: FsrsState;
  /** Hours since the last recorded review (skipped-recent). */
  hours_since?: number;
}

/** The `fsrs` value written for a state: a nested map, keys in a fixed order. */
export function fsrsFrontmatter(s: FsrsState): Record<string, unknown> {
  return { stability: s.stability, difficulty: s.difficulty, last_review: s.last_review, reps: s.reps, lapses: s.lapses, state: s.state };
}

/** One entry's review: the decision and, when reviewed, the header change to make. */
export function reviewEntry(e: Entry, path: string, rating: ReviewRating, now: number): { decision: ReviewDecision; change?: Record<string, unknown> } {
  const base = { id: e.id, path, line: e.line, rating };
  if (e.kind !== 'entry') return { decision: { ...base, action: 'read-only' } };
  if (e.status === 'retired') return { decision: { ...base, action: 'skipped-retired' } };
  const out = reviewState({ ...e, fsrs: e.meta.fsrs }, rating, now);
  if (out.action === 'skipped-recent') return { decision: { ...base, action: out.action, before: out.before, hours_since: out.hoursSince } };
  return { decision: { ...base, action: 'reviewed', before: out.before, after: out.after }, change: { fsrs: fsrsFrontmatter(out.after) } };
}

/** Review the entries of `ratings` (id → rating) in one parsed file; the new file or null, and the decisions. */
export function reviewFile(file: ParsedFile, path: string, ratings: Map<string, ReviewRating>, now: number): { file: ParsedFile | null; decisions: ReviewDecision[] } {
  const decisions: ReviewDecision[] = [];
  let changed = false;
  const blocks = file.blocks.map((b: Block) => {
    const e = b.entry;
    const rating = e ? ratings.get(e.id) : undefined;
    if (!e || !rating) return b;
    const r = reviewEntry(e, path, rating, now);
    decisions.push(r.decision);
    if (!r.change || !b.header) return b;
    changed = true;
    return updateBlockMeta(b, r.change);
  });
  return { file: changed ? { ...file, blocks } : null, decisions };
}

export interface ReviewIdsResult {
  decisions: ReviewDecision[];
  unknown: string[];
  lag?: string;
}

/** Find the entries' files (every typed id checked first), rewrite them under their locks, re-index. */
export async function reviewIds(vault: Vault, ids: IdRequest, opts: { rating: ReviewRating; now: number; dryRun?: boolean; onNotes?: (notes: string[]) => void }): Promise<ReviewIdsResult> {
  const { locateIds, reindex } = await import('./vault-ops.js');
  const { editFiles } = await import('../vault/edit.js');
  const loc = await locateIds(vault, ids);
  opts.onNotes?.(loc.notes);
  const files = new Map<string, VaultFile>();
  for (const fs of loc.found.values()) for (const f of fs) files.set(f.abs, f);
  const ratings = new Map([...loc.found.keys()].map((id) => [id, opts.rating]));
  const decisions: ReviewDecision[] = [];
  const written = await editFiles([...files.values()].map((f) => ({
    abs: f.abs,
    path: f.path,
    change: (parsed: ParsedFile) => {
      const r = reviewFile(parsed, f.path, ratings, opts.now);
      decisions.push(...r.decisions);
      return opts.dryRun ? null : r.file;
    },
  })));
  const lag = opts.dryRun ? undefined : await reindex(vault, [...files.values()].filter((f) => written.includes(f.path)));
  return { decisions, unknown: loc.unknown, lag };
}
