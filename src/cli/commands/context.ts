// `mem context TASK`: a markdown block for an agent's prompt — the norms, always, and the
// learnings that bear on the task.

import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { addFilterOptions, filterFromOptions, vaultFor, type FilterOptions } from '../common.js';
import { commandCtx, parseIntOption, progressFactory, type Ctx } from '../io.js';
import { renderContextMd, renderHookMd } from '../../render/context.js';
import { detailLevel } from '../../episodes/detail.js';

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
    .option('--pattern-chars <n>', 'budget for proven patterns from .mem/patterns/, and again for the patterns to avoid (default 1500 each; 0: none)')
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
budget; see …"; --json: "omitted"). Pattern notes come in two sections of their own, each note
once: "Patterns that have worked here" and "What to avoid here" (ANTIPATTERN notes, and patterns
that mostly failed); they are not repeated among the learnings. A task of more than 64 distinct
words (a pasted log) is searched as \`mem search\` searches it: by its rarest words in memory, or
by the key terms a configured model picks (retrieval.model_terms: false turns that off).

Examples:
  $ mem context "add pagination to the users API"
  $ mem context "fix flaky CI" --task-chars 3000 --session "$SESSION_ID" > .context.md
  $ mem context "release checklist" --json | jq '.learnings[].id'
  $ mem context "finish the deploy script" --conversation "$SESSION_ID"   # only that conversation's memory
  $ mem context - < ci-failure.log                      # a pasted log: its telling words count

The filters of mem search apply to every section; with --conversation, proven patterns (drawn
from many conversations) are left out.

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

async function contextCommand(ctx: Ctx, taskArgs: string[], opts: ContextOptions): Promise<void> {
  let task = taskArgs.join(' ');
  if (task.trim() === '-') task = ctx.readStdin();
  if (task.trim() === '') throw usageError('empty task', 'describe the task: mem context "fix the login redirect"');
  const detail = detailLevel(opts.detail, 'auto');
  const filter = filterFromOptions(opts);
  const sessionId = opts.session ?? ctx.env.MEM_SESSION;
  if (sessionId) (await import('../../vault/sessions.js')).checkSessionId(sessionId);
  const vault = await vaultFor(ctx);
  const { taskContext } = await import('../../services/context.js');
  const { context } = await taskContext(vault, {
    task, filter, rank: opts.rank, detail,
    institutionalChars: parseIntOption('--institutional-chars', opts.institutionalChars),
    taskChars: parseIntOption('--task-chars', opts.taskChars),
    proxyChars: parseIntOption('--proxy-chars', opts.proxyChars),
    patternChars: parseIntOption('--pattern-chars', opts.patternChars),
    failureChars: parseIntOption('--failure-chars', opts.failureChars),
    limit: parseIntOption('--limit', opts.limit, 1),
  }, { env: ctx.env, now: ctx.now(), session: sessionId, refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) });
  if (ctx.json) {
    const { contextJson } = await import('../../render/entries.js');
    ctx.out(JSON.stringify(await contextJson(context, detail), null, 2));
    return;
  }
  ctx.out(renderContextMd(context, detail));
}

// ---- agent hook mode ----

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
    const { openVault } = await import('../../vault/vault.js');
    const vault = await openVault({ root, cwd: root, env: ctx.env });
    const { hookContext } = await import('../../services/context.js');
    const { answer } = await hookContext(vault, {
      mode: which.mode, prompt: p.prompt, session: usableSessionId(p.sessionId), now: ctx.now(), deadline,
      task: which.mode === 'session' && p.transcript ? await hook.firstPrompt(p.transcript) : undefined,
      withIndex: (read) => hook.withHookIndex(vault, read, note, deadline), warn: note,
    });
    if (answer) ctx.out(hook.hookOutput(which.event, renderHookMd(answer)));
  });
  // A hook never fails its agent, whatever the work asked for.
  ctx.setExitCode(0);
}
