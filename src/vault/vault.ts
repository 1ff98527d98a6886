// The vault: a project root plus the user's global folder, and the memory files they hold.
// Finding the root, and listing every file that belongs in the index with its scope.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemError } from '../errors.js';
import { confineWritesTo, linkState, realRoot, staysInside } from './boundary.js';
import { DEFAULT_CONFIG, loadConfig, type VaultConfig } from './config.js';
import { globBase, globToRegExp } from './glob.js';
import { specialKind } from './read.js';
import { classifyPath, DISPATCH_FILE, type ScopeInfo } from './scope.js';
import { listSearchable, type DirItem, type DirReader } from './dircache.js';

export interface Vault {
  root: string;
  home: string;
  dbPath: string;
  config: VaultConfig;
  /** What the last walk or probe left out and why (see skipNotices). */
  skipped?: SkipReport;
  /** The lines skipNotices gave for this vault so far. */
  said?: Set<string>;
}

/**
 * Files and folders a walk left out: links that leave the vault, folders it cannot list, and
 * memory files that are not regular files.
 */
export interface SkipReport {
  /** Vault path → where the link really leads (null: nowhere that can be told, e.g. a loop). */
  links: Map<string, string | null>;
  /** Vault path → why it cannot be listed. */
  unreadable: Map<string, string>;
  /**
   * Vault path of a memory file → what is there instead of a regular file ("a FIFO", "a folder"):
   * never opened (a FIFO would block the read), but never left out in silence either.
   */
  notRegular: Map<string, string>;
}

export interface VaultFile extends ScopeInfo {
  /** Absolute path on disk. */
  abs: string;
  /** The file's name in the index and in output: relative to the root, or absolute for global files. */
  path: string;
  isGlobal: boolean;
}

const ROOT_MARKERS = ['.mem', 'MEMORY.md', '.git'];
export const MEMORY_NAMES: ReadonlySet<string> = new Set(['MEMORY.md', 'institutional.md']);
/** Memory files directly in the root, in the order they are listed. */
export const ROOT_FILES: readonly string[] = ['MEMORY.md', 'institutional.md', 'proxy.md', DISPATCH_FILE];
/** Folders no walk enters (`mem watch` watches none of them either). */
export const SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);

export function findRoot(start: string): string | null {
  let dir = path.resolve(start);
  for (;;) {
    for (const m of ROOT_MARKERS) {
      if (fs.existsSync(path.join(dir, m))) return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export interface VaultOptions {
  root?: string;
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Skip reading `.mem/config.yaml` (used by commands that create it). */
  noConfig?: boolean;
  /** The config's text to use instead of the file's (its version in git's index, for a pre-commit check). */
  configText?: Buffer;
}

export function resolveRoot(opts: VaultOptions): string {
  const env = opts.env;
  const explicit = opts.root ?? env.MEM_ROOT;
  if (explicit) {
    const root = path.resolve(opts.cwd ?? '.', explicit);
    if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
      throw new MemError(`vault root ${explicit} is not a directory`, { hint: 'check --root or MEM_ROOT' });
    }
    return root;
  }
  const cwd = opts.cwd ?? path.resolve('.');
  const found = findRoot(cwd);
  if (!found) {
    throw new MemError(`no vault found (looked for .mem/, MEMORY.md or .git from ${cwd} upwards)`, {
      hint: 'run `mem init` in your project, or pass --root DIR / set MEM_ROOT',
    });
  }
  return found;
}

export function homeDir(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.MEM_HOME || userHome(env));
}

/**
 * The user's home folder as `env` names it (HOME; USERPROFILE on Windows), the variables
 * os.homedir() reads from this process's own environment, which may not be the command's.
 */
export function userHome(env: NodeJS.ProcessEnv): string {
  return (process.platform === 'win32' ? env.USERPROFILE : env.HOME) || os.homedir();
}

export async function openVault(opts: VaultOptions): Promise<Vault> {
  const root = resolveRoot(opts);
  const config = opts.noConfig ? structuredClone(DEFAULT_CONFIG) : await loadConfig(root, opts.configText);
  const home = homeDir(opts.env);
  // Every write of this command stays inside the root (project files) or the global folder.
  confineWritesTo([root, home]);
  return { root, home, dbPath: path.join(root, '.memory.db'), config };
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

function skipReport(vault: Vault): SkipReport {
  vault.skipped ??= { links: new Map(), unreadable: new Map(), notRegular: new Map() };
  return vault.skipped;
}

/**
 * A regular file that stays inside `base` (the root, or the global folder for global files): one
 * lstat, and for a symlink only, where it really leads. A link out is noted in `skip`, not read;
 * so is anything else in the file's place (a FIFO, a folder), as `shown`.
 */
function isFileInside(abs: string, base: string, name: string, skip: SkipReport, shown = name): boolean {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return false;
  }
  if (!st) return false;
  if (!st.isSymbolicLink()) {
    if (!st.isFile()) skip.notRegular.set(shown, specialKind(st));
    return st.isFile();
  }
  const { inside, real } = staysInside(abs, base);
  if (!inside) {
    skip.links.set(name, real);
    return false;
  }
  try {
    return fs.statSync(abs).isFile();
  } catch {
    return false;
  }
}

/** A folder's entries, or none when it cannot be read (missing, not a folder, no permission: told to `onError`). */
export function readDir(dir: string, onError?: (err: NodeJS.ErrnoException) => void): fs.Dirent[] {
  try {
    return listSearchable(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') onError?.(err as NodeJS.ErrnoException);
    return [];
  }
}

/** What one walk needs besides the folder it is in: how to list, where the root really is, what it left out. */
interface Walk {
  read: DirReader;
  root: string;
  skip: SkipReport;
  /** The links kept, root-relative → real path. */
  kept: Map<string, string>;
  /** Memory files' names on something else (root-relative → what: "a FIFO"), sorted out in walkPaths. */
  notRegular: Map<string, string>;
}

/** The listing of the folder `rel` (root-relative), with a folder it cannot list noted. */
function list(w: Walk, rel: string): readonly DirItem[] {
  return w.read(path.join(w.root, rel), (err) => {
    w.skip.unreadable.set(rel, err.code === 'EACCES' || err.code === 'EPERM' ? 'permission denied' : err.code ?? err.message);
  });
}

/**
 * The listing of a folder the walk starts from (`memory`, `.mem/jobs`, an include's base): it is
 * named, not found, so it may be (or lie under) a link; when that leaves the vault, nothing in it
 * counts. It is listed all the same, so that the walk's memo notices when the link changes.
 */
function listBase(w: Walk, rel: string): readonly DirItem[] {
  const items = list(w, rel);
  if (items.length === 0) return items;
  const { inside, real } = staysInside(path.join(w.root, rel), w.root);
  if (inside) return items;
  w.skip.links.set(rel, real);
  w.read.links?.set(rel, linkState(path.join(w.root, rel)));
  return [];
}

/**
 * A symlink met in a walked folder: kept when it stays inside the root (and told to the reader, so
 * a memoised walk checks it again), noted as skipped otherwise. Only links pay this check: a
 * regular file costs the walk nothing more.
 */
function linkInside(w: Walk, rel: string): boolean {
  const abs = path.join(w.root, rel);
  const { inside, real } = staysInside(abs, w.root);
  const state = linkState(abs);
  w.read.links?.set(rel, state);
  if (!inside || real === null) {
    w.skip.links.set(rel, real);
    return false;
  }
  // A link to nothing (an editor's lock, a file removed) is no memory file: no command reads it.
  if (state.startsWith('missing:')) return false;
  w.kept.set(rel, real);
  return true;
}

/**
 * A link with another name is not followed; one to a folder out of the vault (`memory/ext -> /`)
 * is reported all the same, so the user learns what mem left out. Links to other files (a tool's
 * binary) are none of mem's business.
 */
function noteFolderLinkOut(w: Walk, rel: string): void {
  const { inside, real } = staysInside(path.join(w.root, rel), w.root);
  if (inside || real === null) return;
  let isDir = false;
  try {
    isDir = fs.statSync(real).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) return;
  w.skip.links.set(rel, real);
  w.read.links?.set(rel, linkState(path.join(w.root, rel)));
}

/**
 * Whether the walk takes the item `d` at `rel`, with a memory file's name but neither a regular
 * file nor a link (a FIFO, a socket, a device; a folder where no walk enters): it does, noted in
 * `w.notRegular` with what it is, so that walkPaths reports it instead of reading it. One lstat,
 * only for such an item (a cached listing says only "other"); never an open.
 */
function takeNotRegular(w: Walk, rel: string, d: DirItem): boolean {
  if (d.isFile() || d.isSymbolicLink()) return false;
  if (d.isDirectory()) {
    w.notRegular.set(rel, 'a folder');
    return true;
  }
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(path.join(w.root, rel), { throwIfNoEntry: false });
  } catch {
    return false;
  }
  // Gone since it was listed: nothing there. A file now (replaced meanwhile): read as one.
  if (!st || st.isSymbolicLink()) return false;
  if (!st.isFile()) w.notRegular.set(rel, specialKind(st));
  return true;
}

/** Every `.md` under `dir` (relative to root), skipping VCS and dependency folders. */
function walkMarkdown(w: Walk, rel: string, out: string[], allowDot: boolean, items = list(w, rel)): void {
  for (const d of items) {
    const name = d.name;
    const childRel = rel ? `${rel}/${name}` : name;
    if (d.isDirectory()) {
      if (SKIP_DIRS.has(name) || (!allowDot && name.startsWith('.'))) continue;
      walkMarkdown(w, childRel, out, allowDot);
    } else if (name.startsWith('.')) {
      // A dotfile is an editor's artefact (Emacs' `.#x.md` lock, a dangling link; vim's and
      // others' temp copies), never a memory file: the index and lint both pass it by.
      continue;
    } else if (/\.(md|markdown)$/i.test(name)) {
      // A linked folder is never walked (loops, files found twice), so only a link with a markdown
      // name is followed: when it stays inside the vault.
      if (d.isFile() || (d.isSymbolicLink() && linkInside(w, childRel)) || takeNotRegular(w, childRel, d)) out.push(childRel);
    } else if (d.isSymbolicLink()) {
      noteFolderLinkOut(w, childRel);
    }
  }
}

/** MEMORY.md / institutional.md directly in `rel` (one readdir, no stat per name). */
function memoryFilesIn(w: Walk, rel: string, out: string[], entries = list(w, rel)): void {
  for (const d of entries) {
    if (!MEMORY_NAMES.has(d.name)) continue;
    const name = `${rel}/${d.name}`;
    if (d.isFile() || (d.isSymbolicLink() && linkInside(w, name)) || takeNotRegular(w, name, d)) out.push(name);
  }
}

/**
 * Files of the layouts mem knows: ours (.mem/jobs), TeaParty's (.teaparty/jobs,
 * dlewissandy/teaparty) and legacy.
 */
function layoutFiles(w: Walk): string[] {
  // The files at the root itself are probed one by one (rootFiles), not listed: the root holds
  // .memory.db, whose journal files come and go with every run, so its listing never stays put.
  const out: string[] = [];
  walkMarkdown(w, 'memory', out, false, listBase(w, 'memory'));
  // Episode files (mem segment) and episode notes, one per session, and pattern notes:
  // directly in their folders.
  for (const dir of ['.mem/episodes', '.mem/patterns']) {
    for (const d of listBase(w, dir)) {
      if (!/\.md$/i.test(d.name) || d.name.startsWith('.')) continue;
      const name = `${dir}/${d.name}`;
      if (d.isFile() || (d.isSymbolicLink() && linkInside(w, name)) || takeNotRegular(w, name, d)) out.push(name);
    }
  }
  for (const base of ['.mem/jobs', '.teaparty/jobs']) {
    for (const job of listBase(w, base)) {
      if (!job.isDirectory()) continue;
      const jobRel = `${base}/${job.name}`;
      const inJob = list(w, jobRel);
      memoryFilesIn(w, jobRel, out, inJob);
      if (!inJob.some((d) => d.name === 'tasks' && d.isDirectory())) continue;
      for (const task of list(w, `${jobRel}/tasks`)) {
        if (!task.isDirectory()) continue;
        const taskRel = `${jobRel}/tasks/${task.name}`;
        const inTask = list(w, taskRel);
        memoryFilesIn(w, taskRel, out, inTask);
        if (inTask.some((d) => d.name === 'worktree' && d.isDirectory())) memoryFilesIn(w, `${taskRel}/worktree`, out);
      }
    }
  }
  for (const proj of listBase(w, 'projects')) {
    if (!proj.isDirectory()) continue;
    const sessions = `projects/${proj.name}/.sessions`;
    for (const ts of listBase(w, sessions)) {
      if (!ts.isDirectory()) continue;
      const found: string[] = [];
      walkMarkdown(w, `${sessions}/${ts.name}`, found, true);
      for (const f of found) if (MEMORY_NAMES.has(f.slice(f.lastIndexOf('/') + 1))) out.push(f);
    }
  }
  return out;
}

export function isGlob(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

function includeFiles(w: Walk, globs: string[]): string[] {
  const out: string[] = [];
  for (const glob of globs) {
    const clean = glob.replace(/^\.\//, '');
    // A plain path (no wildcard) is probed with a stat each time instead (probedFiles).
    if (!isGlob(clean)) continue;
    const re = globToRegExp(clean);
    const found: string[] = [];
    const base = globBase(clean);
    walkMarkdown(w, base, found, /(^|\/)\./.test(clean), base === '' ? list(w, base) : listBase(w, base));
    for (const f of found) if (re.test(f)) out.push(f);
  }
  return out;
}

/**
 * The files found by a stat each rather than a walk: the global ones (MEMORY.md, institutional.md
 * in the global folder), the memory files at the root and `include:` entries without wildcards.
 */
export function probedFiles(vault: Vault, excludes: RegExp[] = excludeRegExps(vault)): VaultFile[] {
  const sameAsRoot = path.resolve(vault.home) === path.resolve(vault.root);
  const skip = skipReport(vault);
  const out: VaultFile[] = [];
  for (const name of MEMORY_NAMES) {
    const abs = path.join(vault.home, name);
    const shown = sameAsRoot ? name : abs;
    // The global files are the user's own: they may lead anywhere inside the global folder.
    if (isFileInside(abs, vault.home, abs, skip, shown)) out.push({ abs, path: shown, isGlobal: true, ...classifyPath(name, true) });
  }
  const plain = vault.config.include.map((g) => g.replace(/^\.\//, '')).filter((g) => !isGlob(g));
  for (const name of [...ROOT_FILES, ...plain]) {
    const abs = path.join(vault.root, name);
    if (out.some((f) => f.abs === abs) || excludes.some((re) => re.test(name)) || !isFileInside(abs, vault.root, name, skip)) continue;
    out.push({ abs, path: name, isGlobal: false, ...classifyPath(name) });
  }
  return out;
}

function excludeRegExps(vault: Vault): RegExp[] {
  return vault.config.exclude.map((g) => globToRegExp(g.replace(/^\.\//, '')));
}

/**
 * What a walk's result depends on besides the folders it reads (see checkWalkMemo). The first
 * number is the walk's rules: 2 since links out of the vault are skipped, 3 since .mem/episodes is
 * walked, 4 since .mem/patterns is, 5 since dotfiles are not memory files, so that a memo of an older walk (which kept them, or missed
 * these) is not trusted after an upgrade.
 */
export function walkKey(vault: Vault): string {
  return JSON.stringify([5, vault.root, vault.config.include, vault.config.exclude]);
}

/** The root-relative (posix) paths of the vault's memory files under the root, excludes applied. */
export function walkPaths(vault: Vault, read: DirReader = readDir): string[] {
  const excludes = excludeRegExps(vault);
  const seen = new Set<string>();
  const out: string[] = [];
  const w: Walk = { read, root: vault.root, skip: skipReport(vault), kept: new Map(), notRegular: new Map() };
  for (const rel of [...layoutFiles(w), ...includeFiles(w, vault.config.include)]) {
    const posix = toPosix(rel);
    if (seen.has(posix)) continue;
    seen.add(posix);
    if (excludes.length > 0 && excludes.some((re) => re.test(posix))) continue;
    // A memory file that is not a regular file: reported, never read (see takeNotRegular).
    const other = w.notRegular.get(rel);
    if (other !== undefined) w.skip.notRegular.set(posix, other);
    else out.push(posix);
  }
  return w.kept.size > 0 || hasRootLinks(vault) ? readOnce(vault, w, out) : out;
}

/** Whether a memory file probed at the root is a symlink (one lstat each; the walk runs rarely). */
function hasRootLinks(vault: Vault): boolean {
  return ROOT_FILES.some((name) => fs.lstatSync(path.join(vault.root, name), { throwIfNoEntry: false })?.isSymbolicLink());
}

/**
 * A file reached both by a link inside the vault and by its own name is read once: its entries
 * would otherwise be indexed twice, and a rewrite would lock the same file twice. A walked link to
 * a file found anyway is dropped; a walked file that a root file (MEMORY.md -> docs/memory.md)
 * links to is left to the root file, the name mem writes it through.
 */
function readOnce(vault: Vault, w: Walk, paths: string[]): string[] {
  const real = realRoot(vault.root);
  const rootTargets = new Set<string>();
  for (const name of ROOT_FILES) {
    const abs = path.join(vault.root, name);
    if (!fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    const { inside, real: target } = staysInside(abs, vault.root);
    w.read.links?.set(name, linkState(abs));
    if (inside && target !== null) rootTargets.add(target);
  }
  const regular = new Set(paths.filter((p) => !w.kept.has(p)).map((p) => path.join(real, p)));
  const taken = new Set(rootTargets);
  return paths.filter((p) => {
    const target = w.kept.get(p);
    if (target === undefined) return !rootTargets.has(path.join(real, p));
    if (regular.has(target) || taken.has(target)) return false;
    taken.add(target);
    return true;
  });
}

/** Root-relative posix path → absolute path; runs before every search: plain string work. */
export function absFromRoot(vault: Vault): (posix: string) => string {
  const prefix = vault.root.endsWith(path.sep) ? vault.root : vault.root + path.sep;
  return path.sep === '/' ? (posix) => prefix + posix : (posix) => prefix + posix.split('/').join(path.sep);
}

/**
 * The vault files: the probed ones (global, and at the root) plus root-relative paths from
 * walkPaths or its memo. A file found twice (home = root, an include naming MEMORY.md) is listed
 * once, the first time.
 */
export function vaultFiles(vault: Vault, paths: string[], probed: VaultFile[] = probedFiles(vault)): VaultFile[] {
  const files = [...probed];
  const seen = new Set(files.map((f) => f.abs));
  const absOf = absFromRoot(vault);
  for (const posix of paths) {
    const abs = absOf(posix);
    if (seen.has(abs)) continue;
    const info = classifyPath(posix);
    files.push({ abs, path: posix, isGlobal: false, scope: info.scope, learningType: info.learningType, job: info.job, task: info.task });
  }
  return files;
}

/** Every memory file of the vault, deduplicated, in a stable order. `read` lists a folder (a DirCache's reader on the refresh path). */
export function discoverFiles(vault: Vault, read: DirReader = readDir): VaultFile[] {
  return vaultFiles(vault, walkPaths(vault, read));
}

const MARKDOWN = /\.(md|markdown)$/i;

/** A folder name no walk enters: VCS and dependency folders, and dot-folders unless `allowDot`. */
function walkedDir(name: string, allowDot: boolean): boolean {
  return !SKIP_DIRS.has(name) && (allowDot || !name.startsWith('.'));
}

/**
 * The folders (root-relative) a walk must meet as real folders to reach the memory file `rel`, or
 * null when no walk of layoutFiles or includeFiles reaches it at all. The same rules as those
 * walks, said of one path (a file that does not exist yet included), so that what `mem add
 * --file` accepts is exactly what index, search, list and lint read.
 */
function walkedVia(rel: string, include: string[]): string[] | null {
  const parts = rel.split('/');
  const name = parts[parts.length - 1];
  const dirs = parts.slice(0, -1);
  /** The folders from `from` (an index in parts) to the file's own, each as a root-relative path. */
  const below = (from: number) => dirs.slice(from).map((_, i) => dirs.slice(0, from + i + 1).join('/'));
  if (name.startsWith('.')) return null; // an editor's artefact, passed by in every walk
  if (dirs[0] === 'memory' && MARKDOWN.test(name) && dirs.slice(1).every((d) => walkedDir(d, false))) return below(1);
  if (dirs.length === 2 && dirs[0] === '.mem' && (dirs[1] === 'episodes' || dirs[1] === 'patterns') && /\.md$/i.test(name)) return [];
  if ((dirs[0] === '.mem' || dirs[0] === '.teaparty') && dirs[1] === 'jobs' && MEMORY_NAMES.has(name)) {
    const n = dirs.length;
    if (n === 3 || (n === 5 && dirs[3] === 'tasks') || (n === 6 && dirs[3] === 'tasks' && dirs[5] === 'worktree')) return below(2);
  }
  if (dirs[0] === 'projects' && dirs[2] === '.sessions' && dirs.length >= 4 && MEMORY_NAMES.has(name) && dirs.slice(4).every((d) => walkedDir(d, true))) {
    return [...below(1).slice(0, 1), ...below(3)];
  }
  for (const glob of include) {
    const clean = glob.replace(/^\.\//, '');
    if (!isGlob(clean) || !MARKDOWN.test(name) || !globToRegExp(clean).test(rel)) continue;
    const base = globBase(clean);
    const from = base === '' ? 0 : base.split('/').length;
    if (base !== '' && !rel.startsWith(`${base}/`)) continue;
    if (dirs.slice(from).every((d) => walkedDir(d, /(^|\/)\./.test(clean)))) return below(from);
  }
  return null;
}

/** Typed notes (episodes, patterns): indexed, but written by their own commands, never as entries. */
export const TYPED_NOTE_DIRS: readonly string[] = ['.mem/episodes', '.mem/patterns'];

/**
 * Why mem would not read the file at `abs` (existing or not) as a memory file, or null when it
 * would: the global files, the files at the root, the `include:` entries and the walks above,
 * excludes applied, every folder on the way a real folder (a walk never enters a linked one).
 */
export function notMemoryFile(vault: Vault, abs: string): string | null {
  const file = path.resolve(abs);
  if (path.dirname(file) === path.resolve(vault.home) && MEMORY_NAMES.has(path.basename(file))) return null;
  const rel = toPosix(path.relative(vault.root, file));
  if (rel === '' || rel === '..' || rel.startsWith('../') || path.isAbsolute(rel)) return `it is outside the vault (${vault.root})`;
  if (excludeRegExps(vault).some((re) => re.test(rel))) return 'it is excluded by exclude: in .mem/config.yaml';
  const plain = vault.config.include.map((g) => g.replace(/^\.\//, '')).filter((g) => !isGlob(g));
  if (ROOT_FILES.includes(rel) || plain.includes(rel)) return null;
  const via = walkedVia(rel, vault.config.include);
  if (via === null) return 'mem does not read it as memory';
  for (const dir of via) {
    if (fs.lstatSync(path.join(vault.root, dir), { throwIfNoEntry: false })?.isSymbolicLink()) return `${dir} is a symlink, and mem never walks into a linked folder`;
  }
  return null;
}

/** The vault file for a path given by the user (relative to cwd, or to the root). */
export function describeFile(vault: Vault, file: string, cwd = vault.root): VaultFile {
  const abs = path.resolve(cwd, file);
  const isGlobal = path.dirname(abs) === path.resolve(vault.home) && MEMORY_NAMES.has(path.basename(abs));
  const rel = toPosix(path.relative(vault.root, abs));
  if (isGlobal) {
    refuseLinkOut(abs, vault.home, abs);
    const sameAsRoot = path.resolve(vault.home) === path.resolve(vault.root);
    return { abs, path: sameAsRoot ? rel : abs, isGlobal: true, ...classifyPath(rel, true) };
  }
  const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  if (inside) refuseLinkOut(abs, vault.root, rel);
  const key = inside ? rel : abs;
  return { abs, path: key, isGlobal: false, ...classifyPath(key) };
}

/** A file named by the user that lies in the vault but is a link out of it is neither read nor written. */
function refuseLinkOut(abs: string, base: string, shown: string): void {
  const { inside, real } = staysInside(abs, base);
  if (inside) return;
  throw new MemError(`refusing ${shown}: it is a symlink out of the vault${real ? ` (to ${real})` : ''}`, {
    hint: 'mem never follows a link that leaves the vault; copy the file in if it belongs here',
  });
}

/**
 * One line per thing the walks and probes of this command left out (links out of the vault,
 * folders that cannot be listed, memory files that are not regular files), then forgotten: the
 * CLI prints them once on stderr.
 */
export function skipNotices(vault: Vault, opts: { unsaid?: boolean } = {}): string[] {
  const s = vault.skipped;
  if (!s) return [];
  const said = (vault.said ??= new Set());
  let out: string[] = [];
  for (const [p, real] of s.links) out.push(`skipped ${p}: a symlink out of the vault${real ? ` (to ${real})` : ''}; mem never follows it`);
  for (const [p, why] of s.unreadable) out.push(`cannot list ${p}/ (${why}): the memory files in it are left out of the index`);
  for (const [p, what] of s.notRegular) out.push(notRegularNotice(p, what));
  s.links.clear();
  s.unreadable.clear();
  s.notRegular.clear();
  // `unsaid`: only what no earlier call gave (the end of a command's run, after its own reads).
  if (opts.unsaid) out = out.filter((n) => !said.has(n));
  for (const n of out) said.add(n);
  return out;
}

/**
 * The memory files the walks and probes found that are not regular files (path → "a FIFO", …),
 * those `which` picks taken out of what skipNotices says: for a command that reports them itself
 * (mem lint: each is a problem of the vault).
 */
export function takeNotRegularFiles(vault: Vault, which: (path: string) => boolean = () => true): [string, string][] {
  const s = vault.skipped?.notRegular;
  if (!s) return [];
  const out = [...s].filter(([p]) => which(p));
  // Reported by the caller: not said again at the end of the run (skipNotices' `unsaid`).
  const said = (vault.said ??= new Set());
  for (const [p, what] of out) {
    s.delete(p);
    said.add(notRegularNotice(p, what));
  }
  return out;
}

function notRegularNotice(p: string, what: string): string {
  return `${p} is not a regular file (${what}); mem reads only regular files, so it is left out`;
}

/** Whether the walks and probes of this command met a memory file that is not a regular file (see planRefresh). */
export function metNotRegularFiles(vault: Vault): boolean {
  return (vault.skipped?.notRegular.size ?? 0) > 0;
}
