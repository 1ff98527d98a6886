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
export const SCHEMA_VERSION = '6';
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
CREATE INDEX IF NOT EXISTS entries_learning_type ON entries(learning_type);
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
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(dbPath + suffix, { force: true });
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

function connect(dbPath: string, readonly: boolean): Db {
  const db = new Database(dbPath, { readonly, fileMustExist: readonly, nativeBinding: nativeBinding() });
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
 * SQLite's structural check, of the whole file or of one table and its indexes; 'ok' or the first
 * problem found. The whole of a 100k-entry index takes ~280 ms here, its `entries` table ~65 ms.
 */
export function quickCheck(db: Db, table?: 'entries'): string {
  const rows = db.pragma(table ? `quick_check(${table})` : 'quick_check(3)', { simple: false }) as Record<string, unknown>[];
  const lines = rows.flatMap((r) => String(Object.values(r)[0]).split('\n')).filter((l) => l !== '' && !l.startsWith('***'));
  return lines.length === 0 ? 'ok' : lines[0];
}

function fresh(dbPath: string): Db {
  const db = connect(dbPath, false);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  createSchema(db);
  return db;
}

export interface OpenOptions {
  /**
   * Check the `entries` table now, whatever the signs (mem index does: ~6 ms per 10k entries).
   * A damaged page there is the one fault that shortens answers silently; damage elsewhere (the
   * full-text tables) makes queries fail, and a failed query rebuilds the index.
   */
  verify?: boolean;
}

/**
 * Open (creating or rebuilding as needed) the index. A version mismatch, a corrupt file, or
 * one that fails its quick_check (run after an unclean shutdown, or when asked) yields a fresh
 * empty index, reported in `recreated` so the caller refills it from the markdown. Rebuild
 * leftovers of dead processes are removed on the way. Failures are MemErrors whose cause is
 * SQLite's (see indexFault).
 */
/**
 * Stat the index file before SQLite opens it: a FIFO or a device in its place would block the
 * open or the first read forever (a folder fails the open at once). True when it exists.
 */
/**
 * SQLite opens the index and its journals by name, following links: one that leads out of the
 * vault (a cloned repository's `.memory.db -> ~/some.db`) would have mem write into that file.
 */
function refuseLinkOut(file: string, dbPath: string): void {
  if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return;
  if (staysInside(file, path.dirname(dbPath)).inside) return;
  throw Object.assign(new Error(`${path.basename(file)} leads out of the vault through a symlink; mem never writes through it`), { code: 'MEM_NOT_A_FILE' });
}

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

export function openIndex(dbPath: string, opts: OpenOptions = {}): OpenResult {
  let existed: boolean;
  let verify: boolean | undefined;
  let unclean = false;
  try {
    const found = checkIndexFile(dbPath);
    existed = found.exists;
    verify = existed && opts.verify;
    unclean = existed && found.hotJournal;
  } catch (err) {
    throw indexError(dbPath, err);
  }
  removeRebuildLeftovers(dbPath);
  let db: Db | undefined;
  try {
    db = connect(dbPath, false);
    const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").get();
    if (!hasMeta) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      createSchema(db);
      return { db, recreated: 'new' };
    }
    const mismatch = versionMismatch(db);
    if (mismatch) {
      db.close();
      removeDbFiles(dbPath);
      db = fresh(dbPath);
      return { db, recreated: 'version', note: `index format changed (${mismatch}); rebuilding .memory.db` };
    }
    const killed = killedWriter(db);
    if (verify || unclean || killed) {
      // After an unclean shutdown the whole file is checked; otherwise the entries table.
      const problem = quickCheck(db, unclean || killed ? undefined : 'entries');
      verify = false;
      if (problem !== 'ok') {
        db.close();
        removeDbFiles(dbPath);
        db = fresh(dbPath);
        return { db, recreated: 'corrupt', note: `.memory.db failed its integrity check (${problem}); rebuilding it from the markdown` };
      }
      if (killed) abandonWrite(db);
    }
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

/** The MemError for an index that cannot be opened or written (see indexFault), with the cause kept. */
export function indexError(dbPath: string, err: unknown): MemError {
  if (err instanceof MemError && indexFault(err) !== null) return err;
  const fault = indexFault(err);
  const hint =
    fault === 'locked' ? 'another mem command is writing; try again in a moment'
    : fault === 'read-only' ? `check the permissions of ${path.basename(dbPath)} and its folder`
    : fault === 'corrupt' ? 'run mem index --rebuild'
    : notAFile(dbPath) ? `move it away: mem keeps its index there (${path.basename(dbPath)} is derived from the markdown)`
    : undefined;
  return new MemError(describeIndexFault(dbPath, err), { hint, cause: err });
}

/**
 * Create a fresh index at `path` for a rebuild (no WAL while building; it is renamed into place).
 * The secondary indexes are left out: run INDEXES once the rows are loaded.
 */
/** FTS5's in-memory buffer during a rebuild, and its default (see createIndexAt). */
export const BULK_HASHSIZE = 32 * 1024 * 1024;
export const DEFAULT_HASHSIZE = 1024 * 1024;

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
