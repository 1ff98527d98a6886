// The memory a task starts with: `mem context` and the MCP `context` tool (taskContext), and what
// the agent hooks inject at session start and on each prompt (hookContext). Both return data;
// the front-ends render it with src/render/context.ts.

import path from 'node:path';
import type { Db } from '../index/db.js';
import { NOT_EPISODES, type EntryFilter } from '../index/queries.js';
import type { DetailLevel } from '../episodes/detail.js';
import type { ContextResult } from '../retrieve/context.js';
import type { HookAnswer, SeeMore } from '../render/context.js';
import type { Vault } from '../vault/vault.js';
import { readFresh, warningsFor, type WarningSink } from './fresh.js';
import { logRetrieval } from './retrieval-log.js';
import { checkedRank, hybridHooks, keyTermsFor, keyTermsWarning, withKeyTerms, type ServiceRun } from './search.js';

/** What the user asked for; budgets left out come from the vault's config (`context:`) or mem's defaults. */
export interface MemoryContextRequest {
  task: string;
  /** Episodes are left out unless its kinds ask for them: the budget is for learnings. */
  filter: EntryFilter;
  rank?: string;
  limit?: number;
  institutionalChars?: number;
  taskChars?: number;
  proxyChars?: number;
  patternChars?: number;
  failureChars?: number;
  /** Which episodes among the learnings show their messages. */
  detail: DetailLevel;
}

/**
 * The norms, the learnings that bear on the task (found as `mem search` finds them, hybrid when
 * embeddings are configured), recent failures and proven patterns. The session's retrieval log
 * gets the learnings' and proxy learnings' ids.
 */
export async function taskContext(vault: Vault, req: MemoryContextRequest, run: ServiceRun): Promise<{ context: ContextResult; warnings: string[] }> {
  const filter: EntryFilter = { ...req.filter, kinds: req.filter.kinds ?? [...NOT_EPISODES] };
  const rank = await checkedRank(vault, req.rank);
  const c = vault.config.context;
  const { buildContext, addPatternNotes, DEFAULT_PATTERN_CHARS } = await import('../retrieve/context.js');
  const { DEFAULT_FAILURE_CHARS } = await import('../retrieve/episode-warnings.js');
  const [key] = await keyTermsFor(vault, [req.task], run.env);
  const { value: res, warnings } = await readFresh(vault, run, async (ix, w) => {
    const hybrid = (await hybridHooks(vault, ix.db, [req.task], run.env, w))?.[0];
    const built = withKeyTerms((terms) => buildContext(ix.db, {
      task: req.task, terms, filter, rank, now: run.now, scopeMultipliers: vault.config.scopeMultipliers,
      institutionalChars: req.institutionalChars ?? c.institutionalChars,
      taskChars: req.taskChars ?? c.taskChars,
      proxyChars: req.proxyChars ?? c.proxyChars,
      failureChars: req.failureChars ?? DEFAULT_FAILURE_CHARS,
      limit: req.limit ?? c.limit,
      candidates: vault.config.search.candidates,
      hybrid,
    }), key, (r) => r.learnings.length + r.proxy.length === 0);
    w.add(...keyTermsWarning(built.key));
    return built.found;
  });
  // Proven patterns are distilled from many conversations: a context kept to one leaves them out.
  const patternChars = req.filter.conversations ? 0 : req.patternChars ?? DEFAULT_PATTERN_CHARS;
  const context = await addPatternNotes(res, vault.root, patternChars);
  if (run.session) await logRetrieval(vault.root, run.session, run.now, [{ query: req.task, ids: [...context.learnings, ...context.proxy].map((h) => h.id) }]);
  if (context.learnings.some((h) => h.episode)) context.learnings = (await import('../episodes/local.js')).withMessages(vault.root, context.learnings, req.detail);
  return { context, warnings };
}

// ---- the agent hooks ----

/** What a SessionStart hook may inject at most (each also capped by config `context.*`). */
export const HOOK_SESSION_BUDGET = { institutionalChars: 3000, taskChars: 3500, proxyChars: 1000, patternChars: 1000, failureChars: 1000, limit: 8 };
/** What a prompt hook may inject at most: a few learnings, a small budget. */
export const HOOK_PROMPT_BUDGET = { limit: 3, maxChars: 1500 };

/** Warnings (`warn`) are for the hook log: a hook prints nothing but its answer. */
export interface HookContextRequest extends WarningSink {
  /** `session`: the session's start; `prompt`: one prompt of it. */
  mode: 'session' | 'prompt';
  /** The prompt (prompt mode). */
  prompt?: string;
  /** The session's first prompt when its transcript has one (session mode). */
  task?: string;
  /** A usable session id: its retrieval log is read (prompt mode) and written. */
  session?: string;
  now: number;
  /** When the hook must have answered: past it, the answer is what was found by then. */
  deadline: { passed(): boolean };
  /** Runs `read` on the vault's index as a hook may: never waiting long for it. */
  withIndex<T>(read: (db: Db) => T): Promise<T>;
}

/**
 * The hook's answer, or null when it has nothing to say. A prompt gets only the few learnings
 * that clearly bear on it and were not given earlier in the session; a session start gets the
 * norms, recent failures, proven patterns and the learnings for its first prompt — or, with no
 * prompt yet, the project's most prominent ones.
 */
export async function hookContext(vault: Vault, req: HookContextRequest): Promise<{ answer: HookAnswer | null; warnings: string[] }> {
  const w = warningsFor(req);
  const { deadline, now } = req;
  const c = vault.config.context;
  const rank = vault.config.search.rank;
  const root = vault.root;
  const common = { filter: { kinds: [...NOT_EPISODES] }, rank, now, scopeMultipliers: vault.config.scopeMultipliers, candidates: vault.config.search.candidates };
  let answer: HookAnswer | null = null;
  let ids: string[] = [];
  let query = '';
  if (req.mode === 'prompt') {
    const prompt = req.prompt ?? '';
    const { readRetrievalIds } = await import('../vault/sessions.js');
    const exclude = new Set(req.session ? readRetrievalIds(root, req.session) : []);
    const { promptLearnings } = await import('../retrieve/hook-context.js');
    const res = await req.withIndex((db) => deadline.passed() ? { skipped: 'the hook\'s deadline passed', terms: [], learnings: [], omitted: [] } : promptLearnings(db, {
      prompt, ...common, limit: HOOK_PROMPT_BUDGET.limit, maxChars: HOOK_PROMPT_BUDGET.maxChars, exclude,
    }));
    if (res.skipped && deadline.passed()) w.add('the hook\'s deadline passed before the search; nothing printed');
    if (res.learnings.length + res.omitted.length > 0) answer = { mode: 'prompt', learnings: res.learnings, omitted: res.omitted };
    ids = res.learnings.map((h) => h.id);
    query = prompt;
  } else {
    const task = req.task;
    const { buildContext, addPatternNotes } = await import('../retrieve/context.js');
    const { prominentSection } = await import('../retrieve/hook-context.js');
    const budget = {
      institutionalChars: Math.min(c.institutionalChars, HOOK_SESSION_BUDGET.institutionalChars),
      taskChars: Math.min(c.taskChars, HOOK_SESSION_BUDGET.taskChars),
      proxyChars: Math.min(c.proxyChars, HOOK_SESSION_BUDGET.proxyChars),
      limit: Math.min(c.limit, HOOK_SESSION_BUDGET.limit),
    };
    const project = path.basename(root);
    const res = await req.withIndex((db) => {
      if (deadline.passed()) return null;
      const built = buildContext(db, {
        task: task ?? project, ...common,
        ...budget, taskChars: task ? budget.taskChars : 0, proxyChars: task ? budget.proxyChars : 0,
        // Recent failed episodes as warnings, whatever the task: a new session learns what broke
        // lately.
        failureChars: HOOK_SESSION_BUDGET.failureChars,
      });
      // No prompt yet (a new session): the project's most prominent learnings instead.
      if (!task && !deadline.passed()) {
        const top = prominentSection(db, { filter: common.filter, now, scopeMultipliers: common.scopeMultipliers, limit: budget.limit, maxChars: budget.taskChars });
        built.learnings = top.learnings;
        built.omitted.learnings = top.omitted;
      }
      return built;
    });
    if (res === null) {
      w.add('the hook\'s deadline passed before the index was read; nothing printed');
      return { answer: null, warnings: w.list };
    }
    if (!task) res.task = `the ${project} project (session start; no prompt yet)`;
    // Past the deadline the answer is what is there: patterns are read only with time left.
    const full = deadline.passed() ? res : await addPatternNotes(res, root, HOOK_SESSION_BUDGET.patternChars);
    if (deadline.passed()) w.add('the hook\'s deadline passed; answered with what was found by then');
    // Anything found, shown or only counted as left out, is said: a norm too long for the
    // hook's budget is named as left out rather than leaving the session with nothing.
    const om = full.omitted;
    const shown = full.institutional.length + full.learnings.length + full.proxy.length + full.failures.length + (full.patterns?.length ?? 0) + (full.antipatterns?.length ?? 0);
    const left = full.institutionalOmitted + om.learnings + om.proxy + om.failures + om.patterns + (om.antipatterns ?? 0);
    const see: SeeMore = task ? { learnings: '`mem context` with the task' } : { learnings: '`mem list --learning-type task`' };
    if (shown + left > 0) answer = { mode: 'session', context: full, see };
    ids = [...full.learnings, ...full.proxy].map((h) => h.id);
    query = task ?? `session start: ${project}`;
  }
  if (req.session && ids.length > 0) await logRetrieval(root, req.session, now, [{ query, ids }]);
  return { answer, warnings: w.list };
}
