// Reading a fresh index for a service: what the index and the vault walk had to say comes back
// as warnings, in the order every front-end shows them, with the value read.

import { formatWhere } from '../errors.js';
import type { FreshIndex, FreshOptions } from '../index/open.js';
import type { Vault } from '../vault/vault.js';

/** Where a read's index comes from: refreshed first unless `refresh` is false; a busy one is answered around. */
export type ReadOptions = Pick<FreshOptions, 'refresh' | 'progressFor'>;

/**
 * The warnings a fresh index brings: its notes (a rebuilt or temporary index), the indexer's
 * diagnostics, then links out of the vault and folders the walk could not list.
 */
export async function freshWarnings(vault: Vault, ix: FreshIndex): Promise<string[]> {
  const { skipNotices } = await import('../vault/vault.js');
  return [...ix.notes, ...(ix.report?.diagnostics ?? []).map((d) => formatWhere(d.message, { file: d.file, line: d.line })), ...skipNotices(vault)];
}

/**
 * Run `read` on a fresh index of the vault, as every read does (a busy index never fails it);
 * `read` may add warnings of its own after the index's.
 */
export async function readFresh<T>(vault: Vault, opts: ReadOptions, read: (ix: FreshIndex, warnings: string[]) => T | Promise<T>): Promise<{ value: T; warnings: string[] }> {
  const { withIndex } = await import('../index/open.js');
  return withIndex(vault, { refresh: opts.refresh !== false, tolerateBusy: true, progressFor: opts.progressFor }, async (ix) => {
    const warnings = await freshWarnings(vault, ix);
    return { value: await read(ix, warnings), warnings };
  });
}
