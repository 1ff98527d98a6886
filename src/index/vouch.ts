// Asking a running `mem watch` whether the index is fresh, instead of stat-ing every file. The
// question is a file made in a folder the watcher watches: its notification comes after those of
// every change made before it (one inotify queue per process, read in order), so when the watcher
// answers "fresh", it has seen them all. Files only, no socket: node:net and its streams cost a
// cold search ~5 ms. Linux only: there the queue is one, and /proc tells a live watcher from a
// dead one.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { quickHash } from '../hash.js';

/** The answer file's text: `mem-vouch 1 fresh <token>` or `mem-vouch 1 stale`. */
export const VOUCH_PREFIX = 'mem-vouch 1 ';

/** How long a read waits for the watcher's answer before it checks the files itself. */
export const VOUCH_TIMEOUT_MS = 150;

/** The longest answer read. */
const MAX_ANSWER = 200;

/** The files of one vault's watcher, all in a folder of this user's alone (see vouchDir). */
export interface VouchFiles {
  dir: string;
  /** Says which process watches: `pid starttime` (see processStart). */
  pidFile: string;
  /** Question and answer files are named `q-<id>-<n>`, `a-<id>-<n>`. */
  id: string;
}

/** Where the files live: a folder of this user's under the temporary folder; null off Linux. */
export function vouchDir(): string | null {
  if (os.platform() !== 'linux') return null;
  return path.join(os.tmpdir(), `mem-${uid()}`);
}

/** The files of the watcher of `root`, or null where there is none (not Linux). */
export function vouchFiles(root: string): VouchFiles | null {
  const dir = vouchDir();
  if (dir === null) return null;
  // A fast hash, not node:crypto (6 ms to load in every search). Another mem version may name the
  // files otherwise: its reads then check the files themselves.
  const id = quickHash(path.resolve(root));
  return { dir, pidFile: path.join(dir, `watch-${id}.pid`), id };
}

/**
 * Whether `dir` can be trusted with the files: a real folder (not a link) of this user's that no
 * one else can write to or read. Anyone who could answer there could claim freshness.
 */
export function safeVouchDir(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!st || !st.isDirectory()) return false;
  return st.uid === uid() && (st.mode & 0o077) === 0;
}

/**
 * This process's user id. process.getuid, not os.userInfo(), which also looks the user up by name
 * (the password database, nscd: ~2 ms of every search).
 */
function uid(): number {
  return process.getuid?.() ?? -1;
}

/**
 * When process `pid` started (field 22 of /proc/PID/stat, in clock ticks since boot), or null
 * when there is no such process: with the pid, it names one process even after its pid is reused.
 */
export function processStart(pid: number): string | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

/** Whether the watcher `pidFile` names is running. */
export function watcherAlive(pidFile: string): boolean {
  return watcherPid(pidFile) !== null;
}

/** The pid of the watcher `pidFile` names, when it is running. */
export function watcherPid(pidFile: string): number | null {
  let text: string;
  try {
    text = fs.readFileSync(pidFile, 'latin1');
  } catch {
    return null;
  }
  const m = /^(\d+) (\d+)$/.exec(text.trim());
  return m !== null && processStart(Number(m[1])) === m[2] ? Number(m[1]) : null;
}

let asked = 0;

/** A question put to the watcher (see askWatcher). */
export interface Question {
  /**
   * The watcher's token (the stat digest of the index it last brought up to date) when it says
   * no file changed since; null otherwise (a change not yet indexed, no answer in time). Waits at
   * most the question's timeout; never throws. The question file is gone afterwards.
   */
  answer(): Promise<string | null>;
  /** Withdraw a question whose answer is not wanted (safe after answer(), and twice). */
  drop(): void;
}

/**
 * Ask the watcher of `root`, if one runs: the question file is made now, so that the watcher
 * answers while the caller opens its index, and the answer is read by answer(). Null when there
 * is no watcher to ask (off Linux, none running, a folder that cannot be trusted).
 */
export function askWatcher(root: string, timeoutMs = VOUCH_TIMEOUT_MS): Question | null {
  const files = vouchFiles(root);
  let question: string;
  let answerFile: string;
  try {
    if (files === null || !safeVouchDir(files.dir) || !watcherAlive(files.pidFile)) return null;
    const n = `${(Math.random() * 2 ** 32).toString(16)}-${++asked}`;
    question = path.join(files.dir, `q-${files.id}-${n}`);
    answerFile = path.join(files.dir, `a-${files.id}-${n}`);
    fs.closeSync(fs.openSync(question, 'wx', 0o600));
  } catch {
    return null;
  }
  const started = Date.now();
  const drop = () => unlinkQuietly(question);
  return {
    drop,
    async answer() {
      try {
        for (;;) {
          let text: string | null = null;
          try {
            text = fs.readFileSync(answerFile, 'latin1');
          } catch {
            text = null;
          }
          if (text !== null) {
            unlinkQuietly(answerFile);
            const m = text.length <= MAX_ANSWER && text.startsWith(VOUCH_PREFIX) ? /^fresh (\d+\.\d+\.\d+)\n$/.exec(text.slice(VOUCH_PREFIX.length)) : null;
            return m ? m[1] : null;
          }
          if (Date.now() - started > timeoutMs) return null;
          // A timer that holds the process: a read waiting for its answer has nothing else that would.
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      } catch {
        return null;
      } finally {
        drop();
      }
    },
  };
}

function unlinkQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Gone already.
  }
}
