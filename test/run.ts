// Running the CLI in this process: `main(argv, io)` with an Io of the test's own (its folder, its
// environment, its standard input as text, output captured), the same result shape as mem() in
// helpers.ts, which runs the installed command as a child process. Use mem() only where the
// process itself is what a test is about (signals, pipes, locks between processes, what git and
// agents spawn).

import { main } from '../src/cli/main.js';
import type { Io } from '../src/cli/io.js';
import type { StdinLimits } from '../src/stdin.js';
import { MemError } from '../src/errors.js';
import { runEnv, type RunResult } from './helpers.js';

export interface RunOptions {
  cwd: string;
  home?: string;
  env?: Record<string, string | undefined>;
  /** Standard input (a pipe with this text; empty when not given). */
  input?: string;
  /** Pretend standard input is a terminal (nothing piped). */
  stdinTTY?: boolean;
}

/** An Io over strings: what the CLI writes is kept, standard input is `input`. */
export function testIo(opts: RunOptions): Io & { out: string; err: string } {
  const input = opts.input ?? '';
  const io = {
    cwd: opts.cwd,
    env: runEnv(opts),
    out: '',
    err: '',
    readStdin(limits: StdinLimits = {}) {
      if (limits.maxBytes !== undefined && Buffer.byteLength(input) > limits.maxBytes) {
        throw new MemError(`${limits.what ?? 'standard input'} is over ${limits.maxBytes / 1024 / 1024} MB`);
      }
      return input;
    },
    stdout(text: string) {
      io.out += text;
    },
    stderr(text: string) {
      io.err += text;
    },
    stdinTTY: Boolean(opts.stdinTTY),
    stdoutTTY: false,
    stderrTTY: false,
    stderrColumns: 0,
    exitCode: undefined as number | undefined,
  };
  return io;
}

/** Run `mem ARGS` in this process. */
export async function run(args: string[], opts: RunOptions): Promise<RunResult> {
  const io = testIo(opts);
  const status = await main(args, io);
  return {
    status,
    stdout: io.out,
    stderr: io.err,
    json() {
      return JSON.parse(io.out);
    },
  };
}
