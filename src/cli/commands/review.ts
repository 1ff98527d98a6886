// `mem review`: rate how well entries held up (again|hard|good|easy); FSRS moves their stability
// and difficulty, and `--rank fsrs` ranks by the retrievability that follows.

import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';
import type { ReviewRating } from '../../fsrs/state.js';

interface ReviewOptions {
  rating?: string;
  dryRun?: boolean;
}

// The names of fsrs/state.ts RATINGS, repeated so that `--help` loads nothing else.
const RATING_NAMES: readonly string[] = ['again', 'hard', 'good', 'easy'] satisfies ReviewRating[];

export function registerReview(program: Command): void {
  program
    .command('review')
    .description('record an FSRS review of entries: again | hard | good | easy (updates their fsrs: state)')
    .argument('<ids...>', 'entry ids (or unique prefixes, as mem list prints them) to review')
    .option('--rating <rating>', 'again (forgotten or wrong), hard, good (recalled and useful), easy')
    .option('--dry-run', 'show what would change, write nothing')
    .addHelpText('after', `
The entry's frontmatter gets (or updates) an fsrs: map — stability (days), difficulty (1-10),
last_review, reps, lapses, state — and nothing else in the file changes. A second review of an
entry less than a day after its last one is skipped and reported. Retired entries are skipped.
An id may be a unique prefix of 4 characters or more; an id that names no entry, or a prefix
that names several, is an error and nothing is written.

Examples:
  $ mem review 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10 --rating good
  $ mem review 3f0c2a4e 91b7d0c2 --rating again --json
  $ mem search "deploy steps" --rank fsrs --explain`)
    .action(async (ids: string[], opts: ReviewOptions, command: Command) => {
      await reviewCommand(commandCtx(command), ids, opts);
    });
}

async function reviewCommand(ctx: Ctx, ids: string[], opts: ReviewOptions): Promise<void> {
  if (opts.rating === undefined) throw usageError('missing --rating', 'say how the entry held up: --rating again|hard|good|easy');
  const rating = opts.rating.toLowerCase();
  if (!RATING_NAMES.includes(rating)) throw usageError(`unknown rating "${opts.rating}"`, 'use one of: again, hard, good, easy');
  const vault = await vaultFor(ctx);
  const { reviewEntries } = await import('../../services/reinforce.js');
  const res = await reviewEntries(vault, ids, {
    rating: rating as ReviewRating, now: ctx.now(), dryRun: opts.dryRun, warn: (w) => ctx.warn(w),
  });
  const { decisions, unknown } = res;
  if (ctx.json) {
    ctx.out(JSON.stringify((await import('../../render/entries.js')).decisionsJson(res, { dryRun: opts.dryRun, rating }), null, 2));
    return;
  }
  const fmt = (n: number) => Number(n.toFixed(2)).toString();
  for (const d of decisions) {
    const where = `${d.id}  ${d.path}:${d.line}`;
    if (d.action === 'reviewed' && d.before && d.after) {
      ctx.out(`reviewed (${rating})`.padEnd(18) + ` ${where}  stability ${fmt(d.before.stability)} → ${fmt(d.after.stability)} d · difficulty ${fmt(d.before.difficulty)} → ${fmt(d.after.difficulty)}`);
    } else if (d.action === 'skipped-recent') {
      ctx.out(`${'skipped (recent)'.padEnd(18)} ${where}  last review ${d.hours_since} h ago (less than a day)`);
    } else {
      ctx.out(`${(d.action === 'skipped-retired' ? 'skipped (retired)' : 'skipped (no frontmatter to update)').padEnd(18)} ${where}`);
    }
  }
  for (const id of unknown) ctx.warn(`unknown id ${id}; skipped`);
  if (opts.dryRun) ctx.info('dry run: nothing written');
}
