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
import { discoverFiles, type Vault, type VaultFile } from '../vault/vault.js';
import { createIndexAt, isBusy, openIndex, removeDbFiles, type Db } from './db.js';

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
const CONTEXT_CHARS = 300;

function sha1(s: string | Buffer): string {
  return createHash('sha1').update(s).digest('hex');
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n);
}

/** Low-weight context for an entry: its neighbours in the file, or a note's heading trail. */
export function contextFor(entries: Entry[], i: number): string {
  const e = entries[i];
  if (e.kind === 'note') return e.trail ?? '';
  const parts: string[] = [];
  const prev = entries[i - 1];
  const next = entries[i + 1];
  if (prev) parts.push(clip(`${prev.titleFromHeading ? `${prev.title} ` : ''}${prev.body}`, CONTEXT_CHARS));
  if (next) parts.push(clip(`${next.titleFromHeading ? `${next.title} ` : ''}${next.body}`, CONTEXT_CHARS));
  return parts.join('\n');
}

class Writer {
  private insertFile;
  private updateFileStat;
  private deleteFileEntries;
  private deleteFileFts;
  private deleteFile;
  private insertEntry;
  private insertFts;
  private updateFileContent;

  constructor(private db: Db) {
    this.insertFile = db.prepare(`INSERT INTO files(path, abs, mtime_ms, ctime_ms, size, hash, racy, scope, learning_type, format, entry_count, error)
      VALUES (@path, @abs, @mtime_ms, @ctime_ms, @size, @hash, @racy, @scope, @learning_type, @format, @entry_count, @error)`);
    this.updateFileStat = db.prepare('UPDATE files SET mtime_ms = ?, ctime_ms = ?, size = ?, racy = ? WHERE id = ?');
    this.updateFileContent = db.prepare(`UPDATE files SET abs = @abs, mtime_ms = @mtime_ms, ctime_ms = @ctime_ms, size = @size, hash = @hash,
      racy = @racy, scope = @scope, learning_type = @learning_type, format = @format, entry_count = @entry_count, error = @error WHERE id = @id`);
    this.deleteFileFts = db.prepare('DELETE FROM entries_fts WHERE rowid IN (SELECT rowid FROM entries WHERE file_id = ?)');
    this.deleteFileEntries = db.prepare('DELETE FROM entries WHERE file_id = ?');
    this.deleteFile = db.prepare('DELETE FROM files WHERE id = ?');
    this.insertEntry = db.prepare(`INSERT INTO entries(entry_id, file_id, path, ordinal, char_offset, line, kind, scope, learning_type, type, domain,
      importance, phase, status, reinforcement_count, last_reinforced, created_at, title, body, content_hash, metadata_json)
      VALUES (@entry_id, @file_id, @path, @ordinal, @char_offset, @line, @kind, @scope, @learning_type, @type, @domain,
      @importance, @phase, @status, @reinforcement_count, @last_reinforced, @created_at, @title, @body, @content_hash, @metadata_json)`);
    this.insertFts = db.prepare('INSERT INTO entries_fts(rowid, title, body, context) VALUES (?, ?, ?, ?)');
  }

  touch(id: number, st: fs.Stats, racy: boolean): void {
    this.updateFileStat.run(st.mtimeMs, st.ctimeMs, st.size, racy ? 1 : 0, id);
  }

  remove(id: number): void {
    this.deleteFileFts.run(id);
    this.deleteFileEntries.run(id);
    this.deleteFile.run(id);
  }

  /** Replace everything indexed for `file`; returns the entry count. */
  put(existingId: number | undefined, file: VaultFile, st: fs.Stats, hash: string, racy: boolean, read: ReadResult, diags: Diagnostic[]): number {
    let entries: Entry[] = [];
    let format: FileFormat | null = null;
    let error: string | null = null;
    if ('error' in read) {
      error = read.error;
      diags.push({ severity: 'warning', message: `${read.error}; skipped`, file: file.path, line: read.line });
    } else {
      const parsed = parseMemoryFile(read.text, file.path);
      entries = parsed.entries;
      format = parsed.format;
      for (const d of parsed.diagnostics) diags.push({ ...d, severity: 'warning', message: `${d.message}; entry skipped` });
      if (parsed.diagnostics.length > 0) error = parsed.diagnostics[0].message;
    }
    const row = {
      path: file.path, abs: file.abs, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs, size: st.size, hash, racy: racy ? 1 : 0,
      scope: file.scope, learning_type: file.learningType, format, entry_count: entries.length, error,
    };
    let fileId: number;
    if (existingId !== undefined) {
      this.deleteFileFts.run(existingId);
      this.deleteFileEntries.run(existingId);
      this.updateFileContent.run({ ...row, id: existingId });
      fileId = existingId;
    } else {
      fileId = Number(this.insertFile.run(row).lastInsertRowid);
    }
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      const learningType = typeof e.meta.learning_type === 'string' && ['institutional', 'task', 'proxy'].includes(e.meta.learning_type)
        ? e.meta.learning_type : file.learningType;
      const res = this.insertEntry.run({
        entry_id: e.id, file_id: fileId, path: file.path, ordinal: e.ordinal, char_offset: e.offset, line: e.line, kind: e.kind,
        scope: file.scope, learning_type: learningType, type: e.type, domain: e.domain, importance: e.importance, phase: e.phase,
        status: e.status, reinforcement_count: e.reinforcement_count, last_reinforced: e.last_reinforced, created_at: e.created_at,
        title: e.title, body: e.body, content_hash: sha1(`${e.title}\n${e.body}`), metadata_json: JSON.stringify(e.meta),
      });
      this.insertFts.run(res.lastInsertRowid, e.titleFromHeading ? e.title : '', e.body, contextFor(entries, i));
    }
    return entries.length;
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
}

function plan(db: Db, files: VaultFile[]): Plan {
  const rows = db.prepare('SELECT id, path, mtime_ms, ctime_ms, size, hash, racy FROM files').all() as FileRow[];
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
  const tx = db.transaction(() => {
    for (const r of p.removed) writer.remove(r.id);
    p.work.forEach(({ file, st, row }, i) => {
      const racy = now - st.mtimeMs < RACY_MS;
      let buf: Buffer | null = null;
      try {
        buf = fs.readFileSync(file.abs);
      } catch {
        buf = null;
      }
      const hash = buf ? sha1(buf) : 'unreadable';
      if (row && row.hash === hash) {
        writer.touch(row.id, st, racy);
      } else {
        writer.put(row?.id, file, st, hash, racy, buf ? decodeVaultText(buf) : readVaultText(file.abs), diagnostics);
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
  return plan(db, discoverFiles(vault));
}

/** Files whose content may differ from the index (not just re-checks of recently written files). */
export function staleCount(p: Plan): number {
  const changed = p.work.filter(({ row, st }) => !row || row.mtime_ms !== st.mtimeMs || row.ctime_ms !== st.ctimeMs || row.size !== st.size);
  return changed.length + p.removed.length;
}

export function planIsEmpty(p: Plan): boolean {
  return p.work.length === 0 && p.removed.length === 0;
}

/** Carry out a refresh plan in one write transaction. */
export function applyRefresh(db: Db, p: Plan, opts: RefreshOptions = {}): IndexReport {
  const started = Date.now();
  if (planIsEmpty(p)) {
    return { files: p.files, changed: 0, removed: 0, entries: countEntries(db), ms: 0, diagnostics: [] };
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
    const p = plan(db, discoverFiles(vault));
    report = applyPlan(db, p, { onProgress: await progressFor?.(p.work.length) }, started);
    db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('built_at', ?)").run(new Date().toISOString());
    db.exec("INSERT INTO entries_fts(entries_fts) VALUES('optimize')");
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
