// Getting a usable, fresh index for a command: open (or recreate) `.memory.db`, refresh it from
// the markdown unless told not to, and recover once from a corrupt file found mid-query. A read
// whose index cannot be written answers from a temporary one; a write's index update never
// fails a command whose markdown is already written.

import { formatWhere } from '../errors.js';
import { describeIndexFault, indexError, indexFault, isCorruption, openIndex, openMemoryIndex, removeDbFiles, type Db } from './db.js';
import fs from 'node:fs';
import { applyRefresh, planIsEmpty, planRefresh, conflictWarnings, rebuildIndex, refresh, refreshFiles, storedStatDigest, type IndexProgress, type IndexReport } from './indexer.js';
import { askWatcher, type Question } from './vouch.js';
import { discoverFiles, type Vault, type VaultFile } from '../vault/vault.js';

export interface FreshOptions {
  /** Refresh changed files first (default true). A new or recreated index is always filled. */
  refresh?: boolean;
  /**
   * A read: when the index cannot be written now (another process holds its write lock, it is
   * read-only, a folder, on a full disk), answer from a temporary in-memory index refreshed
   * from the markdown, with a note, instead of failing.
   */
  tolerateBusy?: boolean;
  /** Asked with the number of files to index; may return a progress callback (a spinner). */
  progressFor?: (total: number) => Promise<IndexProgress | undefined>;
  /**
   * Ask a running `mem watch` first (see vouch.ts): when it vouches that no file changed since it
   * indexed them, and the index is the one it left, the files are not stat-ed.
   */
  askWatcher?: boolean;
  /** How long to wait for the watcher's answer (default VOUCH_TIMEOUT_MS). */
  watcherTimeoutMs?: number;
}

export interface FreshIndex {
  db: Db;
  report?: IndexReport;
  /** Things the user should know (rebuilt index, stale results); the CLI prints them as warnings. */
  notes: string[];
  /** The answer comes from an in-memory copy: .memory.db itself could not be brought up to date. */
  temporary?: boolean;
}

/**
 * An index that starts empty is filled by a bulk rebuild beside it (rebuildIndex: no journal,
 * a big full-text buffer, secondary indexes made once at the end) when the vault holds this much
 * markdown or more; row by row below. At a million entries (567 MB) the first command after an
 * index format change took 104 s row by row, against ~25 s for `mem index --rebuild`.
 */
const BULK_BYTES = 16 << 20;

/**
 * Refresh `db` from the vault, with the freshness check's own time in the report. `empty`: an
 * index just created, which a big vault fills by a bulk rebuild instead (null is returned then,
 * and nothing is written).
 */
async function fill(db: Db, vault: Vault, opts: FreshOptions, empty?: false, asked?: Question | null): Promise<IndexReport>;
async function fill(db: Db, vault: Vault, opts: FreshOptions, empty: true): Promise<IndexReport | null>;
async function fill(db: Db, vault: Vault, opts: FreshOptions, empty = false, asked: Question | null = null): Promise<IndexReport | null> {
  // process.hrtime, not the global performance, whose first use loads node:perf_hooks (~1 ms).
  const started = process.hrtime.bigint();
  const token = await watcherVouches(db, asked);
  if (token !== null) {
    const checkMs = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    return { files: Number(token.split('.')[2]) || 0, changed: 0, removed: 0, entries: -1, ms: Math.round(checkMs), checkMs, watcher: true, diagnostics: [] };
  }
  const p = planRefresh(db, vault);
  if (empty && p.work.reduce((n, w) => n + w.st.size, 0) >= BULK_BYTES) return null;
  const checkMs = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
  const report = planIsEmpty(p) ? applyRefresh(db, p) : await refresh(db, p, { onProgress: await opts.progressFor?.(p.work.length) });
  return { ...report, checkMs, ms: Math.round(checkMs + report.ms) };
}

/**
 * The watcher's token when `asked` (see askWatcher) vouches for `db`: the token is the stat digest
 * the watcher saw stored after its last refresh, equal to this index's when this is the index it
 * left (not one copied over it, nor one written since from files it has not seen). Null otherwise.
 */
export async function watcherVouches(db: Db, asked: Question | null): Promise<string | null> {
  if (!asked) return null;
  const token = await asked.answer();
  return token !== null && token !== '' && token === storedStatDigest(db) ? token : null;
}

/**
 * Fill an index that was just created empty: row by row, or, for a big vault, by a bulk rebuild
 * that replaces the file (`db` is closed then, and the index comes back on a new connection).
 */
async function fillEmpty(db: Db, vault: Vault, progressFor: FreshOptions['progressFor']): Promise<{ db: Db; report: IndexReport }> {
  const filled = await fill(db, vault, { progressFor }, true);
  if (filled) return { db, report: filled };
  db.close();
  const report = await rebuildIndex(vault, progressFor);
  return { db: openIndex(vault.dbPath).db, report };
}

/**
 * A temporary index in memory, refreshed from the markdown: a copy of .memory.db when that can
 * be read (only what changed is then parsed), else built from nothing. Always fresh, never saved.
 */
async function temporary(vault: Vault, opts: FreshOptions, why: string, notes: string[], copy: boolean): Promise<FreshIndex> {
  const db = openMemoryIndex(copy ? vault.dbPath : null);
  try {
    const report = await fill(db, vault, opts);
    notes.push(`${why}; answered from a temporary index of the markdown as it is now`);
    return { db, notes, report, temporary: true };
  } catch (err) {
    db.close();
    // A damaged copy: start from nothing (the file on disk is left to whoever holds it).
    if (copy && isCorruption(err)) return temporary(vault, opts, why, notes, false);
    throw err;
  }
}

/** `memory`: answer from an index built in memory (the one on disk was corrupt and could not be replaced). */
async function open(vault: Vault, opts: FreshOptions, mode: 'disk' | 'memory'): Promise<FreshIndex> {
  if (mode === 'memory') return temporary(vault, opts, '.memory.db is corrupt and could not be replaced', [], false);
  // Asked before the index is opened: the watcher's round trip overlaps the opening. A question
  // whose answer is not read (a new index, a fault) is withdrawn.
  const asked = opts.askWatcher && opts.refresh !== false ? askWatcher(vault.root, opts.watcherTimeoutMs) : null;
  try {
    return await openOnDisk(vault, opts, asked);
  } finally {
    asked?.drop();
  }
}

async function openOnDisk(vault: Vault, opts: FreshOptions, asked: Question | null): Promise<FreshIndex> {
  const notes: string[] = [];
  let opened;
  try {
    opened = openIndex(vault.dbPath);
  } catch (err) {
    const fault = indexFault(err);
    if (fault === null) throw err;
    if (!opts.tolerateBusy) throw indexError(vault.dbPath, err);
    return temporary(vault, opts, describeIndexFault(vault.dbPath, err), notes, fault !== 'corrupt');
  }
  const { db, recreated, note } = opened;
  if (note) notes.push(note);
  if (opts.refresh === false && !recreated) return { db, notes };
  try {
    if (!recreated) return { db, notes, report: await fill(db, vault, opts, false, asked) };
    const filled = await fillEmpty(db, vault, opts.progressFor);
    return { db: filled.db, notes, report: filled.report };
  } catch (err) {
    // Closed already when a bulk rebuild failed (closing twice does nothing).
    db.close();
    const fault = indexFault(err);
    if (fault === null) throw err;
    if (!opts.tolerateBusy || fault === 'corrupt') throw indexError(vault.dbPath, err);
    return temporary(vault, opts, describeIndexFault(vault.dbPath, err), notes, !recreated);
  }
}

/** Run `fn` with a fresh index; a corrupt index found on the way is rebuilt once and `fn` retried. */
export async function withIndex<T>(vault: Vault, opts: FreshOptions, fn: (ix: FreshIndex) => T | Promise<T>): Promise<T> {
  let mode: 'disk' | 'memory' = 'disk';
  let retried = false;
  for (;;) {
    let ix: FreshIndex | undefined;
    try {
      ix = await open(vault, opts, mode);
      // A file left mid-merge is said on every read, not only when it is (re)indexed.
      const conflicts = conflictWarnings(ix.db);
      if (ix.report) ix.report.diagnostics.push(...conflicts);
      else for (const d of conflicts) ix.notes.push(formatWhere(d.message, d));
      if (retried && !ix.temporary) ix.notes.unshift('.memory.db was corrupt; rebuilt it from the markdown');
      return await fn(ix);
    } catch (err) {
      if (!retried && isCorruption(err)) {
        retried = true;
        const wasTemporary = ix?.temporary === true;
        if (ix?.db.open) ix.db.close();
        ix = undefined;
        if (wasTemporary) mode = 'memory';
        else {
          try {
            removeDbFiles(vault.dbPath);
          } catch (again) {
            // Cannot replace it (a read-only folder): a read still answers, from the markdown.
            if (!opts.tolerateBusy) throw indexError(vault.dbPath, again);
            mode = 'memory';
          }
        }
        continue;
      }
      throw err;
    } finally {
      if (ix?.db.open) ix.db.close();
    }
  }
}

export interface IndexedWrite<T> {
  value?: T;
  report?: IndexReport;
  notes: string[];
  /** Set when the index could not be updated: one line for the user (the markdown is written). */
  warning?: string;
}

/**
 * After mem wrote `files`: index them now, so a `--no-refresh` search sees them too (a new or
 * recreated index is filled whole), then run `read` on the index. The markdown is the truth and
 * is already written, so a failure here fails nothing: it comes back as `warning`, and the next
 * read catches up. A corrupt index is replaced once.
 */
export async function indexWritten<T>(vault: Vault, files: VaultFile[], read?: (db: Db) => T): Promise<IndexedWrite<T>> {
  const notes: string[] = [];
  for (let attempt = 0; ; attempt++) {
    let db: Db | undefined;
    try {
      const opened = openIndex(vault.dbPath);
      db = opened.db;
      if (opened.note) notes.push(opened.note);
      let report: IndexReport;
      if (opened.recreated) {
        const filled = await fillEmpty(db, vault, undefined);
        db = filled.db;
        report = filled.report;
      } else report = await refreshFiles(db, files);
      return { value: read?.(db), report, notes };
    } catch (err) {
      if (db?.open) db.close();
      db = undefined;
      if (attempt === 0 && isCorruption(err)) {
        try {
          removeDbFiles(vault.dbPath);
          continue;
        } catch {
          // reported below
        }
      }
      const why = indexFault(err) !== null ? describeIndexFault(vault.dbPath, err) : `the index was not updated (${err instanceof Error ? err.message : String(err)})`;
      return { notes, warning: `${why}; the markdown is written, and the index catches up on the next read` };
    } finally {
      if (db?.open) db.close();
    }
  }
}

/**
 * The share of the vault's markdown (bytes) that a write must have rewritten for the index to be
 * rebuilt beside the old one rather than refreshed in place. A refresh of a file reads the file's
 * old rows, keeps those whose entry and text are unchanged (their positions and metadata are
 * updated), deletes the others (a delete costs more than an insert) and inserts the new ones; a
 * rebuild only inserts, but every file's. Both parse every file they index. With every entry of a
 * million rewritten, the refresh took 1.1 to 1.5 times as long as a rebuild, so the two cost about
 * the same from two thirds of the vault on or so.
 */
export const REBUILD_SHARE = 0.75;

/**
 * The share of the entries it read that a write must have changed or removed for rebuildPays to
 * be asked at all. A compaction rewrites most files but keeps most entries as they were: at a
 * million entries with 5% of them removed or merged, refreshing the index took 22–27 s against
 * 27–33 s for a rebuild (one run after the other). A kept row costs the refresh about a third of
 * what a row costs a rebuild, a removed one (its deletes) a bit more than one.
 */
export const REFRESH_ROW_SHARE = 0.2;

/** Whether rebuilding the index costs less than refreshing `files` (see REBUILD_SHARE). */
export function rebuildPays(vault: Vault, files: VaultFile[], share = REBUILD_SHARE): boolean {
  const size = (abs: string) => fs.statSync(abs, { throwIfNoEntry: false })?.size ?? 0;
  const written = new Set(files.map((f) => f.abs));
  let changed = 0;
  let all = 0;
  for (const f of discoverFiles(vault)) {
    const n = size(f.abs);
    all += n;
    if (written.has(f.abs)) changed += n;
  }
  return all > 0 && changed >= share * all;
}

/**
 * indexWritten for a write that may have rewritten most of the vault (a compaction): when
 * rebuildPays, and the write changed or removed at least REFRESH_ROW_SHARE of the entries it read
 * (`rowShare`, when the writer knows it), a complete new index is built beside the old one from
 * the markdown as it is now (files changed by anyone else included), keeping the old one's
 * embedding vectors, and renamed into place; else, or when the rebuild fails (the old index is
 * then left as it was), `files` are refreshed as indexWritten does. Never throws; a failure comes
 * back as `warning`.
 */
export async function indexRewritten(vault: Vault, files: VaultFile[], opts: { share?: number; rowShare?: number } = {}): Promise<IndexedWrite<undefined> & { rebuilt?: boolean }> {
  if (files.length === 0) return { notes: [] };
  let pays = false;
  try {
    pays = (opts.rowShare === undefined || opts.rowShare >= REFRESH_ROW_SHARE) && rebuildPays(vault, files, opts.share);
  } catch {
    // A folder that cannot be listed now: the refresh below says what is wrong, if anything.
  }
  if (pays) {
    try {
      const report = await rebuildIndex(vault);
      return { report, notes: [], rebuilt: true };
    } catch {
      // A full disk, an index folder that cannot be written: the refresh below reports it (and
      // may still succeed, needing less space).
    }
  }
  return indexWritten(vault, files);
}
