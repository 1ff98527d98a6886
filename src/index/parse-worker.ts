// The index's worker thread: reads and parses batches of memory files (prepare.ts) while the
// main thread writes the index. Messages: {id, files, known} in, {id, results} out, in order;
// a file whose bytes still hash to its `known` hash is not parsed (its result has no prep).
//
// In a rebuild it also loads the full-text table, in a file of its own (see createFullTextAt),
// so that FTS5's tokenizing runs beside the main thread's writes of the entry rows: {fullText:
// {path, hashsize}} first; then the full-text rows of every batch, in batch order (rowids
// counted from 1, as the main thread's inserts number the entries): those of the batches it
// parses itself, and {id, text} for those the main thread parses (title, body and context per
// entry). {end: batches} commits the file and answers {fullTextRows}.

import { parentPort } from 'node:worker_threads';
import type { Entry } from '../vault/entry.js';
import type { VaultFile } from '../vault/vault.js';
import { createFullTextAt, type Db } from './db.js';
import { fullTextOf, prepareFile, type IndexEntry, type PreparedFile } from './prepare.js';

let fullText: { db: Db; insert: { run(...params: unknown[]): unknown }; rowid: number; next: number; waiting: Map<number, string[]> } | null = null;

/** Insert the rows of every batch whose turn has come. */
function drain(): void {
  const ft = fullText!;
  for (let text = ft.waiting.get(ft.next); text !== undefined; text = ft.waiting.get(ft.next)) {
    ft.waiting.delete(ft.next++);
    for (let i = 0; i < text.length; i += 3) ft.insert.run(++ft.rowid, text[i], text[i + 1], text[i + 2]);
  }
}

type Message =
  | { id: number; files: VaultFile[]; known: (string | null)[] }
  | { id: number; text: string[] }
  | { fullText: { path: string; hashsize: number } }
  | { end: number };

parentPort?.on('message', (m: Message) => {
  if ('fullText' in m) {
    const db = createFullTextAt(m.fullText.path, m.fullText.hashsize);
    db.exec('BEGIN');
    fullText = { db, insert: db.prepare('INSERT INTO entries_fts(rowid, title, body, context) VALUES (?, ?, ?, ?)'), rowid: 0, next: 0, waiting: new Map() };
    return;
  }
  if ('end' in m) {
    const ft = fullText!;
    drain();
    if (ft.next !== m.end) throw new Error(`full-text rows of ${ft.next} batches out of ${m.end}`);
    ft.db.exec('COMMIT');
    ft.db.close();
    parentPort!.postMessage({ fullTextRows: ft.rowid });
    return;
  }
  if ('text' in m) {
    fullText!.waiting.set(m.id, m.text);
    drain();
    return;
  }
  const { id, files, known } = m;
  const results: PreparedFile[] = files.map((f, i) => prepareFile(f, known[i]));
  if (fullText) {
    fullText.waiting.set(id, fullTextOf(results));
    // The main thread writes no full-text rows: their contexts need not be copied to it.
    for (const r of results) if (r.prep) for (const f of r.prep.fts) f.context = '';
  }
  // The frontmatter objects stay here: the index has them as JSON (rows), and copying them to the
  // main thread would cost it more than the rest of a message.
  for (const r of results) if (r.prep) r.prep.entries = r.prep.entries.map(({ meta: _meta, ...e }: IndexEntry & Partial<Pick<Entry, 'meta'>>) => e);
  parentPort!.postMessage({ id, results });
  if (fullText) drain();
});
