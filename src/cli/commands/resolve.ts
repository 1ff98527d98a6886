// `mem resolve [FILE…]`: merge conflicted memory files by entry id, by the merge driver's rules.
// Uses git's index stages when the file is unmerged, else the conflict markers in the file (a
// merge made without the driver: a clone without the config, a web UI). What it cannot resolve
// stays marked and is reported (exit 1); a file it resolves is staged, as after a clean merge.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { EXIT_FAIL, MemError } from '../../errors.js';
import { spawnSync } from '../child-process.js';
import { globals } from '../common.js';
import { makeCtx, type Ctx } from '../io.js';

export function registerResolve(program: Command): void {
  program
    .command('resolve')
    .description('resolve conflicted memory files by entry id (git index stages, or conflict markers)')
    .argument('[files...]', 'files to resolve (default: the memory files git reports as unmerged)')
    .option('--no-stage', 'do not git add the files it resolves')
    .addHelpText('after', `
Entries added on either side are kept, counters and dates take the max, a retirement wins. An entry
whose body was edited on both sides stays between conflict markers (exit 1): edit it by hand.

Examples:
  $ mem resolve                 # every unmerged MEMORY.md / institutional.md / proxy*.md
  $ mem resolve MEMORY.md       # also a file with markers from a merge made elsewhere`)
    .action(async (files: string[], opts: { stage: boolean }, command: Command) => {
      process.exitCode = await resolveCommand(makeCtx(globals(command)), files, opts.stage);
    });
}

interface Outcome {
  path: string;
  resolved: boolean;
  changed: boolean;
  staged: boolean;
  conflicts: number;
  conflict_ids: string[];
  source: 'stages' | 'markers' | 'none';
  note?: string;
}

function git(cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: !r.error && r.status === 0, out: r.stdout ?? '', err: (r.stderr ?? '').trim() };
}

const MEMORY_NAME = /(^|\/)(memory\.md|institutional\.md|proxy[^/]*\.md)$/i;
const HAS_MARKERS = /^(<{7}|>{7})(?: |\r?$)/m;

/** The unmerged paths of the repository, with the stages each has. */
function unmerged(top: string): Map<string, Set<number>> {
  const r = git(top, ['ls-files', '-u', '-z']);
  const out = new Map<string, Set<number>>();
  if (!r.ok) return out;
  for (const rec of r.out.split('\0')) {
    const m = /^\d+ [0-9a-f]+ ([123])\t(.*)$/s.exec(rec);
    if (!m) continue;
    const set = out.get(m[2]) ?? new Set<number>();
    set.add(Number(m[1]));
    out.set(m[2], set);
  }
  return out;
}

async function resolveCommand(ctx: Ctx, args: string[], stage: boolean): Promise<number> {
  const { mergeMemoryFile, splitConflictMarkers, markRegion } = await import('../../integrations/merge.js');
  const { gitMergeFile } = await import('./merge-driver.js');
  const { withFileLock, writeFileAtomic } = await import('../../vault/write.js');
  const topR = git(ctx.cwd, ['rev-parse', '--show-toplevel']);
  const top = topR.ok ? fs.realpathSync(topR.out.trim()) : null;
  const stages = top ? unmerged(top) : new Map<string, Set<number>>();
  let targets: { abs: string; rel: string | null }[];
  if (args.length > 0) {
    targets = args.map((a) => {
      const abs = path.resolve(ctx.cwd, a);
      let real = abs;
      try {
        real = path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
      } catch {
        real = abs;
      }
      const rel = top && (real === top || real.startsWith(top + path.sep)) ? path.relative(top, real).split(path.sep).join('/') : null;
      return { abs, rel };
    });
  } else {
    if (!top) throw new MemError('not in a git repository, and no file named', { exitCode: 2, hint: 'name the files: mem resolve MEMORY.md' });
    targets = [...stages.keys()].filter((p) => MEMORY_NAME.test(p)).map((rel) => ({ abs: path.join(top, rel), rel }));
    if (targets.length === 0) {
      if (ctx.json) ctx.out(JSON.stringify({ files: [] }, null, 2));
      else ctx.info('mem: no unmerged memory files');
      return 0;
    }
  }
  const outcomes: Outcome[] = [];
  for (const t of targets) {
    const shown = t.rel ?? path.relative(ctx.cwd, t.abs);
    const o: Outcome = { path: shown, resolved: false, changed: false, staged: false, conflicts: 0, conflict_ids: [], source: 'none' };
    outcomes.push(o);
    let current: string;
    try {
      current = fs.readFileSync(t.abs, 'utf8');
    } catch (err) {
      o.note = `cannot read it: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
      continue;
    }
    if (!HAS_MARKERS.test(current)) {
      // Already resolved by hand (or never conflicted): never merge over the user's edits.
      o.resolved = true;
      o.note = stages.has(t.rel ?? '') ? 'no conflict markers left; stage it with git add' : 'no conflict markers';
      continue;
    }
    let sides: { base: string; ours: string; theirs: string } | null = null;
    const st = t.rel !== null ? stages.get(t.rel) : undefined;
    if (top && t.rel !== null && st && st.has(2) && st.has(3)) {
      const show = (n: number) => (st.has(n) ? git(top, ['show', `:${n}:${t.rel}`]) : { ok: true, out: '', err: '' });
      const [b, ours, theirs] = [show(1), show(2), show(3)];
      if (b.ok && ours.ok && theirs.ok) {
        sides = { base: b.out, ours: ours.out, theirs: theirs.out };
        o.source = 'stages';
      }
    } else if (st) {
      o.note = 'deleted on one side; resolve it by hand (git rm, or git add)';
      continue;
    }
    if (!sides) {
      const split = splitConflictMarkers(current);
      if (!split) {
        o.note = 'its conflict markers do not pair up; resolve it by hand';
        continue;
      }
      sides = split;
      o.source = 'markers';
    }
    const r = mergeMemoryFile(sides.base, sides.ours, sides.theirs, shown, {
      textMerge: (b, x, y) => gitMergeFile(b, x, y) ?? { text: markRegion(x, y), conflicts: 1 },
    });
    if (r.fallback) {
      o.note = `${r.fallback}; resolve it by hand`;
      continue;
    }
    o.conflicts = r.conflicts;
    o.conflict_ids = r.conflictIds;
    if (r.text !== current) {
      withFileLock(t.abs, () => {
        // Changed since it was read (an editor saving): leave it to the user.
        if (fs.readFileSync(t.abs, 'utf8') !== current) throw new MemError(`${shown} changed while it was resolved; run mem resolve again`);
        writeFileAtomic(t.abs, r.text);
      }, shown);
      o.changed = true;
    }
    o.resolved = r.conflicts === 0;
    if (o.resolved && stage && top && t.rel !== null) {
      const add = git(top, ['add', '--', t.rel]);
      o.staged = add.ok;
      if (!add.ok) o.note = `git add failed: ${add.err}`;
    }
  }
  if (ctx.json) ctx.out(JSON.stringify({ files: outcomes }, null, 2));
  else {
    for (const o of outcomes) {
      if (o.resolved && o.source !== 'none') ctx.out(`resolved ${o.path}${o.staged ? ' (staged)' : ''}`);
      else if (o.resolved) ctx.out(`${o.path}: ${o.note}`);
      else if (o.conflicts > 0) {
        const what = o.conflict_ids.length > 0 ? `entr${o.conflict_ids.length === 1 ? 'y' : 'ies'} ${o.conflict_ids.join(', ')} edited on both sides` : 'the text before the first entry edited on both sides';
        process.stderr.write(`mem: ${o.path}: ${what}; left between conflict markers\n`);
      } else process.stderr.write(`mem: ${o.path}: ${o.note}\n`);
    }
  }
  return outcomes.every((o) => o.resolved) ? 0 : EXIT_FAIL;
}
