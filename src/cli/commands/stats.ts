// `mem stats`: what the vault holds — counts by scope, type, status and learning type, files,
// index size, and files the index has not caught up with.

import type { Command } from 'commander';
import { vaultFor, withFreshIndex } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

export function registerStats(program: Command): void {
  program
    .command('stats')
    .description('counts by scope, type and status; index size; stale and broken files')
    .option('--no-refresh', 'report on the index as it is (stale files are counted, not indexed)')
    .addHelpText('after', `
Examples:
  $ mem stats
  $ mem stats --json | jq .by_scope`)
    .action(async (opts: { refresh?: boolean }, command: Command) => {
      await statsCommand(commandCtx(command), opts);
    });
}

async function statsCommand(ctx: Ctx, opts: { refresh?: boolean }): Promise<void> {
  const vault = await vaultFor(ctx);
  const { planRefresh, staleCount, countEntries } = await import('../../index/indexer.js');
  const { brokenFiles, countsByField, fileCount, indexBytes } = await import('../../index/stats.js');
  const stats = await withFreshIndex(ctx, vault, { refresh: opts.refresh }, (ix) => {
    const db = ix.db;
    const p = planRefresh(db, vault);
    const broken = brokenFiles(db);
    const by = countsByField(db);
    return {
      root: vault.root,
      files: fileCount(db),
      entries: countEntries(db),
      by_scope: by.scope, by_type: by.type, by_status: by.status, by_learning_type: by.learning_type, by_kind: by.kind,
      index_bytes: indexBytes(vault.dbPath),
      stale_files: staleCount(p),
      broken_files: broken,
    };
  });
  if (ctx.json) {
    ctx.out(JSON.stringify(stats, null, 2));
    return;
  }
  const fmt = (o: Record<string, number>) => Object.entries(o).map(([k, n]) => `${k} ${n}`).join(' · ') || '–';
  ctx.out([
    `vault        ${stats.root}`,
    `files        ${stats.files}`,
    `entries      ${stats.entries}`,
    `by scope     ${fmt(stats.by_scope)}`,
    `by type      ${fmt(stats.by_type)}`,
    `by status    ${fmt(stats.by_status)}`,
    `by learning  ${fmt(stats.by_learning_type)}`,
    `by kind      ${fmt(stats.by_kind)}`,
    `index        ${(stats.index_bytes / 1024).toFixed(0)} KiB (.memory.db)`,
    `stale files  ${stats.stale_files}`,
    `broken files ${stats.broken_files.length}${stats.broken_files.map((b) => `\n  ${b.path}: ${b.error}`).join('')}`,
  ].join('\n'));
}
