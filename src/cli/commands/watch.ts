// `mem watch`: keep .memory.db fresh while the vault's files change, one line per batch of
// changes, until Ctrl-C or SIGTERM. The watching and batching live in src/integrations/watch.ts.

import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import type { BatchResult, Watch } from '../../integrations/watch.js';
import { vaultFor } from '../common.js';
import { commandCtx, parseIntOption, type Ctx } from '../io.js';

interface WatchOpts {
  debounce?: string;
  poll?: boolean;
  pollInterval?: string;
}

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('keep the search index fresh while memory files change (debounced, incremental)')
    .option('--debounce <ms>', 'quiet period before a batch of changes is indexed', '300')
    .option('--poll', 'poll with stat instead of change notifications (network filesystems, some containers)')
    .option('--poll-interval <ms>', 'how often --poll checks each watched path', '1000')
    .addHelpText('after', `
Watches what the index holds: MEMORY.md, institutional.md, proxy.md, dispatch.md, memory/**, the job folders,
the include: globs of .mem/config.yaml (a change to it is applied) and the two global files. Each
batch runs the same incremental refresh as mem index; a failed batch (say, the index is locked by
another writer) is reported and retried. One line per batch that changed the index; with --json,
one JSON object per batch (every batch, also those that found nothing to do); with --quiet,
only failed batches, on stderr. Ctrl-C or SIGTERM stops it (exit 0).

While it runs (on Linux, without --poll), mem search, context, list and the agent hooks ask it
whether the index is fresh instead of checking every file themselves: it answers on a socket in
a folder of your own under the temporary folder, once it has seen every change made before the
question. When it cannot tell (a change not yet indexed, a file written in the last two seconds),
they check the files as usual.

Examples:
  $ mem watch
  $ mem watch --debounce 1000
  $ mem watch --json | jq -c 'select(.files | length > 0)'
  $ mem watch --poll --poll-interval 2000      # on NFS, SMB or a mounted volume`)
    .action(async (opts: WatchOpts, command: Command) => {
      await watchCommand(commandCtx(command), opts);
    });
}

function clock(d: Date): string {
  return d.toTimeString().slice(0, 8);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function warningsTail(r: BatchResult): string {
  if (r.warnings.length === 0) return '';
  const more = r.warnings.length > 1 ? ` (and ${r.warnings.length - 1} more)` : '';
  return `; ${plural(r.warnings.length, 'warning')}: ${r.warnings[0]}${more}`;
}

/** The human line for a batch; null for a batch that changed nothing (kept quiet). */
export function batchLine(r: BatchResult): string | null {
  const at = clock(r.at);
  if (r.error) return `${at} not indexed: ${r.error.message}; retrying in ${Math.round(r.error.retryInMs / 1000)} s${warningsTail(r)}`;
  if (r.configError !== undefined && r.diff.files.length > 0) r = { ...r, warnings: [`.mem/config.yaml not applied: ${r.configError}`, ...r.warnings] };
  if (r.kind === 'start') {
    const what = r.reindexed === 0 ? 'index up to date' : `indexed ${plural(r.reindexed, 'file')}`;
    const how = r.pollMs !== undefined ? `, polling every ${r.pollMs} ms` : '';
    const asked = r.answersFreshness ? '; searches ask it instead of checking every file' : '';
    return `${at} watching ${plural(r.vaultFiles, 'file')} in ${plural(r.folders ?? 0, 'folder')}${how}; ${what} (${r.entries} ${r.entries === 1 ? 'entry' : 'entries'}) in ${r.ms} ms${asked}${warningsTail(r)}`;
  }
  if (r.diff.files.length === 0 && !r.configReloaded && r.configError === undefined) return null;
  const config = r.configReloaded ? 'applied .mem/config.yaml; ' : '';
  if (r.configError !== undefined && r.diff.files.length === 0) return `${at} .mem/config.yaml not applied (the previous include/exclude stay): ${r.configError}`;
  return `${at} ${config}indexed ${plural(r.diff.files.length, 'file')} (+${r.diff.added} -${r.diff.removed} entries) in ${r.ms} ms${warningsTail(r)}`;
}

export function batchJson(r: BatchResult): string {
  return JSON.stringify({
    event: r.kind,
    time: r.at.toISOString(),
    files: r.diff.files,
    added: r.diff.added,
    removed: r.diff.removed,
    entries: r.error ? null : r.entries,
    vault_files: r.vaultFiles,
    reindexed: r.reindexed,
    ms: r.ms,
    ...(r.folders !== undefined ? { folders: r.folders } : {}),
    ...(r.pollMs !== undefined ? { poll_ms: r.pollMs } : {}),
    ...(r.answersFreshness !== undefined ? { answers_freshness: r.answersFreshness } : {}),
    ...(r.configReloaded ? { config_reloaded: true } : {}),
    ...(r.configError !== undefined ? { config_error: r.configError } : {}),
    warnings: r.warnings,
    error: r.error ? { message: r.error.message, hint: r.error.hint ?? null, retry_in_ms: r.error.retryInMs } : null,
  });
}

async function watchCommand(ctx: Ctx, opts: WatchOpts): Promise<void> {
  const debounceMs = parseIntOption('--debounce', opts.debounce, 0) ?? 300;
  const pollIntervalMs = parseIntOption('--poll-interval', opts.pollInterval, 50) ?? 1000;
  const vault = await vaultFor(ctx);
  const { startWatch } = await import('../../integrations/watch.js');

  let watch: Watch | undefined;
  let stopping = false;
  let fatal: MemError | undefined;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const stop = () => {
    if (!watch) return; // stopped once started (see below)
    void watch.stop().then(finish, finish);
  };
  // The first signal stops watching and lets the batch in flight finish (a refresh is one SQLite
  // transaction: milliseconds, or seconds for a first build); a second one ends the process now,
  // and SQLite rolls the unfinished transaction back.
  const onSignal = () => {
    if (stopping) process.exit(0);
    stopping = true;
    stop();
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, onSignal);

  const print = (r: BatchResult) => {
    if (ctx.json) {
      ctx.out(batchJson(r));
      return;
    }
    if (ctx.quiet && !r.error) return;
    const line = batchLine(r);
    if (line === null) return;
    if (ctx.quiet) ctx.io.stderr(`mem: ${line.slice(9)}\n`);
    else ctx.out(line);
    for (const w of r.warnings.slice(1)) ctx.warn(w);
  };

  try {
    watch = await startWatch(vault, {
      debounceMs,
      poll: opts.poll,
      pollIntervalMs,
      onResult: print,
      onFatal: (err) => {
        fatal = err;
        finish();
      },
      onWarning: (m) => ctx.warn(m),
    });
    if (stopping || fatal) stop();
    await finished;
  } finally {
    for (const s of signals) process.removeListener(s, onSignal);
  }
  if (fatal) throw fatal;
}
