// Keeping `.memory.db` in step with the markdown: stat every vault file, hash only those whose
// stat changed, re-parse only those whose hash changed, purge files that disappeared. One
// transaction per refresh; a full rebuild builds a new file and renames it into place.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../errors.js';
import { MemError } from '../errors.js';
import { carryVectors } from './vectors-table.js';
import { decodeVaultText, isFailure, MEMORY_FILE_LIMIT, readRegularBytes, readVaultText } from '../vault/read.js';
import { checkWalkMemo, DirCache } from '../vault/dircache.js';
import { FILE, inFolder, statInto } from '../vault/faststat.js';
import { headerStartsBefore } from '../vault/locate.js';
import { absFromRoot, metNotRegularFiles, probedFiles, vaultFiles, walkKey, walkPaths, type Vault, type VaultFile } from '../vault/vault.js';
import { CONTEXT_NEIGHBOURS, prepare, prepareFile, type Prepared, type PreparedFile } from './prepare.js';
import { bytesHash, prefixAndWholeHash } from '../hash.js';
import { abandonWrite, beginWrite, BULK_HASHSIZE, createIndexAt, DEFAULT_HASHSIZE, endWrite, indexError, indexFault, INDEXES, isBusy, openIndex, removeDbFiles, type Db } from './db.js';

export interface IndexReport {
  files: number;
  changed: number;
  removed: number;
  /** Entries in the index after a rebuild; -1 after a refresh (not counted: mem index counts). */
  entries: number;
  ms: number;
  /** Time the freshness check took (finding what changed), when this was a refresh. */
  checkMs?: number;
  /** A running `mem watch` vouched that no file changed since it indexed them: nothing was stat-ed. */
  watcher?: boolean;
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
export const RACY_MS = 2000;

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

  private db: Db;
  /** Files with conflict markers: path to the line of the first (meta 'conflicts'); read at the first change. */
  private conflicts: Map<string, number> | null = null;
  private conflictsChanged = false;

  constructor(db: Db) {
    this.db = db;
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
      reinforcement_count, last_reinforced, created_at, title, body, content_hash, fts_hash, row_hash, metadata_json, session_id, start_ms, end_ms`;
    const names = cols.split(',').map((c) => c.trim());
    // Positional parameters, in the order of `cols`: binding by name costs a lookup per column.
    this.insertEntry = db.prepare(`INSERT INTO entries(${cols}) VALUES (${names.map(() => '?').join(', ')})`);
    this.updateEntry = db.prepare(`UPDATE entries SET ${names.map((c) => `${c} = ?`).join(', ')} WHERE rowid = ?`);
    this.insertFts = db.prepare('INSERT INTO entries_fts(rowid, title, body, context) VALUES (?, ?, ?, ?)');
  }

  /** Whether a row written so far is racy (the stat digest is then '' whatever the others are). */
  wroteRacy = false;

  /**
   * Full-text rows held back by `put` (rowid, title, body, context) after holdFts, written
   * by flushFts. A contentless FTS5 delete flushes the inserts FTS5 holds, so a refresh that
   * deletes file by file writes its full-text rows in a few large runs rather than after each file.
   */
  private heldFts: [number | bigint, string, string, string][] | null = null;

  /** Hold back full-text inserts until flushFts (see heldFts). */
  holdFts(): void {
    this.heldFts ??= [];
  }

  /** Full-text rows held back so far. */
  get heldFtsRows(): number {
    return this.heldFts?.length ?? 0;
  }

  /** Write the full-text rows held back. */
  flushFts(): void {
    if (!this.heldFts) return;
    for (const r of this.heldFts) this.insertFts.run(...r);
    this.heldFts.length = 0;
  }

  touch(id: number, st: FileStat, racy: boolean): void {
    if (racy) this.wroteRacy = true;
    this.updateFileStat.run(st.mtimeMs, st.ctimeMs, st.size, racy ? 1 : 0, id);
  }

  remove(id: number, filePath: string): void {
    for (const r of this.fileRows.all(id) as OldRow[]) this.deleteFtsRow.run(r.rowid);
    this.deleteFileEntries.run(id);
    this.deleteFile.run(id);
    this.noteConflict(filePath, undefined);
  }

  /**
   * Keep the list of conflicted files up to date as files are written, so that every read can
   * warn of them with one lookup (readConflicts), however long ago they were indexed.
   */
  private noteConflict(filePath: string, line: number | undefined): void {
    if (this.conflicts === null) this.conflicts = readConflicts(this.db);
    if (line === undefined ? this.conflicts.delete(filePath) : this.conflicts.get(filePath) !== line) this.conflictsChanged = true;
    if (line !== undefined) this.conflicts.set(filePath, line);
  }

  /** Save the list of conflicted files if this write changed it (in the write's transaction). */
  saveConflicts(): void {
    if (!this.conflictsChanged || this.conflicts === null) return;
    if (this.conflicts.size === 0) this.db.prepare("DELETE FROM meta WHERE key = 'conflicts'").run();
    else this.db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('conflicts', ?)").run(JSON.stringify(Object.fromEntries(this.conflicts)));
    this.conflictsChanged = false;
  }

  /**
   * Match a changed file's new entries to its indexed rows: an entry whose id and indexed text
   * are unchanged keeps its row (metadata is updated, no FTS work). The FTS rows of everything
   * else are deleted now; `put` inserts the new ones later, after every delete of the refresh.
   */
  reconcile(fileId: number, prep: Prepared, old = this.fileRows.all(fileId) as OldRow[]): Map<number, OldRow> {
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

  /** Write a file's entries; rows in `keep` (entry index to rowid) only get their metadata updated. */
  put(existingId: number | undefined, file: VaultFile, st: FileStat, hash: string, racy: boolean, prep: Prepared, keep: Map<number, OldRow>, entryCount = prep.entries.length): number {
    if (racy) this.wroteRacy = true;
    const row = {
      path: file.path, abs: file.abs, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs, size: st.size, hash, racy: racy ? 1 : 0,
      scope: file.scope, learning_type: file.learningType, format: prep.format, entry_count: entryCount, error: prep.error,
    };
    let fileId: number;
    if (existingId !== undefined) {
      this.updateFileContent.run({ ...row, id: existingId });
      fileId = existingId;
    } else {
      fileId = Number(this.insertFile.run(row).lastInsertRowid);
    }
    this.noteConflict(file.path, prep.conflict);
    prep.entries.forEach((e, i) => {
      const { learningType, metadataJson: metadata_json, rowHash: row_hash, contentHash, kind, conversation, startMs, endMs } = prep.rows[i];
      const old = keep.get(i);
      if (old && old.row_hash === row_hash) {
        if (old.ordinal !== e.ordinal || old.char_offset !== e.offset || old.line !== e.line) this.movePosition.run(e.ordinal, e.offset, e.line, old.rowid);
        return;
      }
      const values = [
        e.id, fileId, file.path, e.ordinal, e.offset, e.line, kind, file.scope, learningType, e.type, e.domain, e.importance, e.phase,
        e.status, e.reinforcement_count, e.last_reinforced, e.created_at, e.title, e.body, contentHash, prep.fts[i].hash,
        row_hash, metadata_json, conversation, startMs, endMs,
      ];
      if (old) {
        this.updateEntry.run(...values, old.rowid);
        return;
      }
      const res = this.insertEntry.run(...values);
      const fts: [number | bigint, string, string, string] = [res.lastInsertRowid, e.titleFromHeading ? e.title : '', e.body, prep.fts[i].context];
      if (this.heldFts) this.heldFts.push(fts);
      else this.insertFts.run(...fts);
    });
    return prep.entries.length;
  }

  /** A file's last `n` rows, in file order. */
  lastRows(fileId: number, entryCount: number, n: number): (OldRow & { kind: string })[] {
    return this.db.prepare('SELECT rowid, entry_id, fts_hash, row_hash, ordinal, char_offset, line, kind FROM entries WHERE file_id = ? AND ordinal >= ? ORDER BY ordinal')
      .all(fileId, entryCount - n) as (OldRow & { kind: string })[];
  }
}

/** Rows read back from a file's end for an append: an anchor entry, and the neighbours a context spans on each side of the first row rewritten. */
const TAIL_ROWS = 2 * CONTEXT_NEIGHBOURS + 1;

/**
 * A file that only grew at its end since it was indexed (mem add, mem extract, an editor's
 * append), re-indexed from its end: the new entries are inserted and the few last ones whose
 * neighbours' context the new text reaches are updated, the same rows a full parse would give,
 * without parsing the rest. Null when that cannot be shown to hold (the indexed bytes are not the
 * file's beginning, the file had errors, the end does not parse cleanly, or its last indexed
 * entries are not found as they are indexed): the caller parses the whole file.
 */
function appendedPart(writer: Writer, db: Db, file: VaultFile, row: FileRow, buf: Buffer): { hash: string; prep: Prepared; keep: Map<number, OldRow>; entryCount: number } | null {
  if (buf.length <= row.size || row.hash === null) return null;
  const info = db.prepare('SELECT format, error, entry_count FROM files WHERE id = ?').get(row.id) as { format: string | null; error: string | null; entry_count: number };
  if (info.format !== 'entries' || info.error !== null || info.entry_count < TAIL_ROWS) return null;
  const { prefix, whole } = prefixAndWholeHash(buf, row.size);
  if (prefix !== row.hash) return null;
  const last = writer.lastRows(row.id, info.entry_count, TAIL_ROWS);
  if (last.length !== TAIL_ROWS || last.some((r) => r.kind !== 'entry')) return null;
  const anchor = last[0];
  // The anchor's header: its id in the indexed bytes, then the `---` line that opens it.
  for (const start of headerStartsBefore(buf, anchor.entry_id, row.size)) {
    if (buf.indexOf(0, start) !== -1) continue;
    const read = decodeVaultText(buf.subarray(start));
    if ('error' in read || read.bom) continue;
    const found: Diagnostic[] = [];
    const prep = prepare(file, read, found);
    if (found.length > 0 || prep.error !== null || prep.format !== 'entries' || prep.entries.length < TAIL_ROWS) continue;
    const lines = (l: number) => l + anchor.line - 1;
    const same = last.every((r, k) => {
      const e = prep.entries[k];
      return e.id === r.entry_id && e.kind === 'entry' && e.offset + anchor.char_offset === r.char_offset && lines(e.line) === r.line;
    });
    if (!same) continue;
    // The anchor and the entry after it keep their rows: the new text is beyond their neighbours.
    const from = CONTEXT_NEIGHBOURS;
    const entries = prep.entries.slice(from).map((e) => ({ ...e, ordinal: e.ordinal + anchor.ordinal, offset: e.offset + anchor.char_offset, line: lines(e.line) }));
    const tail: Prepared = { ...prep, entries, fts: prep.fts.slice(from), rows: prep.rows.slice(from) };
    const keep = writer.reconcile(row.id, tail, last.slice(from));
    return { hash: whole, prep: tail, keep, entryCount: anchor.ordinal + prep.entries.length };
  }
  return null;
}

export interface RefreshOptions {
  onProgress?: IndexProgress;
}

/**
 * Files the index holds with git conflict markers: path to the line of the first marker. One lookup
 * of the meta table, so the check before every search stays as cheap as it was.
 */
export function readConflicts(db: Db): Map<string, number> {
  const value = db.prepare("SELECT value FROM meta WHERE key = 'conflicts'").pluck().get() as string | undefined;
  if (!value) return new Map();
  try {
    return new Map(Object.entries(JSON.parse(value) as Record<string, number>).filter(([, line]) => typeof line === 'number'));
  } catch {
    return new Map();
  }
}

/** The conflicted files as warnings (file:line of the first marker), for a read to print. */
export function conflictWarnings(db: Db): Diagnostic[] {
  return [...readConflicts(db)].map(([file, line]) => ({ severity: 'warning', message: `${file} has unresolved git conflict markers; the entries of both sides are shown`, file, line }));
}

export function countEntries(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n;
}

export interface Plan {
  work: { file: VaultFile; st: FileStat; row?: FileRow }[];
  removed: FileRow[];
  files: number;
  /** The folder listings to save for the next check, when they changed (see DirCache). */
  dirCache?: string;
  /** The walk's memo to save ('' clears it), when the walk ran (see checkWalkMemo). */
  walkMemo?: string;
  /** The stat digest to save when a check found nothing to do but the stored one differed. */
  statDigest?: string;
}

/**
 * The plan as it stands now, inside the write transaction: another process may have indexed
 * some of its files since it was made (two `mem add`s at once), and writing a stale plan would
 * insert a file twice. Each planned file's row is read again (a file that is now indexed with
 * the stats this plan took is dropped), and only the removals whose rows are still there stay.
 */
function current(db: Db, p: Plan): Plan {
  if (planIsEmpty(p)) return p;
  const rowOf = db.prepare('SELECT id, path, mtime_ms, ctime_ms, size, racy, hash FROM files WHERE path = ?');
  const work: Plan['work'] = [];
  for (const w of p.work) {
    const row = rowOf.get(w.file.path) as FileRow | undefined;
    if (row && !row.racy && row.mtime_ms === w.st.mtimeMs && row.ctime_ms === w.st.ctimeMs && row.size === w.st.size) continue;
    work.push({ ...w, row });
  }
  const stillThere = db.prepare('SELECT 1 FROM files WHERE id = ? AND path = ?').pluck();
  const removed = p.removed.filter((r) => stillThere.get(r.id, r.path) !== undefined);
  return { ...p, work, removed };
}

/** What the refresh needs of a file's stat. */
export type FileStat = Pick<fs.Stats, 'mtimeMs' | 'ctimeMs' | 'size'>;

/** Scratch for statInto: mtime, ctime, size. */
const scratch = new Float64Array(3);

/**
 * `stats`, when given, holds the stats already taken, in `files` order: mtime, ctime and size
 * per file, NaN for a file that is missing or not a regular file.
 */
function plan(db: Db, files: VaultFile[], stats?: Float64Array): Plan {
  // Raw rows and no hash: this runs before every search, and the hash is only needed for the
  // few files whose stat changed (fetched then).
  const raw = db.prepare('SELECT id, path, mtime_ms, ctime_ms, size, racy FROM files').raw().all() as [number, string, number, number, number, number][];
  const rows: FileRow[] = raw.map(([id, path, mtime_ms, ctime_ms, size, racy]) => ({ id, path, mtime_ms, ctime_ms, size, racy, hash: null }));
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const work: Plan['work'] = [];
  const seen = new Set<string>();
  for (let i = 0; i < files.length; i++) {
    const file = files[i];
    let st: FileStat | undefined;
    if (stats) {
      if (!Number.isNaN(stats[3 * i])) st = { mtimeMs: stats[3 * i], ctimeMs: stats[3 * i + 1], size: stats[3 * i + 2] };
    } else if (statInto(file.abs, scratch, 0) === FILE) {
      st = { mtimeMs: scratch[0], ctimeMs: scratch[1], size: scratch[2] };
    }
    if (!st) continue;
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

function applyPlan(db: Db, planned: Plan, opts: RefreshOptions, started: number): IndexReport {
  const diagnostics: Diagnostic[] = [];
  let changed = 0;
  const writer = new Writer(db);
  const now = Date.now();
  let p = planned;
  let lastTick = 0;
  const read = (abs: string): Buffer | null => {
    const r = readRegularBytes(abs, MEMORY_FILE_LIMIT);
    return isFailure(r) ? null : r;
  };
  const tx = db.transaction(() => {
    p = current(db, planned);
    const total = p.work.length;
    saveCheckState(db, p);
    for (const r of p.removed) writer.remove(r.id, r.path);
    // Pass 1: which files really changed (hash); for changed files already in the index, parse
    // them and delete the FTS rows of entries whose text changed. Every FTS delete comes before
    // any insert: a contentless FTS5 delete flushes pending inserts, so interleaving them makes a
    // tiny segment per file and deletes fifty times slower.
    const stash = p.work.map(({ file, st, row }) => {
      const buf = read(file.abs);
      if (row && buf) {
        const grown = appendedPart(writer, db, file, row, buf);
        if (grown) return grown;
      }
      const hash = buf ? bytesHash(buf) : 'unreadable';
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
        writer.put(row?.id, file, st, item.hash, now - st.mtimeMs < RACY_MS, prep, 'keep' in item && item.keep ? item.keep : new Map(), 'entryCount' in item ? item.entryCount : undefined);
        stash[i] = null;
        changed++;
      }
      if (opts.onProgress && (i === total - 1 || Date.now() - lastTick > 80)) {
        lastTick = Date.now();
        opts.onProgress(i + 1, total);
      }
    });
    writer.saveConflicts();
    saveStatDigest(db, writer.wroteRacy);
    endWrite(db);
  });
  beginWrite(db);
  try {
    tx.immediate();
  } catch (err) {
    abandonWrite(db);
    throw err;
  }
  return { files: p.files, changed, removed: p.removed.length, entries: -1, ms: Date.now() - started, diagnostics };
}

/**
 * What a refresh would do: files whose stat changed, and index rows whose file is gone. When the
 * walk's memo holds and the files' stats digest to what the last write stored, that is nothing,
 * found with one stat per file and no query of the files table. `clock` is for tests.
 *
 * A memory file that is not a regular file (a FIFO, a folder) keeps the walk from being memoised,
 * as a folder that cannot be listed does: every command walks again and says what it left out,
 * and no `mem watch` vouches for an index that leaves it out.
 */
export function planRefresh(db: Db, vault: Vault, clock: () => number = Date.now): Plan {
  const meta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
  const key = walkKey(vault);
  const saved = meta.get('walk_memo') as string | undefined;
  const memoised = checkWalkMemo(saved, key, vault.root);
  if (memoised) {
    const stored = meta.get('stat_digest') as string | undefined;
    const { digest, probed, stats } = digestFiles(vault, memoised);
    // One in a probed file's place (the root, the global folder): the memo, which does not
    // depend on those folders, still holds, so it is dropped here.
    const forget = metNotRegularFiles(vault) ? { walkMemo: '' } : {};
    if (digest.toString() === stored) return { work: [], removed: [], files: digest.n, ...forget };
    const p = plan(db, vaultFiles(vault, memoised === '' ? [] : memoised.split('\n'), probed), stats);
    // Nothing to do after all (a digest from an older mem, say): store the right one.
    if (planIsEmpty(p)) p.statDigest = digest.toString();
    return { ...p, ...forget };
  }
  const cache = new DirCache(meta.get('dir_cache') as string | undefined, clock);
  const paths = walkPaths(vault, cache.read);
  const p = plan(db, vaultFiles(vault, paths));
  if (cache.changed) p.dirCache = cache.serialize();
  const memo = metNotRegularFiles(vault) ? '' : cache.walkMemo(key, paths, vault.root) ?? '';
  if (memo !== (saved ?? '')) p.walkMemo = memo;
  return p;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** One 32-bit mixing step (a multiply-rotate, as in murmur3) of `h` with the 64 bits of `x`. */
function mix(h: number, x: number): number {
  f64[0] = x;
  h = Math.imul(h ^ u32[0], 0xcc9e2d51);
  h = Math.imul((h << 15) | (h >>> 17), 0x1b873593);
  h = Math.imul(h ^ u32[1], 0xcc9e2d51);
  return Math.imul((h << 13) | (h >>> 19), 0xe6546b64);
}

/**
 * An order-free digest of the stats (mtime, ctime, size; the path's length) of a set of files:
 * two 32-bit lanes summed over the files, and the count. The walk memo already pins which paths
 * there are, so the stats are what can change; equal digests mean the same stats, and the
 * refresh before every search compares one string instead of reading the files table (see
 * digestFiles). Numbers only: hashing the paths' text cost 10 ms at 7k files.
 */
class StatDigest {
  private a = 0;
  private b = 0;
  n = 0;

  add(file: string, mtime: number, ctime: number, size: number): void {
    let a = mix(mix(mix(0x9747b28c ^ file.length, mtime), ctime), size);
    a ^= a >>> 16;
    let b = mix(mix(mix(0x85ebca6b ^ file.length, size), mtime), ctime);
    b ^= b >>> 13;
    this.a = (this.a + a) | 0;
    this.b = (this.b + b) | 0;
    this.n++;
  }

  toString(): string {
    return `${this.a >>> 0}.${this.b >>> 0}.${this.n}`;
  }
}

/**
 * The digest of the vault's files (probed ones plus the memoised walk's) as they are now; equal to
 * the one stored at the index's last write when nothing changed since (the stored one is '' when
 * that write left racy rows, which must be re-checked).
 */
function digestFiles(vault: Vault, joined: string): { digest: StatDigest; probed: VaultFile[]; stats: Float64Array } {
  const d = new StatDigest();
  const probed = probedFiles(vault);
  let count = joined === '' ? 0 : 1;
  for (let i = joined.indexOf('\n'); i >= 0; i = joined.indexOf('\n', i + 1)) count++;
  // Numbers only, in vaultFiles() order, so that a plan after a mismatch can reuse them: keeping
  // 10k fs.Stats objects alive through the check costs more in garbage collection than it saves.
  const stats = new Float64Array(3 * (probed.length + count)).fill(NaN);
  let n = 0;
  const take = (file: string, abs: string) => {
    const at = 3 * n++;
    if (statInto(abs, stats, at) === FILE) d.add(file, stats[at], stats[at + 1], stats[at + 2]);
    else stats.fill(NaN, at, at + 3);
  };
  const seen = new Set<string>();
  for (const f of probed) {
    seen.add(f.abs);
    take(f.path, f.abs);
  }
  const absOf = absFromRoot(vault);
  // The memo's paths are root-relative: on POSIX they are stat-ed as they are, from the root
  // (see inFolder); a probed file (at the root, or home = root) is not counted twice.
  const prefix = absOf('');
  const probedHere = new Set(probed.map((f) => f.abs).filter((abs) => abs.startsWith(prefix)).map((abs) => abs.slice(prefix.length)));
  inFolder(vault.root, (moved) => {
    const relative = moved && path.sep === '/';
    // One path at a time out of the memo's text, not an array of them: 10k strings kept alive
    // through the loop would be copied by every young-generation collection it triggers.
    for (let start = 0; start < joined.length; ) {
      let end = joined.indexOf('\n', start);
      if (end < 0) end = joined.length;
      const posix = joined.slice(start, end);
      if (relative) {
        if (!probedHere.has(posix)) take(posix, posix);
      } else {
        const abs = absOf(posix);
        if (!seen.has(abs)) take(posix, abs);
      }
      start = end + 1;
    }
  });
  return { digest: d, probed, stats: stats.subarray(0, 3 * n) };
}

/**
 * Digest the files table after a write (see StatDigest); '' when a row is racy. A write that
 * just stored a racy row (an edit seconds old: the usual one-file refresh) knows that already.
 */
function saveStatDigest(db: Db, wroteRacy = false): void {
  if (wroteRacy) {
    db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('stat_digest', '')").run();
    return;
  }
  const rows = db.prepare('SELECT path, mtime_ms, ctime_ms, size, racy FROM files').raw().all() as [string, number, number, number, number][];
  const d = new StatDigest();
  let racy = false;
  for (const [file, mtime, ctime, size, r] of rows) {
    if (r) racy = true;
    d.add(file, mtime, ctime, size);
  }
  db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('stat_digest', ?)").run(racy ? '' : d.toString());
}

/**
 * The stat digest the index's last write stored: `a.b.n` for n files (see StatDigest), '' when
 * rows are racy, undefined when none was stored.
 */
export function storedStatDigest(db: Db): string | undefined {
  return db.prepare("SELECT value FROM meta WHERE key = 'stat_digest'").pluck().get() as string | undefined;
}

/** Save what the next freshness check starts from: folder listings, walk memo, stat digest. */
function saveCheckState(db: Db, p: Plan): void {
  const set = db.prepare('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)');
  if (p.dirCache !== undefined) set.run('dir_cache', p.dirCache);
  if (p.walkMemo !== undefined) set.run('walk_memo', p.walkMemo);
  if (p.statDigest !== undefined) set.run('stat_digest', p.statDigest);
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
    if (p.dirCache !== undefined || p.walkMemo !== undefined || p.statDigest !== undefined) {
      try {
        saveCheckState(db, p);
      } catch (err) {
        const fault = indexFault(err);
        if (fault === null || fault === 'corrupt') throw err;
      }
    }
    return { files: p.files, changed: 0, removed: 0, entries: -1, ms: 0, diagnostics: [] };
  }
  try {
    return applyPlan(db, p, opts, started);
  } catch (err) {
    throw busyError(err);
  }
}

function busyError(err: unknown): unknown {
  if (!isBusy(err)) return err;
  return new MemError('the index .memory.db is locked by another process', {
    hint: 'another mem command is writing; try again in a moment',
    cause: err,
  });
}

/** Files per message to the parse worker, and messages in flight (bounds the memory held). */
const BATCH = 16;
const IN_FLIGHT = 4;
const BATCH_BYTES = 2 << 20;
/** Plans with fewer files than this are indexed on one thread (starting the worker costs ~30 ms). */
const PARALLEL_MIN = 4 * BATCH;
/** Full-text rows of a refresh held back before they are written (see applyInParallel). */
const STASH_ENTRIES = 25_000;
/** How many batches past the one being written this thread may read itself while the worker is behind. */
const AHEAD = IN_FLIGHT + 4;

/**
 * Carry out a refresh plan, reading and parsing in a worker thread when it is big: the worker
 * prepares the files while this thread writes the rows of those already prepared, so on two
 * cores parsing overlaps SQLite's work. Same result as applyRefresh, which small plans (and
 * runs from the TypeScript sources, without the built worker script) use.
 */
export async function refresh(db: Db, p: Plan, opts: RefreshOptions = {}): Promise<IndexReport> {
  const script = new URL('./parse-worker.js', import.meta.url);
  if (p.work.length < PARALLEL_MIN || script.protocol !== 'file:' || !fs.existsSync(fileURLToPath(script))) return applyRefresh(db, p, opts);
  try {
    return await applyInParallel(db, p, opts, Date.now(), script);
  } catch (err) {
    throw busyError(err);
  }
}

async function applyInParallel(db: Db, planned: Plan, opts: RefreshOptions, started: number, script: URL): Promise<IndexReport> {
  // Loaded here, not at the top: the refresh before every search never needs it (3 ms).
  const { MessageChannel, receiveMessageOnPort, Worker } = await import('node:worker_threads');
  beginWrite(db);
  db.exec('BEGIN IMMEDIATE');
  let p: Plan;
  let worker: InstanceType<typeof Worker>;
  // The worker answers on a port of its own, which this thread can also read without waiting.
  const channel = new MessageChannel();
  try {
    p = current(db, planned);
    worker = new Worker(script, { workerData: { port: channel.port2 }, transferList: [channel.port2] });
  } catch (err) {
    channel.port1.close();
    db.exec('ROLLBACK');
    abandonWrite(db);
    throw err;
  }
  const batches: Plan['work'][] = [];
  // Up to BATCH files, and no more than about BATCH_BYTES of them unless one file is bigger: the
  // batches in flight then hold about the same memory whatever the size of the files.
  let bytes = 0;
  for (const w of p.work) {
    const last = batches[batches.length - 1];
    if (!last || last.length >= BATCH || bytes + w.st.size > BATCH_BYTES) {
      batches.push([w]);
      bytes = w.st.size;
    } else {
      last.push(w);
      bytes += w.st.size;
    }
  }
  const replacing = p.removed.length > 0 || p.work.some((w) => w.row);
  const replies = channel.port1;
  const done = new Map<number, PreparedFile[]>();
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const fail = (err: Error) => {
    failure ??= err;
    wake?.();
  };
  const take = (m: { id: number; results: PreparedFile[] }) => done.set(m.id, m.results);
  replies.on('message', (m: { id: number; results: PreparedFile[] }) => {
    take(m);
    wake?.();
  });
  // A file that cannot be parsed is skipped inside the worker (prepare.ts); what reaches here
  // stopped the worker itself (out of memory, say).
  worker.on('error', (err: unknown) => fail(new MemError(`the index worker failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err })));
  worker.on('exit', (code) => {
    if (code !== 0) fail(new MemError(`the index worker stopped (exit code ${code})`));
  });
  // Batches are handed out in order: to the worker, IN_FLIGHT at a time, or, in a refresh that
  // replaces rows, read here when this thread would otherwise wait for the worker (and is not too
  // far ahead of what it writes); whether it would is asked of the port without waiting. A
  // rebuild's inserts keep this thread busier than the worker: it neither asks (the worker's
  // answers taken off the port early raised the peak from 250 to 260–320 MB at 100k entries) nor
  // parses.
  let handedOut = 0;
  let atWorker = 0;
  const toWorker: boolean[] = [];
  const send = () => {
    const id = handedOut++;
    toWorker[id] = true;
    atWorker++;
    worker.postMessage({ id, files: batches[id].map((w) => w.file), known: batches[id].map((w) => w.row?.hash ?? null) });
  };
  const result = async (id: number): Promise<PreparedFile[]> => {
    for (;;) {
      if (replacing) for (let m = receiveMessageOnPort(replies); m; m = receiveMessageOnPort(replies)) take(m.message as { id: number; results: PreparedFile[] });
      const r = done.get(id);
      if (r) {
        done.delete(id);
        return r;
      }
      if (failure) throw failure;
      if (replacing && handedOut < batches.length && handedOut - id < AHEAD) {
        const own = handedOut++;
        done.set(own, batches[own].map((w) => prepareFile(w.file, w.row?.hash ?? null)));
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
  };
  const diagnostics: Diagnostic[] = [];
  const writer = new Writer(db);
  const now = Date.now();
  let written = 0;
  let lastTick = 0;
  const tick = (n: number) => {
    if (opts.onProgress && (n === p.work.length || Date.now() - lastTick > 80)) {
      lastTick = Date.now();
      opts.onProgress(n, p.work.length);
    }
  };
  // As in applyPlan, FTS deletes come before inserts: into an index with rows to replace, each
  // changed file is reconciled with its rows (their deletes) and written as it comes, but its new
  // full-text rows are held back and written in runs of STASH_ENTRIES, so that FTS5 flushes its
  // pending inserts once per run rather than once per file. Only those rows are held, never the
  // parsed files (2.4 GB for a compaction of a million entries).
  if (replacing) writer.holdFts();
  try {
    saveCheckState(db, p);
    for (const r of p.removed) writer.remove(r.id, r.path);
    while (atWorker < IN_FLIGHT && handedOut < batches.length) send();
    let seen = 0;
    for (let id = 0; id < batches.length; id++) {
      const results = await result(id);
      if (toWorker[id]) atWorker--;
      while (atWorker < IN_FLIGHT && handedOut < batches.length) send();
      batches[id].forEach((w, k) => {
        const { hash, prep, diagnostics: found } = results[k];
        if (prep === null) {
          writer.touch(w.row!.id, w.st, now - w.st.mtimeMs < RACY_MS);
          return;
        }
        diagnostics.push(...found);
        writer.put(w.row?.id, w.file, w.st, hash, now - w.st.mtimeMs < RACY_MS, prep, w.row ? writer.reconcile(w.row.id, prep) : new Map());
        written++;
        if (writer.heldFtsRows >= STASH_ENTRIES) writer.flushFts();
      });
      seen += batches[id].length;
      tick(seen);
    }
    writer.flushFts();
    writer.saveConflicts();
    saveStatDigest(db, writer.wroteRacy);
    endWrite(db);
    db.exec('COMMIT');
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    abandonWrite(db);
    throw err;
  } finally {
    replies.close();
    await worker.terminate();
  }
  return { files: p.files, changed: written, removed: p.removed.length, entries: -1, ms: Date.now() - started, diagnostics };
}

/** Build a complete new index beside the old one, then rename it into place. */
export async function rebuildIndex(vault: Vault, progressFor?: (total: number) => Promise<IndexProgress | undefined>): Promise<IndexReport> {
  const started = Date.now();
  const tmp = `${vault.dbPath}.rebuild-${process.pid}`;
  let db: Db;
  try {
    db = createIndexAt(tmp);
  } catch (err) {
    throw indexError(vault.dbPath, err);
  }
  let report: IndexReport;
  try {
    const cache = new DirCache(null);
    const paths = walkPaths(vault, cache.read);
    const p = plan(db, vaultFiles(vault, paths));
    p.dirCache = cache.serialize();
    p.walkMemo = metNotRegularFiles(vault) ? '' : cache.walkMemo(walkKey(vault), paths, vault.root) ?? '';
    // FTS5 writes a segment each time its buffer of new rows fills, and the final 'optimize'
    // merges them all again; a buffer in proportion to the vault's text keeps a big vault to a
    // segment or two (about 0.55 bytes of buffer per byte of markdown, from 32 MB to 320 MB).
    const text = p.work.reduce((n, w) => n + w.st.size, 0);
    if (text * 0.55 > BULK_HASHSIZE) db.exec(`INSERT INTO entries_fts(entries_fts, rank) VALUES('hashsize', ${Math.round(Math.min(text * 0.55, 10 * BULK_HASHSIZE))})`);
    report = planIsEmpty(p) ? applyPlan(db, p, {}, started) : await refresh(db, p, { onProgress: await progressFor?.(p.work.length) });
    // The secondary indexes first: the count then reads the smallest of them, not the whole table
    // (a scan of every row's text, 0.1 s per 200k entries).
    db.exec(INDEXES);
    report.entries = countEntries(db);
    report.diagnostics.push(...conflictWarnings(db));
    db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('built_at', ?)").run(new Date().toISOString());
    carryVectors(db, vault.dbPath);
    db.exec("INSERT INTO entries_fts(entries_fts) VALUES('optimize')");
    db.exec("INSERT INTO entries_fts(entries_fts, rank) VALUES('automerge', 4)");
    db.exec(`INSERT INTO entries_fts(entries_fts, rank) VALUES('hashsize', ${DEFAULT_HASHSIZE})`);
    db.close();
  } catch (err) {
    db.close();
    removeDbFiles(tmp);
    throw err;
  }
  // Fold the old index's WAL away before replacing it, so no stale -wal is applied to the new file.
  try {
    if (!fs.existsSync(vault.dbPath)) throw new Error('no old index');
    // About to be replaced: whatever it holds, it is not checked.
    const old = openIndex(vault.dbPath, { checked: true }).db;
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.pragma('journal_mode = DELETE');
    old.close();
  } catch {
    // A corrupt or locked old index is simply replaced.
  }
  try {
    for (const suffix of ['-wal', '-shm']) fs.rmSync(vault.dbPath + suffix, { force: true });
    fs.renameSync(tmp, vault.dbPath);
  } catch (err) {
    // A folder in the index's place, a read-only folder: the old index stays as it was.
    removeDbFiles(tmp);
    throw indexError(vault.dbPath, err);
  }
  const fresh = openIndex(vault.dbPath, { checked: true }).db;
  fresh.pragma('journal_mode = WAL');
  fresh.close();
  return { ...report, ms: Date.now() - started };
}

/** Index only the given files (after mem itself wrote them). */
export function refreshFiles(db: Db, files: VaultFile[]): Promise<IndexReport> {
  return refresh(db, { ...plan(db, files), removed: [] });
}

/** A changed header of one entry, from a parse of the entry alone (see applyEntryEdits). */
export interface EntryEdit {
  rowid: number;
  ordinal: number;
  /** The entry's new text prepared alone: its first entry is this one. */
  prep: Prepared;
  /** How much longer (characters, lines) the entry's text got: the rows after it move by that. */
  charDelta: number;
  lineDelta: number;
}

/**
 * Index a file mem rewrote with only some entries' headers changed (reinforce on a big file):
 * those rows' metadata, the positions of the rows after them, the file's hash and stat; the rows
 * a full refresh would write, without parsing the file. `before`: the hash the index must hold
 * for the file, the bytes the edit started from. False, with nothing written, when it does not,
 * or when an entry's title or body changed (its full-text row and its neighbours' context would
 * change too): the caller then refreshes the file as usual.
 */
export function applyEntryEdits(db: Db, file: VaultFile, before: string, st: FileStat, hash: string, edits: EntryEdit[]): boolean {
  const racy = Date.now() - st.mtimeMs < RACY_MS;
  const tx = db.transaction((): boolean => {
    const row = db.prepare('SELECT id, hash FROM files WHERE path = ?').get(file.path) as { id: number; hash: string | null } | undefined;
    if (!row || row.hash !== before) return false;
    const old = db.prepare('SELECT entry_id, content_hash FROM entries WHERE rowid = ? AND file_id = ?');
    const update = db.prepare(`UPDATE entries SET kind = ?, learning_type = ?, type = ?, domain = ?, importance = ?, phase = ?, status = ?,
      reinforcement_count = ?, last_reinforced = ?, created_at = ?, row_hash = ?, metadata_json = ?, session_id = ?, start_ms = ?, end_ms = ? WHERE rowid = ?`);
    const move = db.prepare('UPDATE entries SET char_offset = char_offset + ?, line = line + ? WHERE file_id = ? AND ordinal > ?');
    for (const edit of [...edits].sort((a, b) => a.ordinal - b.ordinal)) {
      const e = edit.prep.entries[0];
      const r = edit.prep.rows[0];
      const was = old.get(edit.rowid, row.id) as { entry_id: string; content_hash: string } | undefined;
      if (!e || !was || was.entry_id !== e.id || was.content_hash !== r.contentHash) throw new EditMismatch();
      update.run(r.kind, r.learningType, e.type, e.domain, e.importance, e.phase, e.status, e.reinforcement_count, e.last_reinforced, e.created_at, r.rowHash, r.metadataJson, r.conversation, r.startMs, r.endMs, edit.rowid);
      if (edit.charDelta !== 0 || edit.lineDelta !== 0) move.run(edit.charDelta, edit.lineDelta, row.id, edit.ordinal);
    }
    db.prepare('UPDATE files SET mtime_ms = ?, ctime_ms = ?, size = ?, hash = ?, racy = ? WHERE id = ?').run(st.mtimeMs, st.ctimeMs, st.size, hash, racy ? 1 : 0, row.id);
    saveStatDigest(db, racy);
    endWrite(db);
    return true;
  });
  beginWrite(db);
  try {
    const done = tx.immediate();
    if (!done) abandonWrite(db);
    return done;
  } catch (err) {
    abandonWrite(db);
    if (err instanceof EditMismatch) return false;
    throw busyError(err);
  }
}

class EditMismatch extends Error {}
