// What every command gets from the command line: global options, where output goes, colour,
// the clock, and how warnings are printed. Commands print; domain modules never do.

import path from 'node:path';
import { isatty } from 'node:tty';
import { MemError, usageError } from '../errors.js';
import { readStdinText } from '../stdin.js';
import { readRegularText } from '../vault/read.js';
import { credentialsIn, displaySafe } from '../secrets/display.js';
import { writeStdout } from './stdout.js';

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
  stdoutTTY: boolean;
  stderrTTY: boolean;
  out(text: string): void;
  warn(text: string): void;
  info(text: string): void;
}

export function makeCtx(g: GlobalOptions): Ctx {
  const quiet = Boolean(g.quiet);
  // Asked only when needed (human output, spinners): asking creates Node's stdio streams.
  return {
    root: g.root,
    json: Boolean(g.json),
    quiet,
    debug: Boolean(g.debug),
    get color() {
      return g.color !== false && !('NO_COLOR' in process.env && process.env.NO_COLOR !== '') && this.stdoutTTY;
    },
    cwd: process.cwd(),
    get stdoutTTY() {
      return Boolean(process.stdout.isTTY);
    },
    get stderrTTY() {
      return Boolean(process.stderr.isTTY);
    },
    out: (text) => {
      writeStdout(text.endsWith('\n') ? text : `${text}\n`);
    },
    // Warnings and notes carry what servers and errors said: never a credential on the terminal.
    warn: (text) => {
      if (!quiet) process.stderr.write(`mem: warning: ${displaySafe(text, credentialsIn(process.env))}\n`);
    },
    info: (text) => {
      if (!quiet) process.stderr.write(`${displaySafe(text, credentialsIn(process.env))}\n`);
    },
  };
}

/** Now, or `MEM_NOW` (a date or ISO timestamp) for reproducible runs and tests. */
export function nowMs(): number {
  const fixed = process.env.MEM_NOW;
  if (fixed) {
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(fixed) ? `${fixed}T12:00:00Z` : fixed);
    if (Number.isNaN(ms)) throw new MemError(`MEM_NOW is not a date: ${fixed}`);
    return ms;
  }
  return Date.now();
}

export function today(): string {
  return new Date(nowMs()).toISOString().slice(0, 10);
}

export function parseIntOption(name: string, v: string | undefined, min = 0): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) < min) throw usageError(`${name} must be an integer >= ${min} (got "${v}")`);
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

export function readStdin(): string {
  return readStdinText();
}

/**
 * The text of an input file the user named (relative to the working folder), or of stdin for
 * "-": only a regular file, at most `maxBytes` (a FIFO or a device is refused, never opened for a
 * read). `what` names it in messages ("the batch file").
 */
export function readInputFile(ctx: Pick<Ctx, 'cwd'>, file: string, maxBytes: number, what: string): string {
  if (file === '-') return readStdinText({ maxBytes, what: 'standard input' });
  return readRegularText(path.resolve(ctx.cwd, file), { maxBytes, display: `${what} ${file}`, within: [] });
}

/** Whether standard input is a terminal, asked without creating process.stdin (which would make a pipe non-blocking). */
export function stdinIsTerminal(): boolean {
  return isatty(0);
}

/** A spinner for long indexing on a terminal; nothing when quiet, piped or in JSON mode. */
export function progressFactory(ctx: Ctx, label = 'indexing', unit = 'files', min = 100): (total: number) => Promise<((done: number, total: number) => void) | undefined> {
  return async (total) => {
    // A pty with no size (columns 0) makes spinners redraw without end: no spinner there.
    // The count first: asking about the terminal creates Node's stderr stream (3 ms).
    if (total < min || ctx.quiet || !ctx.stderrTTY || !(process.stderr.columns > 0)) return undefined;
    const { default: ora } = await import('ora');
    const spinner = ora({ text: `${label} 0/${total} ${unit}`, stream: process.stderr }).start();
    return (done, all) => {
      spinner.text = `${label} ${done}/${all} ${unit}`;
      spinner.render();
      if (done >= all) spinner.stop();
    };
  };
}
