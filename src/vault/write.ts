// Safe writes to the user's files: an exclusive lock per file (a hidden `.NAME.lock` beside it)
// and atomic replacement (temp file in the same folder, fsync, rename).

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';

const STALE_MS = 10 * 60 * 1000;

function lockPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.lock`);
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isStale(lock: string): { stale: boolean; pid?: number } {
  try {
    const text = fs.readFileSync(lock, 'utf8');
    const pid = Number.parseInt(text, 10);
    const age = Date.now() - fs.statSync(lock).mtimeMs;
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
export function withFileLock<T>(file: string, fn: () => T, displayName = file): T {
  const release = acquireLock(file, displayName);
  try {
    return fn();
  } finally {
    release();
  }
}

/** Take the write lock of `file` (waiting up to the lock timeout); returns the release function. */
export function acquireLock(file: string, displayName = file): () => void {
  const lock = lockPath(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + lockTimeoutMs();
  let fd: number | undefined;
  for (;;) {
    try {
      fd = fs.openSync(lock, 'wx');
      fs.writeSync(fd, `${process.pid}\n`);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new MemError(`cannot lock ${displayName}: ${(err as Error).message}`, { cause: err });
      }
      const st = isStale(lock);
      if (st.stale) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() >= deadline) {
        throw new MemError(`${displayName} is locked by another writer${st.pid ? ` (pid ${st.pid})` : ''}`, {
          hint: `wait for it to finish, or remove ${lock} if no mem process is running`,
        });
      }
      sleep(50);
    }
  }
  const held = fd;
  return () => {
    fs.closeSync(held);
    fs.rmSync(lock, { force: true });
  };
}

/** Replace `file` with `text` atomically, keeping the file's mode. */
export function writeFileAtomic(file: string, text: string): void {
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
