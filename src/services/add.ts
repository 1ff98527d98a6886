// Adding one learning, for `mem add` and the MCP `add` tool: the request checked before the vault
// is looked for (a typo is reported first), the entry written and indexed, and what the indexer
// said as warnings. Nothing is printed here.

import { formatWhere } from '../errors.js';
import type { AddRequest, AddResult, FieldName } from '../lifecycle/add.js';
import type { Vault } from '../vault/vault.js';

export interface Added {
  added: AddResult;
  /** Problems the indexer found in the written file (said before anything else). */
  problems: string[];
  /** The index's notes, and why it could not be updated (said last: the entry is written). */
  notes: string[];
}

/**
 * `vault` opens the vault once the request is known to be good. `cwd`: what a `file` is relative
 * to (default the vault's root); `name`: how fields are named in messages (flags or tool arguments).
 */
export async function addLearning(req: AddRequest, opts: { vault: () => Promise<Vault>; cwd?: string; name?: FieldName }): Promise<Added> {
  const { addEntry, checkAdd } = await import('../lifecycle/add.js');
  checkAdd(req, opts.name);
  const vault = await opts.vault();
  const added = await addEntry(vault, req, opts.cwd ?? vault.root, opts.name);
  return {
    added,
    problems: added.diagnostics.map((d) => formatWhere(d.message, { file: d.file, line: d.line })),
    notes: [...added.notes, ...(added.warning ? [added.warning] : [])],
  };
}
