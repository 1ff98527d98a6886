// How a failed command ends: the `mem: …` line (and hint) on stderr and the exit status. Shared by
// the full CLI (main.ts) and the short start path of a plain `mem index` (quick.ts).

import { EXIT_FAIL, MemError, formatWhere } from '../errors.js';
import { credentialsIn, displaySafe } from '../secrets/display.js';
import { forTerminal } from '../quote.js';
import type { Io } from './io.js';

/**
 * The one place errors reach the terminal (and, through a hook's detached run, its log): the
 * last line of defence, so no credential in the environment, no authorization header and no
 * URL's password is printed, whatever an error carries. --debug adds the stack and the causes.
 */
export function reportError(err: unknown, debug: boolean, io: Io): number {
  const known = credentialsIn(io.env);
  // An error may quote a vault file (a title, a bad line): its controls are shown, not acted on.
  const write = (text: string) => io.stderr(`${forTerminal(displaySafe(text, known), false)}\n`);
  const causes = (e: unknown) => {
    for (let c = (e as { cause?: unknown })?.cause, n = 0; c !== undefined && c !== null && n < 5; c = (c as { cause?: unknown }).cause, n++) {
      write(`caused by: ${c instanceof Error ? (c.stack ?? c.message) : String(c)}`);
    }
  };
  if (err instanceof MemError) {
    write(`mem: ${formatWhere(err.message, err.where)}`);
    if (err.hint) write(`hint: ${err.hint}`);
    if (debug && err.stack) {
      write(err.stack);
      causes(err);
    }
    return err.exitCode;
  }
  const e = err as Error & { code?: string };
  if (e?.code === 'EPIPE') return 0;
  write(`mem: ${e?.message ?? String(err)}`);
  if (debug && e?.stack) {
    write(e.stack);
    causes(e);
  }
  else io.stderr('hint: this looks like a bug in mem; run again with --debug for details\n');
  return EXIT_FAIL;
}
