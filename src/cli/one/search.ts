// The CLI with `mem search` alone (dist/search.cjs): what bin/mem.js loads when `search` is the
// command word. The same program as the whole CLI's (main.ts lists this entry too), without the
// other commands' code to read and set up at start (loading it takes ~10 ms, the whole CLI ~19).

import { runCli, type CommandTable } from '../program.js';
import type { Io } from '../io.js';

export const SEARCH_COMMAND: CommandTable[number] = [['search'], async () => (await import('../commands/search.js')).registerSearch];

export function main(argv: string[], io?: Io): Promise<number> {
  return runCli(argv, [SEARCH_COMMAND], io);
}
