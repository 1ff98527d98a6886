// `mem episode list` / `mem pattern list`: the typed notes they cannot read, named on stderr.

import { unreadableNotes } from '../notes/unreadable.js';
import type { Ctx } from './io.js';
import { oneLine } from '../quote.js';

/** A note a listing cannot read is named (never left out silently); mem validate says more. */
export async function warnUnreadable(ctx: Ctx, root: string, rel: string): Promise<void> {
  for (const u of unreadableNotes(root, rel)) {
    if (u.conflict) ctx.warn(`${oneLine(`${u.path}:${u.line}`)}: ${u.conflict.listed ? '' : 'not listed: '}unresolved merge conflict; resolve it (mem resolve, or by hand)`);
    else ctx.warn(oneLine(`${u.path}:${u.line}: not listed: its frontmatter does not parse (${u.reason.slice(0, 200)}); mem validate shows it`));
  }
}
