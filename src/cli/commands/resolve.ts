// `mem resolve [FILE…]`: merge conflicted memory files by entry id, by the merge driver's rules.
// Uses git's index stages when the file is unmerged, else the conflict markers in the file (a
// merge made without the driver: a clone without the config, a web UI). What it cannot resolve
// stays marked and is reported (exit 1), and so is a file one side deleted or the user edited
// since the merge; a file it resolves is staged, as after a clean merge.

import type { Command } from 'commander';
import { EXIT_FAIL } from '../../errors.js';
import { oneLine } from '../../quote.js';

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
sides stays between conflict markers (exit 1), named with its title: edit the file by hand, keep
one version of each such entry (or write the two as one), delete the marker lines, then run
mem lint and git add the file. A file one side deleted and the other changed is left for you to
keep (git add) or delete (git rm); a file edited since the merge stopped is not merged over (both
exit 1, nothing staged).

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
  const { resolveConflicts, handResolution } = await import('../../integrations/resolve.js');
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
        const named = o.conflict_ids.map((id, i) => (o.conflict_titles?.[i] ? `${id} "${shortTitle(o.conflict_titles[i])}"` : id));
        const what = named.length > 0 ? `entr${named.length === 1 ? 'y' : 'ies'} ${named.join(', ')} edited on both sides`
          : o.conflict_parts ? `${o.conflict_parts.join(', ')} edited on both sides` : 'the text before the first entry edited on both sides';
        ctx.io.stderr(`mem: ${o.path}: ${what}; left between conflict markers\n`);
      } else {
        ctx.io.stderr(`mem: ${o.path}: ${o.note}\n`);
        if (o.hint) ctx.io.stderr(`hint: ${o.hint}\n`);
      }
    }
    const todo = handResolution(outcomes);
    if (todo) ctx.io.stderr(`hint: ${todo}\n`);
  }
  return outcomes.every((o) => o.resolved) ? 0 : EXIT_FAIL;
}

/** A title on the one line that names the entry: a long one (a first sentence) is cut. */
function shortTitle(title: string): string {
  const chars = [...oneLine(title)];
  return chars.length > 60 ? `${chars.slice(0, 59).join('')}…` : chars.join('');
}
