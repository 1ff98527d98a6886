// Word-level helpers for lifecycle rules: an entry's distinctive words and a light stem, so
// "migrations" in an entry and "migration" in a transcript count as the same word.

import { isStopword } from '../retrieve/stopwords.js';

const WORD = /\p{L}[\p{L}\p{N}]*/gu;

export function lightStem(w: string): string {
  if (w.length > 5 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith('es')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** Words of at least 4 letters that are not stopwords, stemmed and deduplicated. */
export function distinctiveWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (w.length >= 4 && !isStopword(w)) out.add(lightStem(w));
  }
  return out;
}

/** Stemmed word set of a text (any length), for looking distinctive words up in. */
export function wordSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(WORD)) out.add(lightStem(m[0]));
  return out;
}
