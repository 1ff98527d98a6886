// Reading files: the one way mem opens a file to read it (regular files only, never blocking on a
// FIFO, never a device, never past a size cap, never through a link out of the vault), and a
// vault file as UTF-8 text: a BOM is dropped from the text but reported, so a rewrite can put it
// back. Binary files and invalid UTF-8 are refused with a reason (and the line of the first bad
// byte). A text file with a stray NUL is text: the parser skips the one entry.

import fs from 'node:fs';
import { MemError } from '../errors.js';
import { readTarget } from './boundary.js';

/** `gone`: the file is not there (any more): removed after it was listed, or a link to nothing. */
export type ReadResult = { text: string; bom?: boolean } | { error: string; line?: number; gone?: boolean };

/** A memory file is read whole; past this it is refused (a string that long cannot be parsed anyway). */
export const MEMORY_FILE_LIMIT = 256 << 20;

/** What kind of special file this is, for messages: "a FIFO", "a socket", … */
export function specialKind(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a folder';
  return 'not a file';
}

/** Why a file could not be opened or read, without its name (callers add it). */
export interface ReadFailure {
  error: string;
  kind: 'missing' | 'special' | 'too-large' | 'denied' | 'other';
}

function failure(err: unknown): ReadFailure {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { error: 'no such file (or a link to nothing)', kind: 'missing' };
  if (code === 'EACCES' || code === 'EPERM') return { error: 'file is not readable (permission denied)', kind: 'denied' };
  if (code === 'ELOOP') return { error: 'a symlink loop', kind: 'other' };
  return { error: `cannot read file: ${(err as Error).message}`, kind: 'other' };
}

/**
 * `read` on `abs` opened for reading, only when it is a regular file. The open does not block (a
 * FIFO waits for a writer forever, and ignores the signals that would stop mem meanwhile) and the
 * kind is checked on the open descriptor, so nothing swapped in between is read: a FIFO, socket
 * or device (/dev/zero never ends) is a failure, never opened for a read.
 */
export function withRegularFd<T>(abs: string, read: (fd: number, st: fs.Stats) => T): T | ReadFailure {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    return failure(err);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { error: `not a regular file (${specialKind(st)})`, kind: st.isDirectory() ? 'other' : 'special' };
    return read(fd, st);
  } catch (err) {
    if (err instanceof MemError) throw err;
    return failure(err);
  } finally {
    fs.closeSync(fd);
  }
}

export function isFailure(r: unknown): r is ReadFailure {
  return typeof r === 'object' && r !== null && !Buffer.isBuffer(r) && 'kind' in r && 'error' in r;
}

function megabytes(n: number): string {
  return n >= 1 << 20 ? `${Math.round((n / 2 ** 20) * 10) / 10} MB` : `${Math.ceil(n / 1024)} KB`;
}

/**
 * The bytes of a regular file, up to `maxBytes` (more is a failure: a regular file can also grow
 * while it is read, or say size 0 and hold more, as files under /proc do).
 */
export function readRegularBytes(abs: string, maxBytes: number): Buffer | ReadFailure {
  return withRegularFd(abs, (fd, st): Buffer | ReadFailure => {
    const tooLarge: ReadFailure = { error: `file is over ${megabytes(maxBytes)} (the most mem reads here)`, kind: 'too-large' };
    if (st.size > maxBytes) return tooLarge;
    // One byte more than the cap: reading it tells "exactly at the cap" from "over it".
    // A size of 0 may hide content (files under /proc): start small and grow.
    let out = Buffer.allocUnsafe(Math.min(maxBytes + 1, st.size > 0 ? st.size + 1 : 4096));
    let got = 0;
    for (;;) {
      if (got === out.length) {
        if (out.length > maxBytes) return tooLarge;
        const bigger = Buffer.allocUnsafe(Math.min(maxBytes + 1, out.length * 2));
        out.copy(bigger, 0, 0, got);
        out = bigger;
      }
      const n = fs.readSync(fd, out, got, out.length - got, null);
      if (n === 0) break;
      got += n;
      if (got > maxBytes) return tooLarge;
    }
    return out.subarray(0, got);
  });
}

export interface ReadFileOptions {
  /** Refuse a file larger than this. */
  maxBytes: number;
  /** How the file is named in messages (default: the path as given). */
  display?: string;
  /** What to do instead, for the message's hint. */
  hint?: string;
  /**
   * A file under one of these folders (by name) is read only where it really stays inside that
   * folder once its links are followed. Default: the vault root and the global folder; [] for none.
   */
  within?: string[];
}

/**
 * The bytes of a file the user named or that sits in the vault, for a command that needs it: a
 * MemError naming the file when it is missing, not a regular file, over the cap, unreadable, or
 * a link out of the vault.
 */
export function readRegularFile(file: string, opts: ReadFileOptions): Buffer {
  const display = opts.display ?? file;
  const abs = readTarget(file, display, opts.within);
  const r = readRegularBytes(abs, opts.maxBytes);
  if (!isFailure(r)) return r;
  const msg = r.kind === 'special' ? `${display} is ${r.error}; mem reads only regular files` : `cannot read ${display}: ${r.error}`;
  return failWith(msg, opts.hint);
}

function failWith(message: string, hint?: string): never {
  throw new MemError(message, hint ? { hint } : {});
}

/** A file's text (UTF-8, a BOM dropped) through readRegularFile; invalid UTF-8 and binary files are refused. */
export function readRegularText(file: string, opts: ReadFileOptions): string {
  const r = decodeVaultText(readRegularFile(file, opts));
  if ('error' in r) throw new MemError(`cannot read ${opts.display ?? file}: ${r.error}`, { where: r.line ? { file: opts.display ?? file, line: r.line } : undefined, hint: opts.hint });
  return r.text;
}

/** The text of a regular file (a BOM dropped), or null when it is missing, not a regular file or over `maxBytes`. */
export function readRegular(abs: string, maxBytes = MEMORY_FILE_LIMIT): string | null {
  const buf = readRegularBytes(abs, maxBytes);
  if (isFailure(buf)) return null;
  const text = buf.toString('utf8');
  // A BOM is not text: a memory file's first `---` line or a ledger's first record starts after it.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Read a vault file as UTF-8 text, refusing binary files, invalid UTF-8 and anything but a regular file with a reason. */
export function readVaultText(abs: string): ReadResult {
  const r = readRegularBytes(abs, MEMORY_FILE_LIMIT);
  if (!isFailure(r)) return decodeVaultText(r);
  return r.kind === 'missing' ? { error: r.error, gone: true } : { error: r.error };
}

/**
 * Whether a file is binary, judged on the whole file: more than one byte in 32 is a control byte
 * that text does not hold (NUL, and the C0 controls other than tab, line feed, vertical tab, form
 * feed, carriage return and escape). A real binary file (an image, UTF-16, a core dump) is full of
 * them, while a text file that picked up a stray NUL has one or two and must not lose every
 * other entry for it. A file without a NUL is text here (the native search for one is the fast
 * path); invalid UTF-8 is caught by the decoder.
 */
export function looksBinary(buf: Buffer): boolean {
  if (buf.indexOf(0) === -1) return false;
  let n = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c < 0x20 && (c <= 8 || (c >= 0x0e && c !== 0x1b))) n++;
  }
  return n * 32 > buf.length;
}

export function decodeVaultText(buf: Buffer): ReadResult {
  if (looksBinary(buf)) return { error: 'binary file (contains NUL bytes)' };
  try {
    let text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf);
    const bom = text.charCodeAt(0) === 0xfeff;
    if (bom) text = text.slice(1);
    return bom ? { text, bom } : { text };
  } catch {
    return { error: 'not valid UTF-8', line: invalidUtf8Line(buf) };
  }
}

function invalidUtf8Line(buf: Buffer): number {
  let lo = 0;
  let hi = buf.length;
  const dec = () => new TextDecoder('utf-8', { fatal: true });
  // Binary search for the shortest prefix that fails to decode (streaming keeps partial sequences).
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    try {
      dec().decode(buf.subarray(0, mid + 1), { stream: true });
      lo = mid + 1;
    } catch {
      hi = mid;
    }
  }
  let line = 1;
  for (let i = 0; i < lo && i < buf.length; i++) if (buf[i] === 10) line++;
  return line;
}
