// Asking a running `mem watch` whether the index is fresh, instead of stat-ing every file: the
// watcher answers on a Unix socket of its own, after it has seen a file it creates for the
// question come back through its change notifications (so every change made before the question
// has been seen too). Linux only: there one inotify queue carries every folder's events in order.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import type * as Net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { quickHash } from '../hash.js';

/**
 * What the watcher says to each connection, unasked, so that it starts on the answer while the
 * search opens its index: `mem-vouch 1 fresh <token>` or `mem-vouch 1 stale`, one line.
 */
export const VOUCH_PREFIX = 'mem-vouch 1 ';

/** The longest answer line read. */
const MAX_ANSWER = 200;

/** How long a search waits for the watcher before it checks the files itself. */
export const VOUCH_TIMEOUT_MS = 150;

/** Where sockets live: a folder of this user's alone, under the temporary folder. */
export function vouchDir(): string | null {
  if (os.platform() !== 'linux') return null;
  return path.join(os.tmpdir(), `mem-${uid()}`);
}

/**
 * The socket a watcher of `root` listens on, or null where there is none: not Linux, or a path
 * too long for a Unix socket (108 bytes on Linux).
 */
export function vouchSocket(root: string): string | null {
  const dir = vouchDir();
  if (dir === null) return null;
  // A fast hash, not node:crypto (6 ms to load in every search). Another mem version may name the
  // socket otherwise: its searches then check the files themselves.
  const id = quickHash(path.resolve(root));
  const sock = path.join(dir, `watch-${id}.sock`);
  return Buffer.byteLength(sock) < 104 ? sock : null;
}

/**
 * Whether `dir` can be trusted with the sockets: a real folder (not a link) of this user's that
 * no one else can write to or read. Anyone who could put a socket there could claim freshness.
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
 * The watcher's token (the stat digest of the index it last brought up to date) when a watcher of
 * `root` says no file changed since; null otherwise (no watcher, a stale socket, a change not yet
 * indexed, no answer in time). Never throws.
 */
export function askWatcher(root: string, timeoutMs = VOUCH_TIMEOUT_MS): Promise<string | null> {
  const sock = vouchSocket(root);
  if (sock === null) return Promise.resolve(null);
  try {
    // No watcher, no socket: node:net is loaded (~2 ms) only when there is one to ask.
    if (!safeVouchDir(path.dirname(sock)) || !fs.lstatSync(sock, { throwIfNoEntry: false })?.isSocket()) return Promise.resolve(null);
  } catch {
    return Promise.resolve(null);
  }
  const net = createRequire(import.meta.url)('node:net') as typeof Net;
  return new Promise((resolve) => {
    let answer = '';
    let done = false;
    const finish = (token: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(token);
    };
    const conn = net.createConnection(sock);
    const timer = setTimeout(() => finish(null), timeoutMs);
    conn.setEncoding('utf8');
    conn.on('data', (d: string) => {
      answer += d;
      const nl = answer.indexOf('\n');
      if (nl < 0 || nl > MAX_ANSWER) {
        if (nl > MAX_ANSWER || answer.length > MAX_ANSWER) finish(null);
        return;
      }
      const line = answer.slice(0, nl);
      // The token is a stat digest (see StatDigest in indexer.ts): two 32-bit numbers and a count.
      const m = line.startsWith(VOUCH_PREFIX) ? /^fresh (\d+\.\d+\.\d+)$/.exec(line.slice(VOUCH_PREFIX.length)) : null;
      finish(m ? m[1] : null);
    });
    conn.on('error', () => finish(null));
    conn.on('close', () => finish(null));
  });
}
