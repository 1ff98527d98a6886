// `mem watch`: which paths can change a vault's index (the walk's own rules, src/vault/vault.ts),
// a chokidar watcher over the folders that hold them, and debounced batches that each run one
// incremental refresh of .memory.db through the code `mem index` uses. Reports results; never prints.

import fs from 'node:fs';
import path from 'node:path';
import type { ChokidarOptions, FSWatcher } from 'chokidar';
import { formatWhere, MemError } from '../errors.js';
import { CONFIG_PATH, loadConfig, type VaultConfig } from '../vault/config.js';
import { globBase, globToRegExp } from '../vault/glob.js';
import { FloodCheck, floodLimit, FreshnessVouch, type VouchState } from './watch-vouch.js';
import { isGlob, MEMORY_NAMES, ROOT_FILES, SKIP_DIRS, skipNotices, type Vault } from '../vault/vault.js';

// ---- what to watch -------------------------------------------------------------------------

/** What an event at a path means to the index. */
export type PathKind = 'index' | 'config' | null;

export interface WatchScope {
  /** Whether the folder `rel` (root-relative, posix; '' = the root) may hold indexed files or lead to them. */
  folder(rel: string): boolean;
  /** What a change at `abs` means: the index may change, the config changed, or none of mem's business. */
  classify(abs: string): PathKind;
  /** chokidar's `ignored` for the watcher of the root. Natively only folders are watched (see startWatch). */
  ignoredUnderRoot(abs: string, stats: fs.Stats | undefined, poll: boolean): boolean;
  /** chokidar's `ignored` for the watcher of the global folder (its two memory files only). */
  ignoredUnderHome(abs: string, stats: fs.Stats | undefined, poll: boolean): boolean;
  /** Whether the global folder needs a watcher of its own (it is not the root, nor inside it). */
  homeApart: boolean;
}

/** Folders of the job layouts (.mem/jobs/J/tasks/T/worktree) and their parents: walked one level each. */
const LAYOUT_DIR = /^\.(?:mem|teaparty)(?:\/jobs(?:\/[^/]+(?:\/tasks(?:\/[^/]+(?:\/worktree)?)?)?)?)?$/;
/** The legacy layout: projects/P/.sessions/TS/** (walked whole, dot folders included). */
const SESSIONS_DIR = /^projects(?:\/[^/]+(?:\/\.sessions(?:\/.+)?)?)?$/;
/** mem's own lock, take-over and temp files (src/vault/write.ts): never a reason to reindex. */
const OWN_TEMP = /^\..+\.(?:lock|takeover|tmp)$/;
const MARKDOWN = /\.(?:md|markdown)$/i;

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

/**
 * The paths a vault's walk can reach, as predicates over single paths: the same folders, skip
 * list and include/exclude globs as walkPaths and probedFiles. It only has to be a superset:
 * every batch runs the real freshness check, which decides what is indexed.
 */
export function watchScope(root: string, home: string, config: Pick<VaultConfig, 'include' | 'exclude'>): WatchScope {
  const clean = (g: string) => g.replace(/^\.\//, '');
  const globs = config.include.map(clean).filter(isGlob);
  const plain = new Set(config.include.map(clean).filter((g) => !isGlob(g)));
  const includeRes = globs.map((g) => globToRegExp(g));
  const bases = globs.map((g) => ({ base: globBase(g), allowDot: /(^|\/)\./.test(g) }));
  const plainDirs = [...plain].map((p) => path.posix.dirname(p)).filter((d) => d !== '.');
  const excludes = config.exclude.map((g) => globToRegExp(clean(g)));
  const rootAbs = path.resolve(root);
  const homeAbs = path.resolve(home);
  const rel = (abs: string): string | null => {
    const r = path.relative(rootAbs, path.resolve(abs));
    if (r === '') return '';
    if (r.startsWith('..') || path.isAbsolute(r)) return null;
    return toPosix(r);
  };
  const under = (r: string, base: string) => base === '' || r === base || r.startsWith(`${base}/`);

  function folder(r: string): boolean {
    if (r === '') return true;
    const parts = r.split('/');
    if (parts.some((p) => SKIP_DIRS.has(p))) return false;
    if (parts[0] === 'memory') return !parts.slice(1).some((p) => p.startsWith('.'));
    if (LAYOUT_DIR.test(r) || SESSIONS_DIR.test(r)) return true;
    for (const { base, allowDot } of bases) {
      if (under(r, base)) {
        const below = base === '' ? parts : r === base ? [] : r.slice(base.length + 1).split('/');
        if (allowDot || !below.some((p) => p.startsWith('.'))) return true;
      } else if (base.startsWith(`${r}/`)) return true; // on the way to an include's folder
    }
    return plainDirs.some((d) => d === r || d.startsWith(`${r}/`));
  }

  function classify(abs: string): PathKind {
    const r = rel(abs);
    if (r === null) return path.dirname(path.resolve(abs)) === homeAbs && MEMORY_NAMES.has(path.basename(abs)) ? 'index' : null;
    if (r === '') return null;
    if (r === CONFIG_PATH) return 'config';
    const parts = r.split('/');
    const name = parts[parts.length - 1];
    if (parts.some((p) => SKIP_DIRS.has(p)) || OWN_TEMP.test(name)) return null;
    if (ROOT_FILES.includes(r) || plain.has(r)) return 'index';
    // A dotfile is an editor's lock or temp copy, which the walk passes by.
    if (name.startsWith('.') && MARKDOWN.test(name)) return null;
    if (!MARKDOWN.test(name)) {
      // A folder that appeared, went or was renamed: the files in it did too. (A stray file in
      // such a folder costs one freshness check that finds nothing.)
      return folder(r) ? 'index' : null;
    }
    if (!folder(parts.slice(0, -1).join('/'))) return null;
    if (excludes.some((re) => re.test(r))) return null;
    if (parts[0] === 'memory' || MEMORY_NAMES.has(name) || includeRes.some((re) => re.test(r))) return 'index';
    return null;
  }

  return {
    folder,
    classify,
    homeApart: rel(homeAbs) === null,
    ignoredUnderRoot(abs, stats, poll) {
      // Links are the walk's to judge (kept inside the vault, skipped out of it); never watched through.
      if (stats?.isSymbolicLink()) return true;
      const r = rel(abs);
      if (r === null) return true;
      if (stats?.isDirectory()) return !folder(r);
      if (stats) return poll ? classify(abs) === null : true;
      return !folder(r) && classify(abs) === null;
    },
    ignoredUnderHome(abs, stats, poll) {
      if (path.resolve(abs) === homeAbs) return false;
      if (!poll || stats?.isDirectory()) return true;
      return classify(abs) === null;
    },
  };
}

// ---- batching ------------------------------------------------------------------------------

export interface BatcherOptions {
  /** Quiet period: a batch runs once no change came for this long. */
  quietMs: number;
  /** A batch runs at the latest this long after its first change, however busy the folder. */
  maxWaitMs: number;
  run(paths: string[]): Promise<void>;
}

/**
 * Collects changed paths and runs one batch per quiet period, never two at once: changes that
 * come during a batch make the next one.
 */
export class Batcher {
  private noted = new Set<string>();
  private firstAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: BatcherOptions) {}

  note(p: string): void {
    if (this.stopped) return;
    this.noted.add(p);
    if (this.firstAt === 0) this.firstAt = Date.now();
    this.arm();
  }

  private arm(): void {
    if (this.running || this.stopped) return;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.opts.quietMs, this.firstAt + this.opts.maxWaitMs - Date.now()));
    this.timer = setTimeout(() => void this.flush(), wait);
  }

  /** Run a batch now with what is pending (possibly nothing); the batch in flight when one is. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) return this.running;
    if (this.stopped) return Promise.resolve();
    const paths = [...this.noted];
    this.noted.clear();
    this.firstAt = 0;
    this.running = this.opts.run(paths).finally(() => {
      this.running = undefined;
      if (this.noted.size > 0 && !this.stopped) {
        this.firstAt ||= Date.now();
        this.arm();
      }
    });
    return this.running;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Changes noted and not yet in a batch. */
  get pending(): number {
    return this.noted.size;
  }

  /** No more batches; resolves when the one in flight (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.noted.clear();
    await this.running;
  }
}

// ---- what a batch did ----------------------------------------------------------------------

/** Per indexed file: its content hash and the ids of its entries, as the index holds them. */
export type IndexSnapshot = Map<string, { hash: string | null; ids: string[] }>;

export interface SnapshotDiff {
  /** Vault names of the files added, changed or removed in the index. */
  files: string[];
  /** Entries that came and went (by id, per file: an entry moved between files counts in both). */
  added: number;
  removed: number;
}

/** How many of `a` are not in `b` (as multisets: a file may repeat an id). */
function missingFrom(a: string[], b: string[]): number {
  const left = new Map<string, number>();
  for (const id of b) left.set(id, (left.get(id) ?? 0) + 1);
  let n = 0;
  for (const id of a) {
    const k = left.get(id) ?? 0;
    if (k > 0) left.set(id, k - 1);
    else n++;
  }
  return n;
}

export function diffSnapshots(before: IndexSnapshot, after: IndexSnapshot): SnapshotDiff {
  const files: string[] = [];
  let added = 0;
  let removed = 0;
  for (const [file, now] of after) {
    const was = before.get(file);
    if (was && was.hash === now.hash) continue;
    files.push(file);
    added += missingFrom(now.ids, was?.ids ?? []);
    removed += missingFrom(was?.ids ?? [], now.ids);
  }
  for (const [file, was] of before) {
    if (after.has(file)) continue;
    files.push(file);
    removed += was.ids.length;
  }
  return { files: files.sort(), added, removed };
}

export interface BatchResult {
  /** When the batch finished. */
  at: Date;
  /** The refresh at start, one after changes, or a retry after a failed one. */
  kind: 'start' | 'change' | 'retry';
  /** The changed paths that started it (absolute), as seen by the watcher. */
  seen: string[];
  /** What changed in the index since the last batch (by this refresh, or by another mem meanwhile). */
  diff: SnapshotDiff;
  /** Files this refresh itself re-parsed or purged. */
  reindexed: number;
  /** Files in the vault, and entries in the index, after the batch. */
  vaultFiles: number;
  entries: number;
  ms: number;
  /** Warnings: malformed files, conflict markers, links out of the vault, a bad config edit. */
  warnings: string[];
  /** The batch failed (nothing was written); it is retried after retryInMs, or at the next change. */
  error?: { message: string; hint?: string; retryInMs: number };
  /** `.mem/config.yaml` changed: its include/exclude were applied to the watch. */
  configReloaded?: boolean;
  /** `.mem/config.yaml` changed but cannot be read: why (the watch keeps the previous globs). */
  configError?: string;
  /** Folders watched (at start). */
  folders?: number;
  /** At start, when the watchers poll (--poll, or CHOKIDAR_USEPOLLING): how often (ms). */
  pollMs?: number;
  /** At start: whether searches can ask this watch if the index is fresh (see watch-vouch.ts). */
  answersFreshness?: boolean;
}

/** A failed batch is retried after 1, 2, 4 … s (at most 30 s) even when nothing changes. */
export function retryDelay(failures: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
}

/**
 * An error of the watcher itself that ends the watch, as a MemError with what to do; null for
 * one that only costs a folder (it is reported and the watch goes on).
 */
export function watcherFault(err: unknown, poll: boolean): MemError | null {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' && !poll) {
    return new MemError('the system limit on watched folders is reached (inotify watches)', {
      hint: 'raise it (sudo sysctl fs.inotify.max_user_watches=524288, and in /etc/sysctl.conf to keep it), or run mem watch --poll',
      cause: err,
    });
  }
  if (code === 'EMFILE' || code === 'ENFILE') {
    return new MemError(`too many open files while watching the vault (${code})`, {
      hint: process.platform === 'linux'
        ? 'raise the limit of inotify instances (sudo sysctl fs.inotify.max_user_instances=1024) or of open files (ulimit -n), or run mem watch --poll'
        : 'raise the open files limit (ulimit -n), or run mem watch --poll',
      cause: err,
    });
  }
  return null;
}

// ---- the watch -----------------------------------------------------------------------------

/** A batch that only re-checks the index for the vouch (see settleVouch). */
const RECHECK = 'recheck:';
/** A batch that checks every file after notifications may have been lost (see FloodCheck). */
const FLOOD = 'flood:';
/** How long after a refresh that left racy rows that re-check runs: once they are no longer racy. */
const RECHECK_MARGIN_MS = 500;

export interface WatchOptions {
  /** Quiet period before a batch (ms). */
  debounceMs: number;
  /** Poll with stat instead of the system's change notifications (network filesystems). */
  poll?: boolean;
  /** How often each path is polled with `poll` (ms). */
  pollIntervalMs?: number;
  onResult(result: BatchResult): void;
  /** The watch cannot go on (see watcherFault); it has stopped watching. */
  onFatal(err: MemError): void;
  /** A folder could not be watched; the watch goes on without it. */
  onWarning?(message: string): void;
}

export interface Watch {
  /** Folders watched now. */
  folders(): number;
  /** Stop watching; resolves once the batch in flight (if any) has finished and the index is closed. */
  stop(): Promise<void>;
}

/**
 * Refresh the index (the freshness check and incremental refresh of `mem index`) and read what it
 * holds now. The ids of every file are read once (`last` null); later only those of files whose
 * hash changed since `last`, so a batch costs one small query per changed file.
 */
async function refreshAndRead(vault: Vault, last: IndexSnapshot | null, forVouch: boolean): Promise<{ snap: IndexSnapshot; fresh: string[]; files: number; entries: number; reindexed: number; warnings: string[]; vouch: VouchState }> {
  const { withIndex } = await import('../index/open.js');
  return withIndex(vault, { refresh: true }, (ix) => {
    const snap: IndexSnapshot = new Map();
    /** Absolute paths of the files read anew (all of them the first time). */
    const fresh: string[] = [];
    const all: string[] = [];
    if (last === null) {
      const rows = ix.db.prepare('SELECT f.path, f.abs, f.hash, e.entry_id FROM files f LEFT JOIN entries e ON e.file_id = f.id ORDER BY f.id, e.ordinal').raw().all() as [string, string, string | null, string | null][];
      for (const [p, abs, hash, id] of rows) {
        let s = snap.get(p);
        if (!s) {
          snap.set(p, (s = { hash, ids: [] }));
          fresh.push(abs);
          all.push(abs);
        }
        if (id !== null) s.ids.push(id);
      }
    } else {
      const idsOf = ix.db.prepare('SELECT entry_id FROM entries WHERE file_id = ? ORDER BY ordinal').pluck();
      for (const [id, p, abs, hash] of ix.db.prepare('SELECT id, path, abs, hash FROM files').raw().all() as [number, string, string, string | null][]) {
        all.push(abs);
        const was = last.get(p);
        if (was && was.hash === hash) snap.set(p, was);
        else {
          snap.set(p, { hash, ids: idsOf.all(id) as string[] });
          fresh.push(abs);
        }
      }
    }
    const entries = ix.db.prepare('SELECT count(*) FROM entries').pluck().get() as number;
    const warnings = [...ix.notes, ...(ix.report?.diagnostics ?? []).map((d) => formatWhere(d.message, d))];
    // What searches will compare with (see watch-vouch.ts); a temporary index vouches for nothing.
    const meta = ix.db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    const vouch: VouchState = ix.temporary || (forVouch && hardLinked(all))
      ? { walkMemo: undefined, statDigest: undefined }
      : { walkMemo: meta.get('walk_memo') as string | undefined, statDigest: meta.get('stat_digest') as string | undefined };
    return { snap, fresh, files: ix.report?.files ?? snap.size, entries, reindexed: (ix.report?.changed ?? 0) + (ix.report?.removed ?? 0), warnings, vouch };
  });
}

/**
 * Whether a memory file has another name (a hard link): an edit made through a name outside the
 * vault raises no notification in the vault's folders, so the watch cannot vouch for it. One
 * lstat per file, after each refresh of a watch that answers reads.
 */
function hardLinked(files: string[]): boolean {
  return files.some((abs) => (fs.lstatSync(abs, { throwIfNoEntry: false })?.nlink ?? 1) > 1);
}

function describe(err: unknown): { message: string; hint?: string } {
  if (err instanceof MemError) return { message: formatWhere(err.message, err.where), hint: err.hint };
  return { message: err instanceof Error ? err.message : String(err) };
}

function sameGlobs(a: Pick<VaultConfig, 'include' | 'exclude'>, b: Pick<VaultConfig, 'include' | 'exclude'>): boolean {
  return JSON.stringify([a.include, a.exclude]) === JSON.stringify([b.include, b.exclude]);
}

/**
 * Watch `vault` and keep its index fresh: an initial refresh once the watchers are ready, then
 * one refresh per batch of changes. Never throws after it has started: failures of a batch are
 * results (retried), a watcher that cannot go on is `onFatal`.
 */
export async function startWatch(vault: Vault, opts: WatchOptions): Promise<Watch> {
  const { FSWatcher } = await import('chokidar');
  // chokidar may poll when not asked to (CHOKIDAR_USEPOLLING, IBM i): what it really does is
  // read back from its options, and decides whether files are watched one by one.
  let poll = Boolean(opts.poll);
  let pollMs: number | undefined;
  let scope = watchScope(vault.root, vault.home, vault.config);
  let watchers: FSWatcher[] = [];
  let stopped = false;
  let fatal = false;
  let last: IndexSnapshot | null = null;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let started = false;
  // Indexed files that are links (kept by the walk: they stay inside the vault) are edited where
  // they lead: those files, and the folders holding them, are watched too.
  const linkTargets = new Set<string>();
  const linkDirs = new Set<string>();
  /** Set when the watchers were made anew: the next successful batch looks at every file's link. */
  let relinkAll = false;
  // Settled by stop(): a watcher closed before it was ready never says `ready`.
  let stoppedNow!: () => void;
  const whenStopped = new Promise<void>((resolve) => (stoppedNow = resolve));

  /**
   * After a burst of notifications that may have overflowed the system's queue (see FloodCheck),
   * every file is checked again: a change whose notification was dropped is found then.
   */
  const flood = new FloodCheck(floodLimit(), () => {
    if (stopped) return;
    vouch?.flooded();
    batcher.note(FLOOD);
  });
  /** Notes a path that matters to the index for the next batch; says whether it did. */
  const onPath = (abs: string): boolean => {
    if (stopped) return false;
    if (!poll) flood.hit();
    const kind = scope.classify(abs) ?? (linkTargets.has(abs) ? 'index' : null);
    if (kind !== null) batcher.note(kind === 'config' ? `config:${abs}` : abs);
    return kind !== null;
  };
  /** Answers searches that ask whether the index is fresh (see watch-vouch.ts); natively watched only. */
  let vouch: FreshnessVouch | null = null;
  let recheckTimer: NodeJS.Timeout | undefined;

  const common = (): ChokidarOptions => ({
    ignoreInitial: true,
    followSymlinks: false,
    usePolling: poll,
    ...(poll ? { interval: opts.pollIntervalMs ?? 1000, binaryInterval: opts.pollIntervalMs ?? 1000 } : {}),
    // Editors' atomic saves are told apart by the freshness check (hashes), not by chokidar.
    atomic: false,
  });
  /**
   * A watcher of `targets`, wired to the batcher, in `watchers` from the moment it exists (a
   * stop — a fault while they start, a signal — closes it even before it is ready, or the
   * process would stay alive). Resolves once it is ready: from then on no change is missed.
   */
  const watch = async (targets: string[], extra: ChokidarOptions, ignored: (p: string, st: fs.Stats | undefined, polling: boolean) => boolean): Promise<FSWatcher> => {
    const w: FSWatcher = new FSWatcher({ ...common(), ...extra, ignored: (p: string, st?: fs.Stats) => ignored(p, st, w.options.usePolling) });
    if (w.options.usePolling) {
      poll = true;
      pollMs = w.options.interval;
    }
    watchers.push(w);
    // Natively only folders are watched (one inotify watch each, not one per file): what
    // happens to a file in them comes as the folder's raw event, named by the file.
    w.on('raw', (_event: string, name: string | null, details: unknown) => {
      const dir = (details as { watchedPath?: unknown } | undefined)?.watchedPath;
      if (w.options.usePolling || typeof dir !== 'string') return;
      onPath(name ? path.join(dir, name) : dir);
    });
    w.on('all', (_event: string, p: string) => onPath(p));
    w.on('error', (err: unknown) => {
      const f = watcherFault(err, poll);
      if (f) {
        if (fatal || stopped) return;
        fatal = true;
        void stop().then(() => opts.onFatal(f));
      } else opts.onWarning?.(`cannot watch: ${err instanceof Error ? err.message : String(err)}`);
    });
    const ready = new Promise<void>((resolve) => w.once('ready', () => resolve()));
    w.add(targets);
    await Promise.race([whenStopped, ready]);
    if (stopped) await w.close();
    return w;
  };
  const underRoot = (p: string, st: fs.Stats | undefined, polling: boolean): boolean => {
    if (linkDirs.has(p)) return st !== undefined && !st.isDirectory();
    if (linkTargets.has(p)) return !polling;
    return scope.ignoredUnderRoot(p, st, polling);
  };

  const open = async (): Promise<void> => {
    const s = scope;
    const made = [watch([vault.root], {}, underRoot)];
    if (s.homeApart && fs.existsSync(vault.home)) made.push(watch([vault.home], { depth: 0 }, (p, st, polling) => s.ignoredUnderHome(p, st, polling)));
    await Promise.all(made);
  };

  const reloadConfig = async (): Promise<{ error?: string; reloaded: boolean }> => {
    let cfg: VaultConfig;
    try {
      cfg = await loadConfig(vault.root);
    } catch (err) {
      return { error: describe(err).message, reloaded: false };
    }
    const changed = !sameGlobs(cfg, vault.config);
    vault.config = cfg;
    if (!changed) return { reloaded: false };
    scope = watchScope(vault.root, vault.home, cfg);
    // The new watchers follow the links again (see followLinks).
    linkTargets.clear();
    linkDirs.clear();
    relinkAll = true;
    const old = watchers;
    watchers = [];
    await Promise.all(old.map((w) => w.close()));
    if (!stopped) await open();
    return { reloaded: true };
  };

  type Read = Awaited<ReturnType<typeof refreshAndRead>>;
  /**
   * Let the vouch watch what this refresh's walk read. Folders watched only now may have changed
   * before their watch began, so the index is read once more (twice at most; a third time is left
   * to a batch). A refresh that left racy rows or folders (written within the last two seconds:
   * no stat digest, no walk memo) vouches for nothing: one more refresh, unreported unless it
   * finds a change, follows once they are old enough (once: a folder that cannot be listed keeps
   * the memo away for good).
   */
  const settleVouch = async (v: FreshnessVouch, mark: number, s: Read, recheck: boolean): Promise<Read> => {
    for (let round = 0; v.settle(mark, s.vouch); round++) {
      if (round === 2 || stopped) {
        batcher.note(RECHECK);
        return s;
      }
      mark = v.mark();
      const again = await refreshAndRead(vault, last, true);
      s = { ...again, reindexed: s.reindexed + again.reindexed, fresh: [...s.fresh, ...again.fresh], warnings: [...s.warnings, ...again.warnings] };
    }
    clearTimeout(recheckTimer);
    if ((s.vouch.statDigest === '' || !s.vouch.walkMemo) && !recheck && !stopped) {
      const { RACY_MS } = await import('../index/indexer.js');
      recheckTimer = setTimeout(() => batcher.note(RECHECK), RACY_MS + RECHECK_MARGIN_MS);
    }
    return s;
  };

  const run = async (paths: string[]): Promise<void> => {
    if (stopped) return;
    clearTimeout(retryTimer);
    const t0 = performance.now();
    // Until the first refresh succeeds (the index may be locked at start), each try is the start.
    const kind: BatchResult['kind'] = !started ? 'start' : paths.length === 0 ? 'retry' : 'change';
    // A re-check for the vouch alone, or one after a flood, is reported only when it finds a
    // change (or fails). Only the first is the single re-check of a racy refresh (settleVouch).
    const recheckOnly = started && paths.length > 0 && paths.every((p) => p === RECHECK);
    const quiet = started && paths.length > 0 && paths.every((p) => p === RECHECK || p === FLOOD);
    paths = paths.filter((p) => p !== RECHECK && p !== FLOOD);
    const warnings: string[] = [];
    let configReloaded = false;
    let configError: string | undefined;
    if (paths.some((p) => p.startsWith('config:'))) {
      const r = await reloadConfig();
      configError = r.error;
      configReloaded = r.reloaded;
    }
    const seen = paths.map((p) => p.replace(/^config:/, '')).sort();
    /**
     * Watch where the links among `files` lead (one lstat per file read anew); resolves once the
     * new folders are watched, true when there were any.
     */
    const followLinks = async (files: string[]): Promise<boolean> => {
      const dirs: string[] = [];
      for (const abs of files) {
        if (!fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
        let real: string;
        try {
          real = fs.realpathSync(abs);
        } catch {
          continue;
        }
        linkTargets.add(real);
        const dir = path.dirname(real);
        if (linkDirs.has(dir)) continue;
        linkDirs.add(dir);
        dirs.push(dir);
      }
      if (dirs.length === 0 || stopped) return false;
      await watch(dirs, { depth: 0 }, underRoot);
      return true;
    };
    const mark = vouch?.mark() ?? 0;
    try {
      let s = await refreshAndRead(vault, last, vouch !== null);
      if (!stopped) {
        const linked = await followLinks(relinkAll ? [...s.snap.keys()].map((p) => (path.isAbsolute(p) ? p : path.join(vault.root, p))) : s.fresh);
        relinkAll = false;
        // What changed in a newly watched folder before its watch was ready: read once more.
        if (linked && !stopped) {
          const first = s;
          s = await refreshAndRead(vault, last, vouch !== null);
          s = { ...s, reindexed: first.reindexed + s.reindexed, fresh: [...first.fresh, ...s.fresh] };
        }
      }
      if (vouch && !stopped) s = await settleVouch(vouch, mark, s, recheckOnly);
      warnings.push(...s.warnings, ...skipNotices(vault));
      const diff = last ? diffSnapshots(last, s.snap) : { files: [], added: 0, removed: 0 };
      last = s.snap;
      failures = 0;
      started = true;
      const entries = s.entries;
      const ms = Math.round(performance.now() - t0);
      if (quiet && diff.files.length === 0 && s.reindexed === 0) return;
      opts.onResult({ at: new Date(), kind, seen, diff, reindexed: s.reindexed, vaultFiles: s.files, entries, ms, warnings, configReloaded, configError, folders: kind === 'start' ? folders() : undefined, pollMs: kind === 'start' ? pollMs : undefined, ...(kind === 'start' ? { answersFreshness: vouch?.answering === true } : {}) });
    } catch (err) {
      vouch?.invalidate();
      failures++;
      const retryInMs = retryDelay(failures);
      if (!stopped) retryTimer = setTimeout(() => void batcher.flush(), retryInMs);
      opts.onResult({
        at: new Date(), kind, seen, diff: { files: [], added: 0, removed: 0 }, reindexed: 0, vaultFiles: last?.size ?? 0, entries: -1,
        ms: Math.round(performance.now() - t0), warnings, configReloaded, configError, error: { ...describe(err), retryInMs },
      });
    }
  };

  /** Folders under watch: those of the root's watcher inside the root, and the global folder. */
  const folders = (): number => {
    let n = 0;
    const inside = vault.root.endsWith(path.sep) ? vault.root : vault.root + path.sep;
    for (const w of watchers) {
      for (const dir of Object.keys(w.getWatched())) if (dir === vault.root || dir.startsWith(inside) || dir === vault.home) n++;
    }
    return n;
  };

  const batcher = new Batcher({ quietMs: opts.debounceMs, maxWaitMs: Math.max(2000, 10 * opts.debounceMs), run });

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    stoppedNow();
    clearTimeout(retryTimer);
    clearTimeout(recheckTimer);
    const closing = watchers.map((w) => w.close());
    watchers = [];
    vouch?.close();
    await Promise.all([...closing, batcher.stop()]);
  };

  try {
    await open();
  } catch (err) {
    await stop();
    throw watcherFault(err, poll) ?? err;
  }
  // Natively only: a poll (a network filesystem) may miss changes made elsewhere for a while.
  if (!poll && !stopped) {
    const v = new FreshnessVouch(vault.root, vault.home, onPath, () => started && !stopped && !fatal && failures === 0 && !batcher.busy && batcher.pending === 0 && linkTargets.size === 0);
    const listening = v.listen();
    if (listening.ok) vouch = v;
    else if (listening.why) opts.onWarning?.(`searches will stat every file (cannot answer them: ${listening.why})`);
  }
  if (!fatal) await batcher.flush();
  return { folders, stop };
}
