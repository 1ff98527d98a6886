// Plain markdown notes: a file with no entry frontmatter and no `## [` headings is cut into chunks
// at its `#`–`###` headings; long sections are split at paragraph boundaries.

import type { Entry } from './entry.js';
import { fieldsFromMeta } from './entry.js';
import type { Block, ParsedFile } from './parsed-file.js';
import { parseFrontmatter } from './frontmatter.js';
import { lineOfOffset } from './lines.js';

const SECTION_HEADING = /^(#{1,3})[ \t]+(.*?)[ \t#]*\r?$/;
const MAX_CHUNK = 2000;
const TARGET_CHUNK = 1400;

export function slugify(s: string): string {
  const slug = s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'section';
}

function baseName(relPath: string): string {
  return relPath.slice(relPath.lastIndexOf('/') + 1).replace(/\.(md|markdown)$/i, '');
}

/** Offsets (relative to `raw`) where a long section may be cut: blank lines outside fences. */
function paragraphCuts(raw: string): number[] {
  const cuts: number[] = [];
  let inFence = false;
  let pos = 0;
  for (const line of raw.split('\n')) {
    const t = line.trimStart();
    if (t.startsWith('```') || t.startsWith('~~~')) inFence = !inFence;
    pos += line.length + 1;
    if (!inFence && t.trim() === '' && pos < raw.length) cuts.push(pos);
  }
  return cuts;
}

function splitLong(raw: string): string[] {
  if (raw.length <= MAX_CHUNK) return [raw];
  const parts: string[] = [];
  let from = 0;
  let last = 0;
  for (const cut of paragraphCuts(raw)) {
    if (cut - from > TARGET_CHUNK && last > from) {
      parts.push(raw.slice(from, last));
      from = last;
    }
    last = cut;
  }
  if (raw.length - from > MAX_CHUNK && last > from) {
    parts.push(raw.slice(from, last));
    from = last;
  }
  parts.push(raw.slice(from));
  return parts;
}

export function splitNotes(text: string, relPath: string, starts: number[]): ParsedFile {
  let bodyFrom = 0;
  let docTitle = baseName(relPath);
  // A typed note (`type: episode` or `type: pattern`) is one entry (typedNote).
  let typed: Record<string, unknown> | null = null;
  // A file-level frontmatter block (no entry id) stays in the preamble; its title names the file.
  if (/^---[ \t]*\r?\n/.test(text)) {
    const close = /\n---[ \t]*(\r?\n|$)/.exec(text.slice(3));
    if (close) {
      const fm = parseFrontmatter(text.slice(text.indexOf('\n') + 1, close.index + 4));
      if (fm.ok) {
        if (typeof fm.data.title === 'string' && fm.data.title.trim()) docTitle = fm.data.title.trim();
        if (fm.data.type === 'episode' || fm.data.type === 'pattern') typed = fm.data;
        bodyFrom = close.index + 3 + close[0].length;
      }
    }
  }
  if (typed) return typedNote(text, relPath, starts, bodyFrom, docTitle, typed);
  const sections: { start: number; level: number; heading: string; line: number }[] = [];
  let inFence = false;
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i];
    if (s < bodyFrom) continue;
    const c = text.charCodeAt(s);
    if (c === 96 /* ` */ || c === 126 /* ~ */) {
      if (text.startsWith('```', s) || text.startsWith('~~~', s)) inFence = !inFence;
      continue;
    }
    if (inFence || c !== 35 /* # */) continue;
    const end = i + 1 < starts.length ? starts[i + 1] - 1 : text.length;
    // The last line's newline is not part of it (a heading there ends the file).
    const m = SECTION_HEADING.exec(text.slice(s, end).replace(/\r?\n$/, ''));
    if (m) sections.push({ start: s, level: m[1].length, heading: m[2].trim(), line: i + 1 });
  }
  if (sections.length === 0 || text.slice(bodyFrom, sections[0].start).trim() !== '') {
    sections.unshift({ start: bodyFrom, level: 0, heading: docTitle, line: lineOfOffset(starts, bodyFrom) });
  }
  const preamble = text.slice(0, sections.length > 0 ? sections[0].start : text.length);
  const blocks: Block[] = [];
  const entries: Entry[] = [];
  const seen = new Map<string, number>();
  const stack: { level: number; heading: string }[] = [];
  const defaults = fieldsFromMeta({});
  sections.forEach((sec, k) => {
    const end = k + 1 < sections.length ? sections[k + 1].start : text.length;
    while (stack.length > 0 && stack[stack.length - 1].level >= sec.level) stack.pop();
    const trail = [docTitle, ...stack.map((s) => s.heading)].filter((h, i, a) => a.indexOf(h) === i && h !== sec.heading).join(' › ');
    if (sec.level > 0) stack.push({ level: sec.level, heading: sec.heading });
    const slug = slugify(sec.heading);
    const n = (seen.get(slug) ?? 0) + 1;
    seen.set(slug, n);
    const baseId = `${relPath}#${n === 1 ? slug : `${slug}-${n}`}`;
    let offset = sec.start;
    splitLong(text.slice(sec.start, end)).forEach((raw, part) => {
      const lines = raw.replace(/\r\n/g, '\n');
      const withoutHeading = part === 0 && sec.level > 0 ? lines.slice(lines.indexOf('\n') + 1 || lines.length) : lines;
      const body = withoutHeading.trim();
      const title = part === 0 ? sec.heading : `${sec.heading} (${part + 1})`;
      if (body !== '' || sec.level > 0) {
        const entry: Entry = {
          id: part === 0 ? baseId : `${baseId}~${part + 1}`,
          kind: 'note',
          ...defaults,
          title,
          titleFromHeading: true,
          body,
          meta: {},
          line: lineOfOffset(starts, offset),
          offset,
          ordinal: entries.length,
          trail,
        };
        entries.push(entry);
        blocks.push({ start: offset, raw, entry });
      } else {
        blocks.push({ start: offset, raw });
      }
      offset += raw.length;
    });
  });
  return { format: 'notes', preamble, blocks, entries, diagnostics: [] };
}

/**
 * A typed note's title names what it is about, so a search for the words of an episode's task or
 * a pattern's trigger finds it (they are frontmatter fields, not in the body).
 */
function typedTitle(docTitle: string, meta: Record<string, unknown>): string {
  const about = meta.type === 'episode' ? meta.task : meta.trigger;
  const text = typeof about === 'string' ? about.replace(/\s+/g, ' ').trim() : '';
  return text ? `${docTitle} — ${text}` : docTitle;
}

/**
 * A typed note (`type: episode` or `type: pattern`) is one entry: the note is one
 * episode or one pattern, and a search should find it once, not once per section. Its title is
 * the note's; its body the note after the `# Title` line; its metadata the frontmatter, so the
 * index can tell its kind and filter on its fields (outcome, success_rate).
 */
function typedNote(text: string, relPath: string, starts: number[], bodyFrom: number, docTitle: string, meta: Record<string, unknown>): ParsedFile {
  const raw = text.slice(bodyFrom);
  const lines = raw.replace(/\r\n/g, '\n');
  const h1 = /^\s*#[ \t]+[^\n]*(\n|$)/.exec(lines);
  const body = (h1 ? lines.slice(h1[0].length) : lines).trim();
  // The entry's line: its `# Title` (or its first text) rather than the blank line after the header.
  const first = bodyFrom + (raw.length - raw.trimStart().length);
  const entry: Entry = {
    id: `${relPath}#${slugify(docTitle)}`,
    kind: 'note',
    ...fieldsFromMeta(meta),
    title: typedTitle(docTitle, meta),
    titleFromHeading: true,
    body,
    meta,
    line: lineOfOffset(starts, Math.min(first, Math.max(bodyFrom, text.length - 1))),
    offset: bodyFrom,
    ordinal: 0,
    trail: docTitle,
  };
  return { format: 'notes', preamble: text.slice(0, bodyFrom), blocks: [{ start: bodyFrom, raw, entry }], entries: [entry], diagnostics: [] };
}
