// The vectors table of `.memory.db` (the vectors themselves are src/embeddings/'s): its schema, kept
// here with every other table of the index, and its rows carried into a rebuilt index, so a rebuild
// costs no embedding call.

import fs from 'node:fs';
import type { Db } from './db.js';

// A rowid table, not WITHOUT ROWID: a 768-d vector (3 KB) then fits in its leaf page instead of
// an overflow chain; reading 100k of them took 0.5 s instead of 1.3 s (measured).
export const VECTORS_TABLE = `CREATE TABLE IF NOT EXISTS vectors(
  id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, model TEXT NOT NULL, dims INTEGER NOT NULL, vec BLOB NOT NULL,
  UNIQUE(hash, model))`;

// Search maps the sidecar's candidates (content hashes) to entries through this index, and
// prepareVectors finds the entries without a vector through it. Created with the vector table
// (an index of vaults that use embeddings only), so the index schema itself is unchanged.
export const CONTENT_HASH_INDEX = 'CREATE INDEX IF NOT EXISTS entries_content_hash ON entries(content_hash)';

/** Whether the index (or the one attached as `schema`) has the vectors table. */
export function hasVectorsTable(db: Db, schema = 'main', name = 'vectors'): boolean {
  return Boolean(db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = ?`).get(name));
}

/**
 * A rebuilt index keeps the old one's vectors (they are keyed by content, not by row), with their
 * ids, and the old index's sidecar token: the sidecar beside the index stays valid (rows of
 * entries gone are dropped at search time, and the next embedding run rewrites it if too many are).
 */
export function carryVectors(db: Db, oldPath: string): void {
  // ATTACH would create a missing file.
  if (!fs.existsSync(oldPath)) return;
  try {
    db.prepare('ATTACH DATABASE ? AS old').run(oldPath);
  } catch {
    return;
  }
  try {
    if (!hasVectorsTable(db, 'old')) return;
    const model = db.prepare("SELECT value FROM old.meta WHERE key = 'embed_model'").get() as { value: string } | undefined;
    if (!model) return;
    db.exec(VECTORS_TABLE);
    db.exec(CONTENT_HASH_INDEX);
    db.prepare('INSERT OR IGNORE INTO main.vectors(id, hash, model, dims, vec) SELECT id, hash, model, dims, vec FROM old.vectors WHERE model = ? AND hash IN (SELECT content_hash FROM main.entries)').run(model.value);
    db.prepare("INSERT OR REPLACE INTO main.meta(key, value) VALUES ('embed_model', ?)").run(model.value);
    const token = db.prepare("SELECT value FROM old.meta WHERE key = 'vec_sidecar'").get() as { value: string } | undefined;
    if (token) db.prepare("INSERT OR REPLACE INTO main.meta(key, value) VALUES ('vec_sidecar', ?)").run(token.value);
  } catch {
    // A damaged old index: its vectors are simply embedded again.
  } finally {
    db.exec('DETACH DATABASE old');
  }
}
