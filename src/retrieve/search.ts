// The retrieval pipeline shared by `mem search` and `mem context` (design §6): query terms →
// BM25 candidates (filters in SQL) → normalised relevance → ranking policy → MMR + budget.

import type { Db } from '../index/db.js';
import { ftsCandidates, type CandidateRow, type EntryFilter } from '../index/queries.js';
import { MemError, EXIT_USAGE } from '../errors.js';
import { selectMmr } from './mmr.js';
import { POLICIES, type ScoreParts } from './policy.js';
import { queryTerms } from './terms.js';

export interface SearchRequest {
  query: string;
  limit: number;
  candidates: number;
  filter: EntryFilter;
  rank: string;
  maxChars?: number;
  now: number;
  scopeMultipliers: Record<string, number>;
}

export interface Components {
  bm25: number;
  vector: number | null;
  relevance: number;
  importance: number;
  decay: number;
  reinforcement: number;
  scope_multiplier: number;
  retrievability: number | null;
  prominence: number;
  mmr: number;
}

export interface RankedHit {
  id: string;
  path: string;
  line: number;
  scope: string;
  learning_type: string;
  type: string;
  domain: string;
  phase: string;
  status: string;
  importance: number;
  reinforcement_count: number;
  /** Position of the entry in its file (for diversity between neighbours). */
  ordinal: number;
  title: string;
  body: string;
  score: number;
  components: Components;
}

export interface SearchResult {
  query: string;
  terms: string[];
  results: RankedHit[];
  truncated: boolean;
  onlyStopwords: boolean;
}

/** Characters a hit takes from a `--max-chars` budget: its title and body. */
export function hitChars(h: { title: string; body: string }): number {
  return h.title.length + 1 + h.body.length;
}

export function policyFor(name: string) {
  const policy = POLICIES[name];
  if (!policy) {
    throw new MemError(`unknown ranking policy "${name}"`, { exitCode: EXIT_USAGE, hint: `use one of: ${Object.keys(POLICIES).join(', ')}` });
  }
  return policy;
}

function toHit(c: CandidateRow, s: ScoreParts, bm25: number): RankedHit {
  return {
    id: c.entry_id, path: c.path, line: c.line, scope: c.scope, learning_type: c.learning_type, type: c.type, domain: c.domain,
    phase: c.phase, status: c.status, importance: c.importance, reinforcement_count: c.reinforcement_count, ordinal: c.ordinal,
    title: c.title, body: c.body, score: s.score,
    components: {
      bm25, vector: null, relevance: s.relevance, importance: s.importance, decay: s.decay, reinforcement: s.reinforcement,
      scope_multiplier: s.scope_multiplier, retrievability: s.retrievability, prominence: s.prominence, mmr: 0,
    },
  };
}

/** Candidates below this share of the best BM25 score are noise (terms in nearly every entry). */
export const MIN_RELEVANCE = 0.01;
/** Relevance kept by an entry that matches only through its neighbours' text (measured on LoCoMo dev). */
export const CONTEXT_ONLY_FACTOR = 0.6;

export function runSearch(db: Db, req: SearchRequest): SearchResult {
  const policy = policyFor(req.rank);
  const qt = queryTerms(req.query);
  const base = { query: req.query, terms: qt.terms, truncated: qt.truncated, onlyStopwords: qt.onlyStopwords };
  if (!qt.match) return { ...base, results: [] };
  const rows = ftsCandidates(db, qt.match, req.filter, req.candidates);
  if (rows.length === 0) return { ...base, results: [] };
  const best = Math.min(...rows.map((r) => r.bm25));
  const ctx = { now: req.now, scopeMultipliers: req.scopeMultipliers };
  const live = rows.filter((r) => r.status !== 'retired' && (best < 0 ? r.bm25 / best : 1) >= MIN_RELEVANCE);
  // Entries that match only through their neighbours' text count for less than direct hits.
  const scored = live.map((r) => {
    const base = best < 0 ? r.bm25 / best : 1;
    const relevance = r.own ? base : base * CONTEXT_ONLY_FACTOR;
    return toHit(r, policy.score({ ...r, relevance }, ctx), -r.bm25);
  });
  scored.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.line - b.line);
  const picks = selectMmr(scored.map((h) => ({ score: h.score, body: h.body, size: hitChars(h) })), req.limit, req.maxChars);
  const results = picks.map((p) => {
    const h = scored[p.index];
    h.components.mmr = p.mmr;
    return h;
  });
  return { ...base, results };
}
