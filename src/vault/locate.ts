// Finding an entry's header in a memory file's bytes by its id, for work on one part of a big
// file (its end, one entry) without parsing the rest: candidates only, each to be checked by a
// parse of the text from there against what the index holds.

import { looksLikeCommentHeader } from './format.js';

const RULE_LINE = /^---[ \t]*\r?$/;
/** A header is at most this many lines (as in format.ts). */
const MAX_HEADER_LINES = 200;

/**
 * Where the header of the line at `at` (inside its id) opens: that line itself for a comment-form
 * header, else the `---` line found walking back line by line, at most a header's length. -1 (or
 * 0) when there is none, or it is the file's first line (a file that starts with its first entry:
 * the caller parses from the start instead).
 */
function ruleBefore(buf: Buffer, at: number): number {
  let start = buf.lastIndexOf(10, at) + 1;
  // A comment-form header is its own one line.
  if (buf[start] === 60 /* < */) {
    const end = buf.indexOf(10, start);
    if (looksLikeCommentHeader(buf.toString('utf8', start, end === -1 ? buf.length : end))) return start;
  }
  for (let k = 0; k < MAX_HEADER_LINES && start > 0; k++) {
    const end = buf.indexOf(10, start);
    if (RULE_LINE.test(buf.toString('latin1', start, end === -1 ? buf.length : end))) return start;
    start = buf.lastIndexOf(10, start - 2) + 1;
  }
  return -1;
}

/**
 * Byte offsets where the header holding `id` may open, nearest to `to` first, searching the bytes
 * before `to` (at most `tries` occurrences of the id).
 */
export function headerStartsBefore(buf: Buffer, id: string, to: number, tries = 3): number[] {
  const needle = Buffer.from(id, 'utf8');
  const out: number[] = [];
  for (let at = buf.lastIndexOf(needle, to - needle.length); at > 0 && out.length < tries; at = buf.lastIndexOf(needle, at - 1)) {
    const start = ruleBefore(buf, at);
    if (start > 0 && !out.includes(start)) out.push(start);
  }
  return out;
}

/** The same, searching forward from `from`. */
export function headerStartsAfter(buf: Buffer, id: string, from: number, tries = 3): number[] {
  const needle = Buffer.from(id, 'utf8');
  const out: number[] = [];
  for (let at = buf.indexOf(needle, from); at !== -1 && out.length < tries; at = buf.indexOf(needle, at + 1)) {
    const start = ruleBefore(buf, at);
    if (start >= from && start > 0 && !out.includes(start)) out.push(start);
  }
  return out;
}
