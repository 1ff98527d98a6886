// Offline query terms: lowercase, drop stopwords, keep identifiers and paths whole; every term
// quoted for FTS5 and OR-joined, so no user punctuation can raise.

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
  /** True when every word of a non-empty query was a stopword. */
  onlyStopwords: boolean;
}

export const MAX_TERMS = 64;

/** Split text into lowercase word tokens (the same notion of "word" MMR and snippets use). */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  return lower.match(wordRegexes(lower).word) ?? [];
}

export function queryTerms(query: string, maxTerms = MAX_TERMS): QueryTerms {
  const terms: string[] = [];
  const seen = new Set<string>();
  let sawWord = false;
  let truncated = false;
  const add = (t: string) => {
    if (seen.has(t)) return;
    if (terms.length >= maxTerms) {
      truncated = true;
      return;
    }
    seen.add(t);
    terms.push(t);
  };
  for (const raw of query.split(/\s+/)) {
    if (truncated) break;
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
  return { terms, forms, match, truncated, onlyStopwords: sawWord && terms.length === 0 };
}

/** Quote one term as an FTS5 string (a phrase of its tokens). */
export function ftsQuote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}
