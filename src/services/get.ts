// One entry by id (or a unique prefix), for `mem show` and the MCP `get` tool: found through the
// vault's fresh index, read from its file as it stands now.

import type { FoundEntry } from '../retrieve/get.js';
import type { Vault } from '../vault/vault.js';
import { readFresh, type ReadOptions } from './fresh.js';

/** `found.rows` holds every place the id appears (more than one: the same id in several files). */
export async function getEntry(vault: Vault, id: string, opts: ReadOptions = {}): Promise<{ found: FoundEntry; warnings: string[] }> {
  const { findRows, readFound } = await import('../retrieve/get.js');
  const { value: rows, warnings } = await readFresh(vault, opts, (ix) => findRows(ix.db, id));
  return { found: await readFound(vault, rows), warnings };
}
