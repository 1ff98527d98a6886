// `mem import ai-agents DIR`: the seed-002 predecessor's memory (episode-*.json, and
// causal-graph.json once the pattern notes exist) → notes in this vault.

import path from 'node:path';
import type { Command } from 'commander';
import { globals, vaultFor } from '../common.js';
import { makeCtx, type Ctx } from '../io.js';

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
    .description('the ai-agents (seed 002 predecessor) episodes, episode-*.json, as episode notes')
    .argument('<dir>', 'a folder holding episode-*.json files (searched up to 4 levels down)')
    .option('--dry-run', 'list what would be written, write nothing')
    .addHelpText('after', `
Each episode-<session>.json becomes .mem/episodes/EPISODE-<session>.md (seed 002's migration:
decisions and events also as observations, "migrated_from [[ai-agents episodic memory]]").
Tolerated: decisions given as plain strings, 7-digit fractional seconds, nulls, a UTF-8 BOM.
Importing again changes nothing. A file that cannot be read is reported and the others still
imported; the exit code is then 1.

Examples:
  $ mem import ai-agents ../ai-agents/.agents/memory
  $ mem import ai-agents ./export --dry-run
  $ mem import ai-agents ./export --json | jq '.episodes[] | select(.action == "error")'`)
    .action(async (dir: string, opts: ImportOptions, command: Command) => {
      await importAiAgents(makeCtx(globals(command)), dir, opts);
    });
  for (const c of imp.commands) c.exitOverride();
}

async function importAiAgents(ctx: Ctx, dir: string, opts: ImportOptions): Promise<void> {
  const vault = await vaultFor(ctx);
  const abs = path.resolve(ctx.cwd, dir);
  const { importAiAgentsEpisodes } = await import('../../notes/import-episodes.js');
  const episodes = importAiAgentsEpisodes(vault.root, abs, { dryRun: Boolean(opts.dryRun) });
  // The causal graph (causal-graph.json → pattern notes) plugs in here as one more call.
  const failed = episodes.filter((e) => e.action === 'error');
  if (failed.length > 0) process.exitCode = 1;
  if (ctx.json) {
    ctx.out(JSON.stringify({ dir: abs, dry_run: Boolean(opts.dryRun), episodes }, null, 2));
    return;
  }
  if (episodes.length === 0) ctx.info(`no episode-*.json files in ${dir}`);
  const would = opts.dryRun ? 'would be ' : '';
  for (const e of episodes) {
    if (e.action === 'error') ctx.warn(`${e.file}: ${e.error}; skipped`);
    else ctx.out(`${opts.dryRun && e.action !== 'unchanged' ? `would ${e.action === 'created' ? 'create' : 'update'}` : e.action} ${e.path}  (from ${e.file})`);
    for (const n of e.notes) ctx.info(`  ${e.file}: ${n}`);
  }
  const count = (a: string) => episodes.filter((e) => e.action === a).length;
  ctx.info(`${episodes.length} episode file${episodes.length === 1 ? '' : 's'}: ${count('created')} ${would}created, ${count('updated')} ${would}updated, ${count('unchanged')} unchanged, ${failed.length} failed`);
}
