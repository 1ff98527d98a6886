// Safe writes to the user's files: an exclusive lock per file (a hidden `.NAME.lock` beside it)
// and atomic replacement. A locked file is replaced through its lock: the new text is written
// into the lock file, synced, and the lock file renamed over the file, so the write and the
// release are one rename and no second file is created (creating a file is the slow part of a
// write on many disks: ~0.5-0.9 ms each on the bench machine, where `mem compact` rewrites a
// thousand files). A file with no lock (or none yet) is written through a temp file.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { writeTarget } from './boundary.js';

const STALE_MS = 10 * 60 * 1000;

function lockPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.lock`);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A lock holding text that is not a pid is a replacement being written; that takes milliseconds. */
const WRITING_STALE_MS = 30 * 1000;

function isStale(lock: string): { stale: boolean; pid?: number } {
  try {
    const text = fs.readFileSync(lock, 'utf8');
    const age = Date.now() - fs.statSync(lock).mtimeMs;
    if (text !== '' && !/^\d+\n?$/.test(text)) return { stale: age > WRITING_STALE_MS };
    const pid = Number.parseInt(text, 10);
    if (age > STALE_MS) return { stale: true, pid };
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 0);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') return { stale: true, pid };
      }
    }
    return { stale: false, pid };
  } catch {
    return { stale: false };
  }
}

export function lockTimeoutMs(): number {
  const v = Number(process.env.MEM_LOCK_TIMEOUT_MS);
  return Number.isFinite(v) && v >= 0 ? v : 10_000;
}

/** Run `fn` holding the write lock of `file`; waits up to the lock timeout for another writer. */
export function withFileLock<T>(file: string, fn: (lock: FileLock) => T, displayName = file): T {
  const lock = acquireLock(file, displayName);
  try {
    return fn(lock);
  } finally {
    lock.release();
  }
}

export interface FileLock {
  /** Replace the file with `text` atomically, keeping its mode; the lock is released by it. */
  replace(text: string): void;
  /** Release the lock (nothing to do after replace). */
  release(): void;
  /**
   * The first step of replaceAll: write `text` into the lock file, with the file's mode, not yet
   * synced. False when the file does not exist (a new file is written by replace instead).
   */
  stage(text: string): boolean;
  /** Sync the staged text to disk (on the thread pool, so that many syncs overlap). */
  syncStaged(): Promise<void>;
  /** Rename the synced lock file over the file; the lock is released by it. */
  commitStaged(): void;
}

/**
 * The outcome of one try at creating the lock file (`opened`: its descriptor, or why not): the
 * lock, held; or how long to wait before the next try (0 when a lock left by a dead writer was
 * just removed). Throws past the deadline, or when the lock file cannot be created at all.
 */
function settle(file: string, lock: string, deadline: number, displayName: string, opened: number | Error): FileLock | number {
  if (typeof opened === 'number') return heldLock(file, lock, opened, displayName);
  if ((opened as NodeJS.ErrnoException).code !== 'EEXIST') throw new MemError(`cannot lock ${displayName}: ${opened.message}`, { cause: opened });
  const st = isStale(lock);
  if (st.stale) {
    fs.rmSync(lock, { force: true });
    return 0;
  }
  if (Date.now() >= deadline) {
    throw new MemError(`${displayName} is locked by another writer${st.pid ? ` (pid ${st.pid})` : ''}`, {
      hint: `wait for it to finish, or remove ${lock} if no mem process is running`,
    });
  }
  return 50;
}

/** Take the write lock of `file` (waiting up to the lock timeout). */
export function acquireLock(file: string, displayName = file): FileLock {
  // A link inside the vault is written through (its target locked and replaced, the link kept).
  file = writeTarget(file, displayName);
  const lock = lockPath(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + lockTimeoutMs();
  const open = (): number | Error => {
    try {
      return fs.openSync(lock, 'wx');
    } catch (err) {
      return err as Error;
    }
  };
  for (;;) {
    const r = settle(file, lock, deadline, displayName, open());
    if (typeof r !== 'number') return r;
    if (r > 0) sleep(r);
  }
}

/**
 * acquireLock with the lock file created on the thread pool, so that the caller can work (read
 * and parse the file it locked before) while the disk creates it: creating a file is the slow
 * part of taking a lock, about a millisecond on a busy disk, where `mem compact` takes a thousand.
 */
export async function acquireLockAsync(file: string, displayName = file): Promise<FileLock> {
  file = writeTarget(file, displayName);
  const lock = lockPath(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + lockTimeoutMs();
  const open = () => new Promise<number | Error>((resolve) => fs.open(lock, 'wx', (err, fd) => resolve(err ?? fd)));
  for (;;) {
    const r = settle(file, lock, deadline, displayName, await open());
    if (typeof r !== 'number') return r;
    if (r > 0) await new Promise((resolve) => setTimeout(resolve, r));
  }
}

/** The lock of `file`, held through `fd`, the lock file just created; the pid goes in first. */
function heldLock(file: string, lock: string, fd: number, displayName: string): FileLock {
  try {
    fs.writeSync(fd, `${process.pid}\n`);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(lock, { force: true });
    throw new MemError(`cannot lock ${displayName}: ${(err as Error).message}`, { cause: err });
  }
  const held = fd;
  let open = true;
  let staged = false;
  const release = () => {
    if (!open) return;
    open = false;
    fs.closeSync(held);
    fs.rmSync(lock, { force: true });
  };
  // Any failure while replacing: the lock file (with whatever was written into it) goes, the file
  // stays as it was.
  const fail = (err: unknown): never => {
    release();
    throw new MemError(`cannot write ${displayName}: ${(err as Error).message}`, { cause: err });
  };
  const stage = (text: string): boolean => {
    if (!open) throw new Error(`the lock of ${displayName} is no longer held`);
    let mode: number;
    try {
      mode = fs.statSync(file).mode & 0o7777;
    } catch {
      return false;
    }
    try {
      const buf = Buffer.from(text, 'utf8');
      fs.ftruncateSync(held, 0);
      for (let off = 0; off < buf.length; ) off += fs.writeSync(held, buf, off, buf.length - off, off);
      fs.fchmodSync(held, mode);
    } catch (err) {
      fail(err);
    }
    staged = true;
    return true;
  };
  const commitStaged = () => {
    if (!open || !staged) throw new Error(`nothing staged for ${displayName}`);
    try {
      fs.closeSync(held);
      open = false;
      fs.renameSync(lock, file);
    } catch (err) {
      if (open) fs.closeSync(held);
      open = false;
      fs.rmSync(lock, { force: true });
      throw new MemError(`cannot write ${displayName}: ${(err as Error).message}`, { cause: err });
    }
  };
  return {
    release,
    stage,
    commitStaged,
    syncStaged: () =>
      new Promise<void>((resolve, reject) => {
        if (!open || !staged) return reject(new Error(`nothing staged for ${displayName}`));
        fs.fsync(held, (err) => (err ? reject(new MemError(`cannot write ${displayName}: ${err.message}`, { cause: err })) : resolve()));
      }),
    replace(text: string): void {
      if (!stage(text)) {
        // A new file: the temp-file path gives it the usual mode (umask applied); then unlock.
        writeFileAtomic(file, text);
        release();
        return;
      }
      try {
        fs.fsyncSync(held);
      } catch (err) {
        fail(err);
      }
      commitStaged();
    },
  };
}

/**
 * Replace several locked files, each with its text, as one step: every text is written into its
 * file's lock file first, the lock files are synced together (on the thread pool: one sync after
 * another costs about a millisecond each on the bench machine, which `mem compact` pays for a
 * thousand files), and only then is each renamed over its file. A failure before the renames
 * changes no file. New files are written through a temp file. Every lock is released.
 */
export async function replaceAll(items: { lock: FileLock; text: string }[]): Promise<void> {
  const staged = new Set<FileLock>();
  try {
    for (const { lock, text } of items) {
      if (lock.stage(text)) staged.add(lock);
    }
    // Every sync settles before any lock file is closed: a descriptor closed under a pending
    // fsync could be reused by another file.
    const failed = (await Promise.allSettled([...staged].map((l) => l.syncStaged()))).find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  } catch (err) {
    for (const l of staged) l.release();
    throw err;
  }
  for (const l of staged) l.commitStaged();
  for (const { lock, text } of items) {
    if (!staged.has(lock)) lock.replace(text);
  }
}

/** Replace `file` with `text` atomically, keeping the file's mode. */
export function writeFileAtomic(file: string, text: string): void {
  file = writeTarget(file);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let mode: number | undefined;
  try {
    mode = fs.statSync(file).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  try {
    const fd = fs.openSync(tmp, 'w', mode ?? 0o644);
    try {
      fs.writeFileSync(fd, text, 'utf8');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new MemError(`cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}
