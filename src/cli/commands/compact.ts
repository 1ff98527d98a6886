// `mem compact`: keep memory files lean — drop retired entries, one copy per id, merge
// near-duplicates. Safe to run any time; a second run changes nothing.

import type { Command } from 'commander';
import type { FileScan } from '../../lifecycle/compact-scan.js';
import type { ParsedFile } from '../../vault/format.js';
import { usageError } from '../../errors.js';
import type { CompactReport } from '../../lifecycle/compact.js';
import { SCOPES } from '../../vault/scope.js';
import { CHECK_HELP, settleCheck } from '../check.js';
import { vaultFor } from '../common.js';
import { commandCtx, listOption, collect, type Ctx } from '../io.js';

interface CompactOptions {
  scope?: string[];
  dryRun?: boolean;
  check?: boolean;
}

export function registerCompact(program: Command): void {
  program
    .command('compact')
    .description('drop retired entries, de-duplicate ids, merge near-duplicates (Jaccard > 0.8)')
    .argument('[files...]', 'memory files to compact (default: every memory file of the vault)')
    .option('--scope <scope>', `only files of these scopes (${SCOPES.join(', ')})`, collect)
    .option('--dry-run', 'print the plan, write nothing')
    .option('--check', CHECK_HELP)
    .addHelpText('after', `
Merging keeps the higher-importance entry (its id, type, domain, phase, created_at), the longer
body, the larger reinforcement_count and the later last_reinforced; it becomes status: compacted
with compacted_from listing the absorbed ids. Only files of the same scope (and job/task) merge.

When to run it: after extraction (mem extract does it for the files it touched), or weekly.

Examples:
  $ mem compact --dry-run
  $ mem compact --check        # CI: exit 1 when something would be compacted
  $ mem compact MEMORY.md
  $ mem compact --scope project --json`)
    .action(async (files: string[], opts: CompactOptions, command: Command) => {
      await compactCommand(commandCtx(command), files, opts);
    });
}

async function compactCommand(ctx: Ctx, paths: string[], opts: CompactOptions): Promise<void> {
  const scopes = listOption(opts.scope);
  for (const s of scopes ?? []) if (!(SCOPES as readonly string[]).includes(s)) throw usageError(`unknown scope "${s}"`, `use one of: ${SCOPES.join(', ')}`);
  const vault = await vaultFor(ctx);
  const { selectFiles, reindex } = await import('../../lifecycle/vault-ops.js');
  const { Compactor } = await import('../../lifecycle/compact.js');
  const { editFilesInPasses } = await import('../../vault/edit.js');
  const { compactable, scanFile, SCAN_WORKER } = await import('../../lifecycle/compact-scan.js');
  const targets = selectFiles(vault, paths, ctx.cwd).filter((f) => !scopes || scopes.includes(f.scope));
  const groupOf = (f: (typeof targets)[number]) => [f.scope, f.learningType, f.job ?? '', f.task ?? ''].join('|');
  const gc = await garbageCollector();
  const { sketchSharing } = await import('../../lifecycle/sketch-sharing.js');
  const compactor = new Compactor(targets.map((t) => ({ path: t.path, group: groupOf(t) })), gc, sketchSharing(SCAN_WORKER));
  let considered = 0;
  let entries = 0;
  const dry = Boolean(opts.dryRun || opts.check);
  // Every file is read and checked under its lock; a malformed entry anywhere stops the whole run.
  // Notes and legacy files have no entries mem can rewrite: they are left alone. The files are
  // read again pass by pass rather than held: at a million entries the parsed vault alone
  // outgrew the heap.
  // A big vault's first pass is shared with a worker thread, which scans its files as scanFile does here.
  const take = (i: number, scan: FileScan | null) => {
    if (scan === null) return;
    considered++;
    entries += scan.items.length;
    compactor.take(i, scan);
  };
  const summarize = (i: number, parsed: ParsedFile) => (compactable(parsed) ? scanFile(i, parsed) : null);
  const written = await editFilesInPasses(targets, (i, parsed) => take(i, summarize(i, parsed)), (read, text) => compactor.apply(read, text), {
    hint: 'fix it (mem lint shows every problem), then run compact again; nothing was compacted', dryRun: dry, settle: gc,
    offload: {
      script: SCAN_WORKER, summarize, take: (i, scan) => take(i, scan as FileScan | null),
      onFailure: (err) => ctx.warn(`the worker thread reading part of the vault failed (${err instanceof Error ? err.message : String(err)}); going on with one thread`),
    },
  });
  const report: CompactReport = compactor.report;
  const n = report.retired.length + report.duplicates.reduce((s, d) => s + d.dropped.length, 0) + report.merges.reduce((s, m) => s + m.absorbed.length, 0);
  // The compaction's parsed vault is garbage now; collecting it before the index refresh (which
  // holds every changed file's entries) keeps the two from adding up: peak 740 → 525 MB at 100k
  // entries. The entries it changed or removed (each merge's survivor is rewritten) decide
  // between refreshing the index and rebuilding it.
  if (!dry) {
    gc();
    const rowShare = entries > 0 ? (n + report.merges.length) / entries : 1;
    const lag = await reindex(vault, targets.filter((t) => written.includes(t.path)), { mayRebuild: true, rowShare });
    if (lag) ctx.warn(lag);
  }
  const check = settleCheck(ctx, opts.check, n === 0 && written.length === 0);
  if (ctx.json) {
    ctx.out(JSON.stringify({ dry_run: dry, ...check, files: considered, written: dry ? [] : written, ...report }, null, 2));
    return;
  }
  const at = (w: { path: string; line: number }) => `${w.path}:${w.line}`;
  for (const r of report.retired) ctx.out(`drop retired   ${r.id}  ${at(r)}`);
  for (const d of report.duplicates) ctx.out(`duplicate id   ${d.kept.id}  keep ${at(d.kept)}, drop ${d.dropped.map(at).join(', ')}`);
  for (const m of report.merges) {
    ctx.out(`merge          ${m.absorbed.map((a) => `${a.id} (J=${a.jaccard.toFixed(2)}, ${at(a)})`).join(', ')} → ${m.survivor.id} ${at(m.survivor)}`);
  }
  for (const k of report.kept ?? []) {
    ctx.out(`keep apart     ${k.a.id} ${at(k.a)} / ${k.b.id} ${at(k.b)} (J=${k.jaccard.toFixed(2)}, ${k.reason}; mem consolidate decides)`);
  }
  const summary = n === 0 ? `nothing to compact in ${considered} file(s)` : `${dry ? 'would remove' : 'removed'} ${n} entr${n === 1 ? 'y' : 'ies'}${dry ? '' : ` from ${written.length} file(s)`}`;
  ctx.info(dry ? `${opts.check ? 'check' : 'dry run'}: ${summary}` : summary);
}

/**
 * A function that runs a full garbage collection. V8 gives `gc()` to code compiled after
 * --expose-gc is set, so the flag is set at run time (a public API) and the function taken from
 * a fresh context: no second process started with the flag, which a signal sent to mem would not
 * reach.
 */
async function garbageCollector(): Promise<() => void> {
  const [v8, vm] = await Promise.all([import('node:v8'), import('node:vm')]);
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
