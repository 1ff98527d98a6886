// Reading a fresh index for a service, and where a service's warnings go: what the index and the
// vault walk had to say comes first, in the order every front-end shows it.

import { formatWhere } from '../errors.js';
import type { FreshIndex, FreshOptions } from '../index/open.js';
import type { Vault } from '../vault/vault.js';

/**
 * Where a service's warnings go. With `warn`, each as soon as it is found: a terminal shows it
 * even when a later step fails. Without, they come back with the answer (`warnings`).
 */
export interface WarningSink {
  warn?: (warning: string) => void;
}

export interface Warnings {
  add(...warnings: string[]): void;
  /** What was not sent to the sink's `warn`. */
  readonly list: string[];
}

export function warningsFor(sink: WarningSink): Warnings {
  const list: string[] = [];
  return {
    list,
    add: (...warnings) => {
      for (const w of warnings) {
        if (sink.warn) sink.warn(w);
        else list.push(w);
      }
    },
  };
}

/** Where a read's index comes from: refreshed first unless `refresh` is false; a busy one is answered around. */
export type ReadOptions = Pick<FreshOptions, 'refresh' | 'progressFor'> & WarningSink;

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
export async function readFresh<T>(vault: Vault, opts: ReadOptions, read: (ix: FreshIndex, warnings: Warnings) => T | Promise<T>): Promise<{ value: T; warnings: string[] }> {
  const { withIndex } = await import('../index/open.js');
  const w = warningsFor(opts);
  return withIndex(vault, { refresh: opts.refresh !== false, tolerateBusy: true, progressFor: opts.progressFor, askWatcher: true }, async (ix) => {
    // A corrupt index found mid-read is rebuilt and the read run again: its warnings are the second run's.
    w.list.length = 0;
    w.add(...(await freshWarnings(vault, ix)));
    return { value: await read(ix, w), warnings: w.list };
  });
}
