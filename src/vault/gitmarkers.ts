// Git conflict markers in a memory file (a merge without mem's driver): finding the marker lines,
// and the two versions the conflict holds — ours (before `=======`) and theirs (after it) — each
// with the map back to the lines of the file, so both can be read as ordinary memory files.

import { lineStarts } from './lines.js';

/**
 * `<` opens a hunk (`<<<<<<< HEAD`), `|` starts the base section of the diff3 and zdiff3 styles
 * (`||||||| base`), `=` starts theirs (`=======`), `>` closes the hunk (`>>>>>>> branch`).
 */
export type MarkerKind = '<' | '|' | '=' | '>';

export interface ConflictMarker {
  kind: MarkerKind;
  /** 1-based line in the file. */
  line: number;
}

const SIZE = 7;

/**
 * Whether a file may hold conflict markers: every hunk git writes has an opening or a closing
 * line, so text with neither needs no further look (the common case costs two native searches).
 */
export function mayHaveMarkers(text: string): boolean {
  return text.includes('<<<<<<<') || text.includes('>>>>>>>');
}

/**
 * The marker kind of the line at `s`, as git writes it: exactly seven of one character at the
 * start of the line, then for `<`, `|` and `>` a space (and a label) or the end of the line, for
 * `=` the end of the line. Eight `<` or a `<<<<<<<` inside a sentence is text.
 */
function markerAt(text: string, s: number): MarkerKind | null {
  const c = text[s];
  if (c !== '<' && c !== '>' && c !== '|' && c !== '=') return null;
  for (let k = 1; k < SIZE; k++) if (text[s + k] !== c) return null;
  const after = text.charCodeAt(s + SIZE);
  const eol = Number.isNaN(after) || after === 10 || (after === 13 && (s + SIZE + 1 === text.length || text.charCodeAt(s + SIZE + 1) === 10));
  if (eol) return c;
  if (c === '=') return null;
  return after === 32 || after === 9 ? c : null;
}

/**
 * The conflict marker lines of a file, in order; [] when there are none. `<<<<<<<` and
 * `>>>>>>>` lines always count. A `=======` or `|||||||` line counts only inside a hunk (after an
 * opening line, or before a closing one with no opening line between): alone, `=======` is a
 * markdown heading underline.
 */
export function findConflictMarkers(text: string, starts?: number[]): ConflictMarker[] {
  if (!mayHaveMarkers(text)) return [];
  const ls = starts ?? lineStarts(text);
  const found: ConflictMarker[] = [];
  for (let i = 0; i < ls.length; i++) {
    const kind = markerAt(text, ls[i]);
    if (kind) found.push({ kind, line: i + 1 });
  }
  const edges = found.filter((m) => m.kind === '<' || m.kind === '>');
  if (edges.length === 0) return [];
  const kept: ConflictMarker[] = [];
  let e = 0;
  for (const m of found) {
    if (m.kind === '<' || m.kind === '>') {
      kept.push(m);
      e++;
      continue;
    }
    const before = edges[e - 1];
    const after = edges[e];
    if (before?.kind === '<' || after?.kind === '>') kept.push(m);
  }
  return kept;
}

/** One version of a conflicted file: its text and, per line of it, the line of the file it is. */
export interface Side {
  text: string;
  /** 0-based line of the file for each 0-based line of `text`. */
  fileLine: number[];
}

/**
 * Ours and theirs of a conflicted file: the lines outside hunks go to both, a hunk's first
 * section to ours, the section after `=======` to theirs; a diff3 base section and the marker
 * lines themselves go to neither. A hunk left open runs to the end of the file; a closing line
 * with no opening one only ends what came before it.
 */
export function conflictSides(text: string, starts: number[], markers: ConflictMarker[]): { ours: Side; theirs: Side } {
  const ours: Side = { text: '', fileLine: [] };
  const theirs: Side = { text: '', fileLine: [] };
  const oursParts: string[] = [];
  const theirsParts: string[] = [];
  let state: 'both' | 'ours' | 'base' | 'theirs' = 'both';
  let m = 0;
  for (let i = 0; i < starts.length; i++) {
    if (m < markers.length && markers[m].line === i + 1) {
      const k = markers[m++].kind;
      state = k === '<' ? 'ours' : k === '|' ? 'base' : k === '=' ? 'theirs' : 'both';
      continue;
    }
    const line = text.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : text.length);
    if (state === 'both' || state === 'ours') {
      oursParts.push(line);
      ours.fileLine.push(i);
    }
    if (state === 'both' || state === 'theirs') {
      theirsParts.push(line);
      theirs.fileLine.push(i);
    }
  }
  ours.text = oursParts.join('');
  theirs.text = theirsParts.join('');
  return { ours, theirs };
}

/** The first marker as the one-line place a message names: `file:line`. */
export function firstMarkerLine(text: string): number | null {
  const m = findConflictMarkers(text);
  return m.length > 0 ? m[0].line : null;
}
