// The `.memory.db` connection: schema, version check, pragmas, and recovery. The index is
// derived from the markdown, so a stale schema or a corrupt file is rebuilt, never patched.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { MemError } from '../errors.js';

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

export const SCHEMA_VERSION = '4';
export const TOKENIZER = 'porter unicode61 remove_diacritics 2';
/**
 * The version of what the index derives from the markdown: chunks, neighbour contexts, and the
 * hashes that match indexed rows to entries. A new one rebuilds the index once, rather than
 * letting each changed file re-add every row whose hash was computed another way.
 */
export const CHUNKER_VERSION = '7';

/** Secondary indexes: a bulk load (rebuild) creates them after the rows are in, which is faster. */
export const INDEXES = `
CREATE INDEX IF NOT EXISTS entries_file ON entries(file_id);
CREATE INDEX IF NOT EXISTS entries_entry_id ON entries(entry_id);
CREATE INDEX IF NOT EXISTS entries_learning_type ON entries(learning_type);
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
  metadata_json TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
  title, body, context,
  content='', contentless_delete=1,
  tokenize='${TOKENIZER}'
);
`;

export function busyTimeoutMs(): number {
  const v = Number(process.env.MEM_BUSY_TIMEOUT_MS);
  return Number.isFinite(v) && v >= 0 ? v : 5000;
}

function isCorruption(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
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
  db.pragma(`busy_timeout = ${busyTimeoutMs()}`);
  return db;
}

/**
 * Open (creating or rebuilding as needed) the index. A version mismatch or a corrupt file
 * yields a fresh empty index, reported in `recreated` so the caller refills it.
 */
export function openIndex(dbPath: string): OpenResult {
  const existed = fs.existsSync(dbPath);
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
      db = connect(dbPath, false);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      createSchema(db);
      return { db, recreated: 'version', note: `index format changed (${mismatch}); rebuilding .memory.db` };
    }
    db.pragma('synchronous = NORMAL');
    return { db };
  } catch (err) {
    db?.close();
    if (isCorruption(err) && existed) {
      removeDbFiles(dbPath);
      const fresh = connect(dbPath, false);
      fresh.pragma('journal_mode = WAL');
      fresh.pragma('synchronous = NORMAL');
      createSchema(fresh);
      return { db: fresh, recreated: 'corrupt', note: '.memory.db was corrupt; rebuilding it from the markdown' };
    }
    if (isBusy(err)) {
      throw new MemError('the index .memory.db is locked by another process', {
        hint: 'another mem command is writing; try again in a moment',
        cause: err,
      });
    }
    throw new MemError(`cannot open the index .memory.db: ${(err as Error).message}`, { cause: err });
  }
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
