// The newest episodes, for `mem recent` and the MCP `recent` tool, from the vault's fresh index.

import type { DetailLevel } from '../episodes/detail.js';
import type { RecentEpisode } from '../episodes/recent.js';
import type { Vault } from '../vault/vault.js';
import { readFresh, type ReadOptions } from './fresh.js';

export interface RecentRequest {
  limit: number;
  /** Only episodes of the last N days before `now`. */
  days?: number;
  session?: string;
  detail?: DetailLevel;
  now: number;
}

export async function recentMemory(vault: Vault, req: RecentRequest, opts: ReadOptions = {}): Promise<{ episodes: RecentEpisode[]; warnings: string[] }> {
  const { recentEpisodes } = await import('../episodes/recent.js');
  const { value: episodes, warnings } = await readFresh(vault, opts, (ix) => recentEpisodes(ix.db, { limit: req.limit, days: req.days, session: req.session, nowMs: req.now, detail: req.detail, root: vault.root }));
  return { episodes, warnings };
}
