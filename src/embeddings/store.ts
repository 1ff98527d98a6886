// Vectors in `.memory.db`: a derived table keyed by (entry content hash, model key), so a renamed
// file or a rebuilt index costs no API call; meta 'embed_model' names the one model whose vectors
// the table holds, so vectors of two models are never compared (a model change re-embeds).

import fs from 'node:fs';
import type { Db } from '../index/db.js';
import { where, type EntryFilter } from '../index/queries.js';
import { fromBlob, toBlob } from './vectors.js';

// A rowid table, not WITHOUT ROWID: a 768-d vector (3 KB) then fits in its leaf page instead of
// an overflow chain; reading 100k of them took 0.5 s instead of 1.3 s (measured).
const TABLE = `CREATE TABLE IF NOT EXISTS vectors(
  id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, model TEXT NOT NULL, dims INTEGER NOT NULL, vec BLOB NOT NULL,
  UNIQUE(hash, model))`;
const SNAPSHOT = `CREATE TABLE IF NOT EXISTS vector_snapshot(
  model TEXT PRIMARY KEY, n INTEGER NOT NULL, max_id INTEGER NOT NULL, dims INTEGER NOT NULL, hashes TEXT NOT NULL, matrix BLOB NOT NULL)`;

function hasTable(db: Db, schema = 'main', name = 'vectors'): boolean {
  return Boolean(db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = ?`).get(name));
}

export function storedModel(db: Db): string | null {
  const r = db.prepare("SELECT value FROM meta WHERE key = 'embed_model'").get() as { value: string } | undefined;
  return r?.value ?? null;
}

export interface Missing {
  hash: string;
  text: string;
}

/**
 * Make the table hold `model`'s vectors only (another model's are deleted: a model change
 * re-embeds), drop vectors no entry has any more, and list the texts still to embed — each distinct
 * text once, retired entries skipped.
 */
export function prepareVectors(db: Db, model: string): Missing[] {
  db.exec(TABLE);
  db.transaction(() => {
    if (storedModel(db) !== model) {
      db.prepare('DELETE FROM vectors WHERE model != ?').run(model);
      db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('embed_model', ?)").run(model);
    }
    db.exec('DELETE FROM vectors WHERE hash NOT IN (SELECT content_hash FROM entries)');
  })();
  const rows = db.prepare(`SELECT e.content_hash AS hash, e.title, e.body FROM entries e
    WHERE e.status != 'retired' AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = e.content_hash AND v.model = ?)
    GROUP BY e.content_hash ORDER BY MIN(e.rowid)`).all(model) as { hash: string; title: string; body: string }[];
  // The text the content hash is made of (src/index/prepare.ts): the title line, then the body.
  return rows.map((r) => ({ hash: r.hash, text: `${r.title}\n${r.body}` }));
}

export function putVectors(db: Db, model: string, items: { hash: string; vec: Float32Array }[]): void {
  const put = db.prepare('INSERT OR REPLACE INTO vectors(hash, model, dims, vec) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const it of items) put.run(it.hash, model, it.vec.length, toBlob(it.vec));
  })();
}

export function vectorCount(db: Db, model: string): number {
  if (!hasTable(db) || storedModel(db) !== model) return 0;
  return (db.prepare('SELECT count(*) AS n FROM vectors WHERE model = ?').get(model) as { n: number }).n;
}

/** Vectors of the entries passing a filter: matrix row i is shared by the entries `rowidsOf[i]`. */
export interface VectorSet {
  matrix: Float32Array;
  dims: number;
  rowidsOf: number[][];
  /** Rows to skip (no entry passes the filter), or null when every row counts. */
  mask: Uint8Array | null;
}

const EMPTY: VectorSet = { matrix: new Float32Array(0), dims: 0, rowidsOf: [], mask: null };

/** Rows of (key, blob) copied into one buffer (a memcpy per row, no typed array per vector). */
function collect<K>(rows: Iterable<[K, Uint8Array]>): { keys: K[]; bytes: Uint8Array; size: number } {
  const keys: K[] = [];
  let bytes = new Uint8Array(0);
  let size = -1;
  for (const [key, blob] of rows) {
    if (size === -1) {
      size = blob.byteLength;
      bytes = new Uint8Array(size * 1024);
    }
    if (blob.byteLength !== size) continue;
    if ((keys.length + 1) * size > bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      bytes = grown;
    }
    bytes.set(blob, keys.length * size);
    keys.push(key);
  }
  return { keys, bytes: bytes.subarray(0, Math.max(0, keys.length * size)), size };
}

function fingerprint(db: Db, model: string): { n: number; max_id: number } {
  const r = db.prepare('SELECT count(*) AS n, max(id) AS max_id FROM vectors WHERE model = ?').get(model) as { n: number; max_id: number | null };
  return { n: r.n, max_id: r.max_id ?? 0 };
}

/**
 * The model's vectors as one blob (with their hashes), so a search reads one value instead of a
 * row per vector (100k × 768-d, measured: hybrid search 1.5 s per-row, 0.8 s from the blob). Its fingerprint — count and
 * highest id of the vector rows, ids never reused (AUTOINCREMENT) — tells whether it is current;
 * a stale one is ignored, never trusted. Written after the vectors change (embedMissing, a rebuild).
 */
export function writeSnapshot(db: Db, model: string): void {
  db.exec(TABLE);
  db.exec(SNAPSHOT);
  const fp = fingerprint(db, model);
  const cur = db.prepare('SELECT n, max_id FROM vector_snapshot WHERE model = ?').get(model) as { n: number; max_id: number } | undefined;
  if (cur && cur.n === fp.n && cur.max_id === fp.max_id) return;
  const { keys, bytes, size } = collect(db.prepare('SELECT hash, vec FROM vectors WHERE model = ? ORDER BY id').raw(true).iterate(model) as Iterable<[string, Uint8Array]>);
  db.transaction(() => {
    db.prepare('DELETE FROM vector_snapshot').run();
    db.prepare('INSERT INTO vector_snapshot(model, n, max_id, dims, hashes, matrix) VALUES (?, ?, ?, ?, ?, ?)')
      .run(model, fp.n, fp.max_id, Math.max(0, size / 4), keys.join('\n'), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  })();
}

/** Every entry passing `filter` that has a vector of `model`. */
export function loadVectors(db: Db, model: string, filter: EntryFilter): VectorSet {
  if (!hasTable(db) || storedModel(db) !== model) return EMPTY;
  const params: unknown[] = [];
  const w = where(filter, params);
  const snap = hasTable(db, 'main', 'vector_snapshot')
    ? db.prepare('SELECT n, max_id, dims, hashes, matrix FROM vector_snapshot WHERE model = ?').get(model) as { n: number; max_id: number; dims: number; hashes: string; matrix: Uint8Array } | undefined
    : undefined;
  const fp = fingerprint(db, model);
  if (snap && snap.n === fp.n && snap.max_id === fp.max_id && snap.dims > 0) {
    const row = new Map<string, number>();
    snap.hashes.split('\n').forEach((h, i) => row.set(h, i));
    const rowidsOf: number[][] = Array.from({ length: row.size }, () => []);
    const mask = new Uint8Array(row.size);
    for (const [rowid, hash] of db.prepare(`SELECT e.rowid, e.content_hash FROM entries e WHERE ${w}`).raw(true).iterate(...params) as Iterable<[number, string]>) {
      const i = row.get(hash);
      if (i === undefined) continue;
      rowidsOf[i].push(rowid);
      mask[i] = 1;
    }
    return { matrix: fromBlob(snap.matrix), dims: snap.dims, rowidsOf, mask };
  }
  const { keys, bytes, size } = collect(db.prepare(`SELECT e.rowid AS rowid, v.vec AS vec FROM entries e JOIN vectors v ON v.hash = e.content_hash AND v.model = ? WHERE ${w}`)
    .raw(true).iterate(model, ...params) as Iterable<[number, Uint8Array]>);
  if (size <= 0) return EMPTY;
  return { matrix: new Float32Array(bytes.buffer, bytes.byteOffset, keys.length * (size / 4)), dims: size / 4, rowidsOf: keys.map((k) => [k]), mask: null };
}

/** A rebuilt index keeps the old one's vectors (they are keyed by content, not by row). */
export function carryVectors(db: Db, oldPath: string): void {
  // ATTACH would create a missing file.
  if (!fs.existsSync(oldPath)) return;
  try {
    db.prepare('ATTACH DATABASE ? AS old').run(oldPath);
  } catch {
    return;
  }
  let carried: string | null = null;
  try {
    if (!hasTable(db, 'old')) return;
    const model = db.prepare("SELECT value FROM old.meta WHERE key = 'embed_model'").get() as { value: string } | undefined;
    if (!model) return;
    db.exec(TABLE);
    db.prepare('INSERT OR IGNORE INTO main.vectors(hash, model, dims, vec) SELECT hash, model, dims, vec FROM old.vectors WHERE model = ? AND hash IN (SELECT content_hash FROM main.entries)').run(model.value);
    db.prepare("INSERT OR REPLACE INTO main.meta(key, value) VALUES ('embed_model', ?)").run(model.value);
    carried = model.value;
  } catch {
    // A damaged old index: its vectors are simply embedded again.
  } finally {
    db.exec('DETACH DATABASE old');
  }
  if (carried) writeSnapshot(db, carried);
}
