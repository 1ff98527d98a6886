// What every command gets from the command line: global options, where output goes, colour,
// the clock, and how warnings are printed. Commands print; domain modules never do.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Tty from 'node:tty';
import { MemError, usageError } from '../errors.js';
import type { Command } from 'commander';
import { readStdinText, type StdinLimits } from '../stdin.js';
import { readRegularText } from '../vault/read.js';
import { credentialsIn, displaySafe } from '../secrets/display.js';
import { forTerminal, jsonForTerminal } from '../quote.js';
import { writeStdout } from './stdout.js';

/**
 * Everything a run of the CLI touches outside itself: the working folder, the environment,
 * standard input and output, whether they are terminals, and the exit status. `processIo()` is
 * the real process; tests pass their own and run `main` in-process.
 */
export interface Io {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Standard input to its end (as text), within the limits given. */
  readStdin(limits?: StdinLimits): string;
  stdout(text: string): void;
  stderr(text: string): void;
  stdinTTY: boolean;
  stdoutTTY: boolean;
  stderrTTY: boolean;
  /** The terminal's width for stderr progress lines (0 when unknown). */
  stderrColumns: number;
  /** The exit status a command asks for without failing (e.g. `mem lint` finding problems). */
  exitCode: number | undefined;
}

/**
 * Whether `fd` is a terminal, as tty.isatty says. node:tty loads node:net and the stream modules
 * (3-5 ms), which a command writing through writeStdout never needs otherwise; a terminal is always
 * a character device, so a pipe or a file is answered from fstat and node:tty loads only for
 * character devices (a terminal, /dev/null).
 */
function isatty(fd: number): boolean {
  // (Windows consoles are not described by fstat the same way: there node:tty alone answers.)
  if (process.platform !== 'win32') {
    try {
      if (!fs.fstatSync(fd).isCharacterDevice()) return false;
    } catch {
      return false;
    }
  }
  return (createRequire(import.meta.url)('node:tty') as typeof Tty).isatty(fd);
}

/** The real process as an Io. TTY flags are asked only when needed: asking creates Node's stdio streams. */
export function processIo(): Io {
  return {
    cwd: process.cwd(),
    env: process.env,
    readStdin: (limits) => readStdinText(limits),
    stdout: writeStdout,
    stderr: (text) => {
      process.stderr.write(text);
    },
    get stdinTTY() {
      return isatty(0);
    },
    get stdoutTTY() {
      return isatty(1);
    },
    get stderrTTY() {
      return isatty(2);
    },
    get stderrColumns() {
      return process.stderr.columns || 0;
    },
    get exitCode() {
      return typeof process.exitCode === 'number' ? process.exitCode : undefined;
    },
    set exitCode(code) {
      process.exitCode = code;
    },
  };
}

export interface GlobalOptions {
  root?: string;
  json?: boolean;
  quiet?: boolean;
  debug?: boolean;
  color?: boolean;
}

export interface Ctx {
  root?: string;
  json: boolean;
  quiet: boolean;
  debug: boolean;
  color: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  io: Io;
  stdoutTTY: boolean;
  stderrTTY: boolean;
  /** A line (or lines) on stdout; nothing in it can drive the terminal (see forTerminal). */
  out(text: string): void;
  /** Text on stdout as it is given (no line break added), made as safe as out(). */
  write(text: string): void;
  warn(text: string): void;
  info(text: string): void;
  /** A line on stderr as it is (credentials masked), also when quiet. */
  err(text: string): void;
  /** Ask for a non-zero exit status without failing the command. */
  setExitCode(code: number): void;
  /** Now, or `MEM_NOW` of this run's environment (a date or ISO timestamp) for reproducible runs and tests. */
  now(): number;
  /** Today's date (YYYY-MM-DD) by now(). */
  today(): string;
  readStdin(limits?: StdinLimits): string;
  stdinIsTerminal(): boolean;
}

/** The vaults the commands of a run opened, by the run's Io: see noteVault. */
const opened = new WeakMap<Io, object[]>();

/** Keep `vault` (opened by a command of the run with this Io) for takeVaults. */
export function noteVault(io: Io, vault: object): void {
  const list = opened.get(io);
  if (list) list.push(vault);
  else opened.set(io, [vault]);
}

/** The vaults the run's commands opened, forgotten once taken. */
export function takeVaults(io: Io): object[] {
  const list = opened.get(io) ?? [];
  opened.delete(io);
  return list;
}

export function makeCtx(g: GlobalOptions, io: Io = processIo()): Ctx {
  const quiet = Boolean(g.quiet);
  const env = io.env;
  const safe = (text: string) => displaySafe(text, credentialsIn(env));
  const ctx: Ctx = {
    root: g.root,
    json: Boolean(g.json),
    quiet,
    debug: Boolean(g.debug),
    get color() {
      return g.color !== false && !('NO_COLOR' in env && env.NO_COLOR !== '') && this.stdoutTTY;
    },
    cwd: io.cwd,
    env,
    io,
    get stdoutTTY() {
      return io.stdoutTTY;
    },
    get stderrTTY() {
      return io.stderrTTY;
    },
    // What mem prints carries vault text: a file's escape sequences must not reach the terminal
    // as such. JSON keeps its value (the characters are written as \u escapes).
    out: (text) => {
      ctx.write(text.endsWith('\n') ? text : `${text}\n`);
    },
    write: (text) => {
      io.stdout(ctx.json ? forTerminal(jsonForTerminal(text), false) : forTerminal(text, ctx.color));
    },
    // Warnings and notes carry what servers and errors said: never a credential on the terminal.
    warn: (text) => {
      if (!quiet) io.stderr(`mem: warning: ${forTerminal(safe(text), false)}\n`);
    },
    info: (text) => {
      if (!quiet) io.stderr(`${forTerminal(safe(text), false)}\n`);
    },
    err: (text) => {
      io.stderr(`${forTerminal(safe(text), false)}\n`);
    },
    setExitCode: (code) => {
      io.exitCode = code;
    },
    now: () => nowFrom(env),
    today: () => new Date(nowFrom(env)).toISOString().slice(0, 10),
    readStdin: (limits) => io.readStdin(limits),
    stdinIsTerminal: () => io.stdinTTY,
  };
  return ctx;
}

/** The Io a command runs with: the one its program was built with (the real process when none). */
export function ioOf(cmd: Command): Io {
  let c: Command | null = cmd;
  while (c.parent) c = c.parent;
  return (c as Command & { io?: Io }).io ?? processIo();
}

/** The context of a command's action: its global options and its program's Io. */
export function commandCtx(cmd: Command): Ctx {
  return makeCtx(cmd.optsWithGlobals() as GlobalOptions, ioOf(cmd));
}

/** Now, or `MEM_NOW` (a date or ISO timestamp) for reproducible runs and tests. */
export function nowFrom(env: NodeJS.ProcessEnv): number {
  const fixed = env.MEM_NOW;
  if (fixed) {
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(fixed) ? `${fixed}T12:00:00Z` : fixed);
    if (Number.isNaN(ms)) throw new MemError(`MEM_NOW is not a date: ${fixed}`);
    return ms;
  }
  return Date.now();
}

export function parseIntOption(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  // Past 2^53 a number is no longer an exact integer (SQLite would be handed a float).
  if (!/^\d+$/.test(v.trim()) || Number(v) < min || Number(v) > Number.MAX_SAFE_INTEGER) {
    throw usageError(`${name} must be an integer from ${min} to ${Number.MAX_SAFE_INTEGER} (got "${v}")`);
  }
  return Number(v);
}

export function parseFloatOption(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw usageError(`${name} must be a number from ${min} to ${max} (got "${v}")`);
  return n;
}

/** Comma- or repeat-separated list option values, trimmed and lowercased. */
export function listOption(v: string[] | string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const arr = (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).map((x) => x.trim().toLowerCase()).filter(Boolean);
  return arr.length > 0 ? arr : undefined;
}

export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The text of an input file the user named (relative to the working folder), or of stdin for
 * "-": only a regular file, at most `maxBytes` (a FIFO or a device is refused, never opened for a
 * read). `what` names it in messages ("the batch file").
 */
export function readInputFile(ctx: Pick<Ctx, 'cwd' | 'readStdin'>, file: string, maxBytes: number, what: string): string {
  if (file === '-') return ctx.readStdin({ maxBytes, what: 'standard input' });
  return readRegularText(path.resolve(ctx.cwd, file), { maxBytes, display: `${what} ${file}`, within: [] });
}

/** A spinner for long indexing on a terminal; nothing when quiet, piped or in JSON mode. */
export function progressFactory(ctx: Ctx, label = 'indexing', unit = 'files', min = 100): (total: number) => Promise<((done: number, total: number) => void) | undefined> {
  return async (total) => {
    // A pty with no size (columns 0) makes spinners redraw without end: no spinner there.
    // The count first: asking about the terminal creates Node's stderr stream (3 ms).
    if (total < min || ctx.quiet || !ctx.stderrTTY || !(ctx.io.stderrColumns > 0)) return undefined;
    const { default: ora } = await import('ora');
    const spinner = ora({ text: `${label} 0/${total} ${unit}`, stream: process.stderr }).start();
    return (done, all) => {
      spinner.text = `${label} ${done}/${all} ${unit}`;
      spinner.render();
      if (done >= all) spinner.stop();
    };
  };
}
