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

/** Output is written in pieces of about this many characters: one write per piece, not per line. */
const PIECE = 1 << 16;

async function listCommand(ctx: Ctx, opts: ListOptions): Promise<void> {
  const limit = parseIntOption('--limit', opts.limit, 1);
  const filter = filterFromOptions(opts);
  const vault = await vaultFor(ctx);
  const { visitListing } = await import('../../services/list.js');
  const { styleFor, shortId } = await import('../../render/hits.js');
  const { episodeMark, KEY_MOMENT_LABEL } = await import('../../episodes/detail.js');
  const st = await styleFor(ctx.color);
  // Written as it is read: a listing of a million entries is never held whole.
  let piece = '';
  const put = (text: string) => {
    piece += text;
    if (piece.length >= PIECE) {
      ctx.write(piece);
      piece = '';
    }
  };
  // Episodes have their own listing (mem recent): here only with --kind episode.
  const { value: count } = await visitListing(vault, { filter, all: opts.all, limit }, { refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) }, (listing) => {
    let n = 0;
    if (ctx.json) {
      // The bytes JSON.stringify({ entries }, null, 2) writes, one entry at a time.
      for (const r of listing.rows()) {
        put(`${n++ === 0 ? '{\n  "entries": [\n' : ',\n'}${JSON.stringify(entryJson(r), null, 2).replace(/^/gm, '    ')}`);
      }
      put(n === 0 ? '{\n  "entries": []\n}\n' : '\n  ]\n}\n');
      return n;
    }
    let idW = 0;
    for (const id of listing.ids()) idW = Math.max(idW, shortId(id).length);
    idW = Math.min(36, idW);
    for (const r of listing.rows()) {
      n++;
      const id = shortId(r.entry_id).padEnd(idW);
      const meta = `${r.scope.padEnd(7)} ${r.type.padEnd(11)} ${r.importance.toFixed(2)}${r.status !== 'active' ? ` ${r.status}` : ''}`;
      const mark = r.kind === 'episode' && episodeMark(r.metadata_json).key_moment ? `  ${st.mark(KEY_MOMENT_LABEL)}` : '';
      put(`${st.dim(id)}  ${st.scope(meta)}  ${st.bold(r.title || '(untitled)')}  ${st.dim(`${r.path}:${r.line}`)}${mark}\n`);
    }
    return n;
  });
  if (piece !== '') ctx.write(piece);
  if (count === 0 && !ctx.json) ctx.info('no entries');
}
