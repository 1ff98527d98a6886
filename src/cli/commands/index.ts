// `mem index`: bring `.memory.db` up to date (incremental), or rebuild it from scratch.

import type { Command } from 'commander';
import { globals, printDiagnostics, printIndexNotes, vaultFor } from '../common.js';
import { makeCtx, progressFactory, type Ctx } from '../io.js';

export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('update the search index .memory.db from the markdown (only what changed)')
    .option('--rebuild', 'build a new index from scratch and swap it in')
    .addHelpText('after', `
The index is derived: deleting .memory.db loses nothing. mem search refreshes it on its own;
run this from git hooks or after large edits.

Examples:
  $ mem index
  $ mem index --rebuild --quiet
  $ mem index --json`)
    .action(async (opts: { rebuild?: boolean }, command: Command) => {
      await indexCommand(makeCtx(globals(command)), opts);
    });
}

async function indexCommand(ctx: Ctx, opts: { rebuild?: boolean }): Promise<void> {
  const vault = await vaultFor(ctx);
  const { rebuildIndex, countEntries } = await import('../../index/indexer.js');
  const progress = progressFactory(ctx);
  let report;
  if (opts.rebuild) {
    report = await rebuildIndex(vault, progress);
    printDiagnostics(ctx, report.diagnostics);
  } else {
    const { withIndex } = await import('../../index/open.js');
    report = await withIndex(vault, { refresh: true, verify: true, progressFor: progress }, (ix) => {
      printIndexNotes(ctx, ix);
      const r = ix.report!;
      return { ...r, entries: countEntries(ix.db) };
    });
  }
  // Links out of the vault and folders that cannot be listed, skipped by the walk: said once.
  for (const n of (await import('../../vault/vault.js')).skipNotices(vault)) ctx.warn(n);
  if (ctx.json) {
    ctx.out(JSON.stringify({
      files: report.files, changed: report.changed, removed: report.removed, entries: report.entries, ms: report.ms,
      check_ms: report.checkMs ?? null,
      rebuilt: Boolean(opts.rebuild), warnings: report.diagnostics.map((d) => ({ file: d.file, line: d.line ?? null, message: d.message })),
    }, null, 2));
    return;
  }
  if (ctx.quiet) return;
  const what = opts.rebuild ? 'rebuilt' : report.changed + report.removed === 0 ? 'up to date' : 'updated';
  const check = report.checkMs !== undefined ? ` (check ${report.checkMs} ms)` : '';
  ctx.out(`index ${what}: ${report.files} files (${report.changed} changed, ${report.removed} removed), ${report.entries} entries, ${report.ms} ms${check}`);
}
