// Memory files on disk: split a file into preamble + entry blocks (frontmatter entries, legacy
// `## [` sections or plain-note chunks) and put it back together. Each block keeps its raw
// text, so rewriting one entry leaves every other byte of the file as it was. A block that cannot
// be an entry (bad header, invalid id, a NUL byte) is kept verbatim and reported, never indexed.
// A file with git conflict markers is read as both of its versions (gitmarkers.ts), never rewritten.

import { sha1Hex } from '../hash.js';
import { MemError, type Diagnostic } from '../errors.js';
import { ENTRY_TYPES, entryId, fieldsFromMeta, type Entry } from './entry.js';
import { formatFlowHeader, parseFrontmatter, updateFlowHeader, updateFrontmatter } from './frontmatter.js';
import { conflictSides, findConflictMarkers, type ConflictMarker, type Side } from './gitmarkers.js';
import { lineOfOffset, lineStarts } from './lines.js';
import { splitNotes } from './notes.js';
import type { Block, ParsedFile } from './parsed-file.js';

export type { Block, FileFormat, ParsedFile } from './parsed-file.js';

const RULE = /^---[ \t]*\r?$/;
const ID_LINE = /^id[ \t]*:/m;
const MAX_HEADER_LINES = 200;
const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const LEGACY_HEADING = /^## \[/;
/**
 * The one-line header form: the entry's metadata as a YAML flow mapping inside an HTML comment.
 * Markdown renderers show nothing of it (an HTML block of type 2, CommonMark 0.31 §4.6), where
 * the `---` form renders as a rule and a large heading (a paragraph followed by `---` is a setext
 * heading, §4.3).
 */
const COMMENT_HEADER = /^<!--[ \t]*mem[ \t]+(\{.*\})[ \t]*-->[ \t]*\r?$/;

/** The two ways an entry header is written: `---` lines around YAML, or one HTML comment line. */
export type HeaderForm = 'yaml' | 'comment';

/**
 * `format.entry_header` in the config: how new entries' headers are written. `auto` keeps a file's
 * own form (that of its last header) and gives a file without headers the comment form.
 */
export type EntryHeaderSetting = 'auto' | HeaderForm;

/** The header line of the comment form for `meta` (no line break). */
export function commentHeaderLine(meta: Record<string, unknown>): string {
  return `<!-- mem ${formatFlowHeader(meta)} -->`;
}

/** Whether a line would be read as a comment-form header (a body line like it is escaped by the writers). */
export function looksLikeCommentHeader(line: string): boolean {
  return COMMENT_HEADER.test(line);
}

function lineAt(text: string, starts: number[], i: number): string {
  const end = i + 1 < starts.length ? starts[i + 1] - 1 : text.length;
  return text.slice(starts[i], end);
}

/** Title and body from an entry's markdown: a leading heading becomes the title. */
export function titleAndBody(md: string): { title: string; body: string; fromHeading: boolean } {
  const text = md.replace(/\r\n/g, '\n').trim();
  const nl = text.indexOf('\n');
  const first = nl === -1 ? text : text.slice(0, nl);
  const h = HEADING.exec(first);
  if (h) {
    const title = h[2].replace(/^\[[^\]]*\]\s*/, '').trim();
    return { title, body: nl === -1 ? '' : text.slice(nl + 1).trim(), fromHeading: true };
  }
  const line = first.replace(/^[-*>\s]+/, '').trim();
  const title = line.length > 80 ? `${line.slice(0, 77).trimEnd()}…` : line;
  return { title, body: text, fromHeading: false };
}

/** Whether an entry's markdown holds any text: blank lines and rules (`---`, `***`) are none. */
function hasText(md: string): boolean {
  return md.split('\n').some((l) => l.trim() !== '' && !/^[ \t]*([-*_])([ \t]*\1){2,}[ \t]*\r?$/.test(l));
}

function shortHash(s: string): string {
  return sha1Hex(s).slice(0, 12);
}

interface HeaderSpan {
  /** First line of the block: its opening `---`, or a bare header's first line. */
  startLine: number;
  /** The YAML is lines [yamlLine, yamlEnd). */
  yamlLine: number;
  yamlEnd: number;
  /** The header's closing `---` line, or -1 (a header that ends at a blank line or the end). */
  closeLine: number;
  /** First line of the body. */
  bodyLine: number;
  /** No `---` of its own (see Block.bare). */
  bare?: boolean;
  /** A comment-form header: its YAML starts at this column of its one line. */
  commentCol?: number;
  yaml: string;
  data?: Record<string, unknown>;
  id?: string;
  error?: { message: string; line: number };
}

/** A `key:` line, the only kind a header without `---` lines may hold (besides indented ones). */
const KEY_LINE = /^[A-Za-z_][\w-]*[ \t]*:(?:[ \t]|\r?$)/;
/** Blank and comment lines, then a key: a block that starts like YAML. */
const STARTS_LIKE_YAML = /^(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]*[A-Za-z_][\w-]*[ \t]*:/;
const isKeyStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;

/**
 * Find the entry headers of a file. A header is a `---` line, YAML with an `id:` key, and a
 * closing `---` line. The earlier teaparty system also left headers with no body whose next
 * header follows at once, sharing one `---` line or none:
 *
 *   ---            ---            ---
 *   id: a          id: a          id: a
 *   ---            ---            (end of file)
 *   id: b          id: b
 *   ---            (blank line)
 *   body of b      ---
 *
 * So a run of `key: value` lines with an `id:` where a body would start (right after a header,
 * blank lines aside) is a header too, and so is one after a `---` that no `---` closes before a
 * blank line or the end of the file. The `---` between two such headers goes to the second one,
 * so that either can be removed and the rest still reads the same.
 */
function findHeaders(text: string, starts: number[]): HeaderSpan[] {
  const headers: HeaderSpan[] = [];
  const n = starts.length;
  const line = (i: number) => lineAt(text, starts, i);
  // A stray NUL in a `---` line must cost only the entry it opens, not that one and the one
  // before it (whose body its header would become): such a line is still a rule here, and the
  // block is then skipped for its NUL.
  const hasNul = text.includes('\u0000');
  const isRule = (i: number) => {
    const c = text.charCodeAt(starts[i]);
    if (c === 45 /* - */ && RULE.test(line(i))) return true;
    return hasNul && (c === 45 || c === 0) && RULE.test(line(i).replace(/\u0000/g, ''));
  };
  const isBlank = (i: number) => {
    const c = text.charCodeAt(starts[i]);
    return c === 10 || (c === 13 && text.charCodeAt(starts[i] + 1) === 10) || Number.isNaN(c) || ((c === 32 || c === 9) && line(i).trim() === '');
  };
  const slice = (a: number, b: number) => text.slice(starts[a] ?? text.length, starts[b] ?? text.length);
  /** The id of the YAML in lines [a, b), or why it has none; null when it is not a header at all. */
  const read = (a: number, b: number, bareRun: boolean): Pick<HeaderSpan, 'yaml' | 'data' | 'id' | 'error'> | null => {
    const yaml = slice(a, b);
    if (!ID_LINE.test(yaml)) return null;
    return readYaml(yaml, a, bareRun, false);
  };
  const readYaml = (yaml: string, a: number, bareRun: boolean, comment: boolean): Pick<HeaderSpan, 'yaml' | 'data' | 'id' | 'error'> | null => {
    const parsed = parseFrontmatter(yaml);
    if (!parsed.ok) {
      // Only a block that starts like YAML is reported as a broken header; otherwise the `---`
      // lines are body text (a rule). A `<!-- mem {…} -->` line is meant as a header.
      if (bareRun || !(comment || STARTS_LIKE_YAML.test(yaml))) return null;
      return { yaml, error: { message: `malformed YAML in entry header: ${parsed.error}`, line: a + parsed.line } };
    }
    if (!Object.prototype.hasOwnProperty.call(parsed.data, 'id')) return null;
    const r = entryId(parsed.data.id, yaml);
    if ('problem' in r) {
      const idLine = comment ? a : a + yaml.split('\n').findIndex((l) => /^id[ \t]*:/.test(l));
      return { yaml, data: parsed.data, error: { message: `invalid id in entry header: ${r.problem}`, line: idLine + 1 } };
    }
    // Without `---` lines around it, only an id that looks like one (no blanks) makes a header:
    // a paragraph of prose such as `id: the user's login` stays body text.
    if (bareRun && /\s/.test(r.id)) return null;
    return { yaml, data: parsed.data, id: r.id };
  };
  /** End (exclusive) of a run of key lines from line a: the first blank or `---` line, or n. */
  const runEnd = (a: number): number => {
    let k = a;
    while (k < n && k - a < MAX_HEADER_LINES && !isBlank(k) && !isRule(k)) {
      const l = line(k);
      if (!KEY_LINE.test(l) && !/^[ \t]/.test(l)) return -1;
      k++;
    }
    return k - a >= MAX_HEADER_LINES || k === a ? -1 : k;
  };
  /** Bare headers at the start of `cur`'s body, one after another; returns where scanning goes on. */
  const chain = (cur: HeaderSpan): number => {
    for (;;) {
      let k = cur.bodyLine;
      while (k < n && isBlank(k)) k++;
      // Only a line that starts with a key can start a header (the common case, a `## [` heading
      // or prose, stops here).
      if (k >= n || !isKeyStart(text.charCodeAt(starts[k]))) return cur.bodyLine;
      const end = runEnd(k);
      const h = end === -1 ? null : read(k, end, true);
      if (!h) return cur.bodyLine;
      const closed = end < n && isRule(end);
      const next: HeaderSpan = { startLine: k, yamlLine: k, yamlEnd: end, closeLine: closed ? end : -1, bodyLine: closed ? end + 1 : end, ...h };
      if (cur.closeLine !== -1) {
        // The `---` that closed `cur` opens this one; `cur` has no body.
        next.startLine = cur.closeLine;
        cur.bodyLine = cur.closeLine;
        cur.closeLine = -1;
      } else next.bare = true;
      headers.push(next);
      cur = next;
    }
  };
  const isComment = (i: number) => text.charCodeAt(starts[i]) === 60 /* < */ && COMMENT_HEADER.test(line(i));
  /** The comment-form header on line i, or null. */
  const commentHeader = (i: number): HeaderSpan | null => {
    if (text.charCodeAt(starts[i]) !== 60 /* < */) return null;
    const l = line(i);
    const m = COMMENT_HEADER.exec(l);
    if (!m) return null;
    const r = readYaml(m[1], i, false, true);
    return r && { startLine: i, yamlLine: i, yamlEnd: i + 1, closeLine: -1, bodyLine: i + 1, commentCol: l.indexOf('{'), ...r };
  };
  let i = 0;
  while (i < n) {
    if (!isRule(i)) {
      const c = commentHeader(i);
      if (c) headers.push(c);
      i++;
      continue;
    }
    let j = i + 1;
    const limit = Math.min(n, i + 1 + MAX_HEADER_LINES);
    // A comment-form header ends the search: a `---` header never holds one.
    while (j < limit && !isRule(j) && !isComment(j)) j++;
    let h: HeaderSpan | null = null;
    if (j < limit && isRule(j)) {
      const r = read(i + 1, j, false);
      if (!r) {
        i = j;
        continue;
      }
      h = { startLine: i, yamlLine: i + 1, yamlEnd: j, closeLine: j, bodyLine: j + 1, ...r };
    } else {
      // No closing `---`: a header that ends at a blank line or the end of the file.
      const end = runEnd(i + 1);
      const r = end === -1 ? null : read(i + 1, end, true);
      if (r) h = { startLine: i, yamlLine: i + 1, yamlEnd: end, closeLine: -1, bodyLine: end, ...r };
    }
    if (!h) {
      i++;
      continue;
    }
    headers.push(h);
    // A broken header's body is not looked into: it is kept verbatim with the header.
    i = h.error ? h.bodyLine : chain(h);
  }
  return headers;
}

/**
 * Parse a memory file. `relPath` names the file in diagnostics and seeds the stable ids of
 * legacy entries and note chunks.
 */
export function parseMemoryFile(text: string, relPath: string): ParsedFile {
  const starts = lineStarts(text);
  const markers = findConflictMarkers(text, starts);
  if (markers.length > 0) return parseConflicted(text, relPath, starts, markers);
  return parsePlain(text, relPath, starts);
}

function parsePlain(text: string, relPath: string, starts: number[]): ParsedFile {
  const parsed = parseBlocks(text, relPath, starts);
  return text.includes('\u0000') ? skipNulBlocks(parsed, text, starts, relPath) : parsed;
}

/**
 * A file with conflict markers, read as the union of its two versions: ours (the lines outside
 * hunks and each hunk's first section) and theirs (outside and after `=======`), each parsed as
 * an ordinary file, so a marker line is never part of an entry and a hunk that cuts through a
 * header (git moves lines both sides share out of the hunk) hides nothing. An entry the same in
 * both versions is one entry; an entry changed on both sides is there twice, ours first, each
 * version searchable (lint reports the duplicate id). Lines and offsets are the file's own.
 */
function parseConflicted(text: string, relPath: string, starts: number[], markers: ConflictMarker[]): ParsedFile {
  const { ours, theirs } = conflictSides(text, starts, markers);
  const a = parseSide(ours, text, starts, relPath);
  const b = parseSide(theirs, text, starts, relPath);
  const key = (blk: Block) => (blk.entry ? `e\u0000${blk.entry.kind}\u0000${blk.entry.id}\u0000${blk.entry.title}\u0000${blk.entry.body}\u0000${JSON.stringify(blk.entry.meta)}` : `r\u0000${blk.raw}`);
  const inOurs = new Map<string, number>();
  for (const blk of a.blocks) inOurs.set(key(blk), (inOurs.get(key(blk)) ?? 0) + 1);
  const onlyTheirs = b.blocks.filter((blk) => {
    const n = inOurs.get(key(blk)) ?? 0;
    if (n > 0) inOurs.set(key(blk), n - 1);
    return n === 0;
  });
  // File order; a block of theirs that starts where one of ours does (both begin at a shared
  // `---` line before the hunk) comes after it.
  const blocks: Block[] = [];
  let j = 0;
  for (const blk of a.blocks) {
    while (j < onlyTheirs.length && onlyTheirs[j].start < blk.start) blocks.push(onlyTheirs[j++]);
    blocks.push(blk);
  }
  // One at a time: spread into push(), 150k blocks overflow the call stack.
  for (; j < onlyTheirs.length; j++) blocks.push(onlyTheirs[j]);
  const entries: Entry[] = [];
  const numbered = blocks.map((blk) => {
    if (!blk.entry) return blk;
    const entry = { ...blk.entry, ordinal: entries.length };
    entries.push(entry);
    return { ...blk, entry };
  });
  const once = (list: Diagnostic[]) => {
    const seen = new Set<string>();
    return list.filter((d) => !seen.has(`${d.line}\u0000${d.message}`) && Boolean(seen.add(`${d.line}\u0000${d.message}`))).sort((x, y) => (x.line ?? 0) - (y.line ?? 0));
  };
  const warnings = once([...(a.warnings ?? []), ...(b.warnings ?? [])]);
  return {
    format: a.format,
    preamble: a.preamble,
    blocks: numbered,
    entries,
    diagnostics: once([...a.diagnostics, ...b.diagnostics]),
    ...(warnings.length > 0 && { warnings }),
    conflict: { markers },
  };
}

/** One version of a conflicted file, parsed, with its lines and offsets turned into the file's. */
function parseSide(side: Side, text: string, starts: number[], relPath: string): ParsedFile {
  const sideStarts = lineStarts(side.text);
  const parsed = parsePlain(side.text, relPath, sideStarts);
  const line = (l: number) => (l >= 1 && l <= side.fileLine.length ? side.fileLine[l - 1] + 1 : l);
  const offset = (o: number) => {
    if (side.fileLine.length === 0) return Math.min(o, text.length);
    const k = lineOfOffset(sideStarts, o) - 1;
    return starts[side.fileLine[Math.min(k, side.fileLine.length - 1)]] + (o - sideStarts[k]);
  };
  const moved = (d: Diagnostic): Diagnostic => (d.line === undefined ? d : { ...d, line: line(d.line) });
  const blocks = parsed.blocks.map((blk): Block => {
    const start = offset(blk.start);
    const out: Block = { ...blk, start };
    if (blk.entry) out.entry = { ...blk.entry, line: line(blk.entry.line), offset: offset(blk.entry.offset) };
    if (blk.empty) out.empty = { ...blk.empty, line: line(blk.empty.line) };
    if (blk.bare) out.bare = { prev: blk.bare.prev < 0 ? blk.bare.prev : offset(blk.bare.prev) };
    const first = lineOfOffset(sideStarts, blk.start);
    const count = blk.raw.split('\n').length;
    out.fileLines = Array.from({ length: count }, (_, k) => line(first + k));
    return out;
  });
  return {
    ...parsed,
    blocks,
    entries: blocks.flatMap((blk) => (blk.entry ? [blk.entry] : [])),
    diagnostics: parsed.diagnostics.map(moved),
    ...(parsed.warnings && { warnings: parsed.warnings.map(moved) }),
  };
}

function parseBlocks(text: string, relPath: string, starts: number[]): ParsedFile {
  const headers = findHeaders(text, starts);
  if (headers.length > 0) return parseEntries(text, relPath, starts, headers);
  if (starts.some((s) => text.startsWith('## [', s))) return parseLegacy(text, relPath, starts);
  // MEMORY.md / institutional.md without entries are all preamble (a fresh template, say);
  // any other markdown is a plain note, indexed by sections.
  if (isMemoryFileName(relPath)) return { format: 'entries', preamble: text, blocks: [], entries: [], diagnostics: [] };
  return splitNotes(text, relPath, starts);
}

/**
 * A NUL byte has no place in a memory file (mem never writes one); one that got in anyway costs
 * only the block that holds it: that block is kept verbatim and reported with its line, and
 * every other entry of the file stays searchable. One in the preamble is reported too.
 */
function skipNulBlocks(file: ParsedFile, text: string, starts: number[], relPath: string): ParsedFile {
  const diagnostics = [...file.diagnostics];
  const report = (offset: number, what: string) =>
    diagnostics.push({ severity: 'error', message: `NUL byte in ${what}`, file: relPath, line: lineOfOffset(starts, offset) });
  const nulInPreamble = file.preamble.indexOf('\u0000');
  if (nulInPreamble !== -1) report(nulInPreamble, 'the text before the first entry');
  let ordinal = 0;
  const entries: Entry[] = [];
  const blocks = file.blocks.map((b): Block => {
    const at = b.raw.indexOf('\u0000');
    if (at !== -1 && !b.broken) {
      report(b.start + at, b.entry || b.empty ? 'an entry' : 'the file');
      return { start: b.start, raw: b.raw, header: b.header, bare: b.bare, broken: 'contains a NUL byte' };
    }
    if (!b.entry) return b;
    const entry = { ...b.entry, ordinal: ordinal++ };
    entries.push(entry);
    return { ...b, entry };
  });
  diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { ...file, blocks, entries, diagnostics };
}

export function isMemoryFileName(relPath: string): boolean {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
  return base === 'memory.md' || base === 'institutional.md';
}

function parseEntries(text: string, relPath: string, starts: number[], headers: HeaderSpan[]): ParsedFile {
  const blocks: Block[] = [];
  const entries: Entry[] = [];
  const diagnostics: ParsedFile['diagnostics'] = [];
  const warnings: Diagnostic[] = [];
  let preamble = text.slice(0, starts[headers[0].startLine]);
  // A legacy file that later got frontmatter entries appended (by mem add or mem extract): its
  // `## [` sections before the first header are still entries, not preamble.
  if (preamble.includes('## [')) {
    const prefixStarts = starts.slice(0, headers[0].startLine);
    const legacy = parseLegacy(preamble, relPath, prefixStarts);
    if (legacy.entries.length > 0) {
      preamble = legacy.preamble;
      for (const b of legacy.blocks) blocks.push(b);
      for (const e of legacy.entries) entries.push(e);
    }
  }
  const offset = (line: number) => (line < starts.length ? starts[line] : text.length);
  headers.forEach((h, k) => {
    const start = starts[h.startLine];
    const end = k + 1 < headers.length ? starts[headers[k + 1].startLine] : text.length;
    const raw = text.slice(start, end);
    const header: NonNullable<Block['header']> = { yaml: h.yaml, yamlStart: offset(h.yamlLine) - start + (h.commentCol ?? 0), bodyStart: Math.min(offset(h.bodyLine), end) - start };
    if (h.commentCol !== undefined) header.form = 'comment';
    const bare = h.bare ? { prev: blocks.length > 0 ? blocks[blocks.length - 1].start : -1 } : undefined;
    if (h.error || h.id === undefined) {
      const error = h.error ?? { message: 'entry header without an id', line: h.startLine + 1 };
      diagnostics.push({ severity: 'error', message: error.message, file: relPath, line: error.line });
      blocks.push({ start, raw, broken: error.message, header, ...(bare && { bare }) });
      return;
    }
    const meta = h.data ?? {};
    const { title, body, fromHeading } = titleAndBody(raw.slice(header.bodyStart));
    // A title means text; only a titleless body needs the closer look.
    if (title === '' && !hasText(body)) {
      const line = h.startLine + 1;
      warnings.push({ severity: 'warning', message: `empty entry "${h.id}": a header with no text (mem lint --fix --remove-empty removes it)`, file: relPath, line });
      blocks.push({ start, raw, header, empty: { id: h.id, line }, ...(bare && { bare }) });
      return;
    }
    const entry: Entry = {
      id: h.id,
      kind: 'entry',
      ...fieldsFromMeta(meta),
      title,
      titleFromHeading: fromHeading,
      body,
      meta,
      line: h.startLine + 1,
      offset: start,
      ordinal: entries.length,
    };
    entries.push(entry);
    blocks.push({ start, raw, entry, header, ...(bare && { bare }) });
  });
  return { format: 'entries', preamble, blocks, entries, diagnostics, ...(warnings.length > 0 && { warnings }) };
}

function parseLegacy(text: string, relPath: string, starts: number[]): ParsedFile {
  const headingLines: number[] = [];
  let inFence = false;
  for (let i = 0; i < starts.length; i++) {
    if (text.startsWith('```', starts[i]) || text.startsWith('~~~', starts[i])) inFence = !inFence;
    else if (!inFence && LEGACY_HEADING.test(text.slice(starts[i], starts[i] + 4))) headingLines.push(i);
  }
  const blocks: Block[] = [];
  const entries: Entry[] = [];
  const seen = new Map<string, number>();
  const preamble = text.slice(0, starts[headingLines[0]]);
  headingLines.forEach((li, k) => {
    const start = starts[li];
    const end = k + 1 < headingLines.length ? starts[headingLines[k + 1]] : text.length;
    const raw = text.slice(start, end);
    const heading = lineAt(text, starts, li).replace(/\r$/, '').trim();
    const base = `legacy-${shortHash(`${relPath}\n${heading}`)}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const id = n === 1 ? base : `${base}-${n}`;
    const { title, body } = titleAndBody(raw);
    const date = /^## \[(\d{4}-\d{2}-\d{2})/.exec(heading)?.[1];
    const typeWord = /^([A-Za-z]+)\s*:/.exec(title)?.[1]?.toLowerCase();
    const meta: Record<string, unknown> = {};
    if (typeWord && (ENTRY_TYPES as readonly string[]).includes(typeWord)) meta.type = typeWord;
    if (date) meta.created_at = date;
    const entry: Entry = {
      id,
      kind: 'legacy',
      ...fieldsFromMeta(meta),
      title,
      titleFromHeading: true,
      body,
      meta: {},
      line: li + 1,
      offset: start,
      ordinal: entries.length,
    };
    entries.push(entry);
    blocks.push({ start, raw, entry });
  });
  return { format: 'legacy', preamble, blocks, entries, diagnostics: [] };
}

/**
 * The file text for a parsed file: preamble and blocks, as they are now. A bare header whose
 * block before it was removed gets a `---` line back, so it still reads as a header.
 */
export function serializeFile(file: ParsedFile): string {
  // Its blocks are two versions' entries, not the file's text: writing them would resolve the
  // conflict by accident (the writers refuse such a file before they parse it).
  if (file.conflict) throw new Error('serializeFile: a file with git conflict markers is never rewritten');
  let out = file.preamble;
  let prev = -1;
  for (const b of file.blocks) {
    if (b.bare && b.bare.prev !== prev) out += b.raw.includes('\r\n') ? '---\r\n' : '---\n';
    out += b.raw;
    prev = b.start;
  }
  return out;
}

/**
 * Rewrite one frontmatter entry's header with `changes` (undefined removes a key). Only this
 * block's raw text changes. Legacy and note entries have no header to edit.
 */
export function updateBlockMeta(block: Block, changes: Record<string, unknown>): Block {
  if (!block.header || !block.entry) throw new Error('updateBlockMeta: not a frontmatter entry');
  const { yaml, yamlStart, bodyStart } = block.header;
  let newYaml: string;
  try {
    newYaml = block.header.form === 'comment' ? updateFlowHeader(yaml, changes) : updateFrontmatter(yaml, changes);
  } catch (err) {
    if (!(err instanceof MemError)) throw err;
    throw new MemError(`entry ${block.entry.id}: ${err.message}`, { exitCode: err.exitCode, hint: err.hint, where: { line: block.entry.line } });
  }
  const raw = block.raw.slice(0, yamlStart) + newYaml + block.raw.slice(yamlStart + yaml.length);
  const delta = newYaml.length - yaml.length;
  const meta = { ...block.entry.meta };
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) delete meta[k];
    else meta[k] = v;
  }
  const entry: Entry = { ...block.entry, meta, ...fieldsFromMeta(meta) };
  return { ...block, raw, entry, header: { ...block.header, yaml: newYaml, bodyStart: bodyStart + delta } };
}
