// What agent hooks inject: at session start without a task, the project's most prominent learnings;
// on each prompt, only the few learnings that clearly bear on it, and none at all when nothing does
// (the relevance gate below).

import type { Db } from '../index/db.js';
import { countEntries } from '../index/indexer.js';
import { countMatching, entriesByRowid, entryChars, ownDocCounts, rankFieldsByPotential, type EntryFilter, type EntryRow, type RankFieldsRow } from '../index/queries.js';
import { POLICIES } from './policy.js';
import { analysedText, byCodeUnit, hitChars, indexDocFrequency, runSearch, termsIn, type RankedHit } from './search.js';
import { ftsQuote, MAX_TERMS, queryTerms } from './terms.js';

/** A prompt shorter than this (trimmed) is a reply ("ok", "yes, go on"), not a task. */
export const MIN_PROMPT_CHARS = 12;
/** A prompt with fewer distinct content terms than this cannot tell what is relevant. */
export const MIN_PROMPT_TERMS = 2;

/**
 * Distinct query terms an entry's own title and body must contain to count as bearing on a
 * prompt: at least 2 (one shared word is chance: "test", "deploy"), a quarter of the prompt's
 * terms for longer prompts, but never more than 4 (a long prompt names many things; a learning
 * about one of them is still relevant).
 */
export function requiredMatches(termCount: number): number {
  return Math.max(2, Math.min(4, Math.ceil(termCount * 0.25)));
}

/**
 * Most entries that may share the matched terms by chance for the match to count: with each
 * term in df/N of the vault's entries, N × Π(df/N) entries would hold them all if words fell
 * independently. Two words found in 3% of entries each ("update", "version") meet in ~9 of 10k
 * entries by chance: no sign. Five topic words meeting in one entry are. A small vault (N ≤ 3)
 * always passes: chance co-occurrence needs many entries.
 */
export const CHANCE_MAX = 3;

export function chanceCount(docCounts: number[], total: number): number {
  if (total <= 0) return 0;
  return docCounts.reduce((acc, df) => acc * Math.min(1, Math.max(0, df) / total), total);
}

/**
 * The gate itself: an entry bears on a prompt when its own text holds requiredMatches() of the
 * prompt's terms and those terms are unlikely to meet in that many entries by chance
 * (chanceCount ≤ CHANCE_MAX). `docCounts`: entries holding each term; `total`: entries in all.
 */
export function bearsOn(matched: ReadonlySet<string>, termCount: number, docCounts: ReadonlyMap<string, number>, total: number): boolean {
  if (matched.size < requiredMatches(termCount)) return false;
  return chanceCount([...matched].map((t) => docCounts.get(t) ?? total), total) <= CHANCE_MAX;
}

/** Why a prompt gets no search at all, or null when it is worth searching. */
export function promptSkipReason(prompt: string): string | null {
  const p = prompt.trim();
  if (p.length < MIN_PROMPT_CHARS) return 'prompt too short';
  // A slash command is an instruction to the agent's own interface, not a task.
  if (/^\/[A-Za-z]/.test(p)) return 'slash command';
  const terms = queryTerms(p).terms;
  if (terms.length < MIN_PROMPT_TERMS) return 'fewer than 2 content terms';
  return null;
}

export interface PromptRequest {
  prompt: string;
  filter: EntryFilter;
  rank: string;
  now: number;
  scopeMultipliers: Record<string, number>;
  /** At most this many learnings (default 3). */
  limit: number;
  /** Budget in characters (title + body) for them all (default 1500). */
  maxChars: number;
  candidates: number;
  /** Ids already given in this session: not repeated. */
  exclude?: ReadonlySet<string>;
}

export interface PromptResult {
  /** Why nothing was searched (null when the search ran). */
  skipped: string | null;
  terms: string[];
  learnings: RankedHit[];
  /** Ids of learnings that bear on the prompt but were left out (past the limit or over the budget). */
  omitted: string[];
}

/**
 * The learnings that bear on one prompt: the usual search (BM25, policy, MMR), then the gate
 * (bearsOn: enough of the prompt's terms in the entry's own text, not only in its neighbours'
 * context, and not a meeting of words that chance explains), then the small budget. Norms are not searched: they were
 * given at session start.
 */
export function promptLearnings(db: Db, req: PromptRequest): PromptResult {
  const skipped = promptSkipReason(req.prompt);
  if (skipped) return { skipped, terms: queryTerms(req.prompt).terms, learnings: [], omitted: [] };
  // A long prompt keeps its rarest terms; the search and the gate both use those.
  const qt = queryTerms(req.prompt, MAX_TERMS, indexDocFrequency(db));
  const matchedIn = termsIn(qt.terms, qt.forms);
  const filter: EntryFilter = { ...req.filter, learningTypes: ['task', 'proxy'] };
  const found = runSearch(db, { query: req.prompt, terms: qt.truncated ? qt.terms.join(' ') : undefined, filter, rank: req.rank, now: req.now, scopeMultipliers: req.scopeMultipliers,
    limit: req.limit + (req.exclude?.size ?? 0) + 5, candidates: req.candidates }).results;
  if (found.length === 0) return { skipped: null, terms: qt.terms, learnings: [], omitted: [] };
  // Document frequencies only now that there are candidates (one FTS5 count per term).
  const total = countEntries(db);
  const counts = ownDocCounts(db, qt.terms.map((t) => [t, ...(qt.forms.get(t) ?? [])].map(ftsQuote).join(' OR ')));
  const docCounts = new Map(qt.terms.map((t, i) => [t, counts[i]]));
  const out: RankedHit[] = [];
  const omitted: string[] = [];
  let left = req.maxChars;
  for (const h of found) {
    if (req.exclude?.has(h.id)) continue;
    if (!bearsOn(matchedIn(analysedText(h)), qt.terms.length, docCounts, total)) continue;
    const size = hitChars(h);
    if (out.length >= req.limit || size > left) {
      omitted.push(h.id);
      continue;
    }
    left -= size;
    out.push(h);
  }
  return { skipped: null, terms: qt.terms, learnings: out, omitted };
}

export interface ProminentRequest {
  filter: EntryFilter;
  now: number;
  scopeMultipliers: Record<string, number>;
  limit: number;
  maxChars: number;
}

function asHit(r: EntryRow, score: ReturnType<(typeof POLICIES)[string]['score']>): RankedHit {
  return {
    id: r.entry_id, path: r.path, line: r.line, scope: r.scope, learning_type: r.learning_type, type: r.type, domain: r.domain,
    phase: r.phase, status: r.status, importance: r.importance, reinforcement_count: r.reinforcement_count, ordinal: r.ordinal,
    title: r.title, body: r.body, score: score.score,
    components: { bm25: 0, vector: null, relevance: 1, importance: score.importance, decay: score.decay, reinforcement: score.reinforcement,
      scope_multiplier: score.scope_multiplier, retrievability: score.retrievability, prominence: score.prominence, mmr: 0 },
  };
}

/**
 * The project's task learnings a session should start with when its task is not known yet:
 * ranked by the prominence policy with every entry equally relevant (importance × recency ×
 * reinforcement × scope), within the budget. Ranked on metadata alone, read in descending order
 * of importance × (1 + reinforcements): recency and scope only lower that bound (decay ≤ 1, the
 * largest scope multiplier), so reading stops once enough entries are certain to outrank every
 * entry not read yet — on a 100k-entry vault a few thousand rows instead of all. Only the
 * winners' text is read.
 */
export function prominentLearnings(db: Db, req: ProminentRequest): RankedHit[] {
  const policy = POLICIES.prominence;
  const ctx = { now: req.now, scopeMultipliers: req.scopeMultipliers };
  const maxMult = Math.max(1, ...Object.values(req.scopeMultipliers).filter((m) => Number.isFinite(m)));
  const filter: EntryFilter = { ...req.filter, learningTypes: ['task'] };
  type Scored = { r: RankFieldsRow; s: ReturnType<typeof policy.score> };
  const scored: Scored[] = [];
  const order = (a: Scored, b: Scored) => b.s.score - a.s.score || byCodeUnit(a.r.path, b.r.path) || a.r.line - b.r.line;
  // Every row not read yet scores at most `bound` (its potential × the largest multiplier).
  let bound = Infinity;
  let exhausted = false;
  // Rows whose score beats the bound stay certain as it falls: counted once each, from a
  // max-heap of the others by score (a recount of every row read, each 256 rows, was quadratic:
  // 0.3 s at 100k entries of one potential).
  let sure = 0;
  const open: number[] = [];
  const up = (i: number) => {
    for (; i > 0; ) {
      const p = (i - 1) >> 1;
      if (open[p] >= open[i]) break;
      [open[p], open[i]] = [open[i], open[p]];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < open.length && open[l] > open[m]) m = l;
      if (r < open.length && open[r] > open[m]) m = r;
      if (m === i) return;
      [open[m], open[i]] = [open[i], open[m]];
      i = m;
    }
  };
  const settle = () => {
    while (open.length > 0 && open[0] > bound) {
      sure++;
      const last = open.pop()!;
      if (open.length > 0) {
        open[0] = last;
        down(0);
      }
    }
  };
  const certain = () => {
    settle();
    return sure;
  };
  let pool = Math.max(32, req.limit * 4);
  for (;;) {
    const rows = rankFieldsByPotential(db, filter, scored.length);
    try {
      while (!exhausted && certain() < pool) {
        for (let i = 0; i < 256; i++) {
          const next = rows.next();
          if (next.done) {
            exhausted = true;
            bound = -Infinity;
            break;
          }
          const r = next.value;
          bound = r.importance * (1 + Math.max(0, r.reinforcement_count)) * maxMult;
          const x = { r, s: policy.score({ ...r, relevance: 1 }, ctx) };
          scored.push(x);
          open.push(x.s.score);
          up(open.length - 1);
        }
      }
    } finally {
      rows.return?.();
    }
    scored.sort(order);
    const top = scored.slice(0, Math.min(pool, certain()));
    const chars = entryChars(db, top.map((x) => x.r.rowid));
    const picks: Scored[] = [];
    let left = req.maxChars;
    for (const p of top) {
      if (picks.length >= req.limit) break;
      const size = chars.get(p.r.rowid) ?? 0;
      if (size > left) continue;
      left -= size;
      picks.push(p);
    }
    // Long entries left the picks short: look deeper (the budget may fit shorter ones further down).
    if (picks.length >= req.limit || exhausted) {
      const full = entriesByRowid(db, picks.map((p) => p.r.rowid));
      return full.map((r, i) => asHit(r, picks[i].s));
    }
    pool *= 4;
  }
}

/** prominentLearnings, and how many task learnings it left out (all the others: `mem list` shows them). */
export function prominentSection(db: Db, req: ProminentRequest): { learnings: RankedHit[]; omitted: number } {
  const learnings = prominentLearnings(db, req);
  return { learnings, omitted: countMatching(db, { ...req.filter, learningTypes: ['task'] }) - learnings.length };
}
