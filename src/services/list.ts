// Entries by filter, unranked, for `mem list` and the MCP `list` tool: episodes only when the
// filter's kinds ask for them (`mem recent` lists those), retired entries only when asked for.

import { NOT_EPISODES, type EntryFilter, type EntryRow } from '../index/queries.js';
import type { Vault } from '../vault/vault.js';
import { readFresh, type ReadOptions } from './fresh.js';

export interface ListRequest {
  filter: EntryFilter;
  /** Retired entries too (as does a filter on status retired). */
  all?: boolean;
  /** At most this many (default: all). */
  limit?: number;
}

/** `truncated`: more entries match than the limit let through. */
export async function listMemory(vault: Vault, req: ListRequest, opts: ReadOptions = {}): Promise<{ rows: EntryRow[]; truncated: boolean; warnings: string[] }> {
  const filter: EntryFilter = {
    ...req.filter,
    kinds: req.filter.kinds ?? [...NOT_EPISODES],
    includeRetired: Boolean(req.all) || Boolean(req.filter.statuses?.includes('retired')),
  };
  const { listEntries } = await import('../index/queries.js');
  // One more than asked tells whether there are more.
  const { value: rows, warnings } = await readFresh(vault, opts, (ix) => listEntries(ix.db, filter, req.limit === undefined ? -1 : req.limit + 1));
  const truncated = req.limit !== undefined && rows.length > req.limit;
  return { rows: truncated ? rows.slice(0, req.limit) : rows, truncated, warnings };
}
