// `mem context`'s warnings from recent failures, so a session starts knowing what went wrong
// lately: the episode notes with outcome failure that started in the last 7 days, newest first,
// at most 3, within a character budget of their own (they never take the learnings' budget).

import type { Db } from '../index/db.js';
import { episodeNoteRows, type NoteFilter } from '../index/episode-queries.js';

export const FAILURE_DAYS = 7;
export const MAX_FAILURES = 3;
export const DEFAULT_FAILURE_CHARS = 1500;

export interface FailureWarning {
  title: string;
  task: string;
  session_id: string | null;
  created_at: string | null;
  path: string;
  line: number;
  /** The note's lessons (its Lessons Learned section as written). */
  lessons: string;
}

function metaOf(json: string): Record<string, unknown> {
  try {
    const m = JSON.parse(json) as unknown;
    return typeof m === 'object' && m !== null ? (m as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What a warning costs of the budget: the characters it shows. */
export function warningChars(w: FailureWarning): number {
  return w.title.length + 1 + w.task.length + 1 + w.lessons.length;
}

export interface FailureOptions {
  now: number;
  maxChars: number;
  days?: number;
  limit?: number;
  /** Only the failures of these conversations, in these time bounds (a search's filter). */
  only?: NoteFilter;
}

export function failureWarnings(db: Db, opts: FailureOptions): FailureWarning[] {
  return failureSection(db, opts).warnings;
}

/** The warnings, and how many recent failures were left out (past the limit or over the budget). */
export function failureSection(db: Db, opts: FailureOptions): { warnings: FailureWarning[]; omitted: number } {
  if (opts.maxChars <= 0) return { warnings: [], omitted: 0 };
  const since = opts.now - (opts.days ?? FAILURE_DAYS) * 86_400_000;
  const byPath = new Map<string, FailureWarning & { t: number }>();
  for (const r of episodeNoteRows(db, ['failure'], opts.only)) {
    let w = byPath.get(r.path);
    if (!w) {
      const meta = metaOf(r.metadata_json);
      const created = typeof meta.created_at === 'string' ? meta.created_at : null;
      const t = created ? Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(created) ? `${created}T00:00:00Z` : created) : NaN;
      w = {
        title: typeof meta.title === 'string' ? meta.title : r.path, task: typeof meta.task === 'string' ? meta.task : '',
        session_id: typeof meta.session_id === 'string' ? meta.session_id : null, created_at: created, path: r.path, line: r.line, lessons: '', t,
      };
      byPath.set(r.path, w);
    }
    // The note is one row (src/vault/notes.ts typedNote): its Lessons Learned section, up to the next `## `.
    const m = /(?:^|\n)##[ \t]+Lessons Learned[ \t]*\n([\s\S]*?)(?=\n##[ \t]|$)/i.exec(r.body);
    if (m) w.lessons = m[1].trim();
  }
  const recent = [...byPath.values()].filter((w) => !Number.isNaN(w.t) && w.t >= since && w.t <= opts.now + 86_400_000)
    .sort((a, b) => b.t - a.t || (a.path < b.path ? -1 : 1));
  const out: FailureWarning[] = [];
  let left = opts.maxChars;
  for (const { t: _t, ...w } of recent) {
    if (out.length >= (opts.limit ?? MAX_FAILURES)) break;
    const size = warningChars(w);
    if (size > left) continue;
    left -= size;
    out.push(w);
  }
  return { warnings: out, omitted: recent.length - out.length };
}
