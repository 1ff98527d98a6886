// The newest episodes, for `mem recent` and the MCP `recent` tool, from the vault's fresh index.

import type { DetailLevel } from '../episodes/detail.js';
import type { RecentEpisode, Timeline } from '../episodes/recent.js';
import type { Vault } from '../vault/vault.js';
import { readFresh, type ReadOptions } from './fresh.js';

export interface RecentRequest {
  limit: number;
  /** Only episodes of the last N days before `now`. */
  days?: number;
  /** Only the episodes of this session (conversation). */
  session?: string;
  /** Only episodes that ended at or after / started before these times (ms). */
  afterMs?: number;
  beforeMs?: number;
  detail?: DetailLevel;
  now: number;
}

export async function recentMemory(vault: Vault, req: RecentRequest, opts: ReadOptions = {}): Promise<{ episodes: RecentEpisode[]; warnings: string[] }> {
  const { recentEpisodes } = await import('../episodes/recent.js');
  const { value: episodes, warnings } = await readFresh(vault, opts, (ix) => recentEpisodes(ix.db, { limit: req.limit, days: req.days, session: req.session, afterMs: req.afterMs, beforeMs: req.beforeMs, nowMs: req.now, detail: req.detail, root: vault.root }));
  return { episodes, warnings };
}

/** More episodes than one session ever has in practice: a timeline shows them all. */
const TIMELINE_LIMIT = 1000;

/**
 * The timeline of a session's episodes (`mem episode timeline`): the given session, or the session
 * of the newest episode that names one; null when there is none.
 */
export async function timelineMemory(vault: Vault, req: { session?: string; now: number }, opts: ReadOptions = {}): Promise<{ timeline: Timeline | null; warnings: string[] }> {
  const { timelineOf } = await import('../episodes/recent.js');
  let session = req.session;
  const warnings: string[] = [];
  if (session === undefined) {
    const newest = await recentMemory(vault, { limit: TIMELINE_LIMIT, now: req.now }, opts);
    warnings.push(...newest.warnings);
    session = newest.episodes.find((e) => e.session_id !== null)?.session_id ?? undefined;
    if (session === undefined) return { timeline: null, warnings };
  }
  const { episodes, warnings: more } = await recentMemory(vault, { limit: TIMELINE_LIMIT, session, now: req.now }, opts);
  warnings.push(...more);
  return { timeline: episodes.length === 0 ? null : timelineOf(session, episodes), warnings };
}
