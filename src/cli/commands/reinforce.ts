// `mem reinforce`: entries that proved useful gain weight (+1, today's date); with the
// session's transcript, only the ones the assistant actually used do.

import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

interface ReinforceOptions {
  session?: string;
  transcript?: string;
  dryRun?: boolean;
}

export function registerReinforce(program: Command): void {
  program
    .command('reinforce')
    .description('strengthen entries that proved useful: +1 and today\'s date (after a session)')
    .argument('[ids...]', 'entry ids (or unique prefixes, as mem list prints them) to reinforce')
    .option('--session <id>', 'reinforce every id this session retrieved (mem search/context --session)')
    .option('--transcript <file>', 'usage-aware: +1 only for entries the assistant used, −1 for the rest ("-" = stdin)')
    .option('--dry-run', 'show what would change, write nothing')
    .addHelpText('after', `
When to run it: at the end of an agent session (the extract hook does it for you).
An id may be a unique prefix of 4 characters or more (the short id mem list and mem search
print). An id that names no entry, or a prefix that names several, is an error and nothing is
written. Retired entries are skipped; ids the session logged for entries gone since are reported.
With --session or --transcript each entry also gets an FSRS review (see mem review): "good"
when used (retrieved in the session; with a transcript, its words in the assistant's text),
"again" when the transcript shows it ignored. Reviews less than a day apart are skipped.

Examples:
  $ mem reinforce 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10
  $ mem reinforce 3f0c2a4e 91b7d0c2
  $ mem reinforce --session "$SESSION_ID"
  $ mem reinforce --session "$SESSION_ID" --transcript ~/.claude/projects/p/$SESSION_ID.jsonl`)
    .action(async (ids: string[], opts: ReinforceOptions, command: Command) => {
      await reinforceCommand(commandCtx(command), ids, opts);
    });
}

async function reinforceCommand(ctx: Ctx, idArgs: string[], opts: ReinforceOptions): Promise<void> {
  const sessionId = opts.session;
  if (idArgs.length === 0 && !sessionId) throw usageError('give entry ids or --session ID');
  const { checkSessionId, readRetrievalIds } = await import('../../vault/sessions.js');
  if (sessionId) checkSessionId(sessionId);
  const vault = await vaultFor(ctx);
  const logged = sessionId ? readRetrievalIds(vault.root, sessionId) : [];
  if (idArgs.length === 0 && logged.length === 0) {
    if (ctx.json) ctx.out(JSON.stringify({ decisions: [], unknown: [] }, null, 2));
    else ctx.info(`session ${sessionId} retrieved nothing; nothing to reinforce`);
    return;
  }
  let used: Set<string> | undefined;
  if (opts.transcript) {
    const { readTranscript, assistantText } = await import('../../extract/transcript.js');
    const { wordSet } = await import('../../lifecycle/words.js');
    let t;
    if (opts.transcript === '-') {
      let text: string;
      try {
        text = ctx.readStdin();
      } catch (err) {
        throw new MemError(`cannot read the transcript: ${(err as Error).message}`, { where: { file: opts.transcript } });
      }
      t = readTranscript(text);
    } else {
      // Streamed from the file, as mem extract reads it: a huge transcript is never held whole.
      const { loadTranscript } = await import('../../extract/source.js');
      t = loadTranscript(opts.transcript, { cwd: ctx.cwd }).transcript;
    }
    const said = assistantText(t);
    if (said.trim() === '') throw new MemError('the transcript has no assistant messages', { where: { file: opts.transcript }, hint: 'check the file, or reinforce without --transcript' });
    used = wordSet(said);
  }
  const { reinforceEntries } = await import('../../services/reinforce.js');
  const res = await reinforceEntries(vault, idArgs, {
    logged, today: ctx.today(), used, review: sessionId || opts.transcript ? { now: ctx.now() } : undefined, dryRun: opts.dryRun, warn: (w) => ctx.warn(w),
  });
  const { decisions, unknown } = res;
  if (ctx.json) {
    ctx.out(JSON.stringify((await import('../../render/entries.js')).decisionsJson(res, { dryRun: opts.dryRun }), null, 2));
    return;
  }
  const verb: Record<string, string> = { reinforced: 'reinforced', weakened: 'weakened', unchanged: 'unchanged', 'skipped-retired': 'skipped (retired)', 'read-only': 'skipped (no frontmatter to update)' };
  for (const d of decisions) {
    const share = d.share === undefined ? '' : ` · used ${Math.round(d.share * 100)}%`;
    const review = !d.review ? '' : d.review.action === 'reviewed' ? ` · review ${d.review.rating}` : d.review.action === 'skipped-recent' ? ' · review skipped (less than a day)' : '';
    ctx.out(`${verb[d.action].padEnd(18)} ${d.id}  ${d.path}:${d.line}  ${d.before} → ${d.after}${share}${review}`);
  }
  for (const id of unknown) ctx.warn(`unknown id ${id}; skipped`);
  if (opts.dryRun) ctx.info('dry run: nothing written');
}
