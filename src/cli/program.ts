// The `mem` program: global options, the registration of the command(s) a run needs, and the
// single place that turns errors into `mem: …` lines and exit codes. Which commands exist is the
// caller's table: main.ts has them all; the bundles of one hot command (search.ts, context.ts in
// src/cli/one/) have that one, so `mem search` does not load the code of the other thirty.

import { Command, CommanderError } from 'commander';
import { EXIT_USAGE } from '../errors.js';
import { inRun, settingsFrom } from '../run.js';
import { makeCtx, processIo, takeVaults, type GlobalOptions, type Io } from './io.js';
import type { Vault } from '../vault/vault.js';
import { VERSION } from './version.js';
import { reportError } from './report.js';

export type Register = (program: Command) => void;

/** Command names (the first is the command, the rest its aliases) and how to load its registration. */
export type CommandTable = readonly (readonly [readonly string[], () => Promise<Register>])[];

/** The command word: the first argument that is neither an option nor the value of --root. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') i++;
    else if (argv[i] === '--') return undefined;
    else if (!argv[i].startsWith('-')) return argv[i];
  }
  return undefined;
}

async function buildProgram(argv: string[], io: Io, commands: CommandTable): Promise<Command> {
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
  const one = commands.find(([names]) => word !== undefined && names.includes(word));
  const registers = await Promise.all((one ? [one] : commands).map(([, load]) => load()));
  for (const register of registers) register(program);
  for (const cmd of program.commands) cmd.exitOverride().showSuggestionAfterError(true);
  // Every command's action finds its Io here (commandCtx walks up to the program).
  Object.assign(program, { io });
  return program;
}

/**
 * Run the CLI with `argv` (without node and the script) and the commands of `commands`, and
 * return its exit status. `io` is the real process unless a caller (a test) gives its own: then
 * nothing of this process's cwd, environment or standard streams is read or written.
 */
export async function runCli(argv: string[], commands: CommandTable, io: Io = processIo()): Promise<number> {
  // Everything the command does runs with this run's settings (timeouts, write confinement).
  return inRun(settingsFrom(io.env), () => runProgram(argv, io, commands));
}

async function runProgram(argv: string[], io: Io, commands: CommandTable): Promise<number> {
  const debug = argv.includes('--debug');
  const program = await buildProgram(argv, io, commands);
  try {
    await program.parseAsync(argv, { from: 'user' });
    // What the walks of the vaults it opened left out (a memory file linked out of the vault, a
    // folder that cannot be listed), when the command did not say it itself: said once, at the end,
    // by the commands that only write too (promote, compact, retire-stage…).
    const vaults = takeVaults(io) as Vault[];
    if (vaults.length > 0) {
      const { skipNotices } = await import('../vault/vault.js');
      const ctx = makeCtx(program.opts() as GlobalOptions, io);
      for (const n of vaults.flatMap((v) => skipNotices(v, { unsaid: true }))) ctx.warn(n);
    }
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
