// The tools `mem mcp` serves: their input schemas, the descriptions an agent reads to decide when
// to call them, and handlers that call the same domain functions as the CLI's commands.

import { z } from 'zod';
import { usageError } from '../../errors.js';
import { DOMAINS, ENTRY_TYPES, STATUSES } from '../../vault/entry.js';
import { LEARNING_TYPES, SCOPES } from '../../vault/scope.js';
import { argName, filterFromArgs, redactedOutput, toolResult, type FilterArgs } from './results.js';
import { PATTERN_TOOLS } from './pattern-tools.js';
import { EPISODE_TOOLS } from './episode-tools.js';
import type { ToolSpec } from './tool-spec.js';

// Bounds that keep one request from tying the server up; far above what an agent sends.
const MAX_QUERY = 10_000;
const MAX_TEXT = 100_000;
const MAX_IDS = 200;
const MAX_LIMIT = 500;

// Every agent reads these schemas at the start of every session, so a parameter gets a
// description only when its name, type and values do not already say it all. A filter takes one
// value or a list, which its schema shows.
const oneOrMany = <T extends readonly [string, ...string[]]>(values: T) =>
  z.union([z.enum(values), z.array(z.enum(values)).max(20)]).optional();

const filters = {
  type: oneOrMany(ENTRY_TYPES),
  scope: oneOrMany(SCOPES as readonly string[] as [string, ...string[]]),
  domain: oneOrMany(DOMAINS),
  phase: z.union([z.string().max(100), z.array(z.string().max(100)).max(20)]).optional().describe('project phase, e.g. implementation'),
  status: oneOrMany(STATUSES),
  learning_type: oneOrMany(LEARNING_TYPES as readonly string[] as [string, ...string[]]),
  conversation: z.string().max(200).optional().describe('only what this session id recorded'),
};

// Time bounds cost every session's context too: offered where time is the question (recent, list).
const timeFilters = {
  after: z.string().max(40).optional().describe('ISO date or date-time (UTC unless it has an offset): only what happened then or later'),
  before: z.string().max(40).optional().describe('ISO date or date-time: only what happened earlier'),
};

const rank = z.enum(['prominence', 'relevance', 'fsrs']).optional().describe('default prominence: importance, recency, reinforcement');
const sessionId = z.string().max(128).optional().describe('your session id: logs the ids returned, for `mem reinforce --session`');
const detail = z.enum(['auto', 'none', 'full']).optional().describe('episode messages: none (default), auto (top two key moments), full');
const limit = (what: string) => z.number().int().min(1).max(MAX_LIMIT).optional().describe(what);
const chars = (what: string) => z.number().int().min(0).max(1_000_000).optional().describe(what);
const ids = (empty: string) => z.array(z.string().trim().min(1).max(200)).min(1, empty).max(MAX_IDS).describe('entry ids as search returns them, or unique prefixes (4+ characters)');
const dryRun = z.boolean().optional().describe('write nothing, report what would change');

// Items are open objects: their fields are those of the CLI's --json, and an entry's frontmatter
// may hold keys of its own.
const item = z.looseObject({ id: z.string() });
const warnings = z.array(z.string()).optional();

function withWarnings(data: Record<string, unknown>, w: string[]): Record<string, unknown> {
  return w.length > 0 ? { ...data, warnings: w } : data;
}

async function checkedSession(session: string | undefined): Promise<string | undefined> {
  if (session !== undefined) (await import('../../vault/sessions.js')).checkSessionId(session);
  return session;
}

const searchTool: ToolSpec = {
  name: 'search',
  title: 'Search memory',
  description: 'Search this project\'s long-term memory (learnings, norms and corrections from earlier sessions). '
    + 'Use it before work the project may have seen: a failing test, a build step, a convention, an error. '
    + 'Results are background to check against the code. For a task briefing use `context`.',
  inputSchema: {
    query: z.string().trim().min(1, 'query is empty: say what to look for').max(MAX_QUERY).describe('what to look for, in plain words'),
    limit: limit('default 10'),
    max_chars: z.number().int().min(1).max(1_000_000).optional().describe('fit the results into this many characters'),
    ...filters,
    rank,
    session_id: sessionId,
    detail,
  },
  outputSchema: { query: z.string(), results: z.array(item), warnings },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as unknown as { query: string; limit?: number; max_chars?: number; rank?: string; session_id?: string; detail?: 'auto' | 'none' | 'full' } & FilterArgs;
    const filter = filterFromArgs(args);
    if (filter.statuses?.includes('retired')) throw usageError('search never returns retired entries', 'mem list --status retired shows them (or the list tool, which mem mcp --tools all offers)');
    const session = await checkedSession(args.session_id);
    const vault = await env.openVault();
    const detail = args.detail ?? 'none';
    const { searchMemory } = await import('../../services/search.js');
    const { hitJson } = await import('../../render/hits.js');
    const found = await searchMemory(vault, { queries: [{ query: args.query }], filter, limit: args.limit, rank: args.rank, maxChars: args.max_chars, detail },
      { env: env.vars, now: env.now(), session });
    const res = found.answers[0];
    // Episodes carry key_moment (as mem search --json); their messages by the detail level.
    return toolResult(withWarnings({ query: args.query, results: res.results.map((h, rank) => hitJson(h, false, { rank, detail })) }, [...found.warnings, ...res.warnings]));
  },
};

const getTool: ToolSpec = {
  name: 'get',
  title: 'Get one memory entry',
  description: 'Read one memory entry in full as its file has it now: every frontmatter field, file, line, title and body. '
    + 'Use it when a search or context result is cut short or you need its metadata.',
  inputSchema: {
    id: z.string().trim().min(1, 'id is empty: give an entry id from search or context').max(200).describe('entry id or a unique prefix (8 characters usually do, 4 at least)'),
  },
  outputSchema: {
    entry: z.looseObject({ id: z.string(), path: z.string(), line: z.number(), body: z.string() }),
    also_in: z.array(z.string()).optional(),
    warnings,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const { id } = a as { id: string };
    const vault = await env.openVault();
    const { getEntry } = await import('../../services/get.js');
    const { entryRecord } = await import('../../render/entries.js');
    const { found, warnings: w } = await getEntry(vault, id);
    const data: Record<string, unknown> = { entry: entryRecord(found) };
    if (found.rows.length > 1) data.also_in = found.rows.slice(1).map((r) => `${r.path}:${r.line}`);
    return toolResult(withWarnings(data, w));
  },
};

const addTool: ToolSpec = {
  name: 'add',
  title: 'Add a learning',
  description: 'Record one durable learning for later sessions: a fix that worked, a step that must come first, a convention, a correction from the user. '
    + 'One fact per call that stands on its own (what, when it applies, why). Never secrets, one-off task state or what the code already says.',
  inputSchema: {
    text: z.string().trim().min(1, 'text is empty: give the learning in markdown').max(MAX_TEXT).describe('markdown; a leading "# heading" is its title'),
    type: z.enum(ENTRY_TYPES).optional().describe('corrective: a mistake to avoid; directive: a rule; procedural: a how-to (default); declarative: a fact'),
    domain: z.enum(DOMAINS).optional().describe('task: about the work; team: how we work (default)'),
    importance: z.number().min(0).max(1).optional().describe('default 0.5; 0.8+ when forgetting it costs real time'),
    phase: z.string().max(100).optional().describe('project phase, one word'),
    scope: z.enum(SCOPES as readonly string[] as [string, ...string[]]).optional().describe('project (default: this repo), global (every project), session or team (need job; team also task), dispatch (handing work to sub-agents: dispatch.md)'),
    job: z.string().max(100).optional(),
    task: z.string().max(100).optional(),
    institutional: z.boolean().optional().describe('a standing norm, loaded into every context'),
    tags: z.union([z.string().max(1000), z.array(z.string().max(200)).max(50)]).optional().describe('a list or one comma-separated string'),
    title: z.string().max(500).optional().describe('default: the heading or first sentence'),
    session_id: z.string().max(128).optional().describe('the session that produced it'),
  },
  outputSchema: { id: z.string(), path: z.string(), line: z.number().nullable(), scope: z.string(), redacted: redactedOutput, warnings },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(a, env) {
    const args = a as Record<string, unknown> & { text: string; session_id?: string; importance?: number };
    if (args.session_id !== undefined) await checkedSession(args.session_id);
    const req = {
      text: args.text, type: args.type as string | undefined, domain: args.domain as string | undefined, importance: args.importance,
      phase: args.phase as string | undefined, scope: args.scope as string | undefined, job: args.job as string | undefined,
      task: args.task as string | undefined, institutional: args.institutional as boolean | undefined,
      tags: args.tags as string | string[] | undefined, title: args.title as string | undefined, sessionId: args.session_id, date: env.today(),
    };
    const { addLearning } = await import('../../services/add.js');
    const { addedJson } = await import('../../render/entries.js');
    const { added, problems, notes } = await addLearning(req, { vault: () => env.openVault(), name: argName });
    return toolResult(withWarnings(addedJson(added), [...problems, ...notes]));
  },
};

const reinforceTool: ToolSpec = {
  name: 'reinforce',
  title: 'Reinforce useful entries',
  description: 'Say which entries helped: each gains one reinforcement and ranks higher later. '
    + 'Call it once near the end of a task with the ids of the results you used. An unknown id fails the call, writing nothing; retired entries are skipped.',
  inputSchema: {
    ids: ids('ids is empty: give the ids of the entries that helped'),
    dry_run: dryRun,
  },
  outputSchema: {
    dry_run: z.boolean(),
    decisions: z.array(z.looseObject({ id: z.string(), action: z.string() })),
    unknown: z.array(z.string()),
    warnings,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(a, env) {
    const args = a as unknown as { ids: string[]; dry_run?: boolean };
    const vault = await env.openVault();
    const { reinforceEntries } = await import('../../services/reinforce.js');
    const { decisionsJson } = await import('../../render/entries.js');
    const res = await reinforceEntries(vault, args.ids, { today: env.today(), dryRun: args.dry_run });
    return toolResult(withWarnings(decisionsJson(res, { dryRun: args.dry_run }), res.warnings));
  },
};

const contextTool: ToolSpec = {
  name: 'context',
  title: 'Memory briefing for a task',
  description: 'The memory to read before a task, as markdown: the project\'s norms (always) and the learnings from earlier sessions that bear on the task. '
    + 'Call it once at the start of a task. Norms are rules to follow; learnings are background to check against the code.',
  inputSchema: {
    task: z.string().trim().min(1, 'task is empty: describe the task in plain words').max(MAX_QUERY).describe('the task, in plain words'),
    institutional_chars: chars('norms budget (default 4000)'),
    task_chars: chars('learnings budget (default 6000)'),
    proxy_chars: chars('budget for what the user said before (default 2000)'),
    pattern_chars: chars('proven patterns budget, and the same again for patterns to avoid (default 1500)'),
    limit: limit('most learnings (default 12)'),
    ...filters,
    rank,
    session_id: sessionId,
  },
  outputSchema: {
    markdown: z.string(),
    task: z.string(),
    institutional: z.array(item),
    institutional_omitted: z.number(),
    omitted: z.object({ institutional: z.number(), learnings: z.number(), proxy: z.number(), failures: z.number(), patterns: z.number(), antipatterns: z.number().optional() }).optional(),
    learnings: z.array(item),
    proxy: z.array(item),
    patterns: z.array(z.looseObject({ title: z.string() })).optional(),
    antipatterns: z.array(z.looseObject({ title: z.string() })).optional(),
    failures: z.array(z.looseObject({ path: z.string(), task: z.string() })).optional(),
    warnings,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as unknown as { task: string; institutional_chars?: number; task_chars?: number; proxy_chars?: number; pattern_chars?: number; limit?: number; rank?: string; session_id?: string } & FilterArgs;
    const session = await checkedSession(args.session_id);
    const vault = await env.openVault();
    const { taskContext } = await import('../../services/context.js');
    const { renderContextMd } = await import('../../render/context.js');
    const { contextJson } = await import('../../render/entries.js');
    const { context, warnings: w } = await taskContext(vault, {
      task: args.task, filter: filterFromArgs(args), rank: args.rank, limit: args.limit, detail: 'auto',
      institutionalChars: args.institutional_chars, taskChars: args.task_chars, proxyChars: args.proxy_chars, patternChars: args.pattern_chars,
    }, { env: env.vars, now: env.now(), session });
    const markdown = renderContextMd(context);
    return toolResult(withWarnings({ markdown, ...(await contextJson(context)) }, w), markdown);
  },
};

const listTool: ToolSpec = {
  name: 'list',
  title: 'List memory entries',
  description: 'List entries by filter, newest files first, unranked: e.g. every norm (learning_type institutional), '
    + 'correction (type corrective) or thing the user said (learning_type proxy). To find entries about something use search.',
  inputSchema: {
    ...filters,
    ...timeFilters,
    all: z.boolean().optional().describe('include retired entries'),
    limit: limit('default 100'),
  },
  outputSchema: { entries: z.array(item), truncated: z.boolean(), warnings },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as unknown as { all?: boolean; limit?: number } & FilterArgs;
    const vault = await env.openVault();
    const { listMemory } = await import('../../services/list.js');
    const { entryJson } = await import('../../render/entries.js');
    const { rows, truncated, warnings: w } = await listMemory(vault, { filter: filterFromArgs(args), all: args.all, limit: args.limit ?? 100 });
    return toolResult(withWarnings({ entries: rows.map(entryJson), truncated }, w));
  },
};

const reviewTool: ToolSpec = {
  name: 'review',
  title: 'Review entries (FSRS)',
  description: 'Rate how entries held up, for the FSRS schedule behind `rank: fsrs`: again (wrong or useless), hard, good (helped), easy. '
    + 'Updates each entry\'s FSRS state in its file; a second review of an entry within a day is skipped.',
  inputSchema: {
    ids: ids('ids is empty: give the ids of the entries to review'),
    rating: z.enum(['again', 'hard', 'good', 'easy']),
    dry_run: dryRun,
  },
  outputSchema: {
    dry_run: z.boolean(),
    decisions: z.array(z.looseObject({ id: z.string(), action: z.string() })),
    unknown: z.array(z.string()),
    warnings,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(a, env) {
    const args = a as unknown as { ids: string[]; rating: 'again' | 'hard' | 'good' | 'easy'; dry_run?: boolean };
    const vault = await env.openVault();
    const { reviewEntries } = await import('../../services/reinforce.js');
    const { decisionsJson } = await import('../../render/entries.js');
    const res = await reviewEntries(vault, args.ids, { rating: args.rating, now: env.now(), dryRun: args.dry_run });
    return toolResult(withWarnings(decisionsJson(res, { dryRun: args.dry_run }), res.warnings));
  },
};

const recentTool: ToolSpec = {
  name: 'recent',
  title: 'Recent episodes',
  description: 'Episodes of recent sessions, newest first: title, summary, time range and key moments. '
    + 'Use it to pick up where earlier work left off.',
  inputSchema: {
    limit: limit('default 10'),
    days: z.number().int().min(1).max(3650).optional().describe('only the last N days'),
    session: z.string().max(200).optional().describe('only this session id'),
    ...timeFilters,
    detail,
  },
  outputSchema: { episodes: z.array(item), warnings },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as unknown as { limit?: number; days?: number; session?: string; after?: string; before?: string; detail?: 'auto' | 'none' | 'full' };
    const bounds = (await import('../../vault/origin.js')).timeBounds(args.after, args.before, (f) => f);
    const vault = await env.openVault();
    const { recentMemory } = await import('../../services/recent.js');
    const { episodes, warnings: w } = await recentMemory(vault, { limit: args.limit ?? 10, days: args.days, session: args.session, ...bounds, now: env.now(), detail: args.detail });
    return toolResult(withWarnings({ episodes: episodes as unknown as Record<string, unknown>[] }, w));
  },
};

/** Every tool `mem mcp` has. */
export const TOOLS: ToolSpec[] = [searchTool, getTool, addTool, reinforceTool, contextTool, listTool, reviewTool, recentTool, ...EPISODE_TOOLS, ...PATTERN_TOOLS];

/** Which tools the server offers: `core` (the default) or `all`. */
export const TOOL_SETS = ['core', 'all'] as const;
export type ToolSet = (typeof TOOL_SETS)[number];

// An agent reads every offered tool's schema at the start of every session, used or not, so by
// default it gets the memory loop only: a briefing, lookups, recording and reinforcing.
const CORE = new Set(['context', 'search', 'get', 'add', 'reinforce']);

export function toolsOf(set: ToolSet): ToolSpec[] {
  return set === 'all' ? TOOLS : TOOLS.filter((t) => CORE.has(t.name));
}
