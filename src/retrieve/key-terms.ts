// A long query reduced to its few key search terms by a language model: a pasted error log or
// a long task says what matters in a handful of names (an error, a command, a file) among
// hundreds of words. Used only when the search service asks (see services/search.ts keyTermsFor).

import type { LlmProvider } from '../llm/provider.js';
import { ProviderError } from '../llm/provider.js';

export const KEY_TERMS_MIN = 5;
export const KEY_TERMS_MAX = 8;
/** Longest term kept from the answer: a search word or an identifier, not a sentence. */
const MAX_TERM_CHARS = 80;
/**
 * Characters of the query the model reads: its opening and its end, half each. A log's cause is
 * usually at one end (the command that ran, the error it ended with); the cost stays bounded.
 */
export const KEY_TERMS_QUERY_CHARS = 16_000;

const SYSTEM = `You choose the keywords for a keyword search over a software project's notes (learnings from earlier work sessions).
The user's request is long: often a pasted log, error output or a long task description.
Answer with the ${KEY_TERMS_MIN} to ${KEY_TERMS_MAX} terms most likely to find the notes that help: distinctive names such as error names and codes, commands, tools, libraries, files, functions, config keys, and the concepts the request is about.
Leave out common words, timestamps, numbers, hashes, paths of temporary files and anything that would match every note.
Each term is a single word or identifier, copied as it is written in the request.`;

const SCHEMA = {
  type: 'object',
  properties: { terms: { type: 'array', items: { type: 'string' }, description: `${KEY_TERMS_MIN} to ${KEY_TERMS_MAX} search terms` } },
  required: ['terms'],
  additionalProperties: false,
} as const;

/** The part of a long query the model reads (see KEY_TERMS_QUERY_CHARS). */
export function queryExcerpt(query: string): string {
  if (query.length <= KEY_TERMS_QUERY_CHARS) return query;
  const half = KEY_TERMS_QUERY_CHARS / 2;
  return `${query.slice(0, half)}\n[…]\n${query.slice(query.length - half)}`;
}

/** The terms of the model's answer: strings, trimmed, distinct, at most KEY_TERMS_MAX; throws when none is left. */
export function keyTermsOf(json: unknown, who: string): string[] {
  const raw = (json as { terms?: unknown } | null)?.terms;
  const out: string[] = [];
  const seen = new Set<string>();
  for (const t of Array.isArray(raw) ? raw : []) {
    if (typeof t !== 'string') continue;
    const term = t.replace(/\s+/g, ' ').trim();
    if (!term || term.length > MAX_TERM_CHARS || seen.has(term.toLowerCase())) continue;
    seen.add(term.toLowerCase());
    out.push(term);
    if (out.length === KEY_TERMS_MAX) break;
  }
  if (out.length === 0) throw new ProviderError(`${who} gave no usable search terms`, 'invalid-answer');
  return out;
}

/**
 * Ask the model for the query's key terms. `query` must already be redacted: it leaves the
 * machine. Failures are ProviderErrors (the caller falls back on the index's rarest terms).
 */
export async function modelKeyTerms(llm: LlmProvider, query: string): Promise<string[]> {
  const res = await llm.complete({ system: SYSTEM, prompt: queryExcerpt(query), schema: SCHEMA, schemaName: 'search_terms', maxTokens: 300 });
  return keyTermsOf(res.json, `${llm.config.name} (${llm.config.model})`);
}
