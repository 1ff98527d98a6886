// `mem import ai-agents DIR`: the memory of the ai-agents project (rjmurillo/ai-agents:
// episode-*.json → episode notes, causal-graph.json → pattern notes) → notes in this vault.
// `mem import claude-memory` / `codex-memory`: the memory those agents keep outside git → entries.

import path from 'node:path';
import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import type { GraphImportReport } from '../../notes/import-graph.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

/** How many of one file's notes (tolerated quirks) the text output shows. */
const MAX_NOTES_SHOWN = 20;

interface ImportOptions {
  dryRun?: boolean;
}

interface MemoryImportFlags {
  dryRun?: boolean;
  dir?: string;
  scope?: string;
}

export function registerImport(program: Command): void {
  const imp = program
    .command('import')
    .description('import memory kept by another system into this vault')
    .addHelpText('after', `
Examples:
  $ mem import claude-memory
  $ mem import codex-memory --dry-run
  $ mem import ai-agents ../ai-agents/.agents/memory
  $ mem import ai-agents ./old-memory --dry-run --json`);
  imp.command('ai-agents')
    .description('the ai-agents memory (.agents/memory): episode-*.json as episode notes, causal-graph.json as pattern and observation notes')
    .argument('<dir>', 'a folder holding episode-*.json and/or causal-graph.json files (searched up to 4 levels down), or a causal-graph JSON file')
    .option('--dry-run', 'list what would be written, write nothing')
    .addHelpText('after', `
Each episode-<session>.json becomes .mem/episodes/EPISODE-<session>.md (decisions and events
also as observations, "migrated_from [[ai-agents episodic memory]]").
Each causal-graph.json's patterns become .mem/patterns/PATTERN-<name>.md (trigger, action,
success rate, occurrences, last_used as last_validated); its other nodes (outcomes, errors,
decisions, events) become observation notes beside them (OUTCOME-<name>.md, ERROR-<name>.md, …);
every edge is a Causal Relationship of its source's note, so mem pattern path reaches outcomes.
An edge to no node of the graph is kept as an observation line. A note that exists keeps its
text and counts and only gains missing relationships.
Tolerated: decisions given as plain strings, 7-digit fractional seconds, nulls, a UTF-8 BOM.
Importing again changes nothing. A file that cannot be read is reported and the others still
imported; the exit code is then 1.

Examples:
  $ mem import ai-agents ../ai-agents/.agents/memory
  $ mem import ai-agents ./export --dry-run
  $ mem import ai-agents ./export && mem pattern path "Stop old job" "No duplicate invoices"
  $ mem import ai-agents ./export --json | jq '.episodes[] | select(.action == "error")'`)
    .action(async (dir: string, opts: ImportOptions, command: Command) => {
      await importAiAgents(commandCtx(command), dir, opts);
    });
  imp.command('claude-memory')
    .description("Claude Code's auto memory of this project (<config>/projects/<project>/memory/): each topic file one entry")
    .option('--dry-run', 'list what would be written, write nothing')
    .option('--dir <dir>', 'read this memory folder instead of the project\'s (autoMemoryDirectory, a copy from another machine)')
    .option('--scope <scope>', 'put every memory in this scope: project or global (default: user memories global, the rest project)')
    .addHelpText('after', `
Reads the folder Claude Code keeps for this project under $CLAUDE_CONFIG_DIR (default ~/.claude):
projects/<the project's path, each character but a letter or digit as "-">/memory/ (for a git
worktree, its main checkout's folder). Each topic file (MEMORY.md's links and any other .md there)
becomes one entry: its description the title, its text the body; a line of MEMORY.md that is not
a link to a topic file is one entry too. A memory of type "user" (who you are, how you like to
work) goes to your global MEMORY.md ($MEM_HOME), every other one to the project's MEMORY.md.
Entries record source: claude-memory, imported_from (the file, relative to the memory folder),
imported_name and import_hash. Credentials are redacted, and the quality gate and the duplicate
check run as for mem extract. Importing again changes nothing; a memory edited since is updated in
place (its other fields kept); a retired entry is left retired. No link out of the memory folder
is followed; a file that cannot be read is reported (exit code 1) and the others still imported.

Examples:
  $ mem import claude-memory
  $ mem import claude-memory --dry-run
  $ mem import claude-memory --json | jq '.memories[] | select(.action == "created")'
  $ mem import claude-memory --dir ~/backup/claude/memory --scope project`)
    .action(async (opts: MemoryImportFlags, command: Command) => {
      await importAgentMemory(commandCtx(command), 'claude-memory', opts);
    });
  imp.command('codex-memory')
    .description("Codex's memories ($CODEX_HOME/memories/): this project's task groups of MEMORY.md, and the user preferences of memory_summary.md")
    .option('--dry-run', 'list what would be written, write nothing')
    .option('--dir <dir>', 'read this memories folder instead of $CODEX_HOME/memories')
    .option('--scope <scope>', 'put every memory in this scope: project or global (default: memory_summary.md global, MEMORY.md project)')
    .addHelpText('after', `
Codex keeps one memories folder for every project ($CODEX_HOME, default ~/.codex). Of MEMORY.md,
the task groups whose cwd= is this project (or a folder inside it) are read: each bullet of their
"User preferences" (directive), "Reusable knowledge" (procedural) and "Failures and how to do
differently" (corrective) sections becomes a project entry. Of memory_summary.md, the "User
Profile" (one entry) and the bullets of "User preferences" and "General Tips" go to your global
MEMORY.md. Rollout summaries, raw_memories.md and skills/ are not read. Entries record source:
codex-memory, imported_from, imported_name (the task group) and import_hash; redaction, the
quality gate, the duplicate check and re-importing work as for claude-memory.

Examples:
  $ mem import codex-memory
  $ mem import codex-memory --dry-run --json
  $ CODEX_HOME=/srv/codex mem import codex-memory --scope project`)
    .action(async (opts: MemoryImportFlags, command: Command) => {
      await importAgentMemory(commandCtx(command), 'codex-memory', opts);
    });
  for (const c of imp.commands) c.exitOverride();
}

async function importAgentMemory(ctx: Ctx, source: 'claude-memory' | 'codex-memory', opts: MemoryImportFlags): Promise<void> {
  const scope = opts.scope?.toLowerCase();
  if (scope !== undefined && scope !== 'project' && scope !== 'global') throw usageError(`--scope must be project or global (got "${opts.scope}")`);
  const vault = await vaultFor(ctx);
  const agent = await import('../../extract/agent-memory.js');
  const { userHome } = await import('../../vault/vault.js');
  const home = userHome(ctx.env);
  const label = source === 'claude-memory' ? "Claude Code's memory" : "Codex's memories";
  let found: { dir: string | null; searched: string[] };
  if (opts.dir !== undefined) {
    const abs = path.resolve(ctx.cwd, opts.dir);
    const fs = await import('node:fs');
    if (!fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory()) throw usageError(`${opts.dir}: no such folder`, `give the folder that holds ${source === 'claude-memory' ? 'MEMORY.md and the topic files' : 'MEMORY.md and memory_summary.md'}`);
    found = { dir: abs, searched: [abs] };
  } else found = source === 'claude-memory' ? agent.claudeMemoryDir(vault.root, ctx.env, home) : agent.codexMemoryDir(ctx.env, home);
  const dryRun = Boolean(opts.dryRun);
  const shape = (rest: object) => JSON.stringify({ source, dir: found.dir, searched: found.searched, dry_run: dryRun, ...rest }, null, 2);
  if (!found.dir) {
    if (ctx.json) ctx.out(shape({ memories: [], problems: [], left: [] }));
    else ctx.info(`no ${label} ${source === 'claude-memory' ? 'for this project' : 'folder'}: looked in ${found.searched.join(', ')}`
      + `${source === 'claude-memory' ? ' (set CLAUDE_CONFIG_DIR, or give --dir)' : ' (set CODEX_HOME, or give --dir; Codex writes memories only with [features] memories = true)'}`);
    return;
  }
  const dir = found.dir;
  if (!ctx.json) ctx.info(`reading ${label} in ${dir}`);
  const read = source === 'claude-memory' ? agent.readClaudeMemory(dir) : agent.readCodexMemory(dir, vault.root, home);
  for (const p of read.problems) ctx.warn(`${path.join(dir, p.file)}: ${p.error}; skipped`);
  if (read.problems.length > 0) ctx.setExitCode(1);
  const { importMemories } = await import('../../extract/import-memory.js');
  // Claude Code's folder is the project's: its name tells one project's memories from another's.
  const folderId = source === 'claude-memory' ? path.basename(path.dirname(dir)) : '';
  const report = await importMemories(vault, read.memories, { dryRun, today: ctx.today(), scope: scope as 'project' | 'global' | undefined, folderId });
  if (report.redacted) {
    const { describeRedaction } = await import('../../secrets/redact.js');
    ctx.warn(describeRedaction(report.redacted));
  }
  const count = (a: string) => report.memories.filter((m) => m.action === a).length;
  if (ctx.json) {
    ctx.out(shape({
      memories: report.memories,
      counts: { created: count('created'), updated: count('updated'), unchanged: count('unchanged'), duplicate: count('duplicate'), rejected: count('rejected'), failed: read.problems.length },
      problems: read.problems, left: read.left, ...(report.redacted && { redacted: report.redacted }),
    }));
    return;
  }
  if (read.memories.length === 0 && read.problems.length === 0) {
    const other = read.left.length ? `; ${read.left.length} part${read.left.length === 1 ? '' : 's'} left out (${[...new Set(read.left.map((l) => l.why))].join(', ')})` : '';
    ctx.info(`no memories for this project in ${dir}${other}`);
    return;
  }
  for (const m of report.memories) {
    const from = `(from ${m.file}${m.name && m.file !== m.name ? `, ${m.name}` : ''})`;
    if (m.action === 'created' || m.action === 'updated') {
      ctx.out(`${dryRun ? `would ${m.action === 'created' ? 'create' : 'update'}` : m.action} ${m.target}: ${m.title}  ${from}`);
    } else if (m.action === 'duplicate' || m.action === 'rejected') {
      ctx.info(`not imported: ${m.title}  ${from}: ${m.reason}`);
    }
  }
  const would = dryRun ? 'would be ' : '';
  const n = report.memories.length;
  const left = read.left.length ? `; ${read.left.length} part${read.left.length === 1 ? '' : 's'} of the folder not this project's or empty (--json lists them)` : '';
  ctx.info(`${n} memor${n === 1 ? 'y' : 'ies'}: ${count('created')} ${would}created, ${count('updated')} ${would}updated, ${count('unchanged')} unchanged, ${count('duplicate')} duplicate, ${count('rejected')} rejected by the quality gate${read.problems.length ? `, ${read.problems.length} file${read.problems.length === 1 ? '' : 's'} unreadable` : ''}${left}`);
}

async function importAiAgents(ctx: Ctx, dir: string, opts: ImportOptions): Promise<void> {
  const vault = await vaultFor(ctx);
  const abs = path.resolve(ctx.cwd, dir);
  const { importAiAgentsEpisodes } = await import('../../notes/import-episodes.js');
  const fs = await import('node:fs');
  const st = fs.statSync(abs, { throwIfNoEntry: false });
  const isFile = st?.isFile() === true;
  if (!isFile && !st?.isDirectory()) {
    const { specialKind } = await import('../../vault/read.js');
    throw usageError(st ? `${dir} is not a regular file (${specialKind(st)}); mem reads only regular files` : `${dir}: no such folder`, 'give the ai-agents memory folder (holding episode-*.json and causal-graph.json)');
  }
  // A file: a causal graph given by its path (an episode file is imported with its folder).
  if (isFile && /^episode-.*\.json$/i.test(path.basename(abs))) throw usageError(`${dir} is an episode file`, 'give the folder that holds the episode-*.json files');
  const episodes = isFile ? [] : await importAiAgentsEpisodes(vault.root, abs, { dryRun: Boolean(opts.dryRun) });
  const { filesUnder } = await import('../../notes/import-episodes.js');
  const { importAiAgentsGraph } = await import('../../notes/import-graph.js');
  const graphs: (GraphImportReport | { file: string; error: string })[] = [];
  for (const file of isFile ? [abs] : filesUnder(abs, /^causal-graph\.json$/i).map((rel) => path.join(abs, rel))) {
    const display = path.relative(ctx.cwd, file) || file;
    try {
      graphs.push(await importAiAgentsGraph(vault.root, file, { today: ctx.today(), dryRun: Boolean(opts.dryRun), display }));
    } catch (err) {
      if (!(err instanceof MemError)) throw err;
      graphs.push({ file: display, error: err.message });
    }
  }
  const failed = episodes.filter((e) => e.action === 'error');
  const badGraphs = graphs.filter((g): g is { file: string; error: string } => 'error' in g);
  if (failed.length + badGraphs.length > 0) ctx.setExitCode(1);
  const redactions = [...episodes, ...graphs].flatMap((r) => ('redacted' in r && r.redacted ? [r.redacted] : []));
  if (redactions.length > 0) {
    const { describeRedaction } = await import('../../secrets/redact.js');
    ctx.warn(describeRedaction({ count: redactions.reduce((n, r) => n + r.count, 0), kinds: [...new Set(redactions.flatMap((r) => r.kinds))].sort() }));
  }
  if (ctx.json) {
    ctx.out(JSON.stringify({ dir: abs, dry_run: Boolean(opts.dryRun), episodes, graphs }, null, 2));
    return;
  }
  if (episodes.length === 0 && graphs.length === 0) ctx.info(`no episode-*.json or causal-graph.json files in ${dir}`);
  const would = opts.dryRun ? 'would be ' : '';
  for (const e of episodes) {
    if (e.action === 'error') ctx.warn(`${e.file}: ${e.error}; skipped`);
    else ctx.out(`${opts.dryRun && e.action !== 'unchanged' ? `would ${e.action === 'created' ? 'create' : 'update'}` : e.action} ${e.path}  (from ${e.file})`);
    // A file with thousands of tolerated quirks says so in a few lines; --json has them all.
    for (const n of e.notes.slice(0, MAX_NOTES_SHOWN)) ctx.info(`  ${e.file}: ${n}`);
    if (e.notes.length > MAX_NOTES_SHOWN) ctx.info(`  ${e.file}: … ${e.notes.length - MAX_NOTES_SHOWN} more such notes (--json lists them all)`);
  }
  const count = (a: string) => episodes.filter((e) => e.action === a).length;
  if (episodes.length > 0) ctx.info(`${episodes.length} episode file${episodes.length === 1 ? '' : 's'}: ${count('created')} ${would}created, ${count('updated')} ${would}updated, ${count('unchanged')} unchanged, ${failed.length} failed`);
  for (const g of graphs) {
    if ('error' in g) {
      ctx.warn(`${g.error}; skipped`);
      continue;
    }
    for (const w of g.warnings) ctx.warn(w);
    for (const n of [...g.notes, ...g.other_notes]) {
      const verb = opts.dryRun && n.action !== 'unchanged' ? `would ${n.action === 'created' ? 'create' : 'update'}` : n.action;
      ctx.out(`${verb} ${n.path}  (from ${path.relative(abs, g.file ?? '') || g.file}${n.relationships ? `; ${n.relationships} causal relationship${n.relationships === 1 ? '' : 's'}` : ''})`);
    }
    const tally = (list: typeof g.notes) => {
      const c = (a: string) => list.filter((n) => n.action === a).length;
      return `${c('created')} ${would}created, ${c('updated')} ${would}updated, ${c('unchanged')} unchanged`;
    };
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
    ctx.info(`${plural(g.notes.length, 'pattern')}: ${tally(g.notes)}${g.other_notes.length ? `; ${plural(g.other_notes.length, 'other node')} (outcomes, errors, decisions, events): ${tally(g.other_notes)}` : ''}`
      + `${g.observations ? `; ${plural(g.observations, 'edge')} to no node kept as observation text` : ''}${g.other_nodes ? `; ${plural(g.other_nodes, 'node')} without a label not imported` : ''}`);
  }
}
