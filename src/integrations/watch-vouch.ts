// The answering side of src/index/vouch.ts, inside `mem watch`: a change notification of its own
// on every folder the index's last walk read (and the parents of those it found missing), a Unix
// socket, and a question file per answer. The watch says "fresh" only when no change has come
// since a refresh that ran after every one of those folders was watched; the question file,
// created beside the socket and seen back through the same notification queue (one inotify queue
// per process, read in order), proves that every change made before the question has been seen.

import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { safeVouchDir, VOUCH_PREFIX, vouchSocket } from '../index/vouch.js';
import { memoFolders } from '../vault/dircache.js';

/** What a refresh left, as the index holds it: its walk memo and stat digest (see indexer.ts). */
export interface VouchState {
  walkMemo: string | undefined;
  statDigest: string | undefined;
}

/** How long an answer waits for its question file to come back before it says "stale". */
const COOKIE_MS = 1000;

export class FreshnessVouch {
  /** Per watched folder: its watch and the inode it watches (a folder made anew needs a new watch). */
  private readonly handles = new Map<string, { watch: fs.FSWatcher; ino: number }>();
  /** The socket's folder, where question files are made, and its watch. */
  private cookieDir = '';
  private cookieWatch: fs.FSWatcher | null = null;
  private readonly cookies = new Map<string, () => void>();
  private server: net.Server | null = null;
  private sock: string | null = null;
  private cookieSeq = 0;
  /** Names this watcher's question files apart from another's. */
  private readonly id = crypto.randomBytes(4).toString('hex');
  /** Bumped by every change that matters; a refresh vouches only if none came while it ran. */
  private seq = 0;
  private dirty = true;
  private token = '';
  private closed = false;

  /**
   * `changed(abs)` is told of every path a folder's notification names (null: the folder itself,
   * or an overflow) and says whether it matters to the index; `idle()` whether the watch has
   * nothing pending, running or failed; `resync()` asks it for a refresh, after which settle
   * watches every folder anew.
   */
  constructor(
    private readonly root: string,
    private readonly home: string,
    private readonly changed: (abs: string) => boolean,
    private readonly idle: () => boolean,
    private readonly resync: () => void,
  ) {}

  /**
   * Start answering; false when this system has no such socket (not Linux, a path too long), its
   * folder cannot be trusted, or another watcher of this vault answers already.
   */
  async listen(): Promise<{ ok: boolean; why?: string }> {
    const sock = vouchSocket(this.root);
    if (sock === null) return { ok: false };
    const dir = path.dirname(sock);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      return { ok: false, why: `cannot make ${dir}: ${(err as Error).message}` };
    }
    if (!safeVouchDir(dir)) return { ok: false, why: `${dir} is not a folder of this user's alone` };
    const server = net.createServer((c) => this.serve(c));
    server.on('error', () => {});
    for (let attempt = 0; attempt < 2; attempt++) {
      const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
        server.once('error', resolve);
        server.listen(sock, () => {
          server.removeListener('error', resolve);
          resolve(null);
        });
      });
      if (err === null) {
        this.server = server;
        this.sock = sock;
        this.cookieDir = dir;
        try {
          this.cookieWatch = fs.watch(dir, { persistent: false }, (_event, name) => {
            if (name !== null) this.cookies.get(String(name))?.();
          });
          this.cookieWatch.on('error', () => this.invalidate());
        } catch (e) {
          await this.close();
          return { ok: false, why: `cannot watch ${dir}: ${(e as Error).message}` };
        }
        void sweep(dir, sock);
        return { ok: true };
      }
      if (err.code !== 'EADDRINUSE' || attempt > 0) return { ok: false, why: err.message };
      // A socket left by a watcher that was killed answers nothing: it is replaced.
      if (await answers(sock)) return { ok: false };
      try {
        fs.unlinkSync(sock);
      } catch {
        return { ok: false, why: `cannot replace ${sock}` };
      }
    }
    return { ok: false };
  }

  /** The socket answered on, once listening. */
  get socket(): string | null {
    return this.sock;
  }

  /** Before a refresh: what it must see unchanged to vouch (see settle). */
  mark(): number {
    return this.seq;
  }

  /** Nothing is vouched for (a failed refresh, a config change being applied). */
  invalidate(): void {
    this.dirty = true;
    this.token = '';
  }

  /**
   * After a refresh that started at `mark`: watch the folders its walk depends on and vouch for
   * its index when no change came meanwhile. Returns true when folders were newly watched: a
   * change in them before their watch began may have been missed, so the caller refreshes once
   * more (and settles again).
   */
  settle(mark: number, state: VouchState): boolean {
    if (this.closed) return false;
    const folders = this.foldersOf(state.walkMemo);
    if (folders === null || !state.statDigest) {
      this.invalidate();
      return false;
    }
    let added = false;
    for (const [dir, ino] of folders) {
      const had = this.handles.get(dir);
      if (had?.ino === ino) continue;
      had?.watch.close();
      this.handles.delete(dir);
      try {
        const watch = fs.watch(dir, { persistent: false }, (_event, name) => this.onEvent(dir, name === null ? null : String(name)));
        watch.on('error', () => {
          watch.close();
          if (this.handles.get(dir)?.watch === watch) this.handles.delete(dir);
          this.invalidate();
        });
        this.handles.set(dir, { watch, ino });
        added = true;
      } catch {
        this.invalidate();
        return false;
      }
    }
    for (const [dir, h] of this.handles) {
      if (folders.has(dir)) continue;
      h.watch.close();
      this.handles.delete(dir);
    }
    if (added || this.seq !== mark) {
      this.invalidate();
      return added;
    }
    this.dirty = false;
    this.token = state.statDigest;
    return false;
  }

  /** Stop answering and watching; the socket file goes with the server. */
  async close(): Promise<void> {
    this.closed = true;
    this.invalidate();
    this.unwatch();
    this.cookieWatch?.close();
    this.cookieWatch = null;
    for (const done of this.cookies.values()) done();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private unwatch(): void {
    for (const h of this.handles.values()) h.watch.close();
    this.handles.clear();
  }

  /**
   * Folders to watch for a memo, with their inodes: the root, what the walk read, the nearest
   * existing folder above each one it found missing (where it would appear), the global folder
   * and .mem/ (its config.yaml decides the walk). Null when one cannot be watched.
   */
  private foldersOf(walkMemo: string | undefined): Map<string, number> | null {
    const memo = memoFolders(walkMemo, this.root);
    if (memo === null) return null;
    const out = new Map<string, number>();
    const inoOf = (dir: string): number | null => {
      const st = fs.statSync(dir, { throwIfNoEntry: false });
      return st?.isDirectory() ? st.ino : null;
    };
    const add = (dir: string): boolean => {
      if (out.has(dir)) return true;
      const ino = inoOf(dir);
      if (ino === null) return false;
      out.set(dir, ino);
      return true;
    };
    if (!add(this.root)) return null;
    for (const dir of memo.read) {
      // Read by the walk and gone since: it went in its parent, watched below.
      if (!add(dir)) memo.missing.push(dir);
    }
    for (const m of memo.missing) {
      let up = path.dirname(m);
      while (!add(up)) {
        const next = path.dirname(up);
        if (next === up) return null;
        up = next;
      }
    }
    // The global files are stat-ed apart from the walk: their folder must be there to be watched.
    if (path.resolve(this.home) !== path.resolve(this.root) && !add(this.home)) return null;
    add(path.join(this.root, '.mem'));
    return out;
  }

  private onEvent(dir: string, name: string | null): void {
    if (this.changed(name === null ? dir : path.join(dir, name))) {
      this.seq++;
      this.invalidate();
    }
  }

  private vouches(): boolean {
    return !this.closed && !this.dirty && this.token !== '' && this.idle();
  }

  /** Answers each connection at once, unasked (see VOUCH_PREFIX); what the other side sends is ignored. */
  private serve(c: net.Socket): void {
    c.on('error', () => {});
    c.resume();
    const reply = (a: string) => c.end(`${VOUCH_PREFIX}${a}\n`);
    void this.answer().then(reply, () => reply('stale'));
  }

  private async answer(): Promise<string> {
    if (!this.vouches()) return 'stale';
    const token = this.token;
    if (!(await this.roundTrip())) {
      // The notifications do not come back (a full queue, a folder made anew): watch again from
      // scratch after a refresh.
      this.unwatch();
      this.invalidate();
      this.resync();
      return 'stale';
    }
    return this.vouches() && this.token === token ? `fresh ${token}` : 'stale';
  }

  /**
   * Create a question file and wait for its notification: the queue delivers in order, so every
   * change made before now has reached onEvent by then. False when it did not come back.
   */
  private roundTrip(): Promise<boolean> {
    const name = `question-${this.id}-${++this.cookieSeq}`;
    const file = path.join(this.cookieDir, name);
    return new Promise((resolve) => {
      let over = false;
      const finish = (ok: boolean) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        this.cookies.delete(name);
        resolve(ok);
        fs.unlink(file, () => {});
      };
      const timer = setTimeout(() => finish(false), COOKIE_MS);
      this.cookies.set(name, () => finish(true));
      try {
        // Made at once (two system calls), not through the thread pool: the answer waits on it.
        fs.closeSync(fs.openSync(file, 'wx'));
      } catch {
        finish(false);
      }
    });
  }
}

/**
 * Remove the sockets of watchers that are gone (killed: a socket is removed by a watcher that
 * stops), and question files they left. Best effort, in the background.
 */
async function sweep(dir: string, mine: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    if (name.startsWith('question-')) {
      // Answered within a second or given up on: an old one was left by a watcher that was killed.
      const st = await fs.promises.lstat(p).catch(() => null);
      if (st?.isFile() && Date.now() - st.mtimeMs > 60_000) await fs.promises.unlink(p).catch(() => {});
      continue;
    }
    if (p === mine || !/^watch-[0-9a-f]+\.sock$/.test(name)) continue;
    if (!(await answers(p))) await fs.promises.unlink(p).catch(() => {});
  }
}

/** Whether something answers on the socket at `sock` (a live watcher), within a second. */
function answers(sock: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.createConnection(sock);
    const timer = setTimeout(() => done(true), 1000);
    const done = (live: boolean) => {
      clearTimeout(timer);
      c.destroy();
      resolve(live);
    };
    c.on('connect', () => done(true));
    c.on('error', () => done(false));
  });
}
