// The newest episodes, for `mem recent` and the MCP `recent` tool, from the vault's fresh index.

import type { DetailLevel } from '../episodes/detail.js';
import type { RecentEpisode } from '../episodes/recent.js';
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
