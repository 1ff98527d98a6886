// The vault's edges: where a path really leads once its symlinks are followed, and whether that
// is still inside the folder it was found in (the project root, or the user's global folder).
// A cloned repository can hold links to anywhere; mem reads and writes only what stays inside.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { runSettings } from '../run.js';

const realRoots = new Map<string, string>();

/** The real path of a root folder (cached: roots do not move during a command). */
export function realRoot(dir: string): string {
  const abs = path.resolve(dir);
  let real = realRoots.get(abs);
  if (real === undefined) {
    try {
      real = fs.realpathSync(abs);
    } catch {
      real = abs;
    }
    realRoots.set(abs, real);
  }
  return real;
}

/** True when the real path `real` is `base` (a real path) or under it. */
export function within(real: string, base: string): boolean {
  if (real === base) return true;
  const prefix = base.endsWith(path.sep) ? base : base + path.sep;
  return real.startsWith(prefix);
}

/**
 * Where `p` really leads: its real path, also for a path that does not exist yet (the real path of
 * its nearest existing folder, plus the rest) or a dangling link (followed by hand). Null when it
 * cannot be told (a link loop, a folder that cannot be searched): callers treat that as outside.
 */
export function resolveReal(p: string, hops = 0): string | null {
  const abs = path.resolve(p);
  try {
    // The C realpath: one call, where the JS one lstats each part of the path (the memo check
    // resolves every link of the vault before each search).
    return fs.realpathSync.native(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return null;
  }
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  const realParent = resolveReal(parent, hops);
  if (realParent === null) return null;
  let link: string | null = null;
  try {
    if (fs.lstatSync(abs).isSymbolicLink()) link = fs.readlinkSync(abs);
  } catch {
    link = null;
  }
  if (link === null) return path.join(realParent, path.basename(abs));
  // A dangling link: where it points, from the folder it is in (writing there would create it).
  if (hops >= 40) return null;
  return resolveReal(path.resolve(realParent, link), hops + 1);
}

/** Whether `abs` (found under `base`) really stays inside `base` once its links are followed. */
export function staysInside(abs: string, base: string): { inside: boolean; real: string | null } {
  const real = resolveReal(abs);
  return { inside: real !== null && within(real, realRoot(base)), real };
}

/**
 * Where a link leads, as a memoised walk records it: the real path, marked `missing:` when nothing
 * is there (so a link to nothing that gets a target, or loses it, changes the record); '' when it
 * cannot be told.
 */
export function linkState(abs: string): string {
  const real = resolveReal(abs);
  if (real === null) return '';
  return fs.existsSync(real) ? real : `missing:${real}`;
}

// ---- reads and writes of named files ---------------------------------------------------------

/**
 * The folders reads and writes are confined to (the vault root and the global folder), set when a
 * vault is opened. A file under one of them is written only where its real path stays inside that one
 * (the deepest that holds it by name); a file under none (a path the user named) is not confined.
 */
export function confineWritesTo(bases: string[]): void {
  runSettings().writeBases = bases.map((b) => path.resolve(b)).sort((a, b) => b.length - a.length);
}

function baseOf(abs: string, bases = runSettings().writeBases): string | undefined {
  return bases.find((b) => within(abs, b));
}

/**
 * The path to write instead of `file`: its real path when it stays inside its base (so a write
 * through a symlink inside the vault replaces the link's target and keeps the link), `file`
 * itself when it is under no base. Throws when it leads out of the vault. `within_` names the
 * base instead of the ones set by confineWritesTo.
 */
export function writeTarget(file: string, displayName = file, within_?: string): string {
  return confinedTarget(file, displayName, 'write', within_);
}

/**
 * The path to read instead of `file`, by the same rule as writeTarget: never through a link out of
 * the vault. `bases`: the folders that count (default: the vault root and the global folder).
 */
export function readTarget(file: string, displayName = file, bases?: string[]): string {
  const base = bases === undefined ? undefined : baseOf(path.resolve(file), bases.map((b) => path.resolve(b)).sort((a, b) => b.length - a.length));
  if (bases !== undefined && base === undefined) return path.resolve(file);
  return confinedTarget(file, displayName, 'read', base);
}

function confinedTarget(file: string, displayName: string, verb: 'read' | 'write', within_?: string): string {
  const abs = path.resolve(file);
  const base = within_ ?? baseOf(abs);
  if (base === undefined) return abs;
  const { inside, real } = staysInside(abs, base);
  if (real === null && abs.split(path.sep).some((part) => Buffer.byteLength(part) > 255)) {
    // The path cannot be resolved because a name in it is too long for the file system, not because of a link.
    throw new MemError(`cannot ${verb} ${displayName}: a name in its path is longer than 255 bytes`, { hint: 'use a shorter name' });
  }
  if (!inside || real === null) {
    throw new MemError(`refusing to ${verb} ${displayName}: it leads out of the vault through a symlink${real ? ` (to ${real})` : ''}`, {
      hint: `mem never ${verb === 'read' ? 'reads' : 'writes'} through a link that leaves ${base}; replace the link with a file or a folder`,
    });
  }
  return real;
}

/**
 * Append `text` to `file` (created with its folders when missing), never through a link out of
 * the vault and never into anything but a regular file: the open does not block, so a FIFO put
 * in its place fails at once instead of waiting for a reader. `base`: the folder to stay in,
 * when no vault was opened (the agent hooks).
 */
export function appendConfined(file: string, text: string, displayName = file, base?: string): void {
  const target = writeTarget(file, displayName, base);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const c = fs.constants;
  const fd = fs.openSync(target, c.O_WRONLY | c.O_APPEND | c.O_CREAT | (c.O_NONBLOCK ?? 0), 0o644);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new MemError(`${displayName} is not a regular file; not writing to it`);
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}
