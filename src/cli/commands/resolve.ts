// `mem resolve [FILE…]`: merge conflicted memory files by entry id, by the merge driver's rules.
// Uses git's index stages when the file is unmerged, else the conflict markers in the file (a
// merge made without the driver: a clone without the config, a web UI). What it cannot resolve
// stays marked and is reported (exit 1); a file it resolves is staged, as after a clean merge.

import type { Command } from 'commander';
import { EXIT_FAIL } from '../../errors.js';

import { commandCtx, type Ctx } from '../io.js';

export function registerResolve(program: Command): void {
  program
    .command('resolve')
    .description('resolve conflicted memory files by entry id (git index stages, or conflict markers)')
    .argument('[files...]', 'files to resolve (default: the memory files git reports as unmerged)')
    .option('--no-stage', 'do not git add the files it resolves')
    .addHelpText('after', `
Entries added on either side are kept, counters both sides moved add up from the base, dates take
the later, a retirement wins; typed notes merge by field and section (a pattern's occurrences add
up, its success rate is recomputed, lists are unioned). An entry whose body was edited on both
sides stays between conflict markers (exit 1): edit it by hand.

Examples:
  $ mem resolve                 # every unmerged file the merge driver covers: MEMORY.md,
                                # institutional.md, proxy*.md, memory/**/*.md, .mem/patterns,
                                # .mem/episodes
  $ mem resolve MEMORY.md       # also a file with markers from a merge made elsewhere`)
    .action(async (files: string[], opts: { stage: boolean }, command: Command) => {
      { const ctx = commandCtx(command); ctx.setExitCode(await resolveCommand(ctx, files, opts.stage)); }
    });
}

async function resolveCommand(ctx: Ctx, args: string[], stage: boolean): Promise<number> {
  const { resolveConflicts } = await import('../../integrations/resolve.js');
  const { resolveRoot } = await import('../../vault/vault.js');
  let root: string | null = null;
  try {
    root = resolveRoot({ root: ctx.root, cwd: ctx.cwd, env: ctx.env });
  } catch {
    // No vault here: the driver's patterns are read from the repository's top.
    root = null;
  }
  const outcomes = resolveConflicts(ctx.cwd, args, stage, root);
  if (outcomes === null) {
    if (ctx.json) ctx.out(JSON.stringify({ files: [] }, null, 2));
    else ctx.info('mem: no unmerged memory files');
    return 0;
  }
  if (ctx.json) ctx.out(JSON.stringify({ files: outcomes }, null, 2));
  else {
    for (const o of outcomes) {
      if (o.resolved && o.source !== 'none') ctx.out(`resolved ${o.path}${o.staged ? ' (staged)' : ''}`);
      else if (o.resolved) ctx.out(`${o.path}: ${o.note}`);
      else if (o.conflicts > 0) {
        const what = o.conflict_ids.length > 0 ? `entr${o.conflict_ids.length === 1 ? 'y' : 'ies'} ${o.conflict_ids.join(', ')} edited on both sides`
          : o.conflict_parts ? `${o.conflict_parts.join(', ')} edited on both sides` : 'the text before the first entry edited on both sides';
        ctx.io.stderr(`mem: ${o.path}: ${what}; left between conflict markers\n`);
      } else ctx.io.stderr(`mem: ${o.path}: ${o.note}\n`);
    }
  }
  return outcomes.every((o) => o.resolved) ? 0 : EXIT_FAIL;
}
