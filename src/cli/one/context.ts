// The CLI with `mem context` alone (dist/context.cjs): what bin/mem.js loads when `context` is the
// command word, which is how the agents' hooks call mem before every prompt. The same program as
// the whole CLI's (main.ts lists this entry too), without the other commands' code.

import { runCli, type CommandTable } from '../program.js';
import type { Io } from '../io.js';

export const CONTEXT_COMMAND: CommandTable[number] = [['context'], async () => (await import('../commands/context.js')).registerContext];

export function main(argv: string[], io?: Io): Promise<number> {
  return runCli(argv, [CONTEXT_COMMAND], io);
}
