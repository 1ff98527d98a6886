// Entries by the ids people and agents type: an id, or a unique prefix of one, resolved through
// the index; and one entry read from its file as it stands now. Every command and MCP tool that
// takes entry ids resolves them here (`mem show`, `mem reinforce`, `mem review`, get, …).

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import type { Db } from '../index/db.js';
import { entriesById, entryIdsByPrefix, type EntryRow } from '../index/queries.js';
import { oneLine } from '../quote.js';
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

/** The fewest characters a prefix must give: shorter ones would match much of a vault. */
export const MIN_ID_PREFIX = 4;
/** Candidates an ambiguous prefix names in its error (then "…and N more"). */
const SHOWN = 3;

/**
 * The full id each of `typed` names: itself when an entry has that id, else the one entry whose id
 * starts with it. All are checked before any is returned, so a caller that writes changes
 * nothing when one is wrong: an id that names no entry, or a prefix that names several, throws
 * one MemError naming every such id (and a few candidates of an ambiguous prefix, with titles).
 */
export function resolveIds(db: Db, typed: string[]): string[] {
  const full: string[] = [];
  const unknown: string[] = [];
  const ambiguous: string[] = [];
  for (const id of new Set(typed)) {
    if (entriesById(db, id).length > 0) {
      full.push(id);
      continue;
    }
    const { ids, total } = id.length >= MIN_ID_PREFIX ? entryIdsByPrefix(db, id, SHOWN + 1) : { ids: [], total: 0 };
    if (total === 1) full.push(ids[0].entry_id);
    else if (total === 0) unknown.push(id);
    else ambiguous.push(ambiguity(id, ids.slice(0, SHOWN), total));
  }
  if (unknown.length === 0 && ambiguous.length === 0) return [...new Set(full)];
  const quoted = unknown.map((id) => `"${oneLine(id)}"`);
  const short = unknown.some((id) => id.length < MIN_ID_PREFIX) ? ` (a prefix needs ${MIN_ID_PREFIX} characters or more)` : '';
  const parts = [
    ...(unknown.length === 1 ? [`no entry with id ${quoted[0]}${short}`] : unknown.length > 1 ? [`no entries with ids ${quoted.join(', ')}${short}`] : []),
    ...ambiguous,
  ];
  throw new MemError(parts.join('; '), { hint: ambiguous.length > 0 ? 'give more of the id' : 'find ids with mem search or mem list' });
}

/** `"3f0c" matches 5 entries: 3f0c2a4e "Title", …, …and 2 more`: each id cut where it differs from the others. */
function ambiguity(prefix: string, shown: { entry_id: string; title: string }[], total: number): string {
  const common = (a: string, b: string) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return i;
  };
  let cut = 8;
  for (const a of shown) for (const b of shown) if (a !== b) cut = Math.max(cut, common(a.entry_id, b.entry_id) + 1);
  const title = (t: string) => {
    const one = [...oneLine(t ?? '')];
    return one.length === 0 ? '(untitled)' : `"${one.length > 40 ? `${one.slice(0, 39).join('')}…` : one.join('')}"`;
  };
  const named = shown.map((r) => `${oneLine(r.entry_id.slice(0, cut))} ${title(r.title)}`).join(', ');
  return `"${oneLine(prefix)}" matches ${total} entries: ${named}${total > shown.length ? `, …and ${total - shown.length} more` : ''}`;
}

/** The index rows for `id` (an id or a unique prefix): every place that entry appears. Throws as resolveIds does. */
export function findRows(db: Db, id: string): EntryRow[] {
  return entriesById(db, resolveIds(db, [id])[0]);
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
