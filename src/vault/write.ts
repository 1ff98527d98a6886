// Safe writes to the user's files: an exclusive lock per file (a hidden `.NAME.lock` beside it)
// and atomic replacement. A locked file is replaced through its lock: the new text is written
// into the lock file, synced, and the lock file renamed over the file, so the write and the
// release are one rename and no second file is created (creating a file is the slow part of a
// write on many disks: ~0.5-0.9 ms each on the bench machine, where `mem compact` rewrites a
// thousand files). A file with no lock (or none yet) is written through a temp file.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { crc32 } from '../hash.js';
import { runSettings } from '../run.js';
import { writeTarget } from './boundary.js';
import { readRegular } from './read.js';

const POSIX = process.platform !== 'win32';

/** A lock whose writer's pid is alive is left alone this long (after that the pid was reused). */
const STALE_MS = 10 * 60 * 1000;

function lockPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.lock`);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Where no one can tell whether a process holds a lock open (see holders): a lock holding text
// that is not a pid is a replacement being written (milliseconds to seconds of syncs), an empty
// one a lock whose writer has not yet written its pid (microseconds after creating it).
const WRITING_STALE_MS = 30 * 1000;
const EMPTY_STALE_MS = 5 * 1000;
/** A lock file exists a moment before its creator's descriptor does: an empty one is not judged younger. */
const EMPTY_GRACE_MS = 1000;

/** What a waiter found: whether the lock is left over, the pid in it, the lock file's identity. */
type Verdict = { stale: boolean; pid?: number; gone?: boolean; id?: string };

/** A file's identity while it is looked at: a rename or a write changes ctime, a new file all of it. */
const identity = (st: fs.Stats) => `${st.dev}:${st.ino}:${st.ctimeMs}:${st.mtimeMs}:${st.size}`;

/**
 * Whether any process holds `lock` open, where that can be known: on Linux, from /proc/<pid>/fd
 * (a writer keeps its lock file open from creating it until it is renamed or removed). Undefined
 * elsewhere, and for a lock created by another user, whose processes this one cannot look into.
 */
function holders(lock: string, st: fs.Stats): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  const uid = process.getuid?.();
  if (uid === undefined || (uid !== 0 && st.uid !== uid)) return undefined;
  let real: string;
  let procs: string[];
  try {
    real = fs.realpathSync(lock);
    procs = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const p of procs) {
    if (!/^\d+$/.test(p)) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${p}/fd`);
    } catch {
      continue; // gone, or not ours to see
    }
    for (const fd of fds) {
      try {
        if (fs.readlinkSync(`/proc/${p}/fd/${fd}`) !== real) continue;
        const held = fs.statSync(`/proc/${p}/fd/${fd}`);
        if (held.ino === st.ino && held.dev === st.dev) return true;
      } catch {
        // closed meanwhile
      }
    }
  }
  return false;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, another user's. ESRCH: gone. Anything else (a number no pid can be): gone.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the writer of `lock` is provably gone. A writer creates its lock file, writes its pid
 * into it at once, and later the replacement text (see heldLock). A lock naming a live pid is
 * never taken over (until STALE_MS). Otherwise — a dead pid, no pid, or text — the lock is left
 * over when no process holds it open; where that cannot be known, by age alone.
 */
function judge(lock: string): Verdict {
  let st: fs.Stats;
  let text: string;
  try {
    st = fs.lstatSync(lock);
    // mem's locks are regular files. Anything else in the lock's place is not a writer's (and is
    // never read: a FIFO would block): a link or the like is removed, a folder waited for.
    if (!st.isFile()) return { stale: !st.isDirectory(), id: identity(st) };
    text = fs.readFileSync(lock, 'latin1');
  } catch (err) {
    return { stale: false, gone: (err as NodeJS.ErrnoException).code === 'ENOENT' };
  }
  const id = identity(st);
  const age = Date.now() - st.mtimeMs;
  const pid = /^[1-9]\d{0,9}\n?$/.test(text) ? Number.parseInt(text, 10) : undefined;
  if (pid !== undefined && pidAlive(pid) && age <= STALE_MS) return { stale: false, pid, id };
  const held = holders(lock, st);
  if (held) return { stale: false, pid, id };
  // Looking takes milliseconds, and a live writer may have renamed its lock over the file in the
  // meantime (its descriptor then names the file, not the lock): only a lock that stayed the same
  // file, unchanged, while its holders were looked for is judged.
  const after = fs.lstatSync(lock, { throwIfNoEntry: false });
  if (!after || identity(after) !== id) return { stale: false, pid, gone: !after };
  if (pid !== undefined) return { stale: true, pid, id };
  if (text === '') return { stale: age > (held === false ? EMPTY_GRACE_MS : EMPTY_STALE_MS), id };
  return { stale: held === false || age > WRITING_STALE_MS, id };
}

/**
 * Remove the left-over lock `v` was judged on, unless it changed meanwhile. Waiters that judged
 * the same lock left over take turns through a second lock file (`….takeover`), and each checks
 * under it that the lock is still the same file, still left over: two waiters never both remove
 * a lock, and none removes a lock another has just created in its place.
 */
function takeOver(lock: string, v: Verdict): boolean {
  const turn = `${lock}.takeover`;
  let fd: number;
  try {
    fd = fs.openSync(turn, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    // Another waiter's turn: a few system calls long. One much older was left by a crash.
    try {
      if (Date.now() - fs.statSync(turn).mtimeMs > 10_000) fs.rmSync(turn, { force: true });
    } catch {
      // removed meanwhile
    }
    return false;
  }
  try {
    const now = judge(lock);
    if (!now.stale || now.id !== v.id) return now.gone === true;
    recoverAppend(lock);
    fs.rmSync(lock, { force: true });
    return true;
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
    fs.rmSync(turn, { force: true });
  }
}

/**
 * A big file gets new entries written in place at its end (rewriting 100 MB to add 1 KB took
 * seconds). Before the write, its lock file records the file's length and the crc32 of the bytes
 * to come, synced; a writer killed mid-append leaves that record behind in a lock no process
 * holds, and the next writer to take the lock over (takeOver) cuts the file back to that length
 * unless the whole append is there.
 */
const APPEND_RECORD = /^[1-9]\d*\nappend (\d+) (\d+) (\d+)\n$/;

function appendRecord(size: number, bytes: Buffer): string {
  return `${process.pid}\nappend ${size} ${bytes.length} ${crc32(bytes)}\n`;
}

/** The file a lock file locks (see lockPath). */
function lockedFile(lock: string): string {
  return path.join(path.dirname(lock), path.basename(lock).slice(1, -'.lock'.length));
}

/** Cut an unfinished append off the file of a left-over lock (see APPEND_RECORD). */
function recoverAppend(lock: string): void {
  // Only a regular file can hold a record: a FIFO or link in the lock's place is never opened
  // (a FIFO would block the open until a writer came).
  if (!fs.lstatSync(lock, { throwIfNoEntry: false })?.isFile()) return;
  const text = readRegular(lock, 4096);
  if (text === null) return;
  const m = APPEND_RECORD.exec(text);
  if (!m) return;
  const [size, length, sum] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const file = lockedFile(lock);
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDWR | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    // No file left to cut (removed or renamed since): nothing to recover.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return; // not a file mem appended to
    const now = st.size;
    if (now <= size) return;
    if (now === size + length) {
      const tail = Buffer.alloc(length);
      fs.readSync(fd, tail, 0, length, size);
      if (crc32(tail) === sum) return;
    }
    fs.ftruncateSync(fd, size);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

// Locks this process holds, each with its release. While there are any, SIGINT, SIGTERM and
// SIGHUP wait for the current synchronous step (a batch of renames is never cut in half), then
// release them (no lock file left behind, no staged text renamed in) and end the process by the
// same signal. With no lock held, a signal acts at once as Node's default does.
const HELD = new Set<() => void>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

// The signal being acted on, and the lock files being created on the thread pool meanwhile: the
// process ends only once each of those is created and removed again.
let dying: NodeJS.Signals | null = null;
let opening = 0;

function onSignal(signal: NodeJS.Signals): void {
  dying ??= signal;
  for (const release of [...HELD]) {
    try {
      release();
    } catch {
      // going down anyway: the next writer takes a left-over lock over
    }
  }
  end();
}

function end(): void {
  if (!dying || opening > 0) return;
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  try {
    process.kill(process.pid, dying);
  } catch {
    process.exit(1); // a signal this platform cannot send (SIGHUP on Windows)
  }
}

function track(release: () => void): void {
  if (HELD.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  HELD.add(release);
}

function untrack(release: () => void): void {
  if (HELD.delete(release) && HELD.size === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
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
  /**
   * Replace the file with `text` (text in UTF-8, or bytes as they are, in pieces written one
   * after another) atomically, keeping its mode; the lock is released by it.
   */
  replace(text: string | Buffer | Buffer[]): void;
  /**
   * Write `bytes` at the end of the file, which must be `size` bytes long, in place (see
   * APPEND_RECORD); the lock is released by it.
   */
  append(bytes: Buffer, size: number): void;
  /** Release the lock (nothing to do after replace). */
  release(): void;
  /**
   * The first step of replaceAll: write `text` into the lock file, with the file's mode, not yet
   * synced. False when the file does not exist (a new file is written by replace instead).
   */
  stage(text: string | Buffer | Buffer[]): boolean;
  /** Sync the staged text to disk (on the thread pool, so that many syncs overlap). */
  syncStaged(): Promise<void>;
  /** Rename the synced lock file over the file; the lock is released by it. */
  commitStaged(): void;
}

/**
 * The outcome of one try at creating the lock file (`opened`: its descriptor, or why not): the
 * lock, held; or how long to wait before the next try (0 when a left-over lock was just removed).
 * Throws past the deadline, or when the lock file cannot be created at all.
 */
function settle(file: string, lock: string, deadline: number, displayName: string, opened: number | Error): FileLock | number {
  if (typeof opened === 'number') return heldLock(file, lock, opened, displayName) ?? 0;
  if ((opened as NodeJS.ErrnoException).code !== 'EEXIST') throw new MemError(`cannot lock ${displayName}: ${opened.message}`, { cause: opened });
  const v = judge(lock);
  if (v.gone || (v.stale && takeOver(lock, v))) return 0;
  if (Date.now() >= deadline) {
    throw new MemError(`${displayName} is locked by another writer${v.pid ? ` (pid ${v.pid})` : ''}`, {
      hint: `wait for it to finish, or remove ${lock} if no mem process is running`,
    });
  }
  // Left over, but another waiter is taking it over: its turn is a few system calls long.
  return v.stale ? 5 : 50;
}

/** Take the write lock of `file` (waiting up to the lock timeout). */
export function acquireLock(file: string, displayName = file): FileLock {
  // A link inside the vault is written through (its target locked and replaced, the link kept).
  file = writeTarget(file, displayName);
  const lock = lockPath(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + runSettings().lockTimeoutMs;
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
  const deadline = Date.now() + runSettings().lockTimeoutMs;
  const open = () => new Promise<number | Error>((resolve) => fs.open(lock, 'wx', (err, fd) => resolve(err ?? fd)));
  for (;;) {
    opening++;
    const opened = await open();
    opening--;
    if (dying) {
      // A signal came while the lock file was being created: it goes too, and the process ends.
      if (typeof opened === 'number') {
        fs.rmSync(lock, { force: true });
        fs.closeSync(opened);
      }
      end();
      return new Promise<never>(() => undefined);
    }
    const r = settle(file, lock, deadline, displayName, opened);
    if (typeof r !== 'number') return r;
    if (r > 0) await new Promise((resolve) => setTimeout(resolve, r));
  }
}

/**
 * The lock of `file`, held through `fd`, the lock file just created; the pid goes in first. Null
 * when the lock file was taken over before the pid was in it (judged left over while empty): the
 * caller tries again.
 */
function heldLock(file: string, lock: string, fd: number, displayName: string): FileLock | null {
  try {
    fs.writeSync(fd, `${process.pid}\n`);
    const mine = fs.fstatSync(fd);
    const there = fs.statSync(lock, { throwIfNoEntry: false });
    if (!there || there.ino !== mine.ino || there.dev !== mine.dev) {
      fs.closeSync(fd);
      return null;
    }
  } catch (err) {
    fs.rmSync(lock, { force: true });
    fs.closeSync(fd);
    throw new MemError(`cannot lock ${displayName}: ${(err as Error).message}`, { cause: err });
  }
  const held = fd;
  let open = true;
  let staged = false;
  // The lock file is removed (or renamed) before it is closed: while it exists, its writer holds
  // it open, which is how a waiter tells a live writer from a dead one (judge). Windows cannot
  // remove an open file everywhere, and no one there can see who holds it: close first.
  const release = () => {
    if (!open) return;
    open = false;
    untrack(release);
    if (POSIX) fs.rmSync(lock, { force: true });
    fs.closeSync(held);
    if (!POSIX) fs.rmSync(lock, { force: true });
  };
  track(release);
  // Any failure while replacing: the lock file (with whatever was written into it) goes, the file
  // stays as it was.
  const fail = (err: unknown): never => {
    release();
    throw new MemError(`cannot write ${displayName}: ${(err as Error).message}`, { cause: err });
  };
  const stage = (text: string | Buffer | Buffer[]): boolean => {
    if (!open) throw new Error(`the lock of ${displayName} is no longer held`);
    let mode: number;
    try {
      mode = fs.statSync(file).mode & 0o7777;
    } catch {
      return false;
    }
    try {
      const pieces = typeof text === 'string' ? [Buffer.from(text, 'utf8')] : Array.isArray(text) ? text : [text];
      fs.ftruncateSync(held, 0);
      let at = 0;
      for (const buf of pieces) {
        for (let off = 0; off < buf.length; ) off += fs.writeSync(held, buf, off, buf.length - off, at + off);
        at += buf.length;
      }
      fs.fchmodSync(held, mode);
    } catch (err) {
      fail(err);
    }
    staged = true;
    return true;
  };
  const commitStaged = () => {
    if (!open || !staged) throw new Error(`nothing staged for ${displayName}`);
    open = false;
    untrack(release);
    try {
      if (!POSIX) fs.closeSync(held);
      fs.renameSync(lock, file);
    } catch (err) {
      fs.rmSync(lock, { force: true });
      if (POSIX) fs.closeSync(held);
      throw new MemError(`cannot write ${displayName}: ${(err as Error).message}`, { cause: err });
    }
    if (POSIX) fs.closeSync(held);
  };
  const append = (bytes: Buffer, size: number): void => {
    if (!open) throw new Error(`the lock of ${displayName} is no longer held`);
    let fd: number | undefined;
    let wrote = false;
    try {
      // The record first, synced: a writer that dies from here on leaves it for the next one,
      // which cuts an unfinished append off (recoverAppend).
      const record = Buffer.from(appendRecord(size, bytes), 'latin1');
      fs.ftruncateSync(held, 0);
      fs.writeSync(held, record, 0, record.length, 0);
      fs.fsyncSync(held);
      fd = fs.openSync(file, fs.constants.O_RDWR | (fs.constants.O_NONBLOCK ?? 0));
      if (fs.fstatSync(fd).size !== size) throw new Error('the file changed while it was read');
      wrote = true;
      for (let off = 0; off < bytes.length; ) off += fs.writeSync(fd, bytes, off, bytes.length - off, size + off);
      fs.fsyncSync(fd);
    } catch (err) {
      let undone = true;
      try {
        if (fd !== undefined && wrote) {
          fs.ftruncateSync(fd, size);
          fs.fsyncSync(fd);
        }
      } catch {
        undone = false;
      }
      if (fd !== undefined) fs.closeSync(fd);
      if (!undone) {
        // Left with its record for the next writer, who cuts the append off (recoverAppend).
        open = false;
        untrack(release);
        fs.closeSync(held);
        throw new MemError(`cannot write ${displayName}: ${(err as Error).message}`, { cause: err });
      }
      fail(err);
    }
    fs.closeSync(fd!);
    release();
  };
  return {
    release,
    stage,
    commitStaged,
    append,
    syncStaged: () =>
      new Promise<void>((resolve, reject) => {
        if (!open || !staged) return reject(new Error(`nothing staged for ${displayName}`));
        fs.fsync(held, (err) => (err ? reject(new MemError(`cannot write ${displayName}: ${err.message}`, { cause: err })) : resolve()));
      }),
    replace(text: string | Buffer | Buffer[]): void {
      if (!stage(text)) {
        // A new file: the temp-file path gives it the usual mode (umask applied); then unlock.
        writeFileAtomic(file, Array.isArray(text) ? Buffer.concat(text) : text);
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

/** Replace `file` with `text` atomically, keeping the file's mode (`newMode` for a new file: hooks need 0755). */
export function writeFileAtomic(file: string, text: string | Buffer, opts: { newMode?: number } = {}): void {
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
    const fd = fs.openSync(tmp, 'w', mode ?? opts.newMode ?? 0o644);
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
