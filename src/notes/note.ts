// Typed markdown notes (episode and pattern notes): a file-level YAML frontmatter (no entry `id`),
// a `# Title` heading and `## Section`s. This module reads such a note into its parts and changes
// one part at a time (frontmatter keys, one section's body) leaving every other byte as it was;
// episode and pattern notes (src/notes/episode-note.ts, pattern-note.ts) build on it.

import fs from 'node:fs';
import path from 'node:path';
import { MemError, type Diagnostic } from '../errors.js';
import { parseFrontmatter, updateFrontmatter } from '../vault/frontmatter.js';
import { lineOfOffset, lineStarts } from '../vault/lines.js';
import { firstMarkerLine, mayHaveMarkers } from '../vault/gitmarkers.js';
import { readRegular, readVaultText } from '../vault/read.js';
import { newlineOf } from '../vault/safetext.js';
import { withFileLock } from '../vault/write.js';

export interface NoteSection {
  /** The heading's text, as written (`Decisions`, `Events Timeline`). */
  name: string;
  /** 1-based line of the `## ` heading. */
  line: number;
  /** Offset of the heading line; the section runs to `end` (the next `## ` heading or the end). */
  start: number;
  /** Offset just after the heading line: where the section's body starts. */
  bodyStart: number;
  end: number;
}

export interface ParsedNote {
  /** The text without its BOM. */
  text: string;
  bom: boolean;
  eol: '\n' | '\r\n';
  /** The frontmatter: its YAML text, where it sits (offsets of the YAML), and its data. */
  frontmatter: { yaml: string; yamlStart: number; yamlEnd: number; data: Record<string, unknown> } | null;
  /** Why the frontmatter did not parse (then `frontmatter` is null), with its 1-based file line. */
  frontmatterError?: { message: string; line: number };
  /**
   * The first git conflict marker (an unresolved merge), 1-based. Markers in or before the
   * frontmatter also make it unreadable (`frontmatterError` says so): the note is not guessed at.
   */
  conflict?: { line: number };
  /** The first `# ` heading after the frontmatter, if any. */
  title: { text: string; line: number } | null;
  /** Level-2 sections in file order; `###` headings belong to the section above them. */
  sections: NoteSection[];
}

const FENCE = /^[ \t]{0,3}(```|~~~)/;

/** What a note with git conflict markers is called wherever it is named. */
export const UNRESOLVED = 'unresolved merge conflict';
const H1 = /^#[ \t]+(.*?)[ \t#]*$/;
const H2 = /^##[ \t]+(.*?)[ \t#]*$/;

/** Split a note into frontmatter, title and sections. Never throws: a bad header is reported. */
export function parseNote(raw: string): ParsedNote {
  const bom = raw.charCodeAt(0) === 0xfeff;
  const text = bom ? raw.slice(1) : raw;
  const note: ParsedNote = { text, bom, eol: newlineOf(text), frontmatter: null, title: null, sections: [] };
  let from = 0;
  const open = /^---[ \t]*\r?\n/.exec(text);
  if (open) {
    const close = /(^|\n)---[ \t]*(\r?\n|$)/.exec(text.slice(open[0].length));
    if (close) {
      const yamlStart = open[0].length;
      const yamlEnd = yamlStart + close.index + close[1].length;
      const yaml = text.slice(yamlStart, yamlEnd);
      const fm = parseFrontmatter(yaml);
      if (fm.ok) note.frontmatter = { yaml, yamlStart, yamlEnd, data: fm.data };
      else note.frontmatterError = { message: fm.error, line: 1 + (fm.line ?? 1) };
      from = yamlStart + close.index + close[0].length;
    } else {
      note.frontmatterError = { message: 'the frontmatter has no closing `---` line', line: 1 };
    }
  }
  const marker = mayHaveMarkers(text) ? firstMarkerLine(text) : null;
  if (marker !== null) {
    note.conflict = { line: marker };
    // In the header (or before it): what it holds is one side, the other, or neither.
    const headerEnd = note.frontmatter ? lineOfOffset(lineStarts(text), note.frontmatter.yamlEnd) : note.frontmatterError ? Infinity : 1;
    if (marker <= headerEnd) {
      note.frontmatter = null;
      note.frontmatterError = { message: UNRESOLVED, line: marker };
    }
  }
  const starts = lineStarts(text);
  let inFence = false;
  for (let i = lineOfOffset(starts, from) - 1; i < starts.length; i++) {
    const s = starts[i];
    if (s < from) continue;
    const lineEnd = i + 1 < starts.length ? starts[i + 1] : text.length;
    const line = text.slice(s, lineEnd).replace(/\r?\n$/, '');
    if (FENCE.test(line)) inFence = !inFence;
    if (inFence) continue;
    const h2 = H2.exec(line);
    if (h2) {
      const prev = note.sections[note.sections.length - 1];
      if (prev) prev.end = s;
      note.sections.push({ name: h2[1], line: i + 1, start: s, bodyStart: lineEnd, end: text.length });
      continue;
    }
    const h1 = note.title === null && note.sections.length === 0 ? H1.exec(line) : null;
    if (h1) note.title = { text: h1[1], line: i + 1 };
  }
  return note;
}

/** The one problem said of a note with git conflict markers (its other checks would only be noise). */
export function conflictDiagnostic(note: ParsedNote, rel: string): Diagnostic | null {
  if (!note.conflict) return null;
  return { severity: 'error', message: `${UNRESOLVED} (git conflict markers; resolve them by hand, or run mem resolve)`, file: rel, line: note.conflict.line };
}

/**
 * The start every typed note's schema check shares: conflict markers, a broken or missing
 * frontmatter (`needs` says what it must hold) end the check with their one problem; otherwise
 * the frontmatter's data and the file line of each of its keys.
 */
export function frontmatterForCheck(note: ParsedNote, rel: string, needs: string):
  { problems: Diagnostic[] } | { data: Record<string, unknown>; keyLine: (key: string) => number } {
  const conflict = conflictDiagnostic(note, rel);
  if (conflict) return { problems: [conflict] };
  if (note.frontmatterError) return { problems: [{ severity: 'error', message: `frontmatter: ${note.frontmatterError.message}`, file: rel, line: note.frontmatterError.line }] };
  if (!note.frontmatter) return { problems: [{ severity: 'error', message: needs, file: rel, line: 1 }] };
  const yamlLines = note.frontmatter.yaml.split('\n');
  return {
    data: note.frontmatter.data,
    keyLine: (k: string) => {
      const i = yamlLines.findIndex((l) => new RegExp(`^${k}\\s*:`).test(l));
      return i < 0 ? 1 : i + 2;
    },
  };
}

/** The section named `name` (case and spacing ignored), or null. */
export function findSection(note: ParsedNote, name: string): NoteSection | null {
  const want = norm(name);
  return note.sections.find((s) => norm(s.name) === want) ?? null;
}

function norm(s: string): string {
  return s.toLowerCase().replace(/[\s_-]+/g, ' ').trim();
}

/** A section's body (without its heading), or null when the note has no such section. */
export function sectionBody(note: ParsedNote, name: string): string | null {
  const s = findSection(note, name);
  return s ? note.text.slice(s.bodyStart, s.end) : null;
}

/** Each note's line starts, computed once: callers ask for the line of every list item of a section. */
const startsOf = new WeakMap<ParsedNote, { text: string; starts: number[] }>();

/** The 1-based file line of an offset in `note.text`. */
export function lineAt(note: ParsedNote, offset: number): number {
  let c = startsOf.get(note);
  if (!c || c.text !== note.text) {
    c = { text: note.text, starts: lineStarts(note.text) };
    startsOf.set(note, c);
  }
  return lineOfOffset(c.starts, offset);
}

/**
 * The note's text (with its BOM) with one section's body replaced by `body` (LF line endings,
 * converted to the note's own). A missing section is appended at the end. Other bytes stay.
 */
export function replaceSection(note: ParsedNote, name: string, body: string): string {
  const conv = (s: string) => (note.eol === '\r\n' ? s.replace(/\r?\n/g, '\r\n') : s);
  const s = findSection(note, name);
  let out: string;
  if (s) {
    out = note.text.slice(0, s.bodyStart) + conv(body) + note.text.slice(s.end);
  } else {
    const sep = note.text.length === 0 || note.text.endsWith('\n') ? '' : note.eol;
    const gap = note.text.length === 0 || /\n\r?\n$/.test(note.text) ? '' : note.eol;
    out = note.text + sep + gap + conv(`## ${name}\n`) + conv(body);
  }
  return (note.bom ? '\ufeff' : '') + out;
}

/** The note's text (with its BOM) with some frontmatter keys changed byte-stably (undefined removes). */
export function setNoteFields(note: ParsedNote, changes: Record<string, unknown>): string {
  if (!note.frontmatter) throw new MemError('the note has no readable frontmatter to change');
  const { yamlStart, yamlEnd, yaml } = note.frontmatter;
  const updated = updateFrontmatter(yaml, changes);
  return (note.bom ? '\ufeff' : '') + note.text.slice(0, yamlStart) + updated + note.text.slice(yamlEnd);
}

export interface WikiLink {
  target: string;
  /** 1-based file line of the link. */
  line: number;
}

/** Every `[[target]]` (or `[[target|label]]`) outside fenced code and inline code, in order. */
export function wikiLinks(text: string): WikiLink[] {
  const out: WikiLink[] = [];
  let inFence = false;
  text.split('\n').forEach((line, i) => {
    if (FENCE.test(line)) {
      inFence = !inFence;
      return;
    }
    if (inFence) return;
    const plain = line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    for (const m of plain.matchAll(/\[\[([^\[\]|\n]+?)(?:\|[^\[\]\n]*)?\]\]/g)) out.push({ target: m[1].trim(), line: i + 1 });
  });
  return out;
}

/** The text of a section's top-level list items (`- x`, `* x`, `1. x`), continuation lines joined. */
export function listItems(body: string): { text: string; offset: number }[] {
  const items: { text: string; offset: number }[] = [];
  let pos = 0;
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const m = /^(?:[-*+]|\d+[.)])[ \t]+(.*)$/.exec(line);
    if (m) items.push({ text: m[1].trim(), offset: pos });
    else if (items.length > 0 && /^[ \t]+\S/.test(line) && !/^[ \t]*(?:[-*+]|\d+[.)])[ \t]/.test(line)) {
      items[items.length - 1].text += ` ${line.trim()}`;
    }
    pos += raw.length + 1;
  }
  return items;
}

/** The note types mem knows, from a note's frontmatter `type`. */
export type NoteType = 'episode' | 'pattern' | 'observation';

export function noteType(data: Record<string, unknown> | undefined | null): NoteType | null {
  const t = data?.type;
  return t === 'episode' || t === 'pattern' || t === 'observation' ? t : null;
}

/**
 * Create or change the note at `abs` under its write lock, atomically. `change` gets the current
 * note (null: no file yet) and returns the new full text (with BOM if wanted), or null for no
 * change. A file that is not UTF-8 text is refused. Returns whether the bytes changed.
 */
export function writeNote(abs: string, display: string, change: (current: ParsedNote | null) => string | null): { changed: boolean; created: boolean } {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  return withFileLock(abs, (lock) => {
    let current: ParsedNote | null = null;
    if (fs.existsSync(abs)) {
      const st = fs.statSync(abs);
      if (!st.isFile()) throw new MemError(`${display} is not a regular file; not writing to it`);
      const r = readVaultText(abs);
      if ('error' in r) throw new MemError(`${display}: ${r.error}; not writing to it`, { where: { file: display, line: r.line } });
      current = parseNote((r.bom ? '\ufeff' : '') + r.text);
    }
    const next = change(current);
    const before = current ? (current.bom ? '\ufeff' : '') + current.text : null;
    if (next === null || next === before) return { changed: false, created: false };
    lock.replace(next);
    return { changed: true, created: current === null };
  }, display);
}

/** The `.md` notes directly in `dir` (regular files, sorted by name); a missing folder is empty. */
export function noteFiles(dir: string): string[] {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return names.filter((d) => d.isFile() && /\.md$/i.test(d.name)).map((d) => d.name).sort();
}

/** The text of each `.md` note directly in `dir` (noteFiles), skipping a file that cannot be read. */
export function* noteTexts(dir: string): Generator<{ file: string; raw: string }> {
  for (const file of noteFiles(dir)) {
    // A regular file only: a FIFO put there since the listing must not block the command.
    const raw = readRegular(path.join(dir, file));
    if (raw === null) continue;
    yield { file, raw };
  }
}
