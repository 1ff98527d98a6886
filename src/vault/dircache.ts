// A folder-listing cache for the refresh that runs before every search (git's untracked-cache
// idea). Adding, removing or renaming a name in a folder changes the folder's mtime, so a folder
// whose mtime and ctime are unchanged since it was listed still has the same names: one stat
// instead of one readdir. Listings younger than RACY_MS are not cached, since a change made
// within the same timestamp tick would not show in the mtime. Files are still stat-ed one by one.
// A whole walk is memoised too: when every folder it read (and every folder it found missing) is
// unchanged, it would find the same files, so the walk is skipped (see checkWalkMemo).

import fs from 'node:fs';
import path from 'node:path';
import { linkState } from './boundary.js';
import { DIR, inFolder, statInto } from './faststat.js';

/** What the layout walk needs from a folder entry; fs.Dirent has it too. */
export interface DirItem {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

/**
 * Lists a folder; a folder that exists but cannot be listed (no permission) is told to `onError`
 * and reads as empty. `links`, when the reader has it, collects the symlinks a walk met (root-
 * relative path → the real path it leads to, '' when none can be told): the walk's decisions about
 * them (kept, skipped, read once) hold only while each still leads there.
 */
export type DirReader = ((dir: string, onError?: (err: NodeJS.ErrnoException) => void) => readonly DirItem[]) & { links?: Map<string, string> };

const RACY_MS = 2000;

/** Scratch for statInto: mtime, ctime, size. */
const buf = new Float64Array(3);

class CachedItem implements DirItem {
  constructor(readonly name: string, private readonly kind: string) {}
  isDirectory(): boolean {
    return this.kind === 'd';
  }
  isFile(): boolean {
    return this.kind === 'f';
  }
  isSymbolicLink(): boolean {
    return this.kind === 'l';
  }
}

interface Listing {
  mtime: number;
  ctime: number;
  /** `kind name` per line; kind is d (folder), f (file), l (symlink) or o (other). */
  items: string;
}

function kindOf(d: fs.Dirent): string {
  return d.isDirectory() ? 'd' : d.isFile() ? 'f' : d.isSymbolicLink() ? 'l' : 'o';
}

/**
 * A folder's entries, when it can be both listed and searched: the names of a folder that can be
 * read but not searched (mode r without x) cannot be opened nor stat-ed, so none is returned.
 */
export function listSearchable(dir: string): fs.Dirent[] {
  const list = fs.readdirSync(dir, { withFileTypes: true });
  if (list.length > 0) fs.accessSync(dir, fs.constants.X_OK);
  return list;
}

export class DirCache {
  private readonly cached: Map<string, Listing>;
  private readonly used = new Map<string, Listing>();
  private readonly missing = new Set<string>();
  private dirty = false;
  /** False once a folder was read whose listing cannot be trusted next time (too recent, unreadable). */
  private trusted = true;

  /** `saved` is what `serialize()` returned last time (or null / garbage: start empty). */
  constructor(saved: string | null | undefined, private readonly clock: () => number = Date.now) {
    this.cached = new Map();
    if (!saved) return;
    try {
      const data = JSON.parse(saved) as Record<string, [number, number, string]>;
      for (const [dir, [mtime, ctime, items]] of Object.entries(data)) {
        if (typeof mtime === 'number' && typeof ctime === 'number' && typeof items === 'string') this.cached.set(dir, { mtime, ctime, items });
      }
    } catch {
      this.cached.clear();
    }
  }

  /** The symlinks the walk met (see DirReader). */
  private readonly links = new Map<string, string>();

  /** A folder's entries, or none when it cannot be read (missing, not a folder, no permission). */
  readonly read: DirReader = Object.assign((dir: string, onError?: (err: NodeJS.ErrnoException) => void): readonly DirItem[] => this.list(dir, onError), { links: this.links });

  private list(dir: string, onError?: (err: NodeJS.ErrnoException) => void): readonly DirItem[] {
    let kind: number;
    try {
      kind = statInto(dir, buf, 0);
    } catch (err) {
      // A folder inside one that cannot be searched: not even its times can be read.
      this.trusted = false;
      onError?.(err as NodeJS.ErrnoException);
      return [];
    }
    if (kind !== DIR) {
      this.missing.add(dir);
      return [];
    }
    const st = { mtimeMs: buf[0], ctimeMs: buf[1] };
    const hit = this.cached.get(dir);
    if (hit && hit.mtime === st.mtimeMs && hit.ctime === st.ctimeMs) {
      this.used.set(dir, hit);
      if (hit.items === '') return [];
      return hit.items.split('\n').map((line) => new CachedItem(line.slice(2), line[0]));
    }
    let list: fs.Dirent[];
    try {
      list = listSearchable(dir);
    } catch (err) {
      // Not trusted: a folder that cannot be listed is walked (and reported) again next time.
      this.trusted = false;
      onError?.(err as NodeJS.ErrnoException);
      return [];
    }
    const now = this.clock();
    // Only listings whose folder has been still for a while are trusted next time.
    if (now - st.mtimeMs > RACY_MS && now - st.ctimeMs > RACY_MS && list.every((d) => !d.name.includes('\n'))) {
      this.used.set(dir, { mtime: st.mtimeMs, ctime: st.ctimeMs, items: list.map((d) => `${kindOf(d)} ${d.name}`).join('\n') });
      this.dirty = true;
    } else {
      this.trusted = false;
      if (hit) this.dirty = true;
    }
    return list;
  }

  /** True when the cache to save differs from the one loaded (new listings, or folders gone). */
  get changed(): boolean {
    return this.dirty || this.used.size !== this.cached.size;
  }

  /**
   * The memo of this walk (see checkWalkMemo): the folders it read with their times, the ones it
   * found missing, and what it found. Undefined when a folder changed too recently to be trusted.
   */
  walkMemo(key: string, paths: string[], root?: string): string | undefined {
    if (!this.trusted) return undefined;
    // Folders under the root are kept relative to it: the check stats them from there as they are.
    const prefix = root === undefined ? null : root.endsWith(path.sep) ? root : root + path.sep;
    const rel = (d: string) => (prefix === null ? d : d === root ? '.' : d.startsWith(prefix) ? d.slice(prefix.length) : d);
    const dirs = [...this.used.keys()].map(rel);
    if (dirs.some((d) => d.includes('\n'))) return undefined;
    // Text and bytes rather than arrays: JSON.parse reads a few long strings much faster than
    // thousands of small ones and numbers (3 → 1 ms at 3k folders and 10k files).
    const times = new Float64Array(2 * dirs.length);
    let i = 0;
    for (const l of this.used.values()) {
      times[i++] = l.mtime;
      times[i++] = l.ctime;
    }
    return JSON.stringify({
      key, dirs: dirs.join('\n'), times: Buffer.from(times.buffer).toString('base64'), missing: [...this.missing].map(rel), paths: paths.join('\n'),
      ...(this.links.size > 0 ? { links: Object.fromEntries(this.links) } : {}),
    });
  }

  /** The listings used in this walk, for the next one. */
  serialize(): string {
    const out: Record<string, [number, number, string]> = {};
    for (const [dir, l] of this.used) out[dir] = [l.mtime, l.ctime, l.items];
    return JSON.stringify(out);
  }
}

/**
 * The paths a memoised walk found (root-relative, one per line; '' for none), if it would find the
 * same now: same key (vault root, include and exclude globs), every folder it read unchanged
 * (mtime and ctime) and every folder it found missing still missing. One stat per folder, instead
 * of a walk. Null otherwise.
 */
export function checkWalkMemo(saved: string | null | undefined, key: string, root?: string): string | null {
  if (!saved) return null;
  let memo: { key?: unknown; dirs?: unknown; times?: unknown; missing?: unknown; paths?: unknown; links?: unknown };
  try {
    memo = JSON.parse(saved);
  } catch {
    return null;
  }
  const { dirs, times: encoded, missing, paths } = memo;
  if (memo.key !== key || typeof dirs !== 'string' || typeof encoded !== 'string' || !Array.isArray(missing) || typeof paths !== 'string') return null;
  const bytes = Buffer.from(encoded, 'base64');
  // A copy: a Float64Array needs its offset aligned, which a decoded buffer's may not be.
  const times = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length - (bytes.length % 8)));
  // Folders under the root are relative to it: as they are from the root (see inFolder), else
  // joined to it.
  const unchanged = (moved: boolean): boolean => {
    const at = (d: string) => (moved || path.isAbsolute(d) || root === undefined ? d : path.join(root, d));
    // A folder that can no longer be searched makes a stat throw: the walk runs (and says so).
    try {
      let k = 0;
      for (let start = 0; start < dirs.length; k += 2) {
        let end = dirs.indexOf('\n', start);
        if (end < 0) end = dirs.length;
        if (k + 1 >= times.length || statInto(at(dirs.slice(start, end)), buf, 0) !== DIR || buf[0] !== times[k] || buf[1] !== times[k + 1]) return false;
        start = end + 1;
      }
      if (k !== times.length) return false;
      for (const dir of missing as unknown[]) {
        if (typeof dir !== 'string' || statInto(at(dir), buf, 0) === DIR) return false;
      }
      return true;
    } catch {
      return false;
    }
  };
  if (!(root ? inFolder(root, unchanged) : unchanged(false))) return null;
  // A symlink may now lead elsewhere with no folder of the walk changed (a link further down its
  // chain was retargeted): each is followed again. Only links pay this; most vaults have none.
  if (memo.links !== undefined) {
    if (typeof memo.links !== 'object' || memo.links === null || root === undefined) return null;
    for (const [rel, real] of Object.entries(memo.links as Record<string, unknown>)) {
      if (typeof real !== 'string' || linkState(path.join(root, rel)) !== real) return null;
    }
  }
  return paths;
}

/**
 * The folders a saved walk memo depends on, absolute: those it read and those it found missing.
 * Null when there is no usable memo, or when the walk followed links (those depend on more than
 * these folders).
 */
export function memoFolders(saved: string | null | undefined, root: string): { read: string[]; missing: string[] } | null {
  if (!saved) return null;
  let memo: { dirs?: unknown; missing?: unknown; links?: unknown };
  try {
    memo = JSON.parse(saved);
  } catch {
    return null;
  }
  if (typeof memo.dirs !== 'string' || !Array.isArray(memo.missing) || memo.links !== undefined) return null;
  const abs = (d: string) => (path.isAbsolute(d) ? d : d === '.' ? root : path.join(root, d));
  const missing: string[] = [];
  for (const d of memo.missing as unknown[]) {
    if (typeof d !== 'string') return null;
    missing.push(abs(d));
  }
  return { read: memo.dirs === '' ? [] : memo.dirs.split('\n').map(abs), missing };
}
