// Vectors in `.memory.db`: a derived table keyed by (entry content hash, model key), so a renamed
// file or a rebuilt index costs no API call; meta 'embed_model' names the one model whose vectors
// the table holds, so vectors of two models are never compared (a model change re-embeds).

import fs from 'node:fs';
import type { Db } from '../index/db.js';
import { where, type EntryFilter } from '../index/queries.js';
import { toBlob } from './vectors.js';

// A rowid table, not WITHOUT ROWID: a 768-d vector (3 KB) then fits in its leaf page instead of
// an overflow chain; reading 100k of them took 0.5 s instead of 1.3 s (measured, see the report).
const TABLE = `CREATE TABLE IF NOT EXISTS vectors(
  id INTEGER PRIMARY KEY, hash TEXT NOT NULL, model TEXT NOT NULL, dims INTEGER NOT NULL, vec BLOB NOT NULL,
  UNIQUE(hash, model))`;

function hasTable(db: Db, schema = 'main'): boolean {
  return Boolean(db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = 'vectors'`).get());
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

/** Every entry passing `filter` that has a vector of `model`: rowids and one row-major matrix. */
export function loadVectors(db: Db, model: string, filter: EntryFilter): { rowids: number[]; matrix: Float32Array; dims: number } {
  const empty = { rowids: [], matrix: new Float32Array(0), dims: 0 };
  if (!hasTable(db) || storedModel(db) !== model) return empty;
  const params: unknown[] = [model];
  const w = where(filter, params);
  const stmt = db.prepare(`SELECT e.rowid AS rowid, v.vec AS vec FROM entries e JOIN vectors v ON v.hash = e.content_hash AND v.model = ? WHERE ${w}`).raw(true);
  const rowids: number[] = [];
  // Bytes copied straight into one growing buffer (a memcpy per row): no typed array per vector.
  let bytes = new Uint8Array(0);
  let size = -1;
  let n = 0;
  for (const [rowid, blob] of stmt.iterate(...params) as Iterable<[number, Uint8Array]>) {
    if (size === -1) {
      size = blob.byteLength;
      bytes = new Uint8Array(size * 1024);
    }
    if (blob.byteLength !== size) continue;
    if ((n + 1) * size > bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      bytes = grown;
    }
    bytes.set(blob, n * size);
    rowids.push(rowid);
    n++;
  }
  const dims = size / 4;
  return size <= 0 ? empty : { rowids, matrix: new Float32Array(bytes.buffer, 0, n * dims), dims };
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
  try {
    if (!hasTable(db, 'old')) return;
    const model = db.prepare("SELECT value FROM old.meta WHERE key = 'embed_model'").get() as { value: string } | undefined;
    if (!model) return;
    db.exec(TABLE);
    db.prepare('INSERT OR IGNORE INTO main.vectors(hash, model, dims, vec) SELECT hash, model, dims, vec FROM old.vectors WHERE model = ? AND hash IN (SELECT content_hash FROM main.entries)').run(model.value);
    db.prepare("INSERT OR REPLACE INTO main.meta(key, value) VALUES ('embed_model', ?)").run(model.value);
  } catch {
    // A damaged old index: its vectors are simply embedded again.
  } finally {
    db.exec('DETACH DATABASE old');
  }
}
