// Memory files on disk: split a file into preamble + entry blocks (frontmatter entries, legacy
// `## [` sections or plain-note chunks) and put it back together. Each block keeps its raw
// text, so rewriting one entry leaves every other byte of the file as it was.

import { sha1Hex } from '../hash.js';
import { MemError, type Diagnostic } from '../errors.js';
import { ENTRY_TYPES, fieldsFromMeta, type Entry } from './entry.js';
import { parseFrontmatter, updateFrontmatter } from './frontmatter.js';
import { lineStarts } from './lines.js';
import { splitNotes } from './notes.js';

export type FileFormat = 'entries' | 'legacy' | 'notes';

export interface Block {
  /** Offset of the block in the file text; the block runs to the next block or the end. */
  start: number;
  raw: string;
  /** For frontmatter entries: the text between the two `---` lines, and where the body starts in `raw`. */
  header?: { yaml: string; yamlStart: number; bodyStart: number };
  entry?: Entry;
  /** A header that looked like an entry but did not parse; kept verbatim, never indexed. */
  broken?: string;
}

export interface ParsedFile {
  format: FileFormat;
  preamble: string;
  blocks: Block[];
  entries: Entry[];
  diagnostics: Diagnostic[];
}

const RULE = /^---[ \t]*\r?$/;
const ID_LINE = /^id[ \t]*:/m;
const MAX_HEADER_LINES = 200;
const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const LEGACY_HEADING = /^## \[/;

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

function shortHash(s: string): string {
  return sha1Hex(s).slice(0, 12);
}

interface HeaderSpan {
  startLine: number;
  endLine: number;
  yaml: string;
  data?: Record<string, unknown>;
  error?: { message: string; line: number };
}

function findHeaders(text: string, starts: number[]): HeaderSpan[] {
  const headers: HeaderSpan[] = [];
  const n = starts.length;
  let i = 0;
  while (i < n) {
    if (text.charCodeAt(starts[i]) !== 45 /* - */ || !RULE.test(lineAt(text, starts, i))) {
      i++;
      continue;
    }
    let j = i + 1;
    const limit = Math.min(n, i + 1 + MAX_HEADER_LINES);
    while (j < limit && !(text.charCodeAt(starts[j]) === 45 && RULE.test(lineAt(text, starts, j)))) j++;
    if (j >= limit) {
      i++;
      continue;
    }
    const yaml = text.slice(starts[i + 1] ?? text.length, starts[j]);
    if (!ID_LINE.test(yaml)) {
      i = j;
      continue;
    }
    const parsed = parseFrontmatter(yaml);
    if (parsed.ok) {
      const id = parsed.data.id;
      if ((typeof id === 'string' && id.trim() !== '') || typeof id === 'number') {
        headers.push({ startLine: i, endLine: j, yaml, data: parsed.data });
        i = j + 1;
        continue;
      }
      i = j;
      continue;
    }
    // Only a block that starts like YAML (after any comment lines) is reported as a broken
    // header; otherwise the `---` lines are body text (a rule) and scanning goes on from the
    // closing one.
    if (/^(?:[ \t]*(?:#[^\r\n]*)?\r?\n)*[ \t]*[A-Za-z_][\w-]*[ \t]*:/.test(yaml)) {
      headers.push({ startLine: i, endLine: j, yaml, error: { message: parsed.error, line: i + 1 + parsed.line } });
    }
    i = j;
  }
  return headers;
}

/**
 * Parse a memory file. `relPath` names the file in diagnostics and seeds the stable ids of
 * legacy entries and note chunks.
 */
export function parseMemoryFile(text: string, relPath: string): ParsedFile {
  const starts = lineStarts(text);
  const headers = findHeaders(text, starts);
  if (headers.length > 0) return parseEntries(text, relPath, starts, headers);
  if (starts.some((s) => text.startsWith('## [', s))) return parseLegacy(text, relPath, starts);
  // MEMORY.md / institutional.md without entries are all preamble (a fresh template, say);
  // any other markdown is a plain note, indexed by sections.
  if (isMemoryFileName(relPath)) return { format: 'entries', preamble: text, blocks: [], entries: [], diagnostics: [] };
  return splitNotes(text, relPath, starts);
}

export function isMemoryFileName(relPath: string): boolean {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
  return base === 'memory.md' || base === 'institutional.md';
}

function parseEntries(text: string, relPath: string, starts: number[], headers: HeaderSpan[]): ParsedFile {
  const blocks: Block[] = [];
  const entries: Entry[] = [];
  const diagnostics: ParsedFile['diagnostics'] = [];
  let preamble = text.slice(0, starts[headers[0].startLine]);
  // A legacy file that later got frontmatter entries appended (by mem add or mem extract): its
  // `## [` sections before the first header are still entries, not preamble.
  if (preamble.includes('## [')) {
    const prefixStarts = starts.slice(0, headers[0].startLine);
    const legacy = parseLegacy(preamble, relPath, prefixStarts);
    if (legacy.entries.length > 0) {
      preamble = legacy.preamble;
      blocks.push(...legacy.blocks);
      entries.push(...legacy.entries);
    }
  }
  headers.forEach((h, k) => {
    const start = starts[h.startLine];
    const end = k + 1 < headers.length ? starts[headers[k + 1].startLine] : text.length;
    const raw = text.slice(start, end);
    const yamlStart = (starts[h.startLine + 1] ?? text.length) - start;
    const bodyStart = (h.endLine + 1 < starts.length ? starts[h.endLine + 1] : text.length) - start;
    if (h.error) {
      diagnostics.push({ severity: 'error', message: `malformed YAML in entry header: ${h.error.message}`, file: relPath, line: h.error.line });
      blocks.push({ start, raw, broken: h.error.message, header: { yaml: h.yaml, yamlStart, bodyStart } });
      return;
    }
    const meta = h.data ?? {};
    const { title, body, fromHeading } = titleAndBody(raw.slice(bodyStart));
    const entry: Entry = {
      id: String(meta.id).trim(),
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
    blocks.push({ start, raw, entry, header: { yaml: h.yaml, yamlStart, bodyStart } });
  });
  return { format: 'entries', preamble, blocks, entries, diagnostics };
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

/** The file text for a parsed file: preamble and blocks, as they are now. */
export function serializeFile(file: ParsedFile): string {
  let out = file.preamble;
  for (const b of file.blocks) out += b.raw;
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
    newYaml = updateFrontmatter(yaml, changes);
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
  return { ...block, raw, entry, header: { yaml: newYaml, yamlStart, bodyStart: bodyStart + delta } };
}
