// What compaction's first pass keeps of each file: its entries' ids and ranks, where their blocks
// lie, and the word hashes of their text (no text). Pure, so that the pass can run in a worker
// thread for part of the files (src/lifecycle/scan-worker.ts) and give the same as on the main
// thread.

import { dateMs } from '../vault/entry.js';
import type { Block, ParsedFile } from '../vault/format.js';
import { wordHashes, type WordHashes } from './similarity.js';

/** The text compaction compares for near-duplicates: an entry's body, or its title when it has none. */
export function similarityText(e: { title: string; body: string }): string {
  return e.body || e.title;
}

/**
 * A block's place in its file's text: its offset and length, and where its YAML and body start
 * within it. With it, the pass over similar pairs parses just that slice of a file (its entries
 * are a few in a thousand) instead of the whole file; the slice's parse is taken only when it
 * gives back one block with this same shape, else the file is parsed whole.
 */
export interface Span {
  start: number;
  length: number;
  yamlStart: number;
  bodyStart: number;
}

/** An entry as the first pass finds it. */
export interface ScannedItem {
  fileIdx: number;
  blockIdx: number;
  id: string;
  line: number;
  importance: number;
  reinforcement: number;
  /** created_at in ms (Infinity when it has none). */
  created: number;
  retired: boolean;
  /** Where its block lies in the file's text, when the blocks tile the text (see Span). */
  span?: Span;
}

/** The first pass's result for one file. */
export interface FileScan {
  items: ScannedItem[];
  /** The word hashes (wordHashes) of each live item's similarityText, one after another. */
  hashes: Int32Array;
  /** Per item, where its hashes end in `hashes` (they start where the previous item's end). */
  ends: Int32Array;
  /**
   * When the file's new version can be made from its text: the ids of its entries compaction
   * does not touch (episodes, notes), which it keeps whatever happens.
   */
  splicable?: string[];
}

/** Blocks compaction may touch. Episodes (kind: episode) record what happened in a session: never merged with each other or a learning. */
export function eligible(b: Block): boolean {
  return Boolean(b.entry && b.entry.kind === 'entry' && b.entry.meta.kind !== 'episode' && b.header && !b.broken);
}

/**
 * A copy of `s` that holds on to nothing else. A substring V8 makes may point into the string it
 * was cut from (here a whole file's text), keeping all of it alive as long as the substring is.
 */
export function detached(s: string): string {
  return s.length < 13 ? s : JSON.parse(JSON.stringify(s)) as string;
}

/** Whether a parsed file's blocks lie one after another from the end of its preamble, each its own slice of the text. */
export function blocksTile(parsed: ParsedFile): boolean {
  if (parsed.conflict || parsed.format !== 'entries') return false;
  let at = parsed.preamble.length;
  for (const b of parsed.blocks) {
    if (b.start !== at) return false;
    at += b.raw.length;
  }
  return true;
}

/** The first pass's worker thread (scan-worker.ts; built next to the CLI's bundle, absent when running from source). */
export const SCAN_WORKER = new URL('./scan-worker.js', import.meta.url);

/** Whether `mem compact` considers a file: notes and legacy files have no entries it can rewrite. */
export function compactable(parsed: ParsedFile): boolean {
  return parsed.format === 'entries' && parsed.entries.length > 0;
}

/** What compaction needs of file `fileIdx`. */
export function scanFile(fileIdx: number, parsed: ParsedFile): FileScan {
  const items: ScannedItem[] = [];
  const ends: number[] = [];
  const out: WordHashes = { a: new Int32Array(4096) };
  let used = 0;
  const tiled = blocksTile(parsed);
  parsed.blocks.forEach((b, blockIdx) => {
    if (!eligible(b)) return;
    const e = b.entry!;
    const retired = e.status === 'retired';
    if (!retired) used = wordHashes(similarityText(e), out, used);
    ends.push(used);
    items.push({
      fileIdx, blockIdx, id: detached(e.id), line: e.line, importance: e.importance, reinforcement: e.reinforcement_count, created: dateMs(e.created_at) ?? Infinity, retired,
      span: tiled ? { start: b.start, length: b.raw.length, yamlStart: b.header!.yamlStart, bodyStart: b.header!.bodyStart } : undefined,
    });
  });
  // A header with no `---` of its own gets one when the block before it goes (serializeFile):
  // such a file is rewritten from its parse.
  const withEntry = parsed.blocks.filter((b) => b.entry);
  const splicable = tiled && !parsed.blocks.some((b) => b.bare) && withEntry.length === parsed.entries.length
    ? withEntry.filter((b) => !eligible(b)).map((b) => detached(b.entry!.id))
    : undefined;
  return { items, hashes: out.a.slice(0, used), ends: Int32Array.from(ends), splicable };
}
