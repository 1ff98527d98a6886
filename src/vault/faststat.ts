// The stat numbers the freshness check needs (kind, mtime, ctime, size), without an fs.Stats
// object per call. The check before every command stats every memory file and folder of the
// vault: 13,000 calls at 10k files, where building and collecting the Stats objects cost about
// a third of the time the system calls do.
//
// On Node 20 the fs binding's stat (what fs.statSync calls) fills a shared Float64Array and
// returns it. It is used only after it has given the same numbers as fs.statSync for a file, a
// folder and a missing path in this process; anywhere else (another Node major, a deprecation
// mode that would print a warning for process.binding) fs.statSync is used, with the same result.

import fs from 'node:fs';

export const MISSING = 0;
export const FILE = 1;
export const DIR = 2;
export const OTHER = 3;

type RawStat = (path: string, useBigint: boolean, req: undefined, throwIfNoEntry: boolean) => Float64Array | undefined;

// Positions in the binding's array (node/lib/internal/fs/utils.js, Node 20).
const MODE = 1;
const INO = 7;
const SIZE = 8;
const MTIME_S = 12;
const MTIME_NS = 13;
const CTIME_S = 14;
const CTIME_NS = 15;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

let raw: RawStat | null | undefined;

function warnsOnBinding(): boolean {
  const flags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  return /--(pending|throw|trace)-deprecation/.test(flags) || Boolean(process.env.NODE_PENDING_DEPRECATION && process.env.NODE_PENDING_DEPRECATION !== '0');
}

/** The same numbers as fs.statSync gives, for a file, a folder and a missing path. */
function agrees(fn: RawStat): boolean {
  const here = fs.realpathSync('.');
  for (const p of [process.execPath, here]) {
    const a = fn(p, false, undefined, false);
    const s = fs.statSync(p, { throwIfNoEntry: false });
    if (!a || !s || a.length < 16) return false;
    if (a[MODE] !== s.mode || a[INO] !== s.ino || a[SIZE] !== s.size) return false;
    if (a[MTIME_S] * 1e3 + a[MTIME_NS] / 1e6 !== s.mtimeMs || a[CTIME_S] * 1e3 + a[CTIME_NS] / 1e6 !== s.ctimeMs) return false;
  }
  return fn(`${here}/.mem-stat-probe-${process.pid}-missing`, false, undefined, false) === undefined;
}

function rawStat(): RawStat | null {
  if (raw !== undefined) return raw;
  raw = null;
  if (process.versions.node.split('.')[0] !== '20' || warnsOnBinding()) return raw;
  try {
    const binding = (process as unknown as { binding(name: string): { stat?: unknown } }).binding('fs');
    const fn = binding.stat;
    if (typeof fn === 'function') {
      const bound = fn.bind(binding) as RawStat;
      if (agrees(bound)) raw = bound;
    }
  } catch {
    raw = null;
  }
  return raw;
}

/**
 * Stat `p` (following symlinks) and write its mtimeMs, ctimeMs and size at out[at..at+2]; returns
 * MISSING (nothing written), FILE, DIR or OTHER. Errors other than a missing path (permissions,
 * a loop) throw, as fs.statSync does.
 */
export function statInto(p: string, out: Float64Array, at: number): number {
  const fn = rawStat();
  // A NUL would end the path early in C; fs.statSync rejects it.
  if (fn && !p.includes('\u0000')) {
    const a = fn(p, false, undefined, false);
    if (a === undefined) return MISSING;
    out[at] = a[MTIME_S] * 1e3 + a[MTIME_NS] / 1e6;
    out[at + 1] = a[CTIME_S] * 1e3 + a[CTIME_NS] / 1e6;
    out[at + 2] = a[SIZE];
    const type = a[MODE] & S_IFMT;
    return type === S_IFREG ? FILE : type === S_IFDIR ? DIR : OTHER;
  }
  const s = fs.statSync(p, { throwIfNoEntry: false });
  if (!s) return MISSING;
  out[at] = s.mtimeMs;
  out[at + 1] = s.ctimeMs;
  out[at + 2] = s.size;
  return s.isFile() ? FILE : s.isDirectory() ? DIR : OTHER;
}

/** Whether statInto uses the binding in this process (for tests and the benchmark's notes). */
export function usesBinding(): boolean {
  return rawStat() !== null;
}

/**
 * Run `fn` with the process's working folder at `dir`, put back afterwards whatever happens, so
 * that the paths under `dir` can be stat-ed relative to it: the kernel walks fewer folders and no
 * joined path string is built per file (13k stats at 10k files: 48 → 42 ms here). `fn` is told
 * whether the folder was changed; where it cannot be (a worker thread, Windows, a folder that is
 * gone) paths must stay absolute. mem names every file by its absolute path, and the check that
 * uses this is synchronous, so no other file operation can see the changed folder.
 */
export function inFolder<T>(dir: string, fn: (moved: boolean) => T): T {
  let before: string | null = null;
  if (process.platform !== 'win32') {
    try {
      before = process.cwd();
      process.chdir(dir);
    } catch {
      before = null;
    }
  }
  if (before === null) return fn(false);
  try {
    return fn(true);
  } finally {
    try {
      process.chdir(before);
    } catch {
      // The folder we started in is gone; stay where we are (paths mem uses are absolute).
    }
  }
}
