// `mem list`: entries by filter, for people (a table) and scripts (--json).

import type { Command } from 'commander';
import { addFilterOptions, filterFromOptions, vaultFor, type FilterOptions } from '../common.js';
import { commandCtx, parseIntOption, progressFactory, type Ctx } from '../io.js';
import { entryJson } from '../../render/entries.js';

interface ListOptions extends FilterOptions {
  limit?: string;
  all?: boolean;
  refresh?: boolean;
}

export function registerList(program: Command): void {
  const cmd = program
    .command('list')
    .description('list entries (retired ones only with --all or --status retired; episodes only with --kind episode)')
    .option('-n, --limit <n>', 'at most this many')
    .option('--all', 'include retired entries')
    .option('--no-refresh', 'do not bring the index up to date first');
  addFilterOptions(cmd);
  cmd.addHelpText('after', `
Examples:
  $ mem list
  $ mem list --type corrective --scope project
  $ mem list --kind episode          # episodes are listed only when asked (or: mem recent)
  $ mem list --status retired --json | jq '.entries[].id'`);
  cmd.action(async (opts: ListOptions, command: Command) => {
    await listCommand(commandCtx(command), opts);
  });
}

async function listCommand(ctx: Ctx, opts: ListOptions): Promise<void> {
  const limit = parseIntOption('--limit', opts.limit, 1);
  const filter = filterFromOptions(opts);
  const vault = await vaultFor(ctx);
  const { listMemory } = await import('../../services/list.js');
  // Episodes have their own listing (mem recent): here only with --kind episode.
  const { rows } = await listMemory(vault, { filter, all: opts.all, limit }, { refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) });
  if (ctx.json) {
    ctx.out(JSON.stringify({ entries: rows.map(entryJson) }, null, 2));
    return;
  }
  if (rows.length === 0) {
    ctx.info('no entries');
    return;
  }
  const { styleFor, shortId } = await import('../../render/hits.js');
  const { episodeMark, KEY_MOMENT_LABEL } = await import('../../episodes/detail.js');
  const st = await styleFor(ctx.color);
  const idW = Math.min(36, Math.max(...rows.map((r) => shortId(r.entry_id).length)));
  for (const r of rows) {
    const id = shortId(r.entry_id).padEnd(idW);
    const meta = `${r.scope.padEnd(7)} ${r.type.padEnd(11)} ${r.importance.toFixed(2)}${r.status !== 'active' ? ` ${r.status}` : ''}`;
    const mark = r.kind === 'episode' && episodeMark(r.metadata_json).key_moment ? `  ${st.mark(KEY_MOMENT_LABEL)}` : '';
    ctx.out(`${st.dim(id)}  ${st.scope(meta)}  ${st.bold(r.title || '(untitled)')}  ${st.dim(`${r.path}:${r.line}`)}${mark}`);
  }
}
