// `mem import ai-agents DIR`: the memory of the ai-agents project (rjmurillo/ai-agents:
// episode-*.json → episode notes, causal-graph.json → pattern notes) → notes in this vault.

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

export function registerImport(program: Command): void {
  const imp = program
    .command('import')
    .description('import memory kept by another system into this vault')
    .addHelpText('after', `
Examples:
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
  for (const c of imp.commands) c.exitOverride();
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
