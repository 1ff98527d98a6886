// One entry by id (or a unique id prefix): found through the index, then read from its file as
// it stands now. `mem show` and the MCP server's `get` tool both come through here.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import type { Db } from '../index/db.js';
import { entriesById, entriesByIdPrefix, type EntryRow } from '../index/queries.js';
import { staysInside } from '../vault/boundary.js';
import type { Block, ParsedFile } from '../vault/format.js';
import type { Vault } from '../vault/vault.js';

export interface FoundEntry {
  row: EntryRow;
  /** Every place the id appears (more than one: the same id in several files). */
  rows: EntryRow[];
  /** The entry's block in its file as it is now; absent when the file is gone or changed under the index. */
  block?: Block;
}

/** The index rows for `id`: exact, else a unique prefix. Throws when none or several entries match. */
export function findRows(db: Db, id: string): EntryRow[] {
  const exact = entriesById(db, id);
  const rows = exact.length > 0 ? exact : entriesByIdPrefix(db, id, 6);
  if (rows.length === 0) throw new MemError(`no entry with id "${id}"`, { hint: 'find ids with mem search or mem list' });
  const ids = new Set(rows.map((r) => r.entry_id));
  if (ids.size > 1) {
    throw new MemError(`"${id}" matches ${ids.size > 5 ? 'more than 5' : ids.size} entries: ${[...ids].slice(0, 5).join(', ')}`, { hint: 'give more of the id' });
  }
  return rows;
}

/** Read the file of `rows[0]` and find its block (never through a link out of the vault). */
export async function readFound(vault: Vault, rows: EntryRow[]): Promise<FoundEntry> {
  const row = rows[0];
  const { parseMemoryFile } = await import('../vault/format.js');
  const { readVaultText } = await import('../vault/read.js');
  const abs = path.isAbsolute(row.path) ? row.path : path.join(vault.root, row.path);
  // An index older than a link out of the vault shows its own copy instead.
  const inside = staysInside(abs, path.isAbsolute(row.path) ? vault.home : vault.root).inside;
  const read = fs.existsSync(abs) && inside ? readVaultText(abs) : { error: 'file is gone' };
  const parsed: ParsedFile | null = 'text' in read ? parseMemoryFile(read.text, row.path) : null;
  const block = parsed?.blocks.find((b) => b.entry?.id === row.entry_id && b.entry.ordinal === row.ordinal)
    ?? parsed?.blocks.find((b) => b.entry?.id === row.entry_id);
  return { row, rows, block };
}
