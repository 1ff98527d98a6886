// An index's rows as plain data, for tests that compare an index built one way with one built another.

import type { Database } from 'better-sqlite3';
import { openIndex } from '../src/index/db.js';

/**
 * Every indexed entry and file row, in file order, without the rowids a refresh may renumber; and
 * whatever `extra` reads from the same open index.
 */
export function indexRows<T = undefined>(dbPath: string, extra?: (db: Database) => T): { entries: any[]; files: any[]; extra?: T } {
  const { db } = openIndex(dbPath);
  try {
    const entries = db.prepare('SELECT * FROM entries ORDER BY path, ordinal').all().map((r: any) => {
      delete r.rowid;
      delete r.file_id;
      return r;
    });
    const files = db.prepare('SELECT path, size, hash, format, entry_count, error FROM files ORDER BY path').all() as any[];
    return extra ? { entries, files, extra: extra(db) } : { entries, files };
  } finally {
    db.close();
  }
}
