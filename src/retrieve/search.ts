// The retrieval pipeline shared by `mem search` and `mem context`: query terms → BM25 candidates
// (filters in SQL) → normalised relevance → ranking policy → MMR + budget.

import type { Db } from '../index/db.js';
import { docCountsUpTo, entryCountBelow, ftsCandidates, phraseBm25, type CandidateRow, type EntryFilter } from '../index/queries.js';
import { MemError, EXIT_USAGE } from '../errors.js';
import { mmrScore, selectMmr } from './mmr.js';
import { POLICIES, type ScoreParts } from './policy.js';
import { ftsQuote, MAX_TERMS, queryTerms, type DocFrequency } from './terms.js';
import { inRanges, queryDates } from './dates.js';
import { asciiWords, wordRegexes } from './wordchars.js';
import { episodeMark, type EpisodeMark } from '../episodes/detail.js';

export interface SearchRequest {
  query: string;
  /**
   * The words to search for, when not the query's own: a long query reduced to its key terms by
   * a model (src/retrieve/key-terms.ts). Dates are still read from the query.
   */
  terms?: string;
  limit: number;
  candidates: number;
  filter: EntryFilter;
  rank: string;
  maxChars?: number;
  now: number;
  scopeMultipliers: Record<string, number>;
  /** Hybrid retrieval (src/retrieve/hybrid.ts), when embeddings are configured and reachable. */
  hybrid?: HybridHook;
}

/** What hybrid retrieval adds to a hit's components (`--explain`); absent on the lexical path. */
export interface HybridParts {
  /** Cosine of the query and entry vectors, when the entry is among the vector candidates. */
  vector: number | null;
  vector_rank: number | null;
  bm25_rank: number | null;
  fused: number;
}

export interface HybridHook {
  /** The BM25 candidates (with their relevance) fused with vector candidates: the pool to rank. */
  fuse(db: Db, filter: EntryFilter, n: number, lexical: CandidateRow[], relevance: number[]): { rows: CandidateRow[]; relevance: number[]; parts: HybridParts[] };
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
  vector_rank?: number | null;
  bm25_rank?: number | null;
  fused?: number;
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
  /** The ranking policy's score: relevance × the entry's weight (see policy.ts). */
  score: number;
  /**
   * The score after diversity (MMR): `score` less a penalty for being like a result ranked above,
   * in the same units; results come in its order. Absent where no diversity step ran.
   */
  final_score?: number;
  /** The 1-based rank of the result above that this one is most like (whose likeness lowered its final score). */
  like_rank?: number;
  components: Components;
  /** Episodes only (`kind: episode`): their surprise and key-moment flag, for the outputs' mark. */
  episode?: EpisodeMark;
  /** Episodes only: their messages, when a command fetched them (src/episodes/local.ts withMessages). */
  messages?: string;
}

export interface SearchResult {
  query: string;
  terms: string[];
  results: RankedHit[];
  /** Candidates that matched well enough but are not in `results` (past the limit or over the budget). */
  omitted: number;
  truncated: boolean;
  /** How the terms of a cut query were chosen (see queryTerms); absent when it was not cut. */
  chosen?: 'rarest' | 'first';
  onlyStopwords: boolean;
}

/**
 * Counting how many entries hold a word stops here: past it a word is common whatever its exact
 * count, and the count's cost stays bounded.
 */
export const DOC_COUNT_CAP = 1000;

/** The index's document frequencies, for queryTerms to keep a long query's rarest terms. */
export function indexDocFrequency(db: Db): DocFrequency {
  return (terms) => docCountsUpTo(db, terms.map(ftsQuote), DOC_COUNT_CAP);
}

/** Plain string order (code units), for deterministic ties. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The part of an entry's text that ranking reads (coverage, diversity, the hooks' relevance
 * gate): its title and the opening of its body. Learnings are a few hundred characters; a pasted
 * 25 MB log in one entry cost seconds of word matching on every search it was a candidate of.
 */
export const ANALYSED_CHARS = 32 * 1024;

/** The opening of a body that ranking reads (ANALYSED_CHARS, never half a surrogate pair). */
export function analysedBody(body: string): string {
  if (body.length <= ANALYSED_CHARS) return body;
  const code = body.charCodeAt(ANALYSED_CHARS - 1);
  return body.slice(0, code >= 0xd800 && code <= 0xdbff ? ANALYSED_CHARS - 1 : ANALYSED_CHARS);
}

/** An entry's title and the opening of its body, as ranking reads them. */
export function analysedText(h: { title: string; body: string }): string {
  return `${h.title}\n${analysedBody(h.body)}`;
}

/**
 * The text diversity compares: the title and the analysed body. A title made from the body's
 * first line (an entry without a heading) is in the body already, and cut short (`…`) it would
 * add half a word: then the body alone.
 */
export function diversityText(h: { title: string; body: string }): string {
  const body = analysedBody(h.body);
  const title = h.title.endsWith('…') ? h.title.slice(0, -1) : h.title;
  return body.includes(title) ? body : `${h.title}\n${body}`;
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
    ...(c.kind === 'episode' ? { episode: episodeMark(c.metadata_json) } : {}),
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

/** Relevance factor (1 + DATE_BOOST) for an entry created on a day or in a month the query names. */
export const DATE_BOOST = 2;
const DATE_CANDIDATES = 4;

/**
 * Weight of query-term coverage: relevance × (1 + COVERAGE_WEIGHT × the share of the query's terms
 * the entry itself contains). BM25 barely counts a term found in most entries — a person's name in
 * a conversation, the project's name in its notes — yet an entry that has every word of the
 * question is the likelier answer (Lucene's old "coord" factor). Measured on LoCoMo dev: R@10
 * +0.3 to +0.6 for weights 0.25 to 3, R@5 +1 to +2.
 */
export const COVERAGE_WEIGHT = 1;

/** A light, symmetric suffix stripper for coverage (the index itself uses Porter stems). */
export function lightStem(w: string): string {
  if (w.length <= 4) return w;
  let s = w;
  if (s.endsWith('ies')) s = `${s.slice(0, -3)}y`;
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (s.endsWith('s') && !s.endsWith('ss') && !s.endsWith('us')) s = s.slice(0, -1);
  const cut = s.endsWith('ing') ? 3 : s.endsWith('ed') || s.endsWith('ly') ? 2 : 0;
  if (cut > 0 && s.length - cut >= 3) s = s.slice(0, -cut);
  return s;
}

/**
 * Which of `terms` an entry's own text contains: an identifier term as a substring, a word in any
 * of its forms (search's coverage, and the per-prompt relevance gate of the agent hooks).
 */
export function termsIn(terms: string[], forms: ReadonlyMap<string, readonly string[]> = new Map()): (text: string) => Set<string> {
  const isWord = (t: string) => wordRegexes(t).only.test(t);
  const idents = terms.filter((t) => !isWord(t));
  // Every form of a word stands for the word.
  const wanted = new Map<string, string>();
  for (const w of terms.filter(isWord)) for (const f of [w, ...(forms.get(w) ?? [])]) if (!wanted.has(lightStem(f))) wanted.set(lightStem(f), w);
  // A word whose light stem is S begins with S, or with S less its final "y" (lightStem cuts a
  // word's ending, or turns its "ies" into "y"): in ASCII text, only the words around those
  // beginnings need stemming, not every word of the entry (candidates are often whole pages).
  const beginnings = [...new Set([...wanted.keys()].map((s) => (s.endsWith('y') ? s.slice(0, -1) : s)))];
  const scan = beginnings.every((b) => /^[a-z0-9]+$/.test(b)) ? beginnings : null;
  return (text) => {
    const lower = text.toLowerCase();
    const own = new Set<string>();
    const rx = wordRegexes(lower);
    if (scan && asciiWords(rx)) {
      for (const b of scan) {
        for (let at = lower.indexOf(b); at >= 0; ) {
          let start = at;
          while (start > 0 && isAsciiWordCode(lower.charCodeAt(start - 1))) start--;
          let end = at + b.length;
          while (end < lower.length && isAsciiWordCode(lower.charCodeAt(end))) end++;
          const term = wanted.get(lightStem(lower.slice(start, end)));
          if (term !== undefined) own.add(term);
          at = lower.indexOf(b, end);
        }
      }
    } else {
      for (const w of lower.match(rx.word) ?? []) {
        const term = wanted.get(lightStem(w));
        if (term !== undefined) own.add(term);
      }
    }
    for (const t of idents) if (lower.includes(t)) own.add(t);
    return own;
  };
}

/** A code unit of [A-Za-z0-9] (the ASCII word characters). */
function isAsciiWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

/** The share of `terms` an entry's own text contains (see termsIn). */
export function coverageOf(terms: string[], forms: ReadonlyMap<string, readonly string[]> = new Map()): (text: string) => number {
  if (terms.length < 2) return () => 0;
  const matched = termsIn(terms, forms);
  return (text) => matched(text).size / terms.length;
}

/** Weight of the file prior: how much a file full of good matches lifts each of them. */
export const FILE_PRIOR = 1.0;
const FILE_PRIOR_TOP = 3;

/**
 * Relevance with a file prior: BM25 scaled to the best candidate, times
 * (1 + FILE_PRIOR · s_file / s_best_file) where s_file sums the file's three best scaled scores,
 * then scaled again so the best candidate is 1. A file is a unit of topic (a session of a
 * conversation, a notes file, a job's learnings): an entry among several good matches in its file
 * is more likely the one sought than an equal match alone in an unrelated file.
 */
export function filePrior(rows: CandidateRow[], best: number): Map<number, number> {
  const scaled = (r: CandidateRow) => (best < 0 ? r.bm25 / best : 1);
  const perFile = new Map<string, number[]>();
  for (const r of rows) {
    const list = perFile.get(r.path);
    if (list) list.push(scaled(r));
    else perFile.set(r.path, [scaled(r)]);
  }
  const fileScore = new Map<string, number>();
  for (const [path, list] of perFile) fileScore.set(path, list.sort((a, b) => b - a).slice(0, FILE_PRIOR_TOP).reduce((a, b) => a + b, 0));
  const top = Math.max(...fileScore.values()) || 1;
  const raw = rows.map((r) => scaled(r) * (1 + (FILE_PRIOR * fileScore.get(r.path)!) / top));
  const max = Math.max(...raw) || 1;
  return new Map(rows.map((r, i) => [r.rowid, raw[i] / max]));
}

/** Vaults with fewer entries than this give every query word a least weight (idfFloor). */
export const SMALL_VAULT = 200;

/**
 * FTS5's IDF of a phrase found in `n` of `N` entries, ln((N − n + 0.5) / (n + 0.5)), or 1e-6 where
 * that is not positive (SQLite's ext/fts5/fts5_aux.c): a phrase's share of bm25() is this times a
 * factor of the phrase's own frequency in the entry.
 */
export function ftsIdf(N: number, n: number): number {
  const idf = Math.log((N - n + 0.5) / (n + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/**
 * The least IDF a query word weighs in a vault of `N` entries: half the IDF of a word found in
 * one entry, fading linearly to none at SMALL_VAULT entries. BM25 gives a word in half the entries
 * or more next to no weight: right in a big vault, where such a word says nothing, but in a vault
 * of a dozen learnings a word in half of them is often its topic ("deploy" in a project's deploy
 * notes), and an entry holding only that word fell under the noise cut even when it was the one
 * sought. Above SMALL_VAULT entries nothing changes.
 */
export function idfFloor(N: number): number {
  if (N >= SMALL_VAULT || N < 2) return 0;
  return 0.5 * Math.max(0, Math.log((N - 0.5) / 1.5)) * (1 - N / SMALL_VAULT);
}

/**
 * Candidates' BM25 with every phrase of the query weighing at least idfFloor(N): a phrase FTS5
 * weighed less adds the difference, from its own BM25 (its share scales with its IDF). Re-sorted.
 */
export function withIdfFloor(db: Db, rows: CandidateRow[], phrases: string[], N: number): CandidateRow[] {
  const floor = idfFloor(N);
  if (floor <= 0 || rows.length === 0) return rows;
  const counts = docCountsUpTo(db, phrases.map(ftsQuote), N + 1);
  const extra = new Map<number, number>();
  phrases.forEach((p, i) => {
    const idf = ftsIdf(N, counts[i]);
    if (counts[i] === 0 || idf >= floor) return;
    for (const [rowid, s] of phraseBm25(db, ftsQuote(p))) extra.set(rowid, (extra.get(rowid) ?? 0) + (floor / idf - 1) * s);
  });
  if (extra.size === 0) return rows;
  return rows.map((r) => ({ ...r, bm25: r.bm25 + (extra.get(r.rowid) ?? 0) })).sort((a, b) => a.bm25 - b.bm25 || a.rowid - b.rowid);
}

export function runSearch(db: Db, req: SearchRequest): SearchResult {
  const policy = policyFor(req.rank);
  const qt = queryTerms(req.terms ?? req.query, MAX_TERMS, indexDocFrequency(db));
  const dates = queryDates(req.query);
  const base = { query: req.query, terms: qt.terms, truncated: qt.truncated, ...(qt.chosen ? { chosen: qt.chosen } : {}), onlyStopwords: qt.onlyStopwords };
  // Hybrid search also answers a query none of whose words is indexed (the vectors may match).
  const hybrid = qt.onlyStopwords ? undefined : req.hybrid;
  if (!qt.match && !hybrid) return { ...base, results: [], omitted: 0 };
  // A dated question looks deeper: the entries of that day may match its words only weakly.
  const n = dates.length > 0 ? req.candidates * DATE_CANDIDATES : req.candidates;
  // A small vault: every match is a candidate until the words' least weight is applied.
  const small = qt.match ? entryCountBelow(db, SMALL_VAULT) : null;
  let rows = qt.match ? ftsCandidates(db, qt.match, req.filter, small === null ? n : Math.max(n, small)) : [];
  if (small !== null) rows = withIdfFloor(db, rows, [...qt.terms, ...[...qt.forms.values()].flat()], small).slice(0, n);
  if (rows.length === 0 && !hybrid) return { ...base, results: [], omitted: 0 };
  const best = Math.min(...rows.map((r) => r.bm25));
  const ctx = { now: req.now, scopeMultipliers: req.scopeMultipliers };
  const live = rows.filter((r) => r.status !== 'retired' && (best < 0 ? r.bm25 / best : 1) >= MIN_RELEVANCE);
  // Entries that match only through their neighbours' text count for less than direct hits.
  const prior = filePrior(live, best);
  const coverage = coverageOf(qt.terms, qt.forms);
  const covered = live.map((r) => prior.get(r.rowid)! * (1 + COVERAGE_WEIGHT * coverage(analysedText(r))));
  const top = Math.max(...covered) || 1;
  const lexical = live.map((r, i) => {
    const base = covered[i] / top;
    return (r.own ? base : base * CONTEXT_ONLY_FACTOR) * (inRanges(r.created_at, dates) ? 1 + DATE_BOOST : 1);
  });
  const fused = hybrid?.fuse(db, req.filter, req.candidates, live, lexical);
  const pool = fused?.rows ?? live;
  const scored = pool.map((r, i) => {
    const h = toHit(r, policy.score({ ...r, relevance: fused ? fused.relevance[i] : lexical[i] }, ctx), -r.bm25);
    if (fused) Object.assign(h.components, fused.parts[i]);
    return h;
  });
  // Ties by path in code-unit order: localeCompare would load ICU's collator (~10 ms) for nothing.
  scored.sort((a, b) => b.score - a.score || byCodeUnit(a.path, b.path) || a.line - b.line);
  const picks = selectMmr(scored.map((h) => ({ score: h.score, text: diversityText(h), size: hitChars(h) })), req.limit, req.maxChars);
  const topScore = Math.max(0, ...scored.map((h) => h.score));
  const results = picks.map((p) => {
    const h = scored[p.index];
    h.components.mmr = p.mmr;
    h.final_score = mmrScore(p.mmr, topScore);
    if (p.like !== null) h.like_rank = p.like + 1;
    return h;
  });
  return { ...base, results, omitted: scored.length - results.length };
}
