// `mem stats`: what the vault holds — counts by scope, type, status and learning type, files,
// index size, and files the index has not caught up with.

import fs from 'node:fs';
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
  const { planRefresh, staleCount } = await import('../../index/indexer.js');
  const stats = await withFreshIndex(ctx, vault, { refresh: opts.refresh }, (ix) => {
    const db = ix.db;
    const group = (col: string) => Object.fromEntries(
      (db.prepare(`SELECT ${col} AS k, count(*) AS n FROM entries GROUP BY ${col} ORDER BY n DESC`).all() as { k: string; n: number }[]).map((r) => [r.k, r.n]),
    );
    const p = planRefresh(db, vault);
    const broken = db.prepare('SELECT path, error FROM files WHERE error IS NOT NULL ORDER BY path').all() as { path: string; error: string }[];
    let size = 0;
    for (const s of ['', '-wal']) size += fs.statSync(vault.dbPath + s, { throwIfNoEntry: false })?.size ?? 0;
    return {
      root: vault.root,
      files: (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n,
      entries: (db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n,
      by_scope: group('scope'), by_type: group('type'), by_status: group('status'), by_learning_type: group('learning_type'), by_kind: group('kind'),
      index_bytes: size,
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
