// `mem recent` (and the MCP `recent` tool): the newest episodes from the index, with their messages
// when the detail level shows them.

import type { Db } from '../index/db.js';
import { listEntries, type EntryFilter, type EntryRow } from '../index/queries.js';
import { showsDetail, surpriseOf, type DetailLevel } from './detail.js';
import { LocalMessages } from './local.js';
import { KEY_MOMENT } from './segment.js';

export interface RecentEpisode {
  id: string;
  title: string;
  session_id: string | null;
  start_at: string | null;
  end_at: string | null;
  surprise: number | null;
  key_moment: boolean;
  path: string;
  line: number;
  summary: string;
  /** The session's episode note, when it has one: `mem episode decisions` takes it. */
  episode_note?: string;
  /** The quoted messages, when the detail level asks for them. */
  messages?: string;
}

function metaOf(row: EntryRow): Record<string, unknown> {
  try {
    const m = JSON.parse(row.metadata_json) as unknown;
    return typeof m === 'object' && m !== null ? (m as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isoOrNull(v: unknown): string | null {
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) return null;
  return v;
}

/** The summary line of an episode's body: its first paragraph, when it is not the messages' section. */
function summaryOfBody(body: string): string {
  const first = body.split(/\n\s*\n/)[0]?.trim() ?? '';
  return first.startsWith('<details') ? '' : first;
}

/**
 * Episodes newest first (by end, else start, else creation date), optionally only those of one
 * session, that ended in the last `days` days before `nowMs`, or that overlap the time bounds
 * (ended at or after `afterMs`, started before `beforeMs`).
 */
export function recentEpisodes(db: Db, opts: { limit: number; days?: number; session?: string; afterMs?: number; beforeMs?: number; nowMs: number; detail?: DetailLevel; root: string }): RecentEpisode[] {
  // The session and the bounds in SQL (indexed columns); the rest below.
  const filter: EntryFilter = { kinds: ['episode'], conversations: opts.session !== undefined ? [opts.session] : undefined, afterMs: opts.afterMs, beforeMs: opts.beforeMs };
  const since = opts.days !== undefined ? opts.nowMs - opts.days * 86_400_000 : null;
  const out: (RecentEpisode & { t: number; body: string })[] = [];
  for (const row of listEntries(db, filter, -1)) {
    const meta = metaOf(row);
    // Segments only: an episode note's chunks are kind episode too, but listed by `mem episode list`.
    if (meta.kind !== 'episode') continue;
    const session = typeof meta.session_id === 'string' ? meta.session_id : null;
    const start = isoOrNull(meta.start_at);
    const end = isoOrNull(meta.end_at);
    const when = end ?? start ?? row.created_at;
    const t = when ? Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(when) ? `${when}T00:00:00Z` : when) : 0;
    if (since !== null && t < since) continue;
    const surprise = surpriseOf(meta.surprise);
    out.push({
      id: row.entry_id, title: row.title, session_id: session, start_at: start, end_at: end, surprise,
      key_moment: surprise !== null && surprise >= KEY_MOMENT, path: row.path, line: row.line, summary: summaryOfBody(row.body), t, body: row.body,
      ...(typeof meta.episode_note === 'string' && { episode_note: meta.episode_note }),
    });
  }
  out.sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  // The messages: in the committed file (shared, or an older mem's), else in the local store.
  const local = new LocalMessages(opts.root);
  return out.slice(0, opts.limit).map(({ t: _t, body, ...e }, rank) => (showsDetail(opts.detail ?? 'none', rank, e.key_moment) ? { ...e, messages: local.messages(e.path, e.id, body) } : e));
}

/** A session's episodes in time order, for a timeline. */
export interface Timeline {
  session: string;
  /** The episodes with a readable start, oldest first (ties by id). */
  episodes: RecentEpisode[];
  /** Episodes left out for want of a readable start time. */
  undated: number;
}

/** The timeline of one session's episodes (given in any order). */
export function timelineOf(session: string, episodes: RecentEpisode[]): Timeline {
  const start = (e: RecentEpisode) => (e.start_at === null ? Number.NaN : Date.parse(e.start_at));
  const dated = episodes.filter((e) => !Number.isNaN(start(e)));
  dated.sort((a, b) => start(a) - start(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { session, episodes: dated, undated: episodes.length - dated.length };
}
