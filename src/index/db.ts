// The `.memory.db` connection: schema, version check, pragmas, and recovery. The index is
// derived from the markdown, so a stale schema or a corrupt file is rebuilt, never patched; what
// killed rebuilds leave is removed; errors are classified (locked, read-only, corrupt, unusable).

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { MemError } from '../errors.js';
import { runSettings } from '../run.js';
import { staysInside } from '../vault/boundary.js';

export type Db = Database.Database;

let addon: string | null | undefined;
/**
 * The compiled addon's path, given to better-sqlite3 directly. Its JavaScript is bundled into
 * dist/, so it could not find the addon itself: where npm builds it (build/Release), else wherever
 * the `bindings` package finds it under the package folder.
 */
function nativeBinding(): string | undefined {
  if (addon === undefined) {
    const req = createRequire(import.meta.url);
    try {
      const p = req.resolve('better-sqlite3/build/Release/better_sqlite3.node');
      addon = fs.existsSync(p) ? p : null;
    } catch {
      addon = null;
    }
    if (addon === null) {
      try {
        const root = path.dirname(req.resolve('better-sqlite3/package.json'));
        addon = String(req('bindings')({ bindings: 'better_sqlite3.node', module_root: root, path: true }));
      } catch {
        addon = null;
      }
    }
  }
  return addon ?? undefined;
}

// 5: entries_potential, the index the session-start ranking reads its rows in order from;
// entries_file by file and ordinal (a file's last entries, for a refresh of an append).
// 6: each entry's conversation (session_id) and time span (start_ms, end_ms) as columns, for
// --conversation / --after / --before filters in SQL; entries_session finds a conversation's rows.
// 7: entries_learning_status (learning type, kind, status, scope, type) replaces the learning-type
// index: the count of a section's live entries (kinds that are not episodes, not retired) reads
// that index alone instead of every row (at 100k entries ~250 ms of the session-start hook;
// ~10 ms), and so do `mem stats`'s counts by field.
export const SCHEMA_VERSION = '7';
export const TOKENIZER = 'porter unicode61 remove_diacritics 2';
/**
 * The version of what the index derives from the markdown: chunks, neighbour contexts, and the
 * hashes that match indexed rows to entries. A new one rebuilds the index once, rather than
 * letting each changed file re-add every row whose hash was computed another way.
 */
// 8: the hostile-input rules (ids as written, empty and NUL-holding entries left out, headers
// over 64 KB broken): an index an older mem built may hold what these rules now skip.
// 9: a file with git conflict markers holds the entries of both sides (an older mem dropped
// those inside the hunks), and the index lists such files (meta 'conflicts').
// 10: typed notes (episode and pattern notes) are indexed as kinds `episode` / `pattern`
// with their frontmatter as each chunk's metadata.
// 11: a typed note is one entry (the whole note), not one per section.
export const CHUNKER_VERSION = '11';

/**
 * An entry's potential prominence, importance × (1 + reinforcements): what the session-start
 * ranking reads rows in descending order of. Kept in an index (entries_potential) by SQLite as
 * rows are written, so that ranking reads its first rows at once instead of sorting the vault.
 * Queries must spell it exactly so for SQLite to use the index.
 */
export const POTENTIAL = 'importance * (1 + max(reinforcement_count, 0))';

/** Secondary indexes: a bulk load (rebuild) creates them after the rows are in, which is faster. */
export const INDEXES = `
CREATE INDEX IF NOT EXISTS entries_file ON entries(file_id, ordinal);
CREATE INDEX IF NOT EXISTS entries_entry_id ON entries(entry_id);
CREATE INDEX IF NOT EXISTS entries_learning_status ON entries(learning_type, kind, status, scope, type);
CREATE INDEX IF NOT EXISTS entries_potential ON entries(learning_type, ${POTENTIAL} DESC);
CREATE INDEX IF NOT EXISTS entries_session ON entries(session_id) WHERE session_id IS NOT NULL;
`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  abs TEXT NOT NULL,
  mtime_ms REAL NOT NULL,
  ctime_ms REAL NOT NULL,
  size INTEGER NOT NULL,
  hash TEXT,
  racy INTEGER NOT NULL DEFAULT 0,
  scope TEXT NOT NULL,
  learning_type TEXT NOT NULL,
  format TEXT,
  entry_count INTEGER NOT NULL DEFAULT 0,
  error TEXT
);
CREATE TABLE IF NOT EXISTS entries(
  rowid INTEGER PRIMARY KEY,
  entry_id TEXT NOT NULL,
  file_id INTEGER NOT NULL,
  path TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  char_offset INTEGER NOT NULL,
  line INTEGER NOT NULL,
  kind TEXT NOT NULL,
  scope TEXT NOT NULL,
  learning_type TEXT NOT NULL,
  type TEXT NOT NULL,
  domain TEXT NOT NULL,
  importance REAL NOT NULL,
  phase TEXT NOT NULL,
  status TEXT NOT NULL,
  reinforcement_count INTEGER NOT NULL,
  last_reinforced TEXT,
  created_at TEXT,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  fts_hash TEXT NOT NULL,
  row_hash TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  session_id TEXT,
  start_ms REAL,
  end_ms REAL
);
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
  title, body, context,
  content='', contentless_delete=1,
  tokenize='${TOKENIZER}'
);
`;

/**
 * The `code` of an error (SQLite's `SQLITE_…` or the system's `E…`), or of the first error in its
 * `cause` chain that has one; '' when none does. Never throws, whatever was thrown.
 */
export function errorCode(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return '';
}

function isCorruption(err: unknown): boolean {
  const code = errorCode(err);
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

export function isBusy(err: unknown): boolean {
  const code = errorCode(err);
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * Why the index file cannot be used as the writable index, when that is why `err` was thrown:
 * another process holds its write lock, it cannot be written (permissions, a read-only disk),
 * it is corrupt, or it cannot be opened at all (a folder in its place, a full disk, I/O errors).
 * Null for anything else (a bug, a problem with the markdown).
 */
export type IndexFault = 'locked' | 'read-only' | 'corrupt' | 'unusable';

export function indexFault(err: unknown): IndexFault | null {
  const code = errorCode(err);
  if (code === '') return null;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'locked';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'corrupt';
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH' || ['EACCES', 'EPERM', 'EROFS'].includes(code)) return 'read-only';
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_FULL' || code === 'SQLITE_NOLFS' || code === 'SQLITE_NOMEM') return 'unusable';
  if (['MEM_NOT_A_FILE', 'EISDIR', 'ENOTDIR', 'ENOSPC', 'EIO', 'ELOOP', 'ENAMETOOLONG', 'EEXIST', 'ENOENT', 'EDQUOT', 'EBUSY'].includes(code)) return 'unusable';
  return null;
}

/** One line saying why the index at `dbPath` could not be used (see indexFault). */
export function describeIndexFault(dbPath: string, err: unknown): string {
  // Already described (an indexError on its way up).
  if (err instanceof MemError && indexFault(err) !== null) return err.message;
  const name = path.basename(dbPath);
  if (errorCode(err) === 'MEM_NOT_A_FILE' && err instanceof Error && !err.message.startsWith(`${name} is`)) return err.message;
  try {
    const st = fs.statSync(dbPath);
    if (st.isDirectory()) return `${name} is a folder, not an index file`;
    if (!st.isFile()) return `${name} is not a regular file (${st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device'}), not an index file`;
  } catch {
    // missing: the error says why it could not be created
  }
  const detail = err instanceof Error ? err.message.split('\n')[0] : String(err);
  switch (indexFault(err)) {
    case 'locked':
      return `the index ${name} is locked by another process`;
    case 'read-only':
      return `the index ${name} cannot be written (${detail})`;
    case 'corrupt':
      return `the index ${name} is corrupt (${detail})`;
    default:
      return `the index ${name} cannot be used (${detail})`;
  }
}

export function removeDbFiles(dbPath: string): void {
  // What mem last saw goes first: a file it could not remove is then checked on the next open.
  for (const suffix of [SEEN, '', '-wal', '-shm', '-journal']) fs.rmSync(dbPath + suffix, { force: true });
}

/**
 * What mem last saw of the index file, kept beside it (`.memory.db-seen`): its identity (device,
 * inode), size, and modification and change times, as the stat after a connection mem opened is
 * closed. An open that finds the file otherwise (copied or restored in, replaced, written by
 * another program, or changed by a mem that never closed it: killed after a checkpoint) checks
 * it first; one that finds it as mem left it trusts it, costing two small reads instead of
 * SQLite's quick_check (0.3 s on a 100k-entry index). The change time cannot be set back by a
 * program, so a write that puts the modification time back is seen too.
 */
const SEEN = '-seen';

/** The stat of the index file that SEEN records, or null when there is no regular file there. */
function fileStamp(dbPath: string): string | null {
  const st = fs.statSync(dbPath, { bigint: true, throwIfNoEntry: false });
  if (!st?.isFile()) return null;
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** The stamp mem last recorded, or null (none, unreadable, or not a small regular file: never read through a FIFO). */
function readSeen(dbPath: string): string | null {
  const file = dbPath + SEEN;
  try {
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > 256) return null;
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Record the index file's stat as mem sees it now, unless `known` says that is already recorded.
 * The old record is removed and the new one created exclusively, so a link planted in its place
 * is replaced, never written through. Best effort: a missing record only costs a check.
 */
export function rememberIndexFile(dbPath: string, known?: string | null): void {
  const stamp = fileStamp(dbPath);
  if (stamp === null || stamp === known) return;
  try {
    fs.rmSync(dbPath + SEEN, { force: true });
    fs.writeFileSync(dbPath + SEEN, `${stamp}\n`, { flag: 'wx' });
  } catch {
    // read-only folder, or another mem wrote it first: the next open checks at worst
  }
}

/** Drop the record (the file failed a check it could not be rebuilt after): the next open checks it. */
export function forgetIndexFile(dbPath: string): void {
  try {
    fs.rmSync(dbPath + SEEN, { force: true });
  } catch {
    // read-only folder: nothing mem could rebuild there either
  }
}

/**
 * A connection to the index that, when closed, records the file's stat (see SEEN). Only
 * openIndex makes them, once the file is new, checked, or as mem last left it; a process that
 * dies without closing leaves the old record, so changes it made are checked.
 */
class IndexConnection extends Database {
  /** The record found at open (null: none); what the file is then need not be written again. */
  seen: string | null = null;
  /** False while the file is unchecked, or after it failed a check. */
  trusted = false;

  constructor(readonly dbPath: string) {
    super(dbPath, { nativeBinding: nativeBinding() });
  }

  override close(): this {
    const wasOpen = this.open;
    super.close();
    if (wasOpen && this.trusted) rememberIndexFile(this.dbPath, this.seen);
    return this;
  }
}

function createSchema(db: Db, indexes = true): void {
  db.exec(SCHEMA);
  if (indexes) db.exec(INDEXES);
  const set = db.prepare('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)');
  set.run('schema_version', SCHEMA_VERSION);
  set.run('tokenizer', TOKENIZER);
  set.run('chunker_version', CHUNKER_VERSION);
}

function versionMismatch(db: Db): string | null {
  const rows = db.prepare("SELECT key, value FROM meta WHERE key IN ('schema_version','tokenizer','chunker_version')").all() as { key: string; value: string }[];
  const m = new Map(rows.map((r) => [r.key, r.value]));
  if (m.get('schema_version') !== SCHEMA_VERSION) return `schema ${m.get('schema_version') ?? '?'} → ${SCHEMA_VERSION}`;
  if (m.get('tokenizer') !== TOKENIZER) return 'tokenizer changed';
  if (m.get('chunker_version') !== CHUNKER_VERSION) return 'chunker changed';
  return null;
}

export interface OpenResult {
  db: Db;
  /** Why the index was (re)created empty, if it was: the caller must run a full index. */
  recreated?: 'new' | 'version' | 'corrupt';
  note?: string;
}

/** A plain connection (':memory:', or an existing file read-only), for checks like `mem doctor`. */
export function openDatabase(dbPath: string, opts: { readonly?: boolean } = {}): Db {
  return new Database(dbPath, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false, nativeBinding: nativeBinding() });
}

function connect(dbPath: string): IndexConnection {
  const db = new IndexConnection(dbPath);
  db.pragma(`busy_timeout = ${runSettings().busyTimeoutMs}`);
  return db;
}

/**
 * An index in memory, for a read whose .memory.db cannot be written: a copy of the file at
 * `copyOf` when it can be read and has this mem's format, else empty (the caller fills it).
 */
export function openMemoryIndex(copyOf: string | null): Db {
  if (copyOf !== null) {
    try {
      if (!fs.statSync(copyOf).isFile()) throw new Error('not a regular file');
      checkIndexFile(copyOf);
      const ro = new Database(copyOf, { readonly: true, fileMustExist: true, nativeBinding: nativeBinding() });
      try {
        // Short: a copy is an optimisation; when the file is held, the index is built from nothing.
        ro.pragma('busy_timeout = 200');
        if (versionMismatch(ro) === null) {
          const image = ro.serialize();
          // The file is in WAL mode (header bytes 18-19 = 2); an in-memory database cannot be.
          image[18] = 1;
          image[19] = 1;
          return new Database(image, { nativeBinding: nativeBinding() });
        }
      } finally {
        ro.close();
      }
    } catch {
      // unreadable, corrupt, a folder: build from nothing
    }
  }
  const db = new Database(':memory:', { nativeBinding: nativeBinding() });
  createSchema(db);
  return db;
}

/** A leftover of `mem index --rebuild`: the file it builds into, named after its process id. */
export interface RebuildLeftover {
  file: string;
  pid: number;
  bytes: number;
  /** Its process still runs (and wrote to it lately): a rebuild in progress, not a leftover. */
  live: boolean;
}

/** A rebuild writes its file without pause; one untouched this long is abandoned even if its pid was reused. */
const ABANDONED_MS = 15 * 60 * 1000;

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errorCode(err) === 'EPERM';
  }
}

/** The rebuild files (and their journals) beside the index at `dbPath`. */
export function rebuildLeftovers(dbPath: string): RebuildLeftover[] {
  const dir = path.dirname(dbPath);
  const prefix = `${path.basename(dbPath)}.rebuild-`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: RebuildLeftover[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d{1,10})(-wal|-shm|-journal)?$/.exec(name.slice(prefix.length));
    if (!m) continue;
    const file = path.join(dir, name);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(file);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const pid = Number(m[1]);
    out.push({ file, pid, bytes: st.size, live: pidAlive(pid) && Date.now() - st.mtimeMs < ABANDONED_MS });
  }
  return out;
}

/**
 * Delete what killed rebuilds left beside the index (up to the size of a whole index each);
 * a rebuild still running is left alone. Returns the files removed.
 */
export function removeRebuildLeftovers(dbPath: string): RebuildLeftover[] {
  const removed: RebuildLeftover[] = [];
  for (const l of rebuildLeftovers(dbPath)) {
    if (l.live) continue;
    try {
      fs.rmSync(l.file, { force: true });
      removed.push(l);
    } catch {
      // a read-only folder: doctor keeps reporting it
    }
  }
  return removed;
}

/**
 * The "writing" marker: a refresh that writes records its pid in meta (committed on its own)
 * before its transaction, and the transaction deletes it on commit. A marker whose process is
 * gone means a writer was killed mid-write: SQLite's WAL rolls its transaction back, and the
 * next open runs quick_check before trusting the file (cheap insurance against a torn disk).
 * Concurrent readers and a long-lived connection leave no marker, so they cost no check.
 */
export function beginWrite(db: Db): void {
  db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('writing', ?)").run(String(process.pid));
}

/** Inside the write transaction: the write is complete once it commits. */
export function endWrite(db: Db): void {
  db.prepare("DELETE FROM meta WHERE key = 'writing'").run();
}

/** After a failed write (rolled back): this process is alive, so no check is owed. */
export function abandonWrite(db: Db): void {
  try {
    endWrite(db);
  } catch {
    // read-only or locked: the marker names a live pid until this process ends
  }
}

function killedWriter(db: Db): boolean {
  const pid = Number(db.prepare("SELECT value FROM meta WHERE key = 'writing'").pluck().get() ?? NaN);
  return Number.isInteger(pid) && pid > 0 && !pidAlive(pid);
}

/**
 * SQLite's structural check of the whole file; 'ok' or the first problem found. A 100k-entry
 * index takes ~0.3 s here (its `entries` table alone ~0.1 s), so it runs only when there is a
 * reason to (see openIndex) and in `mem doctor`.
 */
export function quickCheck(db: Db): string {
  const rows = db.pragma('quick_check(3)', { simple: false }) as Record<string, unknown>[];
  const lines = rows.flatMap((r) => String(Object.values(r)[0]).split('\n')).filter((l) => l !== '' && !l.startsWith('***'));
  return lines.length === 0 ? 'ok' : lines[0];
}

function fresh(dbPath: string): Db {
  const db = connect(dbPath);
  db.trusted = true;
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  createSchema(db);
  return db;
}

export interface OpenOptions {
  /**
   * The caller has just checked the file (mem doctor) or written it whole (a rebuild): no check
   * is owed for its being other than mem last saw it. An unclean shutdown is still checked for.
   */
  checked?: boolean;
}

/**
 * SQLite opens the index and its journals by name, following links: one that leads out of the
 * vault (a cloned repository's `.memory.db -> ~/some.db`) would have mem write into that file.
 */
function refuseLinkOut(file: string, dbPath: string): void {
  if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return;
  if (staysInside(file, path.dirname(dbPath)).inside) return;
  throw Object.assign(new Error(`${path.basename(file)} leads out of the vault through a symlink; mem never writes through it`), { code: 'MEM_NOT_A_FILE' });
}

/**
 * Stat the index file before SQLite opens it: a FIFO or a device in its place would block the
 * open or the first read forever (a folder fails the open at once).
 */
function checkIndexFile(dbPath: string): { exists: boolean; hotJournal: boolean } {
  for (const suffix of ['', '-journal', '-wal', '-shm']) refuseLinkOut(dbPath + suffix, dbPath);
  const st = fs.statSync(dbPath, { throwIfNoEntry: false });
  if (st && !st.isFile() && !st.isDirectory()) throw Object.assign(new Error(`${path.basename(dbPath)} is not a regular file`), { code: 'MEM_NOT_A_FILE' });
  // Its journals too: SQLite reads a rollback journal it finds (a FIFO there would block it).
  let hotJournal = false;
  for (const suffix of ['-journal', '-wal', '-shm']) {
    const j = fs.statSync(dbPath + suffix, { throwIfNoEntry: false });
    if (j && !j.isFile()) throw Object.assign(new Error(`${path.basename(dbPath)}${suffix} is not a regular file`), { code: 'MEM_NOT_A_FILE' });
    if (j && suffix === '-journal' && j.size > 0) hotJournal = true;
  }
  return { exists: st !== undefined, hotJournal };
}

/**
 * Open (creating or rebuilding as needed) the index. A version mismatch, a corrupt file, or
 * one that fails its quick_check yields a fresh empty index, reported in `recreated` so the
 * caller refills it from the markdown. The check runs only when there is a reason: an unclean
 * shutdown (a hot rollback journal, or the writing marker of a process that is gone), or a file
 * other than mem last left it (see SEEN); `mem doctor` checks always, and a query that meets a
 * damaged page rebuilds the index (see withIndex). Rebuild leftovers of dead processes are
 * removed on the way. Failures are MemErrors whose cause is SQLite's (see indexFault).
 */
export function openIndex(dbPath: string, opts: OpenOptions = {}): OpenResult {
  let existed: boolean;
  let unclean = false;
  try {
    const found = checkIndexFile(dbPath);
    existed = found.exists;
    unclean = existed && found.hotJournal;
  } catch (err) {
    throw indexError(dbPath, err);
  }
  removeRebuildLeftovers(dbPath);
  let db: IndexConnection | undefined;
  try {
    db = connect(dbPath);
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").get();
    if (!hasMeta) {
      db.trusted = true;
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      createSchema(db);
      return { db, recreated: 'new' };
    }
    const mismatch = versionMismatch(db);
    if (mismatch) {
      db.close();
      removeDbFiles(dbPath);
      return { db: fresh(dbPath), recreated: 'version', note: `index format changed (${mismatch}); rebuilding .memory.db` };
    }
    const killed = killedWriter(db);
    db.seen = readSeen(dbPath);
    // Stat after SQLite opened it: the file it reads, not one a rename put in its place since.
    const changed = !opts.checked && db.seen !== fileStamp(dbPath);
    if (unclean || killed || changed) {
      const problem = quickCheck(db);
      if (problem !== 'ok') {
        db.close();
        removeDbFiles(dbPath);
        return { db: fresh(dbPath), recreated: 'corrupt', note: `.memory.db failed its integrity check (${problem}); rebuilding it from the markdown` };
      }
      if (killed) abandonWrite(db);
    }
    db.trusted = true;
    // A rebuild killed between its rename and its switch to WAL (or another tool) can leave the
    // file in rollback-journal mode, where a writer blocks every reader: switch back when free.
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') {
      try {
        db.pragma('journal_mode = WAL');
      } catch {
        // busy or read-only: next time
      }
    }
    db.pragma('synchronous = NORMAL');
    return { db };
  } catch (err) {
    if (db?.open) db.close();
    if (isCorruption(err) && existed) {
      try {
        removeDbFiles(dbPath);
        return { db: fresh(dbPath), recreated: 'corrupt', note: '.memory.db was corrupt; rebuilding it from the markdown' };
      } catch (again) {
        throw indexError(dbPath, again);
      }
    }
    throw indexError(dbPath, err);
  }
}

function notAFile(p: string): boolean {
  try {
    return !fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * What to check for an index that cannot be written: its -wal or -shm file when one of those is
 * what cannot be written (left read-only by a read while the index was: SQLite makes them with the
 * index's permissions, and they stay so when the index is made writable again), else the index
 * and its folder.
 */
function readOnlyHint(dbPath: string): string {
  const name = path.basename(dbPath);
  const writable = (p: string) => {
    try {
      fs.accessSync(p, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  const stuck = writable(dbPath) ? ['-wal', '-shm'].filter((s) => fs.existsSync(dbPath + s) && !writable(dbPath + s)) : [];
  if (stuck.length > 0) return `${stuck.map((s) => name + s).join(' and ')} cannot be written: make ${stuck.length > 1 ? 'them' : 'it'} writable (or remove ${stuck.length > 1 ? 'them' : 'it'} when no mem is running)`;
  return `check the permissions of ${name} and its folder`;
}

/** The MemError for an index that cannot be opened or written (see indexFault), with the cause kept. */
export function indexError(dbPath: string, err: unknown): MemError {
  if (err instanceof MemError && indexFault(err) !== null) return err;
  const fault = indexFault(err);
  const hint =
    fault === 'locked' ? 'another mem command is writing; try again in a moment'
    : fault === 'read-only' ? readOnlyHint(dbPath)
    : fault === 'corrupt' ? 'run mem index --rebuild'
    : notAFile(dbPath) ? `move it away: mem keeps its index there (${path.basename(dbPath)} is derived from the markdown)`
    : undefined;
  return new MemError(describeIndexFault(dbPath, err), { hint, cause: err });
}

/** FTS5's in-memory buffer during a rebuild, and its default (see createIndexAt). */
export const BULK_HASHSIZE = 32 * 1024 * 1024;
export const DEFAULT_HASHSIZE = 1024 * 1024;

/**
 * Create a fresh index at `path` for a rebuild (no WAL while building; it is renamed into place).
 * The secondary indexes are left out: run INDEXES once the rows are loaded.
 */
export function createIndexAt(path: string): Db {
  removeDbFiles(path);
  const db = new Database(path, { nativeBinding: nativeBinding() });
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -65536');
  createSchema(db, false);
  // A bulk load merges once at the end ('optimize'), not continuously as rows arrive.
  db.exec("INSERT INTO entries_fts(entries_fts, rank) VALUES('automerge', 0)");
  // FTS5 buffers new rows in memory up to this size before writing a segment (1 MB by default):
  // with 32 MB, a 100k-entry vault loads as one segment, and the final 'optimize' has nothing to
  // merge (4.5 → 4.0 s for a rebuild, +25 MB peak). Set back to the default once loaded.
  db.exec(`INSERT INTO entries_fts(entries_fts, rank) VALUES('hashsize', ${BULK_HASHSIZE})`);
  return db;
}

export { isCorruption };
