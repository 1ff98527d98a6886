// The answering side of src/index/vouch.ts, inside `mem watch`: a change notification of its own
// on every folder the index's last walk read (and the nearest existing folder above those it found
// missing), and one on the folder of question files. The watch answers "fresh" only when no change
// has come since a refresh that ran after every one of those folders was watched. A question's
// notification comes through the same queue as the changes' (one inotify queue per process, read
// in order), so when it is answered, every change made before it has been seen.

import fs from 'node:fs';
import path from 'node:path';
import { processStart, safeVouchDir, VOUCH_PREFIX, vouchFiles, watcherAlive, type VouchFiles } from '../index/vouch.js';
import { memoFolders } from '../vault/dircache.js';

/** What a refresh left, as the index holds it: its walk memo and stat digest (see indexer.ts). */
export interface VouchState {
  walkMemo: string | undefined;
  statDigest: string | undefined;
}

/**
 * Filesystems on which this machine's change notifications see every change (statfs magic
 * numbers): the disk filesystems Linux itself writes, and tmpfs and overlayfs. On any other
 * (NFS, SMB, 9p as WSL's /mnt/c, FUSE as sshfs or a container's shared folder, …) an edit made on
 * another machine, or on the other side of the share, raises no notification here, so the watch
 * cannot vouch for it, and reads check the files themselves.
 */
const LOCAL_FS: ReadonlyMap<number, string> = new Map([
  [0xef53, 'ext4'], [0x58465342, 'xfs'], [0x9123683e, 'btrfs'], [0x01021994, 'tmpfs'], [0x858458f6, 'ramfs'], [0x794c7630, 'overlayfs'],
  [0x2fc12fc1, 'zfs'], [0xf2f52010, 'f2fs'], [0xca451a4e, 'bcachefs'], [0x52654973, 'reiserfs'], [0x3153464a, 'jfs'], [0x3434, 'nilfs'],
  [0x482b, 'hfsplus'], [0x4d44, 'vfat'], [0x2011bab0, 'exfat'], [0x7366746e, 'ntfs3'], [0xf15f, 'ecryptfs'],
]);

/** Names of filesystems that are not local, for the message that says why reads are not vouched for. */
const OTHER_FS: ReadonlyMap<number, string> = new Map([
  [0x6969, 'nfs'], [0x517b, 'smb'], [0xff534d42, 'cifs'], [0xfe534d42, 'smb2'], [0x01021997, '9p'], [0x65735546, 'fuse'],
  [0x00c36400, 'ceph'], [0x5346414f, 'afs'], [0x6b414653, 'afs'], [0x73757245, 'coda'], [0x786f4256, 'vboxsf'], [0x0bd00bd0, 'lustre'],
]);

/**
 * Null when change notifications see every change in `dir` (see LOCAL_FS); otherwise the name of
 * its filesystem (or its magic number), also when it cannot be told.
 */
export function notLocal(dir: string, statfs: (dir: string) => { type: number } = fs.statfsSync): string | null {
  let type: number;
  try {
    type = statfs(dir).type >>> 0;
  } catch {
    return 'unknown';
  }
  if (LOCAL_FS.has(type)) return null;
  return OTHER_FS.get(type) ?? `0x${type.toString(16)}`;
}

/**
 * Counts change notifications per turn of the event loop, to tell when the system's queue of them
 * may have overflowed. Linux holds at most fs.inotify.max_queued_events (16,384 by default) for a
 * process and drops the rest without Node saying so; that happens only while the process is busy
 * (a long refresh), and once it is free, everything queued comes in the same turn. A turn that
 * brings `limit` notifications may have lost some, so `onFlood` runs: the caller checks every file
 * again (a larger burst that lost nothing only costs one extra check).
 */
export class FloodCheck {
  private count = 0;
  private resetting = false;

  constructor(
    private readonly limit: number,
    private readonly onFlood: () => void,
  ) {}

  /** One notification (of any path, whether it matters or not). */
  hit(): void {
    if (!this.resetting) {
      this.resetting = true;
      setImmediate(() => {
        this.count = 0;
        this.resetting = false;
      });
    }
    if (++this.count === this.limit) this.onFlood();
  }
}

/**
 * How many notifications in one turn count as a flood: 1,024, or the system's queue limit when
 * it is set lower (read from /proc; 1,024 when it cannot be read).
 */
export function floodLimit(file = '/proc/sys/fs/inotify/max_queued_events'): number {
  let max = Number.NaN;
  try {
    max = Number.parseInt(fs.readFileSync(file, 'latin1'), 10);
  } catch {
    // Not Linux, or no /proc: the default.
  }
  return Number.isInteger(max) && max > 0 ? Math.min(FLOOD_EVENTS, max) : FLOOD_EVENTS;
}

const FLOOD_EVENTS = 1024;

/** Question and answer files older than this were left by a reader or watcher that was killed. */
const LEFT_MS = 60_000;

export class FreshnessVouch {
  /** Per watched folder: its watch and the inode it watches (a folder made anew needs a new watch). */
  private readonly handles = new Map<string, { watch: fs.FSWatcher; ino: number }>();
  private files: VouchFiles | null = null;
  /** The pid file's text while this watcher answers. */
  private pidText = '';
  private questions: fs.FSWatcher | null = null;
  private answerSeq = 0;
  /** Bumped by every change that matters; a refresh vouches only if none came while it ran. */
  private seq = 0;
  private dirty = true;
  private token = '';
  private closed = false;

  /**
   * `changed(abs)` is told of every path a folder's notification names (null: the folder itself)
   * and says whether it matters to the index; `idle()` whether the watch has nothing pending,
   * running or failed.
   */
  constructor(
    private readonly root: string,
    private readonly home: string,
    private readonly changed: (abs: string) => boolean,
    private readonly idle: () => boolean,
    /** The filesystem check (see notLocal); tests stand in for a network mount with it. */
    private readonly fsOf: (dir: string) => string | null = (dir) => notLocal(dir),
  ) {}

  /**
   * Start answering; not ok off Linux, when the folder cannot be trusted (with why), or when
   * another watcher of this vault answers already.
   */
  listen(): { ok: boolean; why?: string } {
    const files = vouchFiles(this.root);
    const self = processStart(process.pid);
    if (files === null || self === null) return { ok: false };
    try {
      fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      return { ok: false, why: `cannot make ${files.dir}: ${(err as Error).message}` };
    }
    if (!safeVouchDir(files.dir)) return { ok: false, why: `${files.dir} is not a folder of this user's alone` };
    for (const [dir, what] of [[this.root, 'the vault'], [this.home, 'the global folder']]) {
      const other = fs.existsSync(dir) ? this.fsOf(dir) : null;
      if (other !== null) return { ok: false, why: `${what} ${dir} is on a ${other} filesystem, where edits made elsewhere raise no notification here (mem watch --poll sees them)` };
    }
    if (watcherAlive(files.pidFile)) return { ok: false };
    try {
      this.files = files;
      this.questions = fs.watch(files.dir, { persistent: false }, (_event, name) => {
        if (name !== null) this.onQuestion(String(name));
      });
      // Unanswered questions would each wait out the reader's timeout: stop answering at once.
      this.questions.on('error', () => this.close());
      this.pidText = `${process.pid} ${self}\n`;
      const tmp = `${files.pidFile}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, this.pidText, { mode: 0o600 });
      fs.renameSync(tmp, files.pidFile);
    } catch (err) {
      this.close();
      return { ok: false, why: `cannot answer in ${files.dir}: ${(err as Error).message}` };
    }
    void sweep(files.dir);
    return { ok: true };
  }

  /** Whether reads can ask this watcher. */
  get answering(): boolean {
    return this.files !== null && !this.closed;
  }

  /** Before a refresh: what it must see unchanged to vouch (see settle). */
  mark(): number {
    return this.seq;
  }

  /**
   * Notifications may have been lost (see FloodCheck): nothing is vouched for until a refresh that
   * starts after this one has checked every file.
   */
  flooded(): void {
    this.seq++;
    this.invalidate();
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
    // A folder on another filesystem (a mount inside the vault) must be local too.
    let remote = false;
    const add = (dir: string): boolean => {
      if (out.has(dir)) return true;
      const st = fs.statSync(dir, { throwIfNoEntry: false });
      if (!st?.isDirectory()) return false;
      if (this.fsOf(dir) !== null) remote = true;
      out.set(dir, st.ino);
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
    return remote ? null : out;
  }

  /** Stop answering and watching; the pid file goes (when it is still this watcher's). */
  close(): void {
    this.closed = true;
    this.invalidate();
    this.unwatch();
    this.questions?.close();
    this.questions = null;
    const files = this.files;
    this.files = null;
    if (files) {
      try {
        if (fs.readFileSync(files.pidFile, 'latin1') === this.pidText) fs.unlinkSync(files.pidFile);
      } catch {
        // Gone already, or another watcher's now.
      }
    }
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

  /**
   * A question of a reader of this vault (`q-<id>-<n>`, made before it opened the index): answered
   * at once, every earlier change having been seen. The answer is written whole, then renamed into
   * place, where the reader looks for it; nothing for a question the reader has given up on.
   */
  private onQuestion(name: string): void {
    const files = this.files;
    if (!files || this.closed || !name.startsWith(`q-${files.id}-`)) return;
    const question = path.join(files.dir, name);
    if (!fs.existsSync(question)) return;
    const answer = path.join(files.dir, `a-${name.slice(2)}`);
    const tmp = `${answer}.${++this.answerSeq}.tmp`;
    try {
      fs.writeFileSync(tmp, `${VOUCH_PREFIX}${this.vouches() ? `fresh ${this.token}` : 'stale'}\n`, { mode: 0o600, flag: 'wx' });
      fs.renameSync(tmp, answer);
    } catch {
      fs.rmSync(tmp, { force: true });
      return;
    }
    // A reader that is gone (killed, or done without the answer) leaves both behind.
    setTimeout(() => {
      for (const f of [question, answer]) fs.rm(f, { force: true }, () => {});
    }, LEFT_MS).unref();
  }
}

/**
 * Remove what readers and watchers that were killed left behind: old question and answer files,
 * pid files of watchers that are gone. Best effort, in the background.
 */
async function sweep(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    try {
      if (/^watch-[0-9a-f]+\.pid$/.test(name)) {
        if (!watcherAlive(p)) await fs.promises.unlink(p);
      } else if (/^(?:[qa]-|watch-)/.test(name)) {
        const st = await fs.promises.lstat(p);
        if (Date.now() - st.mtimeMs > LEFT_MS) await fs.promises.unlink(p);
      }
    } catch {
      // Gone meanwhile.
    }
  }
}
