// What the index holds and whether it is sound, for `mem stats` and `mem doctor`: counts by
// field, files the indexer could not read, the schema version, the index's size on disk, and
// whether this SQLite has FTS5.

import fs from 'node:fs';
import { openDatabase, type Db } from './db.js';

/** The entry fields `mem stats` counts by. */
export type CountedField = 'scope' | 'type' | 'status' | 'learning_type' | 'kind';
// In the order of entries_learning_status's columns (see countsByField).
const COUNTED: readonly CountedField[] = ['learning_type', 'kind', 'status', 'scope', 'type'];

/**
 * How many entries have each value of each counted field, most first (ties by value). One pass
 * over entries_learning_status, which holds all five, in its own order: five scans of the table
 * took 26 s at a million entries.
 */
export function countsByField(db: Db): Record<CountedField, Record<string, number>> {
  const rows = db.prepare(`SELECT ${COUNTED.join(', ')}, count(*) FROM entries GROUP BY ${COUNTED.join(', ')}`).raw().all() as (string | number)[][];
  const tallies = COUNTED.map(() => new Map<string, number>());
  for (const r of rows) {
    const n = r[COUNTED.length] as number;
    tallies.forEach((t, i) => t.set(r[i] as string, (t.get(r[i] as string) ?? 0) + n));
  }
  const order = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return Object.fromEntries(COUNTED.map((f, i) => [f, Object.fromEntries([...tallies[i]].sort(order))])) as Record<CountedField, Record<string, number>>;
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
