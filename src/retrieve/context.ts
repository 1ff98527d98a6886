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
  omitted: { learnings: number; proxy: number; failures: number; patterns: number };
  proxy: RankedHit[];
  /** Proven patterns, when asked for: see addProvenPatterns. */
  patterns?: PatternSummary[];
  /** Recent failed episodes, as warnings (empty unless asked for with failureChars). */
  failures: FailureWarning[];
}

const SCOPE_ORDER: Record<string, number> = { team: 0, session: 1, project: 2, global: 3 };

export function buildContext(db: Db, req: ContextRequest): ContextResult {
  const norms = listEntries(db, { ...req.filter, learningTypes: ['institutional'] })
    .sort((a, b) => (SCOPE_ORDER[a.scope] ?? 9) - (SCOPE_ORDER[b.scope] ?? 9) || b.importance - a.importance
      || b.reinforcement_count - a.reinforcement_count || byCodeUnit(a.path, b.path) || a.ordinal - b.ordinal);
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
  const failures = failureSection(db, { now: req.now, maxChars: req.failureChars ?? 0 });
  return {
    task: req.task, institutional, institutionalOmitted: norms.length - institutional.length, learnings: learnings.results, proxy: proxy.results, failures: failures.warnings,
    omitted: { learnings: learnings.omitted, proxy: proxy.omitted, failures: failures.omitted, patterns: 0 },
  };
}

/** The budget of the proven-patterns section (characters of title, trigger and action). */
export const DEFAULT_PATTERN_CHARS = 1500;

/**
 * The vault's proven patterns, for a session to start with besides its learnings (success rate
 * > 0.7, at most 5, best first, ties by occurrences) in a budget of their own, read from
 * .mem/patterns/ (no index). Loaded lazily: a vault without pattern notes pays one directory read.
 */
export async function addProvenPatterns(res: ContextResult, root: string, maxChars: number): Promise<ContextResult> {
  if (maxChars <= 0) return { ...res, patterns: [] };
  const { provenPatterns } = await import('../notes/pattern-query.js');
  const { patterns, omitted } = provenPatterns(root, { maxChars });
  return { ...res, patterns, omitted: { ...res.omitted, patterns: omitted } };
}
