// The vault: a project root plus the user's global folder, and the memory files they hold.
// Finding the root, and listing every file that belongs in the index with its scope.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemError } from '../errors.js';
import { DEFAULT_CONFIG, loadConfig, type VaultConfig } from './config.js';
import { globBase, globToRegExp } from './glob.js';
import { classifyPath, type ScopeInfo } from './scope.js';
import type { DirReader } from './dircache.js';

export interface Vault {
  root: string;
  home: string;
  dbPath: string;
  config: VaultConfig;
}

export interface VaultFile extends ScopeInfo {
  /** Absolute path on disk. */
  abs: string;
  /** The file's name in the index and in output: relative to the root, or absolute for global files. */
  path: string;
  isGlobal: boolean;
}

const ROOT_MARKERS = ['.mem', 'MEMORY.md', '.git'];
const MEMORY_NAMES = new Set(['MEMORY.md', 'institutional.md']);
/** Memory files directly in the root, in the order they are listed. */
const ROOT_FILES = ['MEMORY.md', 'institutional.md', 'proxy.md'];
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);

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
  env?: NodeJS.ProcessEnv;
  /** Skip reading `.mem/config.yaml` (used by commands that create it). */
  noConfig?: boolean;
}

export function resolveRoot(opts: VaultOptions): string {
  const env = opts.env ?? process.env;
  const explicit = opts.root ?? env.MEM_ROOT;
  if (explicit) {
    const root = path.resolve(opts.cwd ?? process.cwd(), explicit);
    if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
      throw new MemError(`vault root ${explicit} is not a directory`, { hint: 'check --root or MEM_ROOT' });
    }
    return root;
  }
  const cwd = opts.cwd ?? process.cwd();
  const found = findRoot(cwd);
  if (!found) {
    throw new MemError(`no vault found (looked for .mem/, MEMORY.md or .git from ${cwd} upwards)`, {
      hint: 'run `mem init` in your project, or pass --root DIR / set MEM_ROOT',
    });
  }
  return found;
}

export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.MEM_HOME || os.homedir());
}

export async function openVault(opts: VaultOptions = {}): Promise<Vault> {
  const root = resolveRoot(opts);
  const config = opts.noConfig ? structuredClone(DEFAULT_CONFIG) : await loadConfig(root);
  return { root, home: homeDir(opts.env), dbPath: path.join(root, '.memory.db'), config };
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

function isFile(abs: string): boolean {
  try {
    return fs.statSync(abs).isFile();
  } catch {
    return false;
  }
}

/** A folder's entries, or none when it cannot be read (missing, not a folder, no permission). */
export function readDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Every `.md` under `dir` (relative to root), skipping VCS and dependency folders. */
function walkMarkdown(read: DirReader, root: string, rel: string, out: string[], allowDot: boolean): void {
  for (const d of read(path.join(root, rel))) {
    const name = d.name;
    const childRel = rel ? `${rel}/${name}` : name;
    if (d.isDirectory()) {
      if (SKIP_DIRS.has(name) || (!allowDot && name.startsWith('.'))) continue;
      walkMarkdown(read, root, childRel, out, allowDot);
    } else if ((d.isFile() || d.isSymbolicLink()) && /\.(md|markdown)$/i.test(name)) {
      out.push(childRel);
    }
  }
}

/** MEMORY.md / institutional.md directly in `rel` (one readdir, no stat per name). */
function memoryFilesIn(read: DirReader, root: string, rel: string, out: string[], entries = read(path.join(root, rel))): void {
  for (const d of entries) if (MEMORY_NAMES.has(d.name) && (d.isFile() || d.isSymbolicLink())) out.push(`${rel}/${d.name}`);
}

/** Files of the layouts mem knows: ours (.mem/jobs), seed 001's (.teaparty/jobs) and legacy. */
function layoutFiles(read: DirReader, root: string): string[] {
  // The files at the root itself are probed one by one (rootFiles), not listed: the root holds
  // .memory.db, whose journal files come and go with every run, so its listing never stays put.
  const out: string[] = [];
  walkMarkdown(read, root, 'memory', out, false);
  for (const base of ['.mem/jobs', '.teaparty/jobs']) {
    for (const job of read(path.join(root, base))) {
      if (!job.isDirectory()) continue;
      const jobRel = `${base}/${job.name}`;
      const inJob = read(path.join(root, jobRel));
      memoryFilesIn(read, root, jobRel, out, inJob);
      if (!inJob.some((d) => d.name === 'tasks' && d.isDirectory())) continue;
      for (const task of read(path.join(root, jobRel, 'tasks'))) {
        if (!task.isDirectory()) continue;
        const taskRel = `${jobRel}/tasks/${task.name}`;
        const inTask = read(path.join(root, taskRel));
        memoryFilesIn(read, root, taskRel, out, inTask);
        if (inTask.some((d) => d.name === 'worktree' && d.isDirectory())) memoryFilesIn(read, root, `${taskRel}/worktree`, out);
      }
    }
  }
  for (const proj of read(path.join(root, 'projects'))) {
    if (!proj.isDirectory()) continue;
    const sessions = `projects/${proj.name}/.sessions`;
    for (const ts of read(path.join(root, sessions))) {
      if (!ts.isDirectory()) continue;
      const found: string[] = [];
      walkMarkdown(read, root, `${sessions}/${ts.name}`, found, true);
      for (const f of found) if (MEMORY_NAMES.has(f.slice(f.lastIndexOf('/') + 1))) out.push(f);
    }
  }
  return out;
}

function isGlob(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

function includeFiles(read: DirReader, root: string, globs: string[]): string[] {
  const out: string[] = [];
  for (const glob of globs) {
    const clean = glob.replace(/^\.\//, '');
    // A plain path (no wildcard) is probed with a stat each time instead (probedFiles).
    if (!isGlob(clean)) continue;
    const re = globToRegExp(clean);
    const found: string[] = [];
    walkMarkdown(read, root, globBase(clean), found, /(^|\/)\./.test(clean));
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
  const out: VaultFile[] = [];
  for (const name of MEMORY_NAMES) {
    const abs = path.join(vault.home, name);
    if (isFile(abs)) out.push({ abs, path: sameAsRoot ? name : abs, isGlobal: true, ...classifyPath(name, true) });
  }
  const plain = vault.config.include.map((g) => g.replace(/^\.\//, '')).filter((g) => !isGlob(g));
  for (const name of [...ROOT_FILES, ...plain]) {
    const abs = path.join(vault.root, name);
    if (out.some((f) => f.abs === abs) || excludes.some((re) => re.test(name)) || !isFile(abs)) continue;
    out.push({ abs, path: name, isGlobal: false, ...classifyPath(name) });
  }
  return out;
}

function excludeRegExps(vault: Vault): RegExp[] {
  return vault.config.exclude.map((g) => globToRegExp(g.replace(/^\.\//, '')));
}

/** What a walk's result depends on besides the folders it reads (see checkWalkMemo). */
export function walkKey(vault: Vault): string {
  return JSON.stringify([1, vault.root, vault.config.include, vault.config.exclude]);
}

/** The root-relative (posix) paths of the vault's memory files under the root, excludes applied. */
export function walkPaths(vault: Vault, read: DirReader = readDir): string[] {
  const excludes = excludeRegExps(vault);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const rel of [...layoutFiles(read, vault.root), ...includeFiles(read, vault.root, vault.config.include)]) {
    const posix = toPosix(rel);
    if (seen.has(posix)) continue;
    seen.add(posix);
    if (excludes.length > 0 && excludes.some((re) => re.test(posix))) continue;
    out.push(posix);
  }
  return out;
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

/** The vault file for a path given by the user (relative to cwd, or to the root). */
export function describeFile(vault: Vault, file: string, cwd = process.cwd()): VaultFile {
  const abs = path.resolve(cwd, file);
  const isGlobal = path.dirname(abs) === path.resolve(vault.home) && MEMORY_NAMES.has(path.basename(abs));
  const rel = toPosix(path.relative(vault.root, abs));
  if (isGlobal) {
    const sameAsRoot = path.resolve(vault.home) === path.resolve(vault.root);
    return { abs, path: sameAsRoot ? rel : abs, isGlobal: true, ...classifyPath(rel, true) };
  }
  const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  const key = inside ? rel : abs;
  return { abs, path: key, isGlobal: false, ...classifyPath(key) };
}
