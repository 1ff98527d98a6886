// The whole `mem` CLI (dist/main.cjs): every command, registered through program.ts. Each
// command's module is loaded only when that command runs (or for the full help): the start-up of
// a command pays for one command, not thirty.

import { runCli, type CommandTable } from './program.js';
import type { Io } from './io.js';
import { CONTEXT_COMMAND } from './one/context.js';
import { SEARCH_COMMAND } from './one/search.js';

export const COMMANDS: CommandTable = [
  [['init'], async () => (await import('./commands/init.js')).registerInit],
  [['add'], async () => (await import('./commands/add.js')).registerAdd],
  [['show'], async () => (await import('./commands/show.js')).registerShow],
  [['list'], async () => (await import('./commands/list.js')).registerList],
  [['index'], async () => (await import('./commands/index.js')).registerIndex],
  SEARCH_COMMAND,
  CONTEXT_COMMAND,
  [['export'], async () => (await import('./commands/export.js')).registerExport],
  [['extract'], async () => (await import('./commands/extract.js')).registerExtract],
  [['reinforce'], async () => (await import('./commands/reinforce.js')).registerReinforce],
  [['review'], async () => (await import('./commands/review.js')).registerReview],
  [['compact'], async () => (await import('./commands/compact.js')).registerCompact],
  [['retire-stage', 'stage'], async () => (await import('./commands/stage.js')).registerStage],
  [['promote'], async () => (await import('./commands/promote.js')).registerPromote],
  [['consolidate'], async () => (await import('./commands/consolidate.js')).registerConsolidate],
  [['lint'], async () => (await import('./commands/lint.js')).registerLint],
  [['stats'], async () => (await import('./commands/stats.js')).registerStats],
  [['doctor'], async () => (await import('./commands/doctor.js')).registerDoctor],
  [['eval'], async () => (await import('./commands/eval.js')).registerEval],
  [['hooks'], async () => (await import('./commands/hooks.js')).registerHooks],
  [['merge-driver'], async () => (await import('./commands/merge-driver.js')).registerMergeDriver],
  [['resolve'], async () => (await import('./commands/resolve.js')).registerResolve],
  [['mcp'], async () => (await import('./commands/mcp.js')).registerMcp],
  [['watch'], async () => (await import('./commands/watch.js')).registerWatch],
  [['segment'], async () => (await import('./commands/segment.js')).registerSegment],
  [['recent'], async () => (await import('./commands/recent.js')).registerRecent],
  [['pattern'], async () => (await import('./commands/pattern.js')).registerPattern],
  [['validate'], async () => (await import('./commands/validate.js')).registerValidate],
  [['episode'], async () => (await import('./commands/episode.js')).registerEpisode],
  [['import'], async () => (await import('./commands/import.js')).registerImport],
];

/**
 * Run the CLI with `argv` (without node and the script) and return its exit status. `io` is the
 * real process unless a caller (a test) gives its own: then nothing of this process's cwd,
 * environment or standard streams is read or written.
 */
export function main(argv: string[], io?: Io): Promise<number> {
  return runCli(argv, COMMANDS, io);
}
