// `mem import-graph DIR|FILE` (internal; the lead folds it into `mem import ai-agents DIR`): the
// ai-agents causal-graph.json → pattern notes.

import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import { globals, vaultFor } from '../common.js';
import { makeCtx, today } from '../io.js';

export function registerImportGraph(program: Command): void {
  program
    .command('import-graph', { hidden: true })
    .description('import the ai-agents causal-graph.json (a folder holding it, or the file) as pattern notes')
    .argument('<source>', 'the ai-agents memory folder (with causal-graph.json) or the file itself')
    .option('--dry-run', 'say what would be written, write nothing')
    .addHelpText('after', `
Each entry of "patterns" becomes .mem/patterns/PATTERN-<name>.md (trigger, action, description,
success_rate, occurrences, last_used as last_validated); edges from the node labelled with the
pattern's name become its Causal Relationships when they lead to another pattern, and
observations otherwise. A note that exists keeps its text and counts and only gains missing
relationships, so importing again changes nothing.

Examples:
  $ mem import-graph ../ai-agents/.agents/memory/causality
  $ mem import-graph causal-graph.json --dry-run --json`)
    .action(async (source: string, opts: { dryRun?: boolean }, command: Command) => {
      const ctx = makeCtx(globals(command));
      const vault = await vaultFor(ctx);
      const { importAiAgentsGraph } = await import('../../notes/import-graph.js');
      const path = await import('node:path');
      const res = importAiAgentsGraph(vault.root, path.resolve(ctx.cwd, source), { today: today(), dryRun: opts.dryRun });
      if (res.file === null) throw new MemError(`no causal-graph.json in ${source}`);
      if (ctx.json) return ctx.out(JSON.stringify(res, null, 2));
      for (const w of res.warnings) ctx.warn(w);
      const verb = (a: string) => (opts.dryRun ? `would be ${a}` : a);
      for (const n of res.notes) ctx.out(`${verb(n.action).padEnd(18)} ${n.path}${n.relationships ? `  (${n.relationships} causal relationship${n.relationships === 1 ? '' : 's'})` : ''}`);
      const count = (a: string) => res.notes.filter((n) => n.action === a).length;
      ctx.info(`${res.notes.length} pattern${res.notes.length === 1 ? '' : 's'}: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged; ${res.observations} edge${res.observations === 1 ? '' : 's'} to other nodes kept as observations; ${res.other_nodes} other node${res.other_nodes === 1 ? '' : 's'} not imported${opts.dryRun ? ' (dry run: nothing written)' : ''}`);
    });
}
