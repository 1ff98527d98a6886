// The `mem` program: global options, one registration per command, and the single place that
// turns errors into `mem: …` lines and exit codes. Commands load their heavy modules lazily.

import { Command, CommanderError } from 'commander';
import { EXIT_FAIL, EXIT_USAGE, MemError, formatWhere } from '../errors.js';
import { registerAdd } from './commands/add.js';
import { registerContext } from './commands/context.js';
import { registerDoctor } from './commands/doctor.js';
import { registerExtract } from './commands/extract.js';
import { registerIndex } from './commands/index.js';
import { registerInit } from './commands/init.js';
import { registerLint } from './commands/lint.js';
import { registerList } from './commands/list.js';
import { registerSearch } from './commands/search.js';
import { registerShow } from './commands/show.js';
import { registerStats } from './commands/stats.js';
import { registerReinforce } from './commands/reinforce.js';
import { registerCompact } from './commands/compact.js';
import { registerStage } from './commands/stage.js';
import { registerPromote } from './commands/promote.js';
import { registerConsolidate } from './commands/consolidate.js';
import { registerEval } from './commands/eval.js';

export const VERSION = '0.1.0';

function buildProgram(): Command {
  const program = new Command('mem')
    .description('Long-term memory for coding agents, kept in git as plain markdown.')
    .version(VERSION, '-V, --version')
    .option('--root <dir>', 'vault root (default: nearest folder with .mem/, MEMORY.md or .git; env MEM_ROOT)')
    .option('--json', 'machine-readable output')
    .option('-q, --quiet', 'no progress or warnings on stderr')
    .option('--debug', 'show stack traces for errors')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(`mem: ${str.replace(/^error: /, '').trimEnd()}\n`),
    })
    .addHelpText('after', `
Examples:
  $ mem init                                   # set up a vault in this project
  $ mem add "Run npm run db:migrate before the API tests" --type corrective
  $ mem search "api tests fail on a fresh database"
  $ mem context "fix the failing API tests" > context.md

Environment: MEM_ROOT, MEM_HOME (global folder, default ~), MEM_SESSION, NO_COLOR.`);
  for (const register of [registerInit, registerAdd, registerShow, registerList, registerIndex, registerSearch,
    registerContext, registerExtract, registerReinforce, registerCompact, registerStage, registerPromote, registerConsolidate, registerLint, registerStats, registerDoctor, registerEval]) {
    register(program);
  }
  for (const cmd of program.commands) cmd.exitOverride().showSuggestionAfterError(true);
  return program;
}

function printError(err: unknown, debug: boolean): number {
  if (err instanceof MemError) {
    process.stderr.write(`mem: ${formatWhere(err.message, err.where)}\n`);
    if (err.hint) process.stderr.write(`hint: ${err.hint}\n`);
    if (debug && err.stack) process.stderr.write(`${err.stack}\n`);
    return err.exitCode;
  }
  const e = err as Error & { code?: string };
  if (e?.code === 'EPIPE') return 0;
  process.stderr.write(`mem: ${e?.message ?? String(err)}\n`);
  if (debug && e?.stack) process.stderr.write(`${e.stack}\n`);
  else process.stderr.write('hint: this looks like a bug in mem; run again with --debug for details\n');
  return EXIT_FAIL;
}

export async function main(argv: string[]): Promise<number> {
  const debug = argv.includes('--debug');
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      if (err.code === 'commander.executeSubCommandAsync') return err.exitCode;
      return EXIT_USAGE;
    }
    return printError(err, debug);
  }
}
