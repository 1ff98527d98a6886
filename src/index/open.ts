// Getting a usable, fresh index for a command: open (or recreate) `.memory.db`, refresh it from
// the markdown unless told not to, and recover once from a corrupt file found mid-query.

import { isBusy, isCorruption, openIndex, removeDbFiles, type Db } from './db.js';
import { applyRefresh, planIsEmpty, planRefresh, refresh, type IndexProgress, type IndexReport } from './indexer.js';
import type { Vault } from '../vault/vault.js';

export interface FreshOptions {
  /** Refresh changed files first (default true). A new or recreated index is always filled. */
  refresh?: boolean;
  /** When another process holds the write lock: go on with the index as it is (search) instead of failing. */
  tolerateBusy?: boolean;
  /** Asked with the number of files to index; may return a progress callback (a spinner). */
  progressFor?: (total: number) => Promise<IndexProgress | undefined>;
}

export interface FreshIndex {
  db: Db;
  report?: IndexReport;
  /** Things the user should know (rebuilt index, stale results); the CLI prints them as warnings. */
  notes: string[];
}

async function open(vault: Vault, opts: FreshOptions): Promise<FreshIndex> {
  const notes: string[] = [];
  const { db, recreated, note } = openIndex(vault.dbPath);
  if (note) notes.push(note);
  if (opts.refresh === false && !recreated) return { db, notes };
  try {
    const started = performance.now();
    const p = planRefresh(db, vault);
    const checkMs = Math.round((performance.now() - started) * 10) / 10;
    const report = planIsEmpty(p) ? applyRefresh(db, p) : await refresh(db, p, { onProgress: await opts.progressFor?.(p.work.length) });
    return { db, notes, report: { ...report, checkMs, ms: Math.round(checkMs + report.ms) } };
  } catch (err) {
    if (opts.tolerateBusy && !recreated && (isBusy(err) || isBusy((err as { cause?: unknown }).cause))) {
      notes.push('the index is being updated by another process; results may be stale');
      return { db, notes };
    }
    db.close();
    throw err;
  }
}

/** Run `fn` with a fresh index; a corrupt index found on the way is rebuilt once and `fn` retried. */
export async function withIndex<T>(vault: Vault, opts: FreshOptions, fn: (ix: FreshIndex) => T | Promise<T>): Promise<T> {
  let retried = false;
  for (;;) {
    let ix: FreshIndex | undefined;
    try {
      ix = await open(vault, opts);
      if (retried) ix.notes.unshift('.memory.db was corrupt; rebuilt it from the markdown');
      return await fn(ix);
    } catch (err) {
      if (!retried && isCorruption(err)) {
        retried = true;
        ix?.db.close();
        removeDbFiles(vault.dbPath);
        continue;
      }
      throw err;
    } finally {
      if (ix?.db.open) ix.db.close();
    }
  }
}
