// `mem episode add|list|decisions|timeline`: store_episode, query_episodes and get_decision_sequence
// (as the MCP tools), and a session's segments drawn in time order over the vault's episode notes (.mem/episodes/EPISODE-<session>.md).

import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import { vaultFor } from '../common.js';
import { commandCtx, collect, type Ctx, parseIntOption } from '../io.js';

interface AddOptions {
  session?: string;
  task?: string;
  outcome?: string;
  lesson?: string[];
  decision?: string[];
  event?: string[];
  metrics?: string;
  context?: string;
  project?: string;
  dryRun?: boolean;
}

interface ListOptions {
  outcome?: string;
  task?: string;
  since?: string;
  limit?: string;
  project?: string;
}

export function registerEpisode(program: Command): void {
  const ep = program
    .command('episode')
    .description('episode notes: one note per session with its outcome, decisions, events and lessons')
    .addHelpText('after', `
Episode notes live in .mem/episodes/EPISODE-<session>.md; mem search and mem context find them
(--kind episode, --outcome failure). mem extract writes one per session.

Examples:
  $ mem episode add --session s42 --task "fix the login test" --outcome success --lesson "retry with backoff"
  $ mem episode list --outcome failure --since 2026-01-01
  $ mem episode decisions s42 --json
  $ mem episode timeline s42 --md`);

  ep.command('add')
    .description('write (or update) a session\'s episode note: store_episode JSON on stdin, or flags')
    .option('--session <id>', 'session id (names the note EPISODE-<id>)')
    .option('--task <text>', 'what the session set out to do')
    .option('--outcome <o>', 'success, partial or failure')
    .option('--lesson <text>', 'a lesson learned (repeatable)', collect)
    .option('--decision <json>', 'a decision as JSON {id, timestamp, type, context, options, chosen, rationale, outcome, effects} (repeatable)', collect)
    .option('--event <json>', 'an event as JSON {id, timestamp, type, content} (repeatable)', collect)
    .option('--metrics <json>', 'metrics as JSON {duration_minutes, tool_calls, errors, recoveries, commits, files_changed}')
    .option('--context <text>', 'the note\'s Context section')
    .option('--project <name>', 'the project the session worked on')
    .option('--dry-run', 'say what would be written, write nothing')
    .addHelpText('after', `
With no --session/--task/--outcome, the store_episode JSON is read from stdin:
  {"session_id", "task", "outcome", "decisions": [...], "events": [...], "lessons": [...],
   "metrics": {...}, "project"} (+ mem's optional "context", "observations", "relations", "tags", "created_at").
Adding the same session again replaces the frontmatter keys and the six sections mem writes
(Context, Observations, Decisions, Events Timeline, Lessons Learned, Relations) and keeps every
other byte (other keys, sections you added). The same input twice changes nothing.

Examples:
  $ mem episode add --session s42 --task "fix the login test" --outcome partial \\
      --lesson "the test needs a fake clock" \\
      --decision '{"id":"d001","timestamp":"2026-01-21T10:05:00Z","type":"test","context":"dates drift","chosen":"fake timers","outcome":"success"}'
  $ echo '{"session_id":"s43","task":"upgrade node","outcome":"failure","lessons":["pin the npm version"]}' | mem episode add
  $ mem episode add --json < episode.json`)
    .action(async (opts: AddOptions, command: Command) => {
      await addCommand(commandCtx(command), opts);
    });

  ep.command('list')
    .description('list episode notes, newest first')
    .option('--outcome <o>', 'only success, partial or failure')
    .option('--task <text>', 'only tasks containing this text (case-insensitive)')
    .option('--since <date>', 'only episodes that started on or after this ISO date/time')
    .option('--project <name>', 'only episodes of this project')
    .option('-n, --limit <n>', 'at most this many (default 20, max 100)')
    .addHelpText('after', `
Examples:
  $ mem episode list
  $ mem episode list --outcome failure --since 2026-01-01
  $ mem episode list --task login --json | jq '.episodes[].session_id'`)
    .action(async (opts: ListOptions, command: Command) => {
      await listCommand(commandCtx(command), opts);
    });

  ep.command('decisions')
    .description('the decisions of one episode, sorted by timestamp')
    .argument('<id>', 'the session id, EPISODE-… note name, or permalink (episodes/episode-…)')
    .addHelpText('after', `
Examples:
  $ mem episode decisions s42
  $ mem episode decisions EPISODE-s42 --json | jq '.decisions[].chosen'`)
    .action(async (id: string, _opts: unknown, command: Command) => {
      await decisionsCommand(commandCtx(command), id);
    });
  ep.command('timeline')
    .description('a session\'s episodes (from mem segment) in time order: a mermaid gantt chart (GitHub renders it) or lines')
    .argument('[session]', 'the session id (or its EPISODE-… note name); default: the session of the newest episode')
    .option('--format <format>', 'mermaid (default) or text')
    .option('--md', 'wrap the chart in a ```mermaid fenced block to paste into markdown')
    .option('--no-refresh', 'do not bring the index up to date first')
    .addHelpText('after', `
One bar per episode from its start_at to its end_at, in UTC, titled with the episode's title
(cut at a word after 60 characters); key moments (surprise >= 0.7) are marked crit (red), an
episode with no duration is a milestone. Episodes without a start time are left out and counted
on stderr. --json gives the session and its episodes, oldest first.

Examples:
  $ mem episode timeline --md >> notes/session.md
  $ mem episode timeline 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10
  $ mem episode timeline s42 --format text`)
    .action(async (session: string | undefined, opts: { format?: string; md?: boolean; refresh?: boolean }, command: Command) => {
      await timelineCommand(commandCtx(command), session, opts);
    });
  for (const c of ep.commands) c.exitOverride();
}

function jsonFlag(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw usageError(`${name} is not valid JSON: ${(err as Error).message}`);
  }
}

const OUTCOME_CHOICES = ['success', 'partial', 'failure'];

function outcomeOption(v: string | undefined): 'success' | 'partial' | 'failure' | undefined {
  if (v === undefined) return undefined;
  const o = v.trim().toLowerCase();
  if (!OUTCOME_CHOICES.includes(o)) throw usageError(`unknown --outcome "${v}"`, `use one of: ${OUTCOME_CHOICES.join(', ')}`);
  return o as 'success' | 'partial' | 'failure';
}

async function addCommand(ctx: Ctx, opts: AddOptions): Promise<void> {
  const byFlags = opts.session !== undefined || opts.task !== undefined || opts.outcome !== undefined;
  let input: unknown;
  if (byFlags) {
    const missing = [['--session', opts.session], ['--task', opts.task], ['--outcome', opts.outcome]].filter(([, v]) => v === undefined).map(([n]) => n);
    if (missing.length > 0) throw usageError(`missing ${missing.join(', ')}`, 'give --session, --task and --outcome, or the store_episode JSON on stdin');
    input = {
      session_id: opts.session, task: opts.task, outcome: opts.outcome,
      ...(opts.lesson && { lessons: opts.lesson }),
      ...(opts.decision && { decisions: opts.decision.map((d) => jsonFlag('--decision', d)) }),
      ...(opts.event && { events: opts.event.map((e) => jsonFlag('--event', e)) }),
      ...(opts.metrics !== undefined && { metrics: jsonFlag('--metrics', opts.metrics) }),
      ...(opts.context !== undefined && { context: opts.context }),
      ...(opts.project !== undefined && { project: opts.project }),
    };
  } else {
    if (ctx.stdinIsTerminal()) throw usageError('no episode given', 'pipe the store_episode JSON on stdin, or use --session, --task and --outcome');
    const raw = ctx.readStdin().replace(/^\ufeff/, '');
    if (raw.trim() === '') throw usageError('no episode given: stdin is empty', 'pipe the store_episode JSON on stdin, or use --session, --task and --outcome');
    try {
      input = JSON.parse(raw);
    } catch (err) {
      throw new MemError(`invalid episode: stdin is not valid JSON (${(err as Error).message})`);
    }
  }
  const vault = await vaultFor(ctx);
  const { addEpisode } = await import('../../notes/episodes.js');
  const res = await addEpisode(vault.root, input, { now: new Date(ctx.now()).toISOString(), dryRun: Boolean(opts.dryRun) });
  if (res.redacted) ctx.warn((await import('../../secrets/redact.js')).describeRedaction(res.redacted));
  if (ctx.json) {
    ctx.out(JSON.stringify(res, null, 2));
    return;
  }
  const verb = opts.dryRun ? (res.changed ? (res.created ? 'would create' : 'would update') : 'unchanged:') : res.changed ? (res.created ? 'created' : 'updated') : 'unchanged:';
  ctx.out(`${verb} ${res.path} (${res.permalink})`);
}

async function listCommand(ctx: Ctx, opts: ListOptions): Promise<void> {
  const limit = parseIntOption('--limit', opts.limit, 1);
  if (limit !== undefined && limit > 100) throw usageError(`--limit must be at most 100 (got ${limit})`);
  const vault = await vaultFor(ctx);
  const { queryEpisodes } = await import('../../notes/episodes.js');
  const episodes = queryEpisodes(vault.root, { outcome: outcomeOption(opts.outcome), task: opts.task, since: opts.since, project: opts.project, limit });
  await (await import('../unreadable-notes.js')).warnUnreadable(ctx, vault.root, '.mem/episodes');
  if (ctx.json) {
    ctx.out(JSON.stringify({ episodes }, null, 2));
    return;
  }
  if (episodes.length === 0) {
    ctx.info('no episode notes (mem episode add or mem extract writes them)');
    return;
  }
  const { oneLine } = await import('../../quote.js');
  for (const e of episodes) {
    const m = e.metrics;
    const figures = [m.tool_calls !== undefined && `${m.tool_calls} tool calls`, m.errors !== undefined && `${m.errors} errors`, e.decisions > 0 && `${e.decisions} decisions`]
      .filter(Boolean).join(', ');
    const segs = e.segments.length > 0 ? `  segments: ${e.segments.length} (mem recent --session ${oneLine(e.session_id)})` : '';
    ctx.out(`${oneLine(e.created_at ?? '').slice(0, 16).padEnd(16)}  ${oneLine(e.outcome).padEnd(7)}  ${oneLine(e.task).slice(0, 80)}  ${oneLine(e.title)}${figures ? `  [${figures}]` : ''}${segs}`);
  }
}

async function decisionsCommand(ctx: Ctx, id: string): Promise<void> {
  const vault = await vaultFor(ctx);
  const { decisionSequence } = await import('../../notes/episodes.js');
  const res = decisionSequence(vault.root, id);
  if (ctx.json) {
    ctx.out(JSON.stringify({ episode: res.episode.title, permalink: res.episode.permalink, path: res.episode.path, decisions: res.decisions }, null, 2));
    return;
  }
  const { oneLine } = await import('../../quote.js');
  if (res.decisions.length === 0) {
    ctx.info(`${oneLine(res.episode.title)}: no decisions recorded`);
    return;
  }
  for (const d of res.decisions) {
    ctx.out(`${oneLine(d.timestamp)}  ${oneLine(d.id)}  ${oneLine(d.type).padEnd(14)}  ${oneLine(d.title)}`);
    ctx.out(`    chosen: ${oneLine(d.chosen)}${d.options.length > 0 ? `  (options: ${d.options.map(oneLine).join(' | ')})` : ''}`);
    if (d.rationale) ctx.out(`    why: ${oneLine(d.rationale)}`);
    ctx.out(`    outcome: ${oneLine(d.outcome)}${d.effects.length > 0 ? `  effects: ${oneLine(d.effects.join(', '))}` : ''}`);
  }
}

async function timelineCommand(ctx: Ctx, session: string | undefined, opts: { format?: string; md?: boolean; refresh?: boolean }): Promise<void> {
  const format = (opts.format ?? 'mermaid').trim().toLowerCase();
  if (format !== 'mermaid' && format !== 'text') throw usageError(`--format must be mermaid or text (got "${opts.format}")`);
  if (opts.md && format !== 'mermaid') throw usageError('--md wraps the mermaid chart; leave out --format text');
  // The note's name names its session, as `mem episode decisions` takes it.
  const id = session?.trim().replace(/^EPISODE-/i, '');
  if (id === '') throw usageError('empty session id');
  const vault = await vaultFor(ctx);
  const { timelineMemory } = await import('../../services/recent.js');
  const { progressFactory } = await import('../io.js');
  const { timeline } = await timelineMemory(vault, { session: id, now: ctx.now() }, { refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) });
  if (timeline === null) {
    if (id !== undefined) {
      const { shownLine } = await import('../../vault/safetext.js');
      throw new MemError(`no episodes of session "${shownLine(id)}"`, { hint: 'mem recent lists the newest episodes and their sessions' });
    }
    if (ctx.json) return ctx.out(JSON.stringify({ session: null, episodes: [], undated: 0 }, null, 2));
    ctx.info('no episodes (mem segment TRANSCRIPT writes them)');
    return;
  }
  if (timeline.undated > 0) ctx.info(`${timeline.undated} episode${timeline.undated === 1 ? '' : 's'} without a start time left out`);
  if (ctx.json) return ctx.out(JSON.stringify(timeline, null, 2));
  if (format === 'text') {
    const { timeRange } = await import('./segment.js');
    const { oneLine } = await import('../../quote.js');
    for (const e of timeline.episodes) ctx.out(`${e.key_moment ? '\u2605' : ' '} ${timeRange(e.start_at, e.end_at)}  ${oneLine(e.title)}  ${e.id}`);
    return;
  }
  const { mermaidGantt, fenced } = await import('../../render/mermaid.js');
  const chart = mermaidGantt(timeline);
  ctx.out(opts.md ? fenced('mermaid', chart) : chart);
}
