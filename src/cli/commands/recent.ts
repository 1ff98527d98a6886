// `mem recent`: the newest episodes (from `mem segment`), newest first.

import type { Command } from 'commander';
import { vaultFor } from '../common.js';
import { commandCtx, parseIntOption, progressFactory, type Ctx } from '../io.js';
import { usageError } from '../../errors.js';
import { timeBounds } from '../../vault/origin.js';

interface RecentOpts {
  limit?: string;
  days?: string;
  session?: string;
  conversation?: string;
  after?: string;
  before?: string;
  detail?: string;
  refresh?: boolean;
}

export function registerRecent(program: Command): void {
  program
    .command('recent')
    .description('list the newest episodes, newest first (key moments, surprise >= 0.7, marked \u2605)')
    .option('-n, --limit <n>', 'at most this many (default 10)')
    .option('--days <n>', 'only episodes of the last N days')
    .option('--session <id>', 'only the episodes of this session')
    .option('--conversation <id>', 'the same as --session (the name search and context use)')
    .option('--after <time>', 'only episodes that ended at or after this ISO date or date-time (UTC unless it has an offset)')
    .option('--before <time>', 'only episodes that started before this ISO date or date-time')
    .option('--detail <level>', 'show the messages: none (default), auto (key moments ranked 1-2), full (every episode)')
    .option('--no-refresh', 'do not bring the index up to date first')
    .addHelpText('after', `
Examples:
  $ mem recent
  $ mem recent --days 2 --limit 20
  $ mem recent --detail auto          # the messages of the newest key moments too
  $ mem recent --after 2026-11-27T06:00 --before 2026-11-27T12:00   # this morning (UTC)
  $ mem recent --after 2026-11-27T06:00-05:00                        # since 6 am in New York
  $ mem recent --session 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10 --json`)
    .action(async (opts: RecentOpts, command: Command) => {
      await recentCommand(commandCtx(command), opts);
    });
}

async function recentCommand(ctx: Ctx, opts: RecentOpts): Promise<void> {
  const limit = parseIntOption('--limit', opts.limit, 1) ?? 10;
  const days = parseIntOption('--days', opts.days, 1);
  if (opts.session !== undefined && opts.conversation !== undefined && opts.session !== opts.conversation) {
    throw usageError('--session and --conversation name the same filter; give one');
  }
  const session = opts.conversation ?? opts.session;
  const bounds = timeBounds(opts.after, opts.before);
  const detail = (await import('../../episodes/detail.js')).detailLevel(opts.detail, 'none');
  const vault = await vaultFor(ctx);
  const { recentMemory } = await import('../../services/recent.js');
  const { episodes } = await recentMemory(vault, { limit, days, session, ...bounds, now: ctx.now(), detail }, { refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) });
  if (ctx.json) {
    ctx.out(JSON.stringify({ episodes }, null, 2));
    return;
  }
  if (episodes.length === 0) {
    ctx.info('no episodes (mem segment TRANSCRIPT writes them)');
    return;
  }
  const { timeRange } = await import('./segment.js');
  const { oneLine } = await import('../../quote.js');
  for (const e of episodes) {
    const s = e.surprise === null ? '    ' : e.surprise.toFixed(2);
    ctx.out(`${e.key_moment ? '\u2605' : ' '} ${timeRange(e.start_at, e.end_at)}  ${s}  ${oneLine(e.title)}  ${e.id}${e.episode_note ? `  (note ${oneLine(e.episode_note)})` : ''}`);
    // The messages as stored: quoted markdown, each line indented under its episode.
    if (e.messages) ctx.out(`${e.messages.split(/\r?\n/).map((l) => (l === '' ? '' : `    ${l}`)).join('\n')}\n`);
  }
}
