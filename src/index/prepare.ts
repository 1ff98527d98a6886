// Reading and parsing one memory file into what the index stores: its entries, the text of
// their full-text columns and the hashes that tell later refreshes what changed. Pure work with
// no database, so it can also run in the rebuild's worker thread (parse-worker.ts).

import { bytesHash, quickHash, quickHashParts } from '../hash.js';
import type { Diagnostic } from '../errors.js';
import type { Entry } from '../vault/entry.js';
import { parseMemoryFile, type FileFormat } from '../vault/format.js';
import { decodeVaultText, isFailure, MEMORY_FILE_LIMIT, readRegularBytes, readVaultText, type ReadResult } from '../vault/read.js';
import type { VaultFile } from '../vault/vault.js';
import { conversationOf, entrySpan } from '../vault/origin.js';

const LEARNING_TYPES: readonly unknown[] = ['institutional', 'task', 'proxy'];
const CONTEXT_TARGET = 1200;
/** Neighbours on each side an untitled entry takes its context from, nearest first. */
export const CONTEXT_NEIGHBOURS = 2;
const MIN_CONTEXT = 40;

/** The first `n` characters of `s`, cut at a word boundary. */
function clip(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.lastIndexOf(' ', n);
  return s.slice(0, cut > n / 2 ? cut : n);
}

/**
 * Low-weight context for an entry: a note's heading trail, or for an untitled entry the text of
 * its neighbours in the file, nearest first, up to two on each side. Context fills in for entries
 * that cannot carry their topic alone — a turn of a conversation, a bare one-line note: the
 * shorter the entry, the more of its neighbours it gets (none from CONTEXT_TARGET characters up),
 * and no neighbour takes more than half of that budget. An entry with a heading of its own is a
 * self-contained learning; its neighbours are other learnings, not its context.
 */
export function contextFor(entries: Entry[], i: number): string {
  const e = entries[i];
  if (e.kind === 'note') return e.trail ?? '';
  if (e.titleFromHeading) return '';
  const budget = CONTEXT_TARGET - e.body.length;
  if (budget < MIN_CONTEXT) return '';
  const side = Math.ceil(budget / 2);
  const parts: string[] = [];
  let left = budget;
  for (let d = 1; d <= CONTEXT_NEIGHBOURS && left >= MIN_CONTEXT; d++) {
    for (const n of [entries[i - d], entries[i + d]]) {
      if (!n || left < MIN_CONTEXT) continue;
      const text = clip(`${n.titleFromHeading ? `${n.title} ` : ''}${n.body}`, Math.min(side, left));
      parts.push(text);
      left -= text.length;
    }
  }
  return parts.join('\n');
}

/**
 * The kind an entry is indexed as: `episode` for an entry whose frontmatter says `kind: episode`
 * (mem segment's) and for the chunks of an episode note (`type: episode`), `pattern` for those of a
 * pattern note, else how it was written (entry, legacy, note). `--kind learning` is entry + legacy.
 */
export function indexKind(e: Pick<Entry, 'kind' | 'meta'>): string {
  if (e.kind === 'note' && (e.meta.type === 'episode' || e.meta.type === 'pattern')) return e.meta.type;
  return e.kind === 'entry' && e.meta.kind === 'episode' ? 'episode' : e.kind;
}

/** What the index takes from an entry (its frontmatter goes in as rows[i].metadataJson). */
export type IndexEntry = Omit<Entry, 'meta'>;

/** The values of an entry's index row that take work to compute. */
export interface PreparedRow {
  learningType: string;
  metadataJson: string;
  rowHash: string;
  contentHash: string;
  kind: string;
  /** The conversation that recorded it (conversationOf), and when it happened (entrySpan). */
  conversation: string | null;
  startMs: number | null;
  endMs: number | null;
}

/** A file read and parsed, ready to be written to the index. */
export interface Prepared {
  entries: IndexEntry[];
  format: FileFormat | null;
  error: string | null;
  /** Per entry: the FTS context column (title and body are the entry's) and the hash of all three. */
  fts: { context: string; hash: string }[];
  /** Per entry: the values of its index row that take work to compute. */
  rows: PreparedRow[];
  /** The line of the file's first git conflict marker, when it has any (every read warns of it). */
  conflict?: number;
}

/**
 * Parse a file for the index. A file that cannot be parsed at all (a header that expands past
 * what a string can hold, say) is indexed as a broken file with a warning: one file never stops
 * the index of the others.
 */
export function prepare(file: VaultFile, read: ReadResult, diags: Diagnostic[]): Prepared {
  const found: Diagnostic[] = [];
  try {
    const prep = prepareText(file, read, found);
    diags.push(...found);
    return prep;
  } catch (err) {
    const error = `cannot index this file (${err instanceof Error ? err.message : String(err)})`;
    diags.push({ severity: 'warning', message: `${error}; skipped`, file: file.path });
    return { entries: [], format: null, error, fts: [], rows: [] };
  }
}

function prepareText(file: VaultFile, read: ReadResult, diags: Diagnostic[]): Prepared {
  if ('error' in read) {
    diags.push({ severity: 'warning', message: `${read.error}; skipped`, file: file.path, line: read.line });
    return { entries: [], format: null, error: read.error, fts: [], rows: [] };
  }
  const parsed = parseMemoryFile(read.text, file.path);
  for (const d of parsed.diagnostics) diags.push({ ...d, severity: 'warning', message: `${d.message}; entry skipped` });
  // The FTS row's hash: its own text, and for a neighbours' context the hashes of the neighbours'
  // text it is cut from (a context is a function of those and this entry's body length). Hashing
  // those instead of the context itself hashes each text once, not up to five times. An entry's
  // own text is its content hash (title and body; a title is one line, so `title\nbody` is
  // unambiguous) and whether the title is a heading.
  const content = parsed.entries.map((e) => quickHashParts([e.title, '\n', e.body]));
  const texts = parsed.entries.map((e, i) => `${e.titleFromHeading ? 1 : 0}${content[i]}`);
  const fts = parsed.entries.map((e, i) => {
    const context = contextFor(parsed.entries, i);
    let from = context;
    if (e.kind !== 'note' && context !== '') {
      from = `${context.length}`;
      for (let d = -CONTEXT_NEIGHBOURS; d <= CONTEXT_NEIGHBOURS; d++) if (d !== 0) from += `\u0000${texts[i + d] ?? '-'}`;
    }
    return { context, hash: quickHash(`${texts[i]}\u0000${from}`) };
  });
  const rows = parsed.entries.map((e, i) => {
    const learningType = typeof e.meta.learning_type === 'string' && LEARNING_TYPES.includes(e.meta.learning_type) ? e.meta.learning_type : file.learningType;
    const metadataJson = JSON.stringify(e.meta);
    const kind = indexKind(e);
    // Everything but the position: when only the position changed, only the position is written.
    const rowHash = quickHashParts([file.path, '\u0000', file.scope, '\u0000', learningType, '\u0000', kind, '\u0000', e.title, '\u0000', metadataJson]);
    const span = entrySpan(e.meta, e.created_at);
    return { learningType, metadataJson, rowHash, contentHash: content[i], kind, conversation: conversationOf(e.meta), startMs: span?.start ?? null, endMs: span?.end ?? null };
  });
  const conflict = parsed.conflict?.markers[0].line;
  if (conflict !== undefined) return { entries: parsed.entries, format: parsed.format, error: `unresolved git conflict markers (line ${conflict})`, fts, rows, conflict };
  return { entries: parsed.entries, format: parsed.format, error: parsed.diagnostics[0]?.message ?? null, fts, rows };
}

export interface PreparedFile {
  /** bytesHash of the bytes, or 'unreadable'. */
  hash: string;
  /** Null when the hash was the `known` one: the file did not change. */
  prep: Prepared | null;
  diagnostics: Diagnostic[];
}

/** Read, hash and (unless it still hashes to `known`) parse one file. */
export function prepareFile(file: VaultFile, known: string | null = null): PreparedFile {
  const r = readRegularBytes(file.abs, MEMORY_FILE_LIMIT);
  const buf = isFailure(r) ? null : r;
  const hash = buf ? bytesHash(buf) : 'unreadable';
  if (hash === known) return { hash, prep: null, diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  const prep = prepare(file, buf ? decodeVaultText(buf) : readVaultText(file.abs), diagnostics);
  return { hash, prep, diagnostics };
}
