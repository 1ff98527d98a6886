// `mem index`: bring `.memory.db` up to date (incremental), or rebuild it from scratch.

import type { Command } from 'commander';
import { printDiagnostics, printIndexNotes, vaultFor } from '../common.js';
import { commandCtx, progressFactory, type Ctx } from '../io.js';
import { MemError, usageError } from '../../errors.js';
import type { Db } from '../../index/db.js';
import type { EmbedReport } from '../../embeddings/fill.js';

export function registerIndex(program: Command): void {
  program
    .command('index')
    .description('update the search index .memory.db from the markdown (only what changed)')
    .option('--rebuild', 'build a new index from scratch and swap it in')
    .option('--embed', 'embed the entries that have no vector yet (needs embeddings: in .mem/config.yaml or MEM_EMBED_MODEL)')
    .addHelpText('after', `
The index is derived: deleting .memory.db loses nothing. mem search refreshes it on its own;
run this from git hooks or after large edits.

With embeddings configured (embeddings: in .mem/config.yaml, or MEM_EMBED_MODEL and
MEM_EMBED_BASE_URL), mem index also embeds new and changed entries; vectors are cached by
content, so renames and rebuilds cost no request. --embed does the same but fails (exit 1)
when the endpoint cannot be reached, instead of warning. It also keeps .memory.db-vec, an int8
copy of the vectors that mem search scans (derived too: without it, search scans the exact ones).

Examples:
  $ mem index
  $ mem index --rebuild --quiet
  $ mem index --json
  $ MEM_EMBED_BASE_URL=http://localhost:11434/v1 MEM_EMBED_MODEL=nomic-embed-text mem index --embed`)
    .action(async (opts: { rebuild?: boolean; embed?: boolean }, command: Command) => {
      await indexCommand(commandCtx(command), opts);
    });
}

export async function indexCommand(ctx: Ctx, opts: { rebuild?: boolean; embed?: boolean }): Promise<void> {
  const vault = await vaultFor(ctx);
  const { embeddingsFrom } = await import('../../vault/config.js');
  const emb = embeddingsFrom(vault.config.embeddings, ctx.env);
  if (opts.embed && !emb) {
    throw usageError('no embedding model is configured', 'add embeddings: {model: …, base_url: …} to .mem/config.yaml, or set MEM_EMBED_MODEL and MEM_EMBED_BASE_URL');
  }
  let embedded: EmbedReport | undefined;
  // Vectors for what has none yet; an unreachable endpoint is a warning unless --embed asked for them.
  const embed = async (db: Db) => {
    if (!emb) return;
    const { embedMissing } = await import('../../embeddings/fill.js');
    try {
      embedded = await embedMissing(db, emb, { env: ctx.env, progressFor: progressFactory(ctx, 'embedding', 'entries', 1) });
    } catch (err) {
      if (opts.embed || !(err instanceof MemError)) throw err;
      ctx.warn(`entries not embedded: ${err.message}; search stays lexical for them`);
    }
  };
  const { rebuildIndex, countEntries } = await import('../../index/indexer.js');
  const progress = progressFactory(ctx);
  let report;
  if (opts.rebuild) {
    report = await rebuildIndex(vault, progress);
    printDiagnostics(ctx, report.diagnostics);
    if (emb) await (await import('../../index/open.js')).withIndex(vault, { refresh: false }, (ix) => embed(ix.db));
  } else {
    const { withIndex } = await import('../../index/open.js');
    report = await withIndex(vault, { refresh: true, progressFor: progress }, async (ix) => {
      printIndexNotes(ctx, ix);
      const r = ix.report!;
      await embed(ix.db);
      return { ...r, entries: countEntries(ix.db) };
    });
  }
  // Links out of the vault and folders that cannot be listed, skipped by the walk: said once.
  for (const n of (await import('../../vault/vault.js')).skipNotices(vault)) ctx.warn(n);
  if (ctx.json) {
    ctx.out(JSON.stringify({
      files: report.files, changed: report.changed, removed: report.removed, entries: report.entries, ms: report.ms,
      check_ms: report.checkMs ?? null,
      rebuilt: Boolean(opts.rebuild),
      ...(embedded ? { embeddings: { model: embedded.model, embedded: embedded.embedded, vectors: embedded.vectors, requests: embedded.requests, ms: embedded.ms } } : {}),
      warnings: report.diagnostics.map((d) => ({ file: d.file, line: d.line ?? null, message: d.message })),
    }, null, 2));
    return;
  }
  if (ctx.quiet) return;
  const what = opts.rebuild ? 'rebuilt' : report.changed + report.removed === 0 ? 'up to date' : 'updated';
  const check = report.checkMs !== undefined ? ` (check ${report.checkMs} ms)` : '';
  ctx.out(`index ${what}: ${report.files} files (${report.changed} changed, ${report.removed} removed), ${report.entries} entries, ${report.ms} ms${check}`);
  if (embedded) ctx.out(`vectors (${embedded.model}): ${embedded.embedded} embedded in ${embedded.requests} requests, ${embedded.vectors} stored, ${embedded.ms} ms`);
}
