// `mem context TASK`: a markdown block for an agent's prompt — the norms, always, and the
// learnings that bear on the task.

import path from 'node:path';
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { Db } from '../../index/db.js';
import type { EmbedSettings } from '../../embeddings/client.js';
import type { SearchRequest } from '../../retrieve/search.js';
import { addFilterOptions, filterFromOptions, vaultFor, withFreshIndex, type FilterOptions } from '../common.js';
import { commandCtx, parseIntOption, type Ctx } from '../io.js';
import { renderContextMd, renderPromptMd, type SeeMore } from '../../render/context.js';
import { NOT_EPISODES } from '../../index/queries.js';
import { detailLevel } from '../../episodes/detail.js';
import { DEFAULT_FAILURE_CHARS } from '../../retrieve/episode-warnings.js';

/** What a prompt's context is made of unless --kind says otherwise: learnings and notes, not episodes. */

interface ContextOptions extends FilterOptions {
  institutionalChars?: string;
  taskChars?: string;
  proxyChars?: string;
  patternChars?: string;
  failureChars?: string;
  limit?: string;
  rank?: string;
  session?: string;
  refresh?: boolean;
  hook?: string;
  detail?: string;
}

export function registerContext(program: Command): void {
  const cmd = program
    .command('context')
    .description('print the memory an agent should read before a task, as markdown')
    .argument('[task...]', 'the task, in plain words ("-" reads it from stdin)')
    .option('--institutional-chars <n>', 'budget for institutional norms (default 4000)')
    .option('--task-chars <n>', 'budget for retrieved learnings (default 6000)')
    .option('--proxy-chars <n>', 'budget for proxy learnings (default 2000)')
    .option('--pattern-chars <n>', 'budget for proven patterns from .mem/patterns/ (default 1500; 0: none)')
    .option('--failure-chars <n>', 'budget for warnings from failed episodes of the last 7 days, at most 3 (default 1500; 0: none)')
    .option('-n, --limit <n>', 'at most this many retrieved learnings (default 12)')
    .option('--rank <policy>', 'ranking policy: prominence (default), fsrs (FSRS retrievability) or relevance')
    .option('--session <id>', 'log retrieved ids for `mem reinforce --session` (env MEM_SESSION)')
    .option('--detail <level>', 'with --kind episode: episodes\' messages: auto (default: key moments ranked 1-2), none, full')
    .option('--no-refresh', 'do not bring the index up to date first')
    .option('--hook <agent>', 'agent hook mode (claude, codex or gemini): read the hook JSON on stdin, print the JSON the agent expects or nothing; always exit 0');
  addFilterOptions(cmd);
  cmd.addHelpText('after', `
Institutional entries (institutional.md files) are always loaded, in their own section and
budget; task learnings are ranked by relevance with a separate budget. The two never compete.
A section that leaves items out says how many, and where to see them ("3 more omitted for the
budget; see …"; --json: "omitted").

Examples:
  $ mem context "add pagination to the users API"
  $ mem context "fix flaky CI" --task-chars 3000 --session "$SESSION_ID" > .context.md
  $ mem context "release checklist" --json | jq '.learnings[].id'

Agent hooks (\`mem hooks install\` writes them): SessionStart gets the norms and the learnings for
the session's first prompt (or the project's most prominent ones); a prompt hook (Claude/Codex
UserPromptSubmit, Gemini BeforeAgent) gets at most 3 learnings that clearly bear on the prompt,
or nothing. Outside a mem vault (no .mem/ or MEMORY.md) and on any error it prints nothing;
errors go to .mem/logs/hooks.log.
  $ echo '{"hook_event_name":"SessionStart","cwd":"'$PWD'","session_id":"s1","source":"startup"}' | mem context --hook claude`);
  cmd.action(async (task: string[], opts: ContextOptions, command: Command) => {
    const ctx = commandCtx(command);
    if (opts.hook !== undefined) await contextHookCommand(ctx, opts.hook);
    else await contextCommand(ctx, task, opts);
  });
}

/** The hybrid hook for the task (null warns and means lexical, as `mem search` does). */
async function hybridFor(ctx: Ctx, db: Db, emb: EmbedSettings, task: string): Promise<SearchRequest['hybrid']> {
  const setup = await (await import('../../retrieve/hybrid.js')).prepareHybrid(db, emb, [task], ctx.env);
  if (setup.warning) ctx.warn(setup.warning);
  return setup.hooks?.[0];
}

async function contextCommand(ctx: Ctx, taskArgs: string[], opts: ContextOptions): Promise<void> {
  let task = taskArgs.join(' ');
  if (task.trim() === '-') task = ctx.readStdin();
  if (task.trim() === '') throw usageError('empty task', 'describe the task: mem context "fix the login redirect"');
  const detail = detailLevel(opts.detail, 'auto');
  const filter = filterFromOptions(opts);
  // Episodes (a session's messages) are left out of a prompt's context unless asked for: the
  // budget is for learnings.
  filter.kinds ??= [...NOT_EPISODES];
  const sessionId = opts.session ?? ctx.env.MEM_SESSION;
  if (sessionId) (await import('../../vault/sessions.js')).checkSessionId(sessionId);
  const vault = await vaultFor(ctx);
  const c = vault.config.context;
  const { buildContext } = await import('../../retrieve/context.js');
  const { policyFor } = await import('../../retrieve/search.js');
  const rank = opts.rank ?? vault.config.search.rank;
  policyFor(rank);
  const now = ctx.now();
  // Embeddings configured: the task's learnings are found as `mem search` finds them (hybrid).
  const emb = (await import('../../vault/config.js')).embeddingsFrom(vault.config.embeddings, ctx.env);
  const res = await withFreshIndex(ctx, vault, { refresh: opts.refresh !== false, tolerateBusy: true }, async (ix) => buildContext(ix.db, {
    hybrid: emb ? await hybridFor(ctx, ix.db, emb, task) : undefined,
    task, filter, rank, now, scopeMultipliers: vault.config.scopeMultipliers,
    institutionalChars: parseIntOption('--institutional-chars', opts.institutionalChars) ?? c.institutionalChars,
    taskChars: parseIntOption('--task-chars', opts.taskChars) ?? c.taskChars,
    proxyChars: parseIntOption('--proxy-chars', opts.proxyChars) ?? c.proxyChars,
    failureChars: parseIntOption('--failure-chars', opts.failureChars) ?? DEFAULT_FAILURE_CHARS,
    limit: parseIntOption('--limit', opts.limit, 1) ?? c.limit,
    candidates: vault.config.search.candidates,
  }));
  if (sessionId) {
    const { appendRetrieval } = await import('../../vault/sessions.js');
    appendRetrieval(vault.root, sessionId, [{ at: new Date(now).toISOString(), query: task.slice(0, 2000), ids: [...res.learnings, ...res.proxy].map((h) => h.id) }]);
  }
  const { addProvenPatterns, DEFAULT_PATTERN_CHARS } = await import('../../retrieve/context.js');
  const full = await addProvenPatterns(res, vault.root, parseIntOption('--pattern-chars', opts.patternChars) ?? DEFAULT_PATTERN_CHARS);
  if (full.learnings.some((h) => h.episode)) full.learnings = (await import('../../episodes/local.js')).withMessages(vault.root, full.learnings, detail);
  if (ctx.json) {
    const { contextJson } = await import('../../render/entries.js');
    ctx.out(JSON.stringify({ ...(await contextJson(full, detail)), patterns: full.patterns }, null, 2));
    return;
  }
  ctx.out(renderContextMd(full, detail));
}

// ---- agent hook mode ----

/** What a SessionStart hook may inject at most (each also capped by config `context.*`). */
export const HOOK_SESSION_BUDGET = { institutionalChars: 3000, taskChars: 3500, proxyChars: 1000, patternChars: 1000, failureChars: 1000, limit: 8 };
/** What a prompt hook may inject at most: a few learnings, a small budget. */
export const HOOK_PROMPT_BUDGET = { limit: 3, maxChars: 1500 };
/** Longest additionalContext a hook prints: well under Claude Code's ~10,000-character inline limit. */
export const MAX_HOOK_CONTEXT = 9000;

function capped(md: string): string {
  if (md.length <= MAX_HOOK_CONTEXT) return md;
  const cut = md.lastIndexOf('\n', MAX_HOOK_CONTEXT - 100);
  return `${md.slice(0, cut > 0 ? cut : MAX_HOOK_CONTEXT - 100)}\n\n_(cut to fit the hook's budget; \`mem context\` shows the rest)_\n`;
}

/**
 * `mem context --hook AGENT`: the agent's hook JSON in, the JSON it expects out — or nothing
 * (outside a mem vault, nothing relevant, any error). Always exit 0; errors go to
 * .mem/logs/hooks.log of the vault when there is one. Nothing but that JSON ever reaches stdout.
 */
async function contextHookCommand(ctx: Ctx, agentName: string): Promise<void> {
  const hook = await import('../../integrations/agent-hook.js');
  await hook.runHook({ agentName, cwd: ctx.cwd, env: ctx.env, root: ctx.root ?? ctx.env.MEM_ROOT, logName: 'hooks.log', what: 'context hook' }, async ({ agent, payload: p, root, deadline }) => {
    const which = hook.hookMode(agent, p);
    if (!which) {
      hook.hookLog(root, 'hooks.log', `${agent} context hook: event ${JSON.stringify(p.event)} is not one mem answers; nothing printed`);
      return;
    }
    const note = (s: string) => hook.hookLog(root, 'hooks.log', `${agent} ${which.event}: ${s}`);
    const { usableSessionId } = await import('../../extract/session-id.js');
    const sessionId = usableSessionId(p.sessionId);
    const { openVault } = await import('../../vault/vault.js');
    const vault = await openVault({ root, cwd: root, env: ctx.env });
    const c = vault.config.context;
    const rank = vault.config.search.rank;
    const now = ctx.now();
    let md = '';
    let ids: string[] = [];
    let query = '';
    if (which.mode === 'prompt') {
      const prompt = p.prompt ?? '';
      const { readRetrievalIds } = await import('../../vault/sessions.js');
      const exclude = new Set(sessionId ? readRetrievalIds(root, sessionId) : []);
      const { promptLearnings } = await import('../../retrieve/hook-context.js');
      const res = await hook.withHookIndex(vault, (db) => deadline.passed() ? { skipped: 'the hook\'s deadline passed', terms: [], learnings: [], omitted: [] } : promptLearnings(db, {
        prompt, filter: { kinds: [...NOT_EPISODES] }, rank, now, scopeMultipliers: vault.config.scopeMultipliers, candidates: vault.config.search.candidates,
        limit: HOOK_PROMPT_BUDGET.limit, maxChars: HOOK_PROMPT_BUDGET.maxChars, exclude,
      }), note, deadline);
      if (res.skipped && deadline.passed()) note('the hook\'s deadline passed before the search; nothing printed');
      if (res.learnings.length + res.omitted.length > 0) md = renderPromptMd(res.learnings, res.omitted);
      ids = res.learnings.map((h) => h.id);
      query = prompt;
    } else {
      const task = p.transcript ? await hook.firstPrompt(p.transcript) : undefined;
      const { buildContext } = await import('../../retrieve/context.js');
      const { prominentSection } = await import('../../retrieve/hook-context.js');
      const budget = {
        institutionalChars: Math.min(c.institutionalChars, HOOK_SESSION_BUDGET.institutionalChars),
        taskChars: Math.min(c.taskChars, HOOK_SESSION_BUDGET.taskChars),
        proxyChars: Math.min(c.proxyChars, HOOK_SESSION_BUDGET.proxyChars),
        limit: Math.min(c.limit, HOOK_SESSION_BUDGET.limit),
      };
      const project = path.basename(root);
      const res = await hook.withHookIndex(vault, (db) => {
        if (deadline.passed()) return null;
        const built = buildContext(db, {
          task: task ?? project, filter: { kinds: [...NOT_EPISODES] }, rank, now, scopeMultipliers: vault.config.scopeMultipliers, candidates: vault.config.search.candidates,
          ...budget, taskChars: task ? budget.taskChars : 0, proxyChars: task ? budget.proxyChars : 0,
          // Recent failed episodes as warnings, whatever the task: a new session learns what broke
          // lately.
          failureChars: HOOK_SESSION_BUDGET.failureChars,
        });
        // No prompt yet (a new session): the project's most prominent learnings instead.
        if (!task && !deadline.passed()) {
          const top = prominentSection(db, { filter: { kinds: [...NOT_EPISODES] }, now, scopeMultipliers: vault.config.scopeMultipliers, limit: budget.limit, maxChars: budget.taskChars });
          built.learnings = top.learnings;
          built.omitted.learnings = top.omitted;
        }
        return built;
      }, note, deadline);
      if (res === null) {
        note('the hook\'s deadline passed before the index was read; nothing printed');
        return;
      }
      if (!task) res.task = `the ${project} project (session start; no prompt yet)`;
      const { addProvenPatterns } = await import('../../retrieve/context.js');
      // Past the deadline the answer is what is there: patterns are read only with time left.
      const full = deadline.passed() ? res : await addProvenPatterns(res, root, HOOK_SESSION_BUDGET.patternChars);
      if (deadline.passed()) note('the hook\'s deadline passed; answered with what was found by then');
      // Anything found, shown or only counted as left out, is said: a norm too long for the
      // hook's budget is named as left out rather than leaving the session with nothing.
      const om = full.omitted;
      const shown = res.institutional.length + res.learnings.length + res.proxy.length + res.failures.length + (full.patterns?.length ?? 0);
      const left = res.institutionalOmitted + om.learnings + om.proxy + om.failures + om.patterns;
      const see: SeeMore = task ? { learnings: '`mem context` with the task' } : { learnings: '`mem list --learning-type task`' };
      if (shown + left > 0) md = renderContextMd(full, 'auto', see);
      ids = [...res.learnings, ...res.proxy].map((h) => h.id);
      query = task ?? `session start: ${project}`;
    }
    if (sessionId && ids.length > 0) {
      const { appendRetrieval } = await import('../../vault/sessions.js');
      appendRetrieval(root, sessionId, [{ at: new Date(now).toISOString(), query: query.slice(0, 2000), ids }]);
    }
    if (md !== '') ctx.out(hook.hookOutput(which.event, capped(md)));
  });
  // A hook never fails its agent, whatever the work asked for.
  ctx.setExitCode(0);
}
