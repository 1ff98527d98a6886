// A block mem generates inside a file the user owns (an agent's instruction file): found by its
// begin and end marker lines, replaced in place or appended, and every byte around it kept —
// its line endings, its byte order mark, the text before and after. Pure.

import { MemError } from '../errors.js';
import { newlineOf, withNewline } from './safetext.js';

export interface BlockMarkers {
  /** A line starting with this (after indentation), then a space or the comment's end, opens the block. */
  begin: string;
  /** A line that is this (after indentation) closes it. */
  end: string;
}

/** Where the block is: from the start of its begin line to the end of its end line (no line break). */
export interface BlockSpan {
  start: number;
  end: number;
}

interface Line {
  start: number;
  /** Past the line's text, before its line break. */
  end: number;
  text: string;
  no: number;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let at = 0;
  for (let no = 1; at <= text.length; no++) {
    const nl = text.indexOf('\n', at);
    const stop = nl === -1 ? text.length : nl;
    const end = stop > at && text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop;
    out.push({ start: at, end, text: text.slice(at, end), no });
    if (nl === -1) break;
    at = nl + 1;
  }
  return out;
}

/**
 * The lines inside fenced code blocks that are closed (CommonMark: a run of three or more
 * backticks or tildes, indented at most three spaces, closed by a run as long of the same
 * character): a file may show the markers as an example. An unclosed fence hides nothing, so a
 * block appended after one is still found on the next run.
 */
function fencedLines(lines: Line[]): Set<number> {
  const hidden = new Set<number>();
  let open: { char: string; len: number; from: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i].text);
    if (open === null) {
      if (m && !(m[1][0] === '`' && m[2].includes('`'))) open = { char: m[1][0], len: m[1].length, from: i };
    } else if (m && m[1][0] === open.char && m[1].length >= open.len && m[2].trim() === '') {
      for (let j = open.from; j <= i; j++) hidden.add(j);
      open = null;
    }
  }
  return hidden;
}

/**
 * The block's span in `text` (a BOM, if any, already set aside), null when there is none. A
 * damaged block — a begin marker without an end, an end without a begin, two of either, or the
 * end first — throws: which part of the file is mem's can then not be told.
 */
export function findMarkedBlock(text: string, markers: BlockMarkers, display: string): BlockSpan | null {
  const lines = linesOf(text);
  const hidden = fencedLines(lines);
  const begins: Line[] = [];
  const ends: Line[] = [];
  lines.forEach((l, i) => {
    if (hidden.has(i)) return;
    const t = l.text.trim();
    // The begin marker is a word of its own: `<!-- mem:beginning -->` is someone else's comment.
    if (t.startsWith(markers.begin) && /^(?:$|\s|-->)/.test(t.slice(markers.begin.length))) begins.push(l);
    else if (t === markers.end) ends.push(l);
  });
  if (begins.length === 0 && ends.length === 0) return null;
  if (begins.length === 1 && ends.length === 1 && begins[0].no < ends[0].no) return { start: begins[0].start, end: ends[0].end };
  const at = (ls: Line[]) => `line${ls.length === 1 ? '' : 's'} ${ls.map((l) => l.no).join(', ')}`;
  const what = begins.length > 1 ? `${begins.length} begin markers (${at(begins)})`
    : ends.length > 1 ? `${ends.length} end markers (${at(ends)})`
      : begins.length === 0 ? `an end marker with no begin marker (${at(ends)})`
        : ends.length === 0 ? `a begin marker with no end marker (${at(begins)})`
          : `the end marker (line ${ends[0].no}) before the begin marker (line ${begins[0].no})`;
  throw new MemError(`${display}: mem's block is damaged: ${what}; nothing was written`, {
    hint: `remove what is left of the block (the lines from "${markers.begin} …" to "${markers.end}") by hand, then run the command again`,
  });
}

/**
 * `current` (a file's whole text, BOM included; null for no file) with `block` (LF line ends, no
 * final one) in place of its marked block, or appended after one blank line when it has none.
 * The block takes the file's line-ending style; nothing outside it changes.
 */
export function withMarkedBlock(current: string | null, block: string, markers: BlockMarkers, display: string): string {
  const text = current ?? '';
  const bom = text.startsWith('\ufeff') ? '\ufeff' : '';
  const body = bom ? text.slice(1) : text;
  const nl = newlineOf(body);
  const span = findMarkedBlock(body, markers, display);
  const mine = withNewline(block, nl);
  if (span) return bom + body.slice(0, span.start) + mine + body.slice(span.end);
  if (body === '') return bom + mine + nl;
  const sep = /\n[ \t]*\r?\n$/.test(body) || body === '\n' || body === '\r\n' ? '' : body.endsWith('\n') ? nl : nl + nl;
  return bom + body + sep + mine + nl;
}
