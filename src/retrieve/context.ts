// `mem context` assembly: institutional norms always loaded in their own section and budget; task
// and proxy learnings retrieved by relevance, each with a budget of its own.

import type { Db } from '../index/db.js';
import { anyEntry, listEntries, type EntryFilter, type EntryRow } from '../index/queries.js';
import { byCodeUnit, hitChars, runSearch, type RankedHit, type SearchRequest } from './search.js';
import type { PatternSummary } from '../notes/pattern-query.js';
import { failureSection, type FailureWarning } from './episode-warnings.js';

export interface ContextRequest {
  task: string;
  /** The words to search for when not the task's own (SearchRequest.terms). */
  terms?: string;
  filter: EntryFilter;
  rank: string;
  now: number;
  scopeMultipliers: Record<string, number>;
  institutionalChars: number;
  taskChars: number;
  proxyChars: number;
  limit: number;
  candidates: number;
  /** Hybrid retrieval for the task's learnings (prepareHybrid), when embeddings are configured. */
  hybrid?: SearchRequest['hybrid'];
  /** Budget for warnings from recent failed episodes (episode-warnings.ts); 0 or absent: none. */
  failureChars?: number;
}

export interface ContextResult {
  task: string;
  institutional: EntryRow[];
  /** Institutional entries left out because the budget ran out. */
  institutionalOmitted: number;
  learnings: RankedHit[];
  /**
   * What each other section left out: learnings and proxy learnings that matched but fell past
   * the limit or over the budget, recent failures past their limit or budget, proven patterns
   * over theirs. A section that drops items says so, so nothing is left out unseen.
   */
  omitted: { learnings: number; proxy: number; failures: number; patterns: number; antipatterns?: number };
  proxy: RankedHit[];
  /** Proven patterns, when asked for: see addPatternNotes. */
  patterns?: PatternSummary[];
  /** Pattern notes to avoid (ANTIPATTERN notes, patterns that mostly failed), when asked for: see addPatternNotes. */
  antipatterns?: PatternSummary[];
  /** Recent failed episodes, as warnings (empty unless asked for with failureChars). */
  failures: FailureWarning[];
}

const SCOPE_ORDER: Record<string, number> = { team: 0, session: 1, project: 2, dispatch: 2, global: 3 };

/**
 * The institutional entries `filter` selects, in the order a budget takes them: the narrowest
 * scope first (a team's rule before the project's, the project's before the user's global ones),
 * then by importance and reinforcements.
 */
export function orderedNorms(db: Db, filter: EntryFilter): EntryRow[] {
  return listEntries(db, { ...filter, learningTypes: ['institutional'] })
    .sort((a, b) => (SCOPE_ORDER[a.scope] ?? 9) - (SCOPE_ORDER[b.scope] ?? 9) || b.importance - a.importance
      || b.reinforcement_count - a.reinforcement_count || byCodeUnit(a.path, b.path) || a.ordinal - b.ordinal);
}

export function buildContext(db: Db, req: ContextRequest): ContextResult {
  const norms = orderedNorms(db, req.filter);
  const institutional: EntryRow[] = [];
  let left = req.institutionalChars;
  for (const n of norms) {
    const size = hitChars(n);
    if (size > left) continue;
    left -= size;
    institutional.push(n);
  }
  const base: Omit<SearchRequest, 'filter' | 'maxChars'> = {
    query: req.task, terms: req.terms, limit: req.limit, candidates: req.candidates, rank: req.rank, now: req.now, scopeMultipliers: req.scopeMultipliers, hybrid: req.hybrid,
  };
  // A section whose filter matches no entry at all is skipped: a filtered search over a large
  // vault falls back to joining every full-text match, which is the slow path.
  const section = (learningType: string, maxChars: number): { results: RankedHit[]; omitted: number } => {
    const filter = { ...req.filter, learningTypes: [learningType] };
    if (maxChars <= 0 || !anyEntry(db, filter)) return { results: [], omitted: 0 };
    return runSearch(db, { ...base, filter, maxChars });
  };
  const learnings = section('task', req.taskChars);
  const proxy = section('proxy', req.proxyChars);
  const { conversations, afterMs, beforeMs } = req.filter;
  const failures = failureSection(db, { now: req.now, maxChars: req.failureChars ?? 0, only: { conversations, afterMs, beforeMs } });
  return {
    task: req.task, institutional, institutionalOmitted: norms.length - institutional.length, learnings: learnings.results, proxy: proxy.results, failures: failures.warnings,
    omitted: { learnings: learnings.omitted, proxy: proxy.omitted, failures: failures.omitted, patterns: 0 },
  };
}

/** The budget of each pattern section, proven and to avoid (characters of title, trigger and action). */
export const DEFAULT_PATTERN_CHARS = 1500;

/**
 * The vault's pattern notes, for a session to start with besides its learnings, each note in one
 * section: proven patterns (success rate > 0.7) and what to avoid (ANTIPATTERN notes, patterns
 * that mostly failed), at most 5 each, each in a budget of its own, read from .mem/patterns/ (no
 * index). A note shown there, or one to avoid, is not repeated among the learnings (the index
 * finds pattern notes too): a note to avoid must not read as advice. Loaded lazily: a vault
 * without pattern notes pays one directory read.
 */
export async function addPatternNotes(res: ContextResult, root: string, maxChars: number): Promise<ContextResult> {
  if (maxChars <= 0) return { ...res, patterns: [], antipatterns: [], omitted: { ...res.omitted, antipatterns: 0 } };
  const { sessionPatterns } = await import('../notes/pattern-query.js');
  const { proven, avoid, avoidPaths } = sessionPatterns(root, { maxChars });
  const elsewhere = new Set([...proven.patterns.map((p) => p.path), ...avoidPaths]);
  const notElsewhere = (h: RankedHit) => !elsewhere.has(h.path);
  return {
    ...res, learnings: res.learnings.filter(notElsewhere), proxy: res.proxy.filter(notElsewhere), patterns: proven.patterns, antipatterns: avoid.patterns,
    omitted: { ...res.omitted, patterns: proven.omitted, antipatterns: avoid.omitted },
  };
}
