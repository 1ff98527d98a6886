// `mem show ID`: one entry as it stands in its file (or as JSON with every field).

import type { Command } from 'commander';
import { vaultFor } from '../common.js';
import { commandCtx, progressFactory, type Ctx } from '../io.js';

export function registerShow(program: Command): void {
  program
    .command('show')
    .description('show one entry by id (or a unique id prefix)')
    .argument('<id>', 'entry id or a unique prefix of 4 characters or more')
    .option('--no-refresh', 'do not bring the index up to date first')
    .addHelpText('after', `
Examples:
  $ mem show 3f0c2a4e
  $ mem show 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10 --json`)
    .action(async (id: string, opts: { refresh?: boolean }, command: Command) => {
      await showCommand(commandCtx(command), id, opts);
    });
}

async function showCommand(ctx: Ctx, id: string, opts: { refresh?: boolean }): Promise<void> {
  const vault = await vaultFor(ctx);
  const { getEntry } = await import('../../services/get.js');
  const { found } = await getEntry(vault, id, { refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) });
  const { rows } = found;
  if (rows.length > 1) ctx.warn(`id ${rows[0].entry_id} appears ${rows.length} times: ${rows.map((r) => `${r.path}:${r.line}`).join(', ')}`);
  if (ctx.json) {
    ctx.out(JSON.stringify((await import('../../render/entries.js')).entryRecord(found), null, 2));
    return;
  }
  const { row, block } = found;
  ctx.info(`${row.path}:${block?.entry?.line ?? row.line} · ${row.scope} · ${row.learning_type}`);
  ctx.out(block ? block.raw.replace(/\s+$/, '') : `${row.title}\n\n${row.body}`);
}
