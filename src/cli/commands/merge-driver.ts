// `mem merge-driver %O %A %B %P`: git's merge driver for memory files (registered by mem init).
// Merges by entry id (src/integrations/merge.ts), writes the result to %A, exits 1 while a
// conflict remains. Text it cannot merge by entry goes to `git merge-file`, git's own text merge.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EXIT_FAIL, MemError } from '../../errors.js';

import { commandCtx, type Ctx } from '../io.js';
import { gitMergeFile } from '../../integrations/git-merge-file.js';

export function registerMergeDriver(program: Command): void {
  program
    .command('merge-driver')
    .description('git merge driver for memory files: merge by entry id (run by git, set up by mem init)')
    .argument('<base>', '%O: the common ancestor')
    .argument('<current>', '%A: the current version; the result is written here')
    .argument('<other>', '%B: the other branch\'s version')
    .argument('[path]', '%P: the file\'s path in the repository')
    .addHelpText('after', `
Entries added on either side are kept; a counter both sides moved adds up from the base
(reinforcement_count; FSRS reps and lapses, the later review's state kept); dates take the
later; a retirement wins. Typed notes (.mem/patterns, .mem/episodes) merge by field and section:
a pattern's occurrences add up and its success rate is recomputed; evidence, relations,
observations and episode events are unioned. Only a part edited differently on both sides gets
conflict markers (exit 1).

Set up by mem init (and mem hooks install --git); by hand:
  $ git config merge.mem.driver "mem merge-driver %O %A %B %P"
  $ echo "MEMORY.md merge=mem" >> .gitattributes`)
    .action(async (base: string, current: string, other: string, relPath: string | undefined, _opts: unknown, command: Command) => {
      { const ctx = commandCtx(command); ctx.setExitCode(await mergeDriverCommand(ctx, base, current, other, relPath ?? current)); }
    });
}

/** The file as text, or null when it is not UTF-8 text (a binary side is left to git). */
function readText(file: string): string | null {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return '';
    throw new MemError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const text = buf.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buf) ? text : null;
}


async function mergeDriverCommand(ctx: Ctx, baseFile: string, currentFile: string, otherFile: string, relPath: string): Promise<number> {
  const { markRegion } = await import('../../integrations/merge.js');
  const { mergeCoveredFile } = await import('../../integrations/note-merge.js');
  const { writeFileAtomic } = await import('../../vault/write.js');
  const texts = [readText(baseFile), readText(currentFile), readText(otherFile)];
  const shown = relPath.split(path.sep).join('/');
  if (texts.some((t) => t === null)) {
    // Binary: the current side stays in place and git reports the conflict.
    ctx.warn(`${shown}: not UTF-8 text; left for you to merge`);
    return EXIT_FAIL;
  }
  const [base, ours, theirs] = texts as string[];
  let failed = false;
  const result = mergeCoveredFile(base, ours, theirs, shown, {
    textMerge: (b, o, t) => {
      const r = gitMergeFile(b, o, t);
      if (r) return r;
      failed = true;
      return { text: markRegion(o, t), conflicts: 1 };
    },
  });
  if (failed && result.fallback) {
    ctx.warn(`${shown}: ${result.fallback}, and git could not merge it as text; left for you to merge`);
    return EXIT_FAIL;
  }
  if (result.text !== ours) writeFileAtomic(currentFile, result.text);
  if (result.conflicts > 0) {
    const what = result.conflictIds.length > 0 ? `entr${result.conflictIds.length === 1 ? 'y' : 'ies'} ${result.conflictIds.join(', ')} edited on both sides`
      : result.conflictParts ? `${result.conflictParts.join(', ')} edited on both sides` : 'text edited on both sides';
    ctx.warn(`${shown}: ${what}; conflict markers left (resolve them, or run mem resolve)`);
    return EXIT_FAIL;
  }
  return 0;
}
