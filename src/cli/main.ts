// The `mem` program: global options, one registration per command, and the single place that
// turns errors into `mem: …` lines and exit codes. Commands load their heavy modules lazily.

import { Command, CommanderError } from 'commander';
import { EXIT_USAGE } from '../errors.js';
import { inRun, settingsFrom } from '../run.js';
import { processIo, type Io } from './io.js';
import { VERSION } from './version.js';
import { reportError } from './report.js';

type Register = (program: Command) => void;

// Each command's module is loaded only when that command runs (or for the full help): the
// start-up of `mem search` pays for one command, not seventeen.
const COMMANDS: [string[], () => Promise<Register>][] = [
  [['init'], async () => (await import('./commands/init.js')).registerInit],
  [['add'], async () => (await import('./commands/add.js')).registerAdd],
  [['show'], async () => (await import('./commands/show.js')).registerShow],
  [['list'], async () => (await import('./commands/list.js')).registerList],
  [['index'], async () => (await import('./commands/index.js')).registerIndex],
  [['search'], async () => (await import('./commands/search.js')).registerSearch],
  [['context'], async () => (await import('./commands/context.js')).registerContext],
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

/** The command word: the first argument that is neither an option nor the value of --root. */
function commandWord(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') i++;
    else if (argv[i] === '--') return undefined;
    else if (!argv[i].startsWith('-')) return argv[i];
  }
  return undefined;
}

async function buildProgram(argv: string[], io: Io): Promise<Command> {
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
      writeOut: (str) => io.stdout(str),
      writeErr: (str) => io.stderr(str),
      outputError: (str, write) => write(`mem: ${str.replace(/^error: /, '').trimEnd()}\n`),
    })
    .addHelpText('after', `
Examples:
  $ mem init                                   # set up a vault in this project
  $ mem add "Run npm run db:migrate before the API tests" --type corrective
  $ mem search "api tests fail on a fresh database"
  $ mem context "fix the failing API tests" > context.md

Environment: MEM_ROOT, MEM_HOME (global folder, default ~), MEM_SESSION, NO_COLOR.`);
  // A known command word registers that command alone; anything else (help, a typo to suggest
  // a fix for) registers them all.
  const word = commandWord(argv);
  const one = COMMANDS.find(([names]) => word !== undefined && names.includes(word));
  const registers = await Promise.all((one ? [one] : COMMANDS).map(([, load]) => load()));
  for (const register of registers) register(program);
  for (const cmd of program.commands) cmd.exitOverride().showSuggestionAfterError(true);
  // Every command's action finds its Io here (commandCtx walks up to the program).
  Object.assign(program, { io });
  return program;
}

/**
 * Run the CLI with `argv` (without node and the script) and return its exit status. `io` is the
 * real process unless a caller (a test) gives its own: then nothing of this process's cwd,
 * environment or standard streams is read or written.
 */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  // Everything the command does runs with this run's settings (timeouts, write confinement).
  return inRun(settingsFrom(io.env), () => runMain(argv, io));
}

async function runMain(argv: string[], io: Io): Promise<number> {
  const debug = argv.includes('--debug');
  const program = await buildProgram(argv, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      if (err.code === 'commander.executeSubCommandAsync') return err.exitCode;
      return EXIT_USAGE;
    }
    return reportError(err, debug, io);
  }
}
