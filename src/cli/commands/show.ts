// `mem show ID`: one entry as it stands in its file (or as JSON with every field).

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import type { EntryRow } from '../../index/queries.js';
import { globals, vaultFor, withFreshIndex } from '../common.js';
import { makeCtx, type Ctx } from '../io.js';

export function registerShow(program: Command): void {
  program
    .command('show')
    .description('show one entry by id (or a unique id prefix)')
    .argument('<id>', 'entry id or unique prefix')
    .option('--no-refresh', 'do not bring the index up to date first')
    .addHelpText('after', `
Examples:
  $ mem show 3f0c2a4e
  $ mem show 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10 --json`)
    .action(async (id: string, opts: { refresh?: boolean }, command: Command) => {
      await showCommand(makeCtx(globals(command)), id, opts);
    });
}

async function showCommand(ctx: Ctx, id: string, opts: { refresh?: boolean }): Promise<void> {
  const vault = await vaultFor(ctx);
  const { entriesById, entriesByIdPrefix } = await import('../../index/queries.js');
  const rows: EntryRow[] = await withFreshIndex(ctx, vault, { refresh: opts.refresh !== false, tolerateBusy: true }, (ix) => {
    const exact = entriesById(ix.db, id);
    return exact.length > 0 ? exact : entriesByIdPrefix(ix.db, id, 6);
  });
  if (rows.length === 0) throw new MemError(`no entry with id "${id}"`, { hint: 'find ids with mem search or mem list' });
  const ids = new Set(rows.map((r) => r.entry_id));
  if (ids.size > 1) {
    throw new MemError(`"${id}" matches ${ids.size > 5 ? 'more than 5' : ids.size} entries: ${[...ids].slice(0, 5).join(', ')}`, { hint: 'give more of the id' });
  }
  if (rows.length > 1) ctx.warn(`id ${rows[0].entry_id} appears ${rows.length} times: ${rows.map((r) => `${r.path}:${r.line}`).join(', ')}`);
  const row = rows[0];
  const { parseMemoryFile } = await import('../../vault/format.js');
  const { readVaultText } = await import('../../vault/read.js');
  const abs = path.isAbsolute(row.path) ? row.path : path.join(vault.root, row.path);
  // Never through a link out of the vault (an index older than the link shows its own copy).
  const { staysInside } = await import('../../vault/boundary.js');
  const inside = staysInside(abs, path.isAbsolute(row.path) ? vault.home : vault.root).inside;
  const read = fs.existsSync(abs) && inside ? readVaultText(abs) : { error: 'file is gone' };
  const parsed = 'text' in read ? parseMemoryFile(read.text, row.path) : null;
  const block = parsed?.blocks.find((b) => b.entry?.id === row.entry_id && b.entry.ordinal === row.ordinal)
    ?? parsed?.blocks.find((b) => b.entry?.id === row.entry_id);
  const entry = block?.entry;
  if (ctx.json) {
    const meta = entry?.meta ?? (JSON.parse(row.metadata_json) as Record<string, unknown>);
    ctx.out(JSON.stringify({
      ...meta,
      id: row.entry_id,
      type: entry?.type ?? row.type,
      domain: entry?.domain ?? row.domain,
      importance: entry?.importance ?? row.importance,
      phase: entry?.phase ?? row.phase,
      status: entry?.status ?? row.status,
      reinforcement_count: entry?.reinforcement_count ?? row.reinforcement_count,
      last_reinforced: entry?.last_reinforced ?? row.last_reinforced,
      created_at: entry?.created_at ?? row.created_at,
      title: entry?.title ?? row.title,
      path: row.path,
      line: entry?.line ?? row.line,
      scope: row.scope,
      learning_type: row.learning_type,
      body: entry?.body ?? row.body,
    }, null, 2));
    return;
  }
  ctx.info(`${row.path}:${entry?.line ?? row.line} · ${row.scope} · ${row.learning_type}`);
  ctx.out(block ? block.raw.replace(/\s+$/, '') : `${row.title}\n\n${row.body}`);
}
