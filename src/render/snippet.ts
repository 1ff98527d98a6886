// A short excerpt of a hit's body around the query terms, with the matching words marked.

import { analysedBody } from '../retrieve/search.js';
import { wordRegexes } from '../retrieve/wordchars.js';

function stemPrefix(term: string): string {
  return term.length <= 4 ? term : term.slice(0, Math.max(4, term.length - 3));
}

export interface Snippet {
  text: string;
  /** [start, end) ranges in `text` to highlight. */
  marks: [number, number][];
}

/** The excerpt comes from the opening of the body that ranking read (a huge body is not scanned whole). */
export function snippet(body: string, terms: string[], width = 220): Snippet {
  const text = analysedBody(body).replace(/\s+/g, ' ').trim();
  const prefixes = terms.flatMap((t) => t.toLowerCase().match(wordRegexes(t).word) ?? []).map(stemPrefix);
  const hits: [number, number][] = [];
  for (const m of text.matchAll(wordRegexes(text).word)) {
    const w = m[0].toLowerCase();
    if (prefixes.some((p) => w.startsWith(p))) hits.push([m.index!, m.index! + m[0].length]);
  }
  let start = 0;
  if (text.length > width && hits.length > 0) {
    // The window that covers the most matches.
    let best = 0;
    let bestCount = -1;
    for (let i = 0, j = 0; i < hits.length; i++) {
      while (j < hits.length && hits[j][1] - hits[i][0] <= width) j++;
      if (j - i > bestCount) {
        bestCount = j - i;
        best = hits[i][0];
      }
    }
    start = Math.max(0, Math.min(best - 40, text.length - width));
    const space = text.lastIndexOf(' ', start);
    if (start > 0 && space > start - 20) start = space + 1;
  }
  const end = Math.min(text.length, start + width);
  let out = text.slice(start, end);
  let shift = start;
  if (start > 0) {
    out = `…${out}`;
    shift -= 1;
  }
  if (end < text.length) out = `${out}…`;
  const marks = hits.filter(([s, e]) => s >= start && e <= end).map(([s, e]) => [s - shift, e - shift] as [number, number]);
  return { text: out, marks };
}

export function renderSnippet(s: Snippet, mark: (t: string) => string): string {
  let out = '';
  let pos = 0;
  for (const [a, b] of s.marks) {
    out += s.text.slice(pos, a) + mark(s.text.slice(a, b));
    pos = b;
  }
  return out + s.text.slice(pos);
}
