// Keeping `.memory.db` in step with the markdown: stat every vault file, hash only those whose
// stat changed, re-parse only those whose hash changed, purge files that disappeared. One
// transaction per refresh; a full rebuild builds a new file and renames it into place.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../errors.js';
import { MemError } from '../errors.js';
import type { Entry } from '../vault/entry.js';
import { parseMemoryFile, type FileFormat } from '../vault/format.js';
import { decodeVaultText, readVaultText, type ReadResult } from '../vault/read.js';
import { DirCache } from '../vault/dircache.js';
import { discoverFiles, type Vault, type VaultFile } from '../vault/vault.js';
import { createIndexAt, INDEXES, isBusy, openIndex, removeDbFiles, type Db } from './db.js';

export interface IndexReport {
  files: number;
  changed: number;
  removed: number;
  entries: number;
  ms: number;
  diagnostics: Diagnostic[];
  note?: string;
}

export interface IndexProgress {
  (done: number, total: number): void;
}

interface FileRow {
  id: number;
  path: string;
  mtime_ms: number;
  ctime_ms: number;
  size: number;
  hash: string | null;
  racy: number;
}

/** Stat windows shorter than this may hide a same-size edit: such files are hashed again next time. */
const RACY_MS = 2000;
const CONTEXT_TARGET = 800;
const MIN_CONTEXT = 40;

/**
 * A fast 64-bit string hash (two FNV-1a lanes) for change detection inside the index, where a
 * cryptographic hash only costs time. Not stable across mem versions; never stored in files.
 */
export function quickHash(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

function sha1(s: string | Buffer): string {
  return createHash('sha1').update(s).digest('hex');
}

/** The first `n` characters of `s`, cut at a word boundary. */
function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.lastIndexOf(' ', n);
  return s.slice(0, cut > n / 2 ? cut : n);
}

/**
 * Low-weight context for an entry: a note's heading trail, or for an untitled entry the text of
 * its neighbours in the file. Context fills in for entries that cannot carry their topic alone —
 * a turn of a conversation, a bare one-line note: the shorter the entry, the more of its
 * neighbours it gets (none from CONTEXT_TARGET characters up). An entry with a heading of its own
 * is a self-contained learning; its neighbours are other learnings, not its context.
 */
export function contextFor(entries: Entry[], i: number): string {
  const e = entries[i];
  if (e.kind === 'note') return e.trail ?? '';
  if (e.titleFromHeading) return '';
  const own = e.body.length;
  const budget = CONTEXT_TARGET - own;
  if (budget < MIN_CONTEXT) return '';
  const side = Math.ceil(budget / 2);
  const parts: string[] = [];
  const prev = entries[i - 1];
  const next = entries[i + 1];
  if (prev) parts.push(clip(`${prev.titleFromHeading ? `${prev.title} ` : ''}${prev.body}`, side));
  if (next) parts.push(clip(`${next.titleFromHeading ? `${next.title} ` : ''}${next.body}`, side));
  return parts.join('\n');
}

/** A file read and parsed, ready to be written to the index. */
interface Prepared {
  entries: Entry[];
  format: FileFormat | null;
  error: string | null;
  /** Per entry: the FTS columns and their hash. */
  fts: { title: string; body: string; context: string; hash: string }[];
}

function prepare(file: VaultFile, read: ReadResult, diags: Diagnostic[]): Prepared {
  if ('error' in read) {
    diags.push({ severity: 'warning', message: `${read.error}; skipped`, file: file.path, line: read.line });
    return { entries: [], format: null, error: read.error, fts: [] };
  }
  const parsed = parseMemoryFile(read.text, file.path);
  for (const d of parsed.diagnostics) diags.push({ ...d, severity: 'warning', message: `${d.message}; entry skipped` });
  const fts = parsed.entries.map((e, i) => {
    const title = e.titleFromHeading ? e.title : '';
    const context = contextFor(parsed.entries, i);
    return { title, body: e.body, context, hash: quickHash(`${title}\u0000${e.body}\u0000${context}`) };
  });
  return { entries: parsed.entries, format: parsed.format, error: parsed.diagnostics[0]?.message ?? null, fts };
}

interface OldRow {
  rowid: number;
  entry_id: string;
  fts_hash: string;
  row_hash: string;
  ordinal: number;
  char_offset: number;
  line: number;
}

class Writer {
  private insertFile;
  private updateFileStat;
  private fileRows;
  private deleteFtsRow;
  private deleteEntryRow;
  private deleteFileEntries;
  private deleteFile;
  private insertEntry;
  private updateEntry;
  private insertFts;
  private updateFileContent;
  private movePosition;

  constructor(db: Db) {
    this.insertFile = db.prepare(`INSERT INTO files(path, abs, mtime_ms, ctime_ms, size, hash, racy, scope, learning_type, format, entry_count, error)
      VALUES (@path, @abs, @mtime_ms, @ctime_ms, @size, @hash, @racy, @scope, @learning_type, @format, @entry_count, @error)`);
    this.updateFileStat = db.prepare('UPDATE files SET mtime_ms = ?, ctime_ms = ?, size = ?, racy = ? WHERE id = ?');
    this.updateFileContent = db.prepare(`UPDATE files SET abs = @abs, mtime_ms = @mtime_ms, ctime_ms = @ctime_ms, size = @size, hash = @hash,
      racy = @racy, scope = @scope, learning_type = @learning_type, format = @format, entry_count = @entry_count, error = @error WHERE id = @id`);
    this.fileRows = db.prepare('SELECT rowid, entry_id, fts_hash, row_hash, ordinal, char_offset, line FROM entries WHERE file_id = ? ORDER BY ordinal');
    this.movePosition = db.prepare('UPDATE entries SET ordinal = ?, char_offset = ?, line = ? WHERE rowid = ?');
    // Row by row: FTS5 cannot use an index for `rowid IN (subquery)` and would scan every row.
    this.deleteFtsRow = db.prepare('DELETE FROM entries_fts WHERE rowid = ?');
    this.deleteEntryRow = db.prepare('DELETE FROM entries WHERE rowid = ?');
    this.deleteFileEntries = db.prepare('DELETE FROM entries WHERE file_id = ?');
    this.deleteFile = db.prepare('DELETE FROM files WHERE id = ?');
    const cols = `entry_id, file_id, path, ordinal, char_offset, line, kind, scope, learning_type, type, domain, importance, phase, status,
      reinforcement_count, last_reinforced, created_at, title, body, content_hash, fts_hash, row_hash, metadata_json`;
    const names = cols.split(',').map((c) => c.trim());
    // Positional parameters, in the order of `cols`: binding by name costs a lookup per column.
    this.insertEntry = db.prepare(`INSERT INTO entries(${cols}) VALUES (${names.map(() => '?').join(', ')})`);
    this.updateEntry = db.prepare(`UPDATE entries SET ${names.map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`);
    this.insertFts = db.prepare('INSERT INTO entries_fts(rowid, title, body, context) VALUES (?, ?, ?, ?)');
  }

  touch(id: number, st: fs.Stats, racy: boolean): void {
    this.updateFileStat.run(st.mtimeMs, st.ctimeMs, st.size, racy ? 1 : 0, id);
  }

  remove(id: number): void {
    for (const r of this.fileRows.all(id) as OldRow[]) this.deleteFtsRow.run(r.rowid);
    this.deleteFileEntries.run(id);
    this.deleteFile.run(id);
  }

  /**
   * Match a changed file's new entries to its indexed rows: an entry whose id and indexed text
   * are unchanged keeps its row (metadata is updated, no FTS work). The FTS rows of everything
   * else are deleted now; `put` inserts the new ones later, after every delete of the refresh.
   */
  reconcile(fileId: number, prep: Prepared): Map<number, OldRow> {
    const old = this.fileRows.all(fileId) as OldRow[];
    const byKey = new Map<string, OldRow[]>();
    for (const r of old) {
      const k = `${r.entry_id}\u0000${r.fts_hash}`;
      const list = byKey.get(k);
      if (list) list.push(r);
      else byKey.set(k, [r]);
    }
    const keep = new Map<number, OldRow>();
    prep.entries.forEach((e, i) => {
      const r = byKey.get(`${e.id}\u0000${prep.fts[i].hash}`)?.shift();
      if (r !== undefined) keep.set(i, r);
    });
    const kept = new Set([...keep.values()].map((r) => r.rowid));
    for (const r of old) {
      if (kept.has(r.rowid)) continue;
      this.deleteFtsRow.run(r.rowid);
      this.deleteEntryRow.run(r.rowid);
    }
    return keep;
  }

  /** Write a file's entries; rows in `keep` (entry index → rowid) only get their metadata updated. */
  put(existingId: number | undefined, file: VaultFile, st: fs.Stats, hash: string, racy: boolean, prep: Prepared, keep: Map<number, OldRow>): number {
    const row = {
      path: file.path, abs: file.abs, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs, size: st.size, hash, racy: racy ? 1 : 0,
      scope: file.scope, learning_type: file.learningType, format: prep.format, entry_count: prep.entries.length, error: prep.error,
    };
    let fileId: number;
    if (existingId !== undefined) {
      this.updateFileContent.run({ ...row, id: existingId });
      fileId = existingId;
    } else {
      fileId = Number(this.insertFile.run(row).lastInsertRowid);
    }
    prep.entries.forEach((e, i) => {
      const learningType = typeof e.meta.learning_type === 'string' && ['institutional', 'task', 'proxy'].includes(e.meta.learning_type)
        ? e.meta.learning_type : file.learningType;
      const metadata_json = JSON.stringify(e.meta);
      // Everything but the position: when only the position changed, only the position is written.
      const row_hash = quickHash(`${file.path}\u0000${file.scope}\u0000${learningType}\u0000${e.kind}\u0000${e.title}\u0000${metadata_json}`);
      const old = keep.get(i);
      if (old && old.row_hash === row_hash) {
        if (old.ordinal !== e.ordinal || old.char_offset !== e.offset || old.line !== e.line) this.movePosition.run(e.ordinal, e.offset, e.line, old.rowid);
        return;
      }
      const values = [
        e.id, fileId, file.path, e.ordinal, e.offset, e.line, e.kind, file.scope, learningType, e.type, e.domain, e.importance, e.phase,
        e.status, e.reinforcement_count, e.last_reinforced, e.created_at, e.title, e.body, quickHash(`${e.title}\n${e.body}`), prep.fts[i].hash,
        row_hash, metadata_json,
      ];
      if (old) {
        this.updateEntry.run(...values, old.rowid);
        return;
      }
      const res = this.insertEntry.run(...values);
      const f = prep.fts[i];
      this.insertFts.run(res.lastInsertRowid, f.title, f.body, f.context);
    });
    return prep.entries.length;
  }
}

export interface RefreshOptions {
  onProgress?: IndexProgress;
}

export function countEntries(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n;
}

export interface Plan {
  work: { file: VaultFile; st: fs.Stats; row?: FileRow }[];
  removed: FileRow[];
  files: number;
  /** The folder listings to save for the next check, when they changed (see DirCache). */
  dirCache?: string;
}

function plan(db: Db, files: VaultFile[]): Plan {
  // Raw rows and no hash: this runs before every search, and the hash is only needed for the
  // few files whose stat changed (fetched then).
  const raw = db.prepare('SELECT id, path, mtime_ms, ctime_ms, size, racy FROM files').raw().all() as [number, string, number, number, number, number][];
  const rows: FileRow[] = raw.map(([id, path, mtime_ms, ctime_ms, size, racy]) => ({ id, path, mtime_ms, ctime_ms, size, racy, hash: null }));
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const work: Plan['work'] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const st = fs.statSync(file.abs, { throwIfNoEntry: false });
    if (!st || !st.isFile()) continue;
    seen.add(file.path);
    const row = byPath.get(file.path);
    if (row && !row.racy && row.mtime_ms === st.mtimeMs && row.ctime_ms === st.ctimeMs && row.size === st.size) continue;
    work.push({ file, st, row });
  }
  if (work.some((w) => w.row)) {
    const hashOf = db.prepare('SELECT hash FROM files WHERE id = ?').pluck();
    for (const w of work) if (w.row) w.row.hash = hashOf.get(w.row.id) as string | null;
  }
  const removed = rows.filter((r) => !seen.has(r.path));
  return { work, removed, files: seen.size };
}

function applyPlan(db: Db, p: Plan, opts: RefreshOptions, started: number): IndexReport {
  const diagnostics: Diagnostic[] = [];
  let changed = 0;
  const writer = new Writer(db);
  const now = Date.now();
  const total = p.work.length;
  let lastTick = 0;
  const read = (abs: string): Buffer | null => {
    try {
      return fs.readFileSync(abs);
    } catch {
      return null;
    }
  };
  const tx = db.transaction(() => {
    if (p.dirCache !== undefined) saveDirCache(db, p.dirCache);
    for (const r of p.removed) writer.remove(r.id);
    // Pass 1: which files really changed (hash); for changed files already in the index, parse
    // them and delete the FTS rows of entries whose text changed. Every FTS delete comes before
    // any insert: a contentless FTS5 delete flushes pending inserts, so interleaving them makes a
    // tiny segment per file and deletes fifty times slower.
    const stash = p.work.map(({ file, st, row }) => {
      const buf = read(file.abs);
      const hash = buf ? sha1(buf) : 'unreadable';
      if (row && row.hash === hash) {
        writer.touch(row.id, st, now - st.mtimeMs < RACY_MS);
        return null;
      }
      if (!row) return { hash };
      const prep = prepare(file, buf ? decodeVaultText(buf) : readVaultText(file.abs), diagnostics);
      return { hash, prep, keep: writer.reconcile(row.id, prep) };
    });
    // Pass 2: write; new files are parsed only now, so a full build holds one file at a time.
    p.work.forEach(({ file, st, row }, i) => {
      const item = stash[i];
      if (item !== null) {
        let prep = 'prep' in item ? item.prep : undefined;
        if (!prep) {
          const buf = read(file.abs);
          prep = prepare(file, buf ? decodeVaultText(buf) : readVaultText(file.abs), diagnostics);
        }
        writer.put(row?.id, file, st, item.hash, now - st.mtimeMs < RACY_MS, prep, 'keep' in item && item.keep ? item.keep : new Map());
        stash[i] = null;
        changed++;
      }
      if (opts.onProgress && (i === total - 1 || Date.now() - lastTick > 80)) {
        lastTick = Date.now();
        opts.onProgress(i + 1, total);
      }
    });
  });
  tx.immediate();
  return { files: p.files, changed, removed: p.removed.length, entries: countEntries(db), ms: Date.now() - started, diagnostics };
}

/** What a refresh would do: files whose stat changed, and index rows whose file is gone. */
export function planRefresh(db: Db, vault: Vault): Plan {
  const saved = db.prepare("SELECT value FROM meta WHERE key = 'dir_cache'").pluck().get() as string | undefined;
  const cache = new DirCache(saved);
  const p = plan(db, discoverFiles(vault, cache.read));
  if (cache.changed) p.dirCache = cache.serialize();
  return p;
}

function saveDirCache(db: Db, value: string): void {
  db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('dir_cache', ?)").run(value);
}

/** Files whose content may differ from the index (not just re-checks of recently written files). */
export function staleCount(p: Plan): number {
  const changed = p.work.filter(({ row, st }) => !row || row.mtime_ms !== st.mtimeMs || row.ctime_ms !== st.ctimeMs || row.size !== st.size);
  return changed.length + p.removed.length;
}

/** Nothing to index (the folder cache may still want saving: see applyRefresh). */
export function planIsEmpty(p: Plan): boolean {
  return p.work.length === 0 && p.removed.length === 0;
}

/** Carry out a refresh plan in one write transaction. */
export function applyRefresh(db: Db, p: Plan, opts: RefreshOptions = {}): IndexReport {
  const started = Date.now();
  if (planIsEmpty(p)) {
    // Nothing to do: the hot path of every search, so no counting (entries -1 = not counted).
    // A changed folder cache is saved if the index can be written now; it is only a shortcut.
    if (p.dirCache !== undefined) {
      try {
        saveDirCache(db, p.dirCache);
      } catch (err) {
        if (!isBusy(err) && !String((err as { code?: string }).code).startsWith('SQLITE_READONLY')) throw err;
      }
    }
    return { files: p.files, changed: 0, removed: 0, entries: -1, ms: 0, diagnostics: [] };
  }
  try {
    return applyPlan(db, p, opts, started);
  } catch (err) {
    if (isBusy(err)) {
      throw new MemError('the index .memory.db is locked by another process', {
        hint: 'another mem command is writing; try again in a moment',
        cause: err,
      });
    }
    throw err;
  }
}

/** Build a complete new index beside the old one, then rename it into place. */
export async function rebuildIndex(vault: Vault, progressFor?: (total: number) => Promise<IndexProgress | undefined>): Promise<IndexReport> {
  const started = Date.now();
  const tmp = path.join(path.dirname(vault.dbPath), `.memory.db.rebuild-${process.pid}`);
  const db = createIndexAt(tmp);
  let report: IndexReport;
  try {
    const cache = new DirCache(null);
    const p = plan(db, discoverFiles(vault, cache.read));
    p.dirCache = cache.serialize();
    report = applyPlan(db, p, { onProgress: await progressFor?.(p.work.length) }, started);
    db.exec(INDEXES);
    db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('built_at', ?)").run(new Date().toISOString());
    db.exec("INSERT INTO entries_fts(entries_fts) VALUES('optimize')");
    db.exec("INSERT INTO entries_fts(entries_fts, rank) VALUES('automerge', 4)");
    db.close();
  } catch (err) {
    db.close();
    removeDbFiles(tmp);
    throw err;
  }
  // Fold the old index's WAL away before replacing it, so no stale -wal is applied to the new file.
  try {
    if (!fs.existsSync(vault.dbPath)) throw new Error('no old index');
    const old = openIndex(vault.dbPath).db;
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.pragma('journal_mode = DELETE');
    old.close();
  } catch {
    // A corrupt or locked old index is simply replaced.
  }
  for (const suffix of ['-wal', '-shm']) fs.rmSync(vault.dbPath + suffix, { force: true });
  fs.renameSync(tmp, vault.dbPath);
  const fresh = openIndex(vault.dbPath).db;
  fresh.pragma('journal_mode = WAL');
  fresh.close();
  return { ...report, ms: Date.now() - started };
}

/** Index only the given files (after mem itself wrote them). */
export function refreshFiles(db: Db, files: VaultFile[]): IndexReport {
  const started = Date.now();
  const p = plan(db, files);
  p.removed = [];
  return applyPlan(db, p, {}, started);
}
