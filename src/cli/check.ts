// `--check` (for CI), the same for lint, compact, promote and consolidate: the command runs as its
// own dry run, prints what it would change, and its exit code says whether the vault is clean.

import type { Ctx } from './io.js';

/** The help line every command's --check option shows. */
export const CHECK_HELP = 'write nothing; exit 1 when this would change something, 0 when the vault is clean (CI)';

/**
 * Settle a check: exit code 1 when not clean, and the fields the JSON output gains (`check`,
 * `clean`; `dry_run` is true as well). Nothing when --check was not given.
 */
export function settleCheck(ctx: Pick<Ctx, 'setExitCode'>, check: boolean | undefined, clean: boolean): { check?: true; clean?: boolean } {
  if (!check) return {};
  if (!clean) ctx.setExitCode(1);
  return { check: true, clean };
}
