// Offline query terms: lowercase, drop stopwords, keep identifiers and paths whole; every term
// quoted for FTS5 and OR-joined, so no user punctuation can raise. A query with more terms than
// the cap keeps its most telling ones (rarest in the index), wherever they stand in it.

import { otherForms } from './irregular.js';
import { isStopword } from './stopwords.js';
import { wordRegexes } from './wordchars.js';

export interface QueryTerms {
  /** Terms in query order, deduplicated; identifiers keep their punctuation. */
  terms: string[];
  /** Other forms of a term that the stemmer cannot join to it (won for win), by term. */
  forms: Map<string, readonly string[]>;
  /** The FTS5 MATCH expression (terms and their other forms), or null when no term is left. */
  match: string | null;
  /** True when the query had more distinct terms than `maxTerms` and was cut. */
  truncated: boolean;
  /** How the terms of a cut query were chosen: the rarest in the index, or the first (no index to ask). */
  chosen?: 'rarest' | 'first';
  /** True when every word of a non-empty query was a stopword. */
  onlyStopwords: boolean;
}

export const MAX_TERMS = 64;

/**
 * Distinct terms a long query is read for before the cap picks among them: a pasted log of a few
 * thousand characters has a few hundred; past this many, the rest are not looked up (each costs
 * one capped count in the index, ~40 µs at 100k entries).
 */
export const MAX_SCANNED_TERMS = 1024;

/** How many entries of the index hold each term (0: none, so the term cannot match anything). */
export type DocFrequency = (terms: string[]) => number[];

/** Split text into lowercase word tokens (the same notion of "word" MMR and snippets use). */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  return lower.match(wordRegexes(lower).word) ?? [];
}

/**
 * The query's terms. With more than `maxTerms` distinct ones, `docFrequency` (the index's counts)
 * keeps the `maxTerms` rarest that the index holds at all — the words that tell entries apart,
 * like an error's name at the end of a pasted log — in query order; without it, the first ones.
 */
export function queryTerms(query: string, maxTerms = MAX_TERMS, docFrequency?: DocFrequency): QueryTerms {
  let terms: string[] = [];
  const seen = new Set<string>();
  let sawWord = false;
  let scanFull = false;
  const scanLimit = docFrequency ? Math.max(maxTerms, MAX_SCANNED_TERMS) : maxTerms;
  const add = (t: string) => {
    if (seen.has(t)) return;
    if (terms.length >= scanLimit) {
      scanFull = true;
      return;
    }
    seen.add(t);
    terms.push(t);
  };
  for (const raw of query.split(/\s+/)) {
    if (scanFull) break;
    const rx = wordRegexes(raw);
    // A token with inner punctuation that joins word parts (a path, a dotted name) stays whole.
    const token = raw.replace(rx.edges, '').toLowerCase().replace(/\u2019/g, "'");
    if (!token) continue;
    // A contraction that is a stopword as a whole ("won't", "they'd") is dropped whole, not split.
    if (token.includes("'") && isStopword(token)) {
      sawWord = true;
      continue;
    }
    if (rx.ident.test(token)) {
      sawWord = true;
      add(token);
      continue;
    }
    for (const w of token.match(rx.word) ?? []) {
      sawWord = true;
      if (isStopword(w) || (w.length < 2 && !rx.digit.test(w))) continue;
      add(w);
    }
  }
  const onlyStopwords = sawWord && terms.length === 0;
  const truncated = scanFull || terms.length > maxTerms;
  let chosen: QueryTerms['chosen'];
  if (truncated) {
    chosen = docFrequency ? 'rarest' : 'first';
    terms = docFrequency ? rarest(terms, docFrequency(terms), maxTerms) : terms.slice(0, maxTerms);
    seen.clear();
    for (const t of terms) seen.add(t);
  }
  const forms = new Map<string, readonly string[]>();
  const alternatives: string[] = [];
  for (const t of terms) {
    const other = otherForms(t).filter((f) => !seen.has(f) && !isStopword(f));
    if (other.length === 0) continue;
    forms.set(t, other);
    for (const f of other) {
      seen.add(f);
      alternatives.push(f);
    }
  }
  const match = terms.length === 0 ? null : [...terms, ...alternatives].map(ftsQuote).join(' OR ');
  return { terms, forms, match, truncated, ...(chosen ? { chosen } : {}), onlyStopwords };
}

/**
 * The `max` terms found in the fewest entries, leaving out those in none, in their query order
 * (ties: the earlier term). Inverse document frequency is what BM25 weighs a term by, so these
 * are the terms that would decide the ranking anyway; the common ones only add candidates.
 */
export function rarest(terms: string[], docCounts: number[], max: number): string[] {
  const keep = terms.map((_, i) => i).filter((i) => docCounts[i] > 0).sort((a, b) => docCounts[a] - docCounts[b] || a - b).slice(0, max);
  return keep.sort((a, b) => a - b).map((i) => terms[i]);
}

/** Quote one term as an FTS5 string (a phrase of its tokens). */
export function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}
