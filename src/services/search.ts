// Searching memory, for `mem search` and the MCP `search` tool: the vault's fresh index, hybrid
// retrieval when embeddings are configured, the ranked hits with their episodes' messages, the
// session's retrieval log, and every warning on the way. Nothing is printed here.

import type { Db } from '../index/db.js';
import type { EntryFilter } from '../index/queries.js';
import type { DetailLevel } from '../episodes/detail.js';
import type { SearchRequest, SearchResult } from '../retrieve/search.js';
import type { Vault } from '../vault/vault.js';
import { readFresh, type ReadOptions, type Warnings } from './fresh.js';
import { logRetrieval } from './retrieval-log.js';

/** One query of a search; a batch may give each its own limit. */
export interface SearchQuery {
  query: string;
  limit?: number;
}

/** What the user asked for; anything left out comes from the vault's config (`search:`). */
export interface MemorySearch {
  queries: SearchQuery[];
  filter: EntryFilter;
  limit?: number;
  candidates?: number;
  rank?: string;
  maxChars?: number;
  /** Which episodes' messages the hits carry. */
  detail: DetailLevel;
}

/** The run a service call belongs to: its environment (embeddings endpoint and key), clock and session. */
export interface ServiceRun extends ReadOptions {
  env: NodeJS.ProcessEnv;
  now: number;
  /** A checked session id: the ids returned are logged for `mem reinforce --session`. */
  session?: string;
}

/** One query's answer, with what only it needs to say (a long query cut short, nothing to search for). */
export interface QueryAnswer extends SearchResult {
  warnings: string[];
}

export interface SearchAnswer {
  answers: QueryAnswer[];
  /** The limit in effect (for the line that says matches were left out). */
  limit: number;
  /** The index's, the vault walk's and the embeddings' warnings, in that order (unless sent to `warn`). */
  warnings: string[];
}

/** The ranking policy asked for, else the config's; an unknown one is a usage error. */
export async function checkedRank(vault: Vault, rank: string | undefined): Promise<string> {
  const { policyFor } = await import('../retrieve/search.js');
  const name = rank ?? vault.config.search.rank;
  policyFor(name);
  return name;
}

/**
 * With embeddings configured, one hybrid hook per text (src/retrieve/hybrid.ts); the endpoint
 * down or no vectors yet: lexical, with a warning. Null without embeddings.
 */
export async function hybridHooks(vault: Vault, db: Db, texts: string[], env: NodeJS.ProcessEnv, warnings: Warnings): Promise<SearchRequest['hybrid'][] | null> {
  const emb = (await import('../vault/config.js')).embeddingsFrom(vault.config.embeddings, env);
  if (!emb) return null;
  const setup = await (await import('../retrieve/hybrid.js')).prepareHybrid(db, emb, texts, env);
  if (setup.warning) warnings.add(setup.warning);
  return setup.hooks;
}

function queryWarnings(res: SearchResult): string[] {
  const w: string[] = [];
  if (res.truncated) w.push(`the query has more than ${res.terms.length} distinct terms; searched for the first ${res.terms.length}`);
  if (res.onlyStopwords) w.push('the query has only common words (like "the", "what", "is"); nothing to search for');
  return w;
}

export async function searchMemory(vault: Vault, req: MemorySearch, run: ServiceRun): Promise<SearchAnswer> {
  const rank = await checkedRank(vault, req.rank);
  const { runSearch } = await import('../retrieve/search.js');
  const cfg = vault.config.search;
  const limit = req.limit ?? cfg.limit;
  const base: Omit<SearchRequest, 'query'> = {
    limit, candidates: Math.max(req.candidates ?? cfg.candidates, limit), filter: req.filter, rank, maxChars: req.maxChars,
    now: run.now, scopeMultipliers: vault.config.scopeMultipliers,
  };
  const withMessages = req.detail === 'none' ? null : (await import('../episodes/local.js')).withMessages;
  const { value: answers, warnings } = await readFresh(vault, run, async (ix, w) => {
    const hooks = await hybridHooks(vault, ix.db, req.queries.map((q) => q.query), run.env, w);
    return req.queries.map((q, i): QueryAnswer => {
      const found = runSearch(ix.db, { ...base, query: q.query, limit: q.limit ?? limit, candidates: Math.max(base.candidates, q.limit ?? 0), hybrid: hooks?.[i] });
      return { ...found, results: withMessages ? withMessages(vault.root, found.results, req.detail) : found.results, warnings: queryWarnings(found) };
    });
  });
  if (run.session) await logRetrieval(vault.root, run.session, run.now, req.queries.map((q, i) => ({ query: q.query, ids: answers[i].results.map((h) => h.id) })));
  return { answers, limit, warnings };
}
