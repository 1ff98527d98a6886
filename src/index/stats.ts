// What the index holds and whether it is sound, for `mem stats` and `mem doctor`: counts by
// field, files the indexer could not read, the schema version, the index's size on disk, and
// whether this SQLite has FTS5.

import fs from 'node:fs';
import { openDatabase, type Db } from './db.js';

/** The entry fields `mem stats` counts by. */
export type CountedField = 'scope' | 'type' | 'status' | 'learning_type' | 'kind';
const COUNTED: readonly CountedField[] = ['scope', 'type', 'status', 'learning_type', 'kind'];

/** How many entries have each value of `field`, most first. */
export function countsBy(db: Db, field: CountedField): Record<string, number> {
  // The column name is one of COUNTED, never text from outside.
  if (!COUNTED.includes(field)) throw new Error(`not a counted field: ${field}`);
  const rows = db.prepare(`SELECT ${field} AS k, count(*) AS n FROM entries GROUP BY ${field} ORDER BY n DESC`).all() as { k: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.k, r.n]));
}

export function fileCount(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
}

/** Files the indexer skipped in whole or in part, with why, by path. */
export function brokenFiles(db: Db): { path: string; error: string }[] {
  return db.prepare('SELECT path, error FROM files WHERE error IS NOT NULL ORDER BY path').all() as { path: string; error: string }[];
}

export function brokenFileCount(db: Db): number {
  return (db.prepare('SELECT count(*) AS n FROM files WHERE error IS NOT NULL').get() as { n: number }).n;
}

/** The schema version the index was written with (undefined in a file that has none). */
export function schemaVersionOf(db: Db): string | undefined {
  return (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined)?.value;
}

/** The index's bytes on disk: the database and its write-ahead log. */
export function indexBytes(dbPath: string): number {
  let size = 0;
  for (const s of ['', '-wal']) size += fs.statSync(dbPath + s, { throwIfNoEntry: false })?.size ?? 0;
  return size;
}

/** This SQLite's version, once an FTS5 table with the index's tokenizer was made in memory (throws when it cannot be). */
export function sqliteWithFts5(): string {
  const db = openDatabase(':memory:');
  try {
    const v = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
    db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')");
    return v;
  } finally {
    db.close();
  }
}
