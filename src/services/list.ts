// Entries by filter, unranked, for `mem list` and the MCP `list` tool: episodes only when the
// filter's kinds ask for them (`mem recent` lists those), retired entries only when asked for.

import { NOT_EPISODES, type EntryFilter, type EntryRow, type ListingRow } from '../index/queries.js';
import type { Vault } from '../vault/vault.js';
import { MemError } from '../errors.js';
import { readFresh, type ReadOptions } from './fresh.js';

export interface ListRequest {
  filter: EntryFilter;
  /** Retired entries too (as does a filter on status retired). */
  all?: boolean;
  /** At most this many (default: all). */
  limit?: number;
}

function listFilter(req: ListRequest): EntryFilter {
  return {
    ...req.filter,
    kinds: req.filter.kinds ?? [...NOT_EPISODES],
    includeRetired: Boolean(req.all) || Boolean(req.filter.statuses?.includes('retired')),
  };
}

/** `truncated`: more entries match than the limit let through. */
export async function listMemory(vault: Vault, req: ListRequest, opts: ReadOptions = {}): Promise<{ rows: EntryRow[]; truncated: boolean; warnings: string[] }> {
  const filter = listFilter(req);
  const { listEntries } = await import('../index/queries.js');
  // One more than asked tells whether there are more.
  const { value: rows, warnings } = await readFresh(vault, opts, (ix) => listEntries(ix.db, filter, req.limit === undefined ? -1 : req.limit + 1));
  const truncated = req.limit !== undefined && rows.length > req.limit;
  return { rows: truncated ? rows.slice(0, req.limit) : rows, truncated, warnings };
}

/** A listing read one row at a time (see visitListing); each call starts from the first row. */
export interface Listing {
  /** The listed entries without their bodies, in listMemory's order. */
  rows(): IterableIterator<ListingRow>;
  /** Their ids alone (a first pass, to size columns, costs little). */
  ids(): IterableIterator<string>;
}

/**
 * The same listing as listMemory, visited inside the index read rather than returned: a vault of
 * a million entries is written out as it is read, in constant memory.
 */
export async function visitListing<T>(vault: Vault, req: ListRequest, opts: ReadOptions, visit: (listing: Listing) => T): Promise<{ value: T; warnings: string[] }> {
  const filter = listFilter(req);
  const limit = req.limit ?? -1;
  const { iterateListing, iterateListingIds } = await import('../index/queries.js');
  const { isCorruption } = await import('../index/db.js');
  let shown = false;
  return readFresh(vault, opts, (ix) => {
    try {
      return visit({
        rows: function* () {
          for (const row of iterateListing(ix.db, filter, limit)) {
            shown = true;
            yield row;
          }
        },
        ids: () => iterateListingIds(ix.db, filter, limit),
      });
    } catch (err) {
      // A damaged index found before any row went out is rebuilt and the listing read again, as
      // every read does; after, that would list the first rows twice: stop with the cause instead.
      if (shown && isCorruption(err)) throw new MemError('the index .memory.db is damaged (found part-way through the listing)', { hint: 'run mem index --rebuild, which rebuilds it from the markdown' });
      throw err;
    }
  });
}
