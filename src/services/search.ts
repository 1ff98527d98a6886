// Searching memory, for `mem search` and the MCP `search` tool: the vault's fresh index, hybrid
// retrieval when embeddings are configured, the ranked hits with their episodes' messages, the
// session's retrieval log, and every warning on the way. Nothing is printed here.

import type { Db } from '../index/db.js';
import type { EntryFilter } from '../index/queries.js';
import type { DetailLevel } from '../episodes/detail.js';
import type { SearchRequest, SearchResult } from '../retrieve/search.js';
import type { Vault } from '../vault/vault.js';
import { MAX_TERMS, queryTerms } from '../retrieve/terms.js';
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

/** How a long query's words were chosen, when a model was asked for them (see keyTermsFor). */
export interface KeyTerms {
  /** The model's key terms, space-separated (SearchRequest.terms); null: the query's own words. */
  terms: string | null;
  /** What the user is told: which terms the model picked, or why it could not. */
  note: string;
}

/** Longest wait for the model's key terms: search must not hang on a slow endpoint (the fallback is good). */
export const KEY_TERMS_TIMEOUT_MS = 15_000;

/**
 * For each query with more distinct terms than search uses, its key terms from the configured
 * model (src/retrieve/key-terms.ts) — only when a provider is configured (an API key, or a provider
 * named; an agent CLI is never picked by itself here) and `retrieval.model_terms` is not false; null for the others (searched for their rarest terms). The query is redacted
 * before it leaves the machine. Any failure falls back on the rarest terms, with a note. Never
 * called by the agent hooks: a prompt must be answered within their deadline.
 */
export async function keyTermsFor(vault: Vault, queries: string[], env: NodeJS.ProcessEnv): Promise<(KeyTerms | null)[]> {
  const long = queries.map((q) => queryTerms(q).truncated);
  if (!vault.config.retrieval.modelTerms || !long.some(Boolean)) return queries.map(() => null);
  const { providerFromFlags, createProvider, ProviderError } = await import('../llm/provider.js');
  const { MemError } = await import('../errors.js');
  const fail = (err: unknown): KeyTerms => {
    if (!(err instanceof MemError)) throw err;
    return { terms: null, note: `could not get the query's key terms from the model (${err.message}); searched for its rarest terms in memory instead` };
  };
  let llm: Awaited<ReturnType<typeof createProvider>>;
  try {
    // A search waits for this answer: an agent CLI found on PATH (seconds per call, the user's
    // quota) is used only when the config or the environment names it, never picked by itself.
    const provider = providerFromFlags({}, { ...vault.config.llm, agentCli: false }, { ...env, MEM_AGENT_CLI: '0' });
    if (provider.name === 'heuristic') return queries.map(() => null);
    llm = await createProvider(provider, { timeoutMs: Math.min(vault.config.llm.timeoutMs, KEY_TERMS_TIMEOUT_MS), maxRetries: 0, env });
  } catch (err) {
    const f = fail(err);
    return long.map((l) => (l ? f : null));
  }
  const { modelKeyTerms } = await import('../retrieve/key-terms.js');
  const { redactSecrets } = await import('../secrets/redact.js');
  const known = [llm.config.apiKeyEnv ? env[llm.config.apiKeyEnv] : undefined];
  const out: (KeyTerms | null)[] = [];
  for (const [i, q] of queries.entries()) {
    if (!long[i]) {
      out.push(null);
      continue;
    }
    try {
      const terms = await modelKeyTerms(llm, (await redactSecrets(q, known)).text);
      out.push({ terms: terms.join(' '), note: `searched for the key terms ${llm.config.name} (${llm.config.model}) picked: ${terms.join(', ')}` });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      out.push(fail(err));
    }
  }
  return out;
}

function queryWarnings(res: SearchResult, key: KeyTerms | null): string[] {
  const w: string[] = [];
  if (key) w.push(...keyTermsWarning(key));
  else if (res.truncated) {
    const n = res.terms.length;
    w.push(res.chosen !== 'rarest' ? `the query has more than ${n} distinct terms; searched for the first ${n}`
      : n < MAX_TERMS ? `the query has more than ${MAX_TERMS} distinct terms; searched for the ${n} of them found in memory`
        : `the query has more than ${MAX_TERMS} distinct terms; searched for the ${n} rarest in memory`);
  }
  if (res.onlyStopwords) w.push('the query has only common words (like "the", "what", "is"); nothing to search for');
  return w;
}

/**
 * A search with the model's key terms when there are any; when they find nothing (words the
 * model made up, or named differently in memory), again with the query's own rarest terms.
 */
export function withKeyTerms<T>(run: (terms: string | undefined) => T, key: KeyTerms | null, empty: (found: T) => boolean): { found: T; key: KeyTerms | null } {
  if (key?.terms) {
    const found = run(key.terms);
    if (!empty(found)) return { found, key };
    return { found: run(undefined), key: { terms: null, note: `the key terms the model picked found nothing; searched for the query's rarest terms in memory instead` } };
  }
  return { found: run(undefined), key };
}

/** The note that a long query's terms were chosen (by the model, else the rarest in memory). */
export function keyTermsWarning(key: KeyTerms | null): string[] {
  return key ? [`the query has more than ${MAX_TERMS} distinct terms; ${key.note}`] : [];
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
  const keys = await keyTermsFor(vault, req.queries.map((q) => q.query), run.env);
  const { value: answers, warnings } = await readFresh(vault, run, async (ix, w) => {
    const hooks = await hybridHooks(vault, ix.db, req.queries.map((q) => q.query), run.env, w);
    return req.queries.map((q, i): QueryAnswer => {
      const { found, key } = withKeyTerms((terms) => runSearch(ix.db, {
        ...base, query: q.query, terms, limit: q.limit ?? limit, candidates: Math.max(base.candidates, q.limit ?? 0), hybrid: hooks?.[i],
      }), keys[i], (f) => f.results.length === 0);
      return { ...found, results: withMessages ? withMessages(vault.root, found.results, req.detail) : found.results, warnings: queryWarnings(found, key) };
    });
  });
  if (run.session) await logRetrieval(vault.root, run.session, run.now, req.queries.map((q, i) => ({ query: q.query, ids: answers[i].results.map((h) => h.id) })));
  return { answers, limit, warnings };
}
