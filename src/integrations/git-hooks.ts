// mem's git hooks: where a repository's hooks live (core.hooksPath, husky, worktrees, submodules:
// asked of git itself), the block mem adds to each hook, and installing, removing and reporting it.
// The block text and its insertion/removal are pure functions; only install/uninstall/status touch disk.

import { execFileSync } from '../child-process.js';
import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { realRoot, resolveReal, staysInside, within, writeTarget } from '../vault/boundary.js';
import { writeFileAtomic } from '../vault/write.js';
import { isFailure, readRegularBytes } from '../vault/read.js';

export const GIT_HOOKS = ['post-merge', 'post-checkout', 'post-rewrite', 'pre-commit'] as const;
export type GitHook = (typeof GIT_HOOKS)[number];

/** The first line of mem's block starts with this, its last line is END; the rest of the hook is the user's. */
export const BEGIN = '# >>> mem >>>';
export const END = '# <<< mem <<<';
/** Bumped whenever the block's text changes, so that status can tell an outdated block. */
export const BLOCK_VERSION = 1;
/** What a hook file mem creates starts with; a hook left with only this line is deleted on uninstall. */
export const SHEBANG = '#!/bin/sh\n';

/** The mem a hook runs: this Node and this bin/mem.js (falling back to `mem` on PATH when they are gone). */
export interface Launcher {
  node: string;
  js: string;
}

/** Single-quoted for POSIX sh: nothing inside is expanded. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * mem's block for `hook`. It runs in a subshell so that its variables never leak into the rest of
 * the hook and it never `exit`s the hook itself: post-* hooks start `mem index --quiet` detached in
 * the background (all output to .mem/logs/git-hooks.log) and always go on; pre-commit runs
 * `mem lint --staged` and is the only one that stops the hook (exit 1) when lint fails. `rootArg`:
 * the vault's folder relative to the top of the work tree (where git runs hooks), '' for the top.
 */
export function hookBlock(hook: GitHook, launcher: Launcher, rootArg = ''): string {
  const root = rootArg ? ` --root ${shQuote(rootArg)}` : '';
  const dir = rootArg ? `${rootArg.replace(/\/+$/, '')}/.mem` : '.mem';
  const lines = [
    `${BEGIN} v${BLOCK_VERSION}: added by \`mem hooks install --git\`; \`mem hooks uninstall --git\` removes it`,
    '(',
    `  mem_node=${shQuote(launcher.node)}`,
    `  mem_js=${shQuote(launcher.js)}`,
    // The mem that installed the hook first (same Node, so its SQLite addon loads), else PATH's.
    '  if [ -f "$mem_js" ] && [ -x "$mem_node" ]; then mem_run() { exec "$mem_node" "$mem_js" "$@"; }',
    '  elif command -v mem >/dev/null 2>&1; then mem_run() { exec mem "$@"; }',
  ];
  if (hook === 'pre-commit') {
    lines.push(
      `  else echo "mem: warning: mem not found (not at $mem_js, not on PATH); memory files not linted" >&2; exit 0; fi`,
      `  mem_run${root} lint --staged`,
      `) || { echo 'hint: fix the memory file (mem lint), or commit with --no-verify' >&2; exit 1; }`,
    );
  } else {
    lines.push(
      `  else echo "mem: warning: mem not found (not at $mem_js, not on PATH); the memory index was not updated" >&2; exit 0; fi`,
      // Never through a link (a clone can hold one to anywhere): then the output is dropped.
      `  mem_dir=${shQuote(dir)}; mem_log="$mem_dir/logs/git-hooks.log"`,
      '  if [ -L "$mem_dir" ] || [ -L "$mem_dir/logs" ] || [ -L "$mem_log" ] || ! mkdir -p "$mem_dir/logs" 2>/dev/null; then mem_log=/dev/null; fi',
      // `exec` redirections, not a redirected function call: the shell would keep a copy of
      // git's stdout/stderr open while the index runs, and whoever reads them (an IDE, a
      // terminal wrapper) would wait for the index.
      // In the background too: the log is cut back to one old copy past 1 MB.
      '  (if [ "$mem_log" != /dev/null ] && [ -f "$mem_log" ] && [ "$(wc -c <"$mem_log")" -gt 1048576 ]; then mv -f "$mem_log" "$mem_log.1"; fi',
      `   exec </dev/null >>"$mem_log" 2>&1; mem_run${root} index --quiet) &`,
      ') || :',
    );
  }
  lines.push(END);
  return `${lines.join('\n')}\n`;
}

/** Where mem's block is in `text`: [start of its first line, end of its last line incl. newline), or null. */
export function findBlock(text: string): { start: number; end: number } | null {
  const lines = text.split(/(?<=\n)/);
  let pos = 0;
  let start = -1;
  for (const line of lines) {
    const bare = line.replace(/\r?\n$/, '');
    if (start < 0 && bare.startsWith(BEGIN)) start = pos;
    else if (start >= 0 && bare === END) return { start, end: pos + line.length };
    pos += line.length;
  }
  return null;
}

/**
 * `existing` (a hook's text, null when there is none) with mem's block in it: a new hook is the
 * shebang and the block; an existing one keeps every byte and gets the block just after its `#!`
 * line (or at the very top when it has none), so that mem's lines run even when the user's script
 * ends with `exit` or `exec`. A block already there is replaced where it stands.
 */
export function insertBlock(existing: string | null, block: string): string {
  if (existing === null) return SHEBANG + block;
  const found = findBlock(existing);
  if (found) return existing.slice(0, found.start) + block + existing.slice(found.end);
  if (!existing.startsWith('#!')) return block + existing;
  const nl = existing.indexOf('\n');
  if (nl < 0) return `${existing}\n${block}`;
  return existing.slice(0, nl + 1) + block + existing.slice(nl + 1);
}

/**
 * `text` without mem's block, byte for byte what it was before insertBlock; null when nothing
 * else remains (no text, or only a `#!` line), so the file goes.
 */
export function removeBlock(text: string): string | null {
  const found = findBlock(text);
  const rest = found ? text.slice(0, found.start) + text.slice(found.end) : text;
  if (rest.trim() === '' || /^#![^\n]*\n?$/.test(rest)) return null;
  return rest;
}

/** Whether a hook file is a shell script mem can add lines to (git runs a text file with no `#!` with sh). */
export function isShellScript(buf: Buffer): boolean {
  if (buf.includes(0)) return false;
  const text = buf.toString('utf8');
  if (!text.startsWith('#!')) return true;
  const words = text.slice(2, text.search(/\r?\n|$/)).trim().split(/\s+/);
  let prog = path.posix.basename(words[0] ?? '');
  if (prog === 'env') prog = path.posix.basename(words.slice(1).find((w) => !w.startsWith('-')) ?? '');
  return /^(sh|bash|dash|ash|ksh|mksh|zsh|busybox)$/.test(prog);
}

// ---- the repository's hooks folder -----------------------------------------------------------

export interface HooksPlace {
  /** Top of the work tree (where git runs hooks). */
  top: string;
  /** The folder mem's hook files go in. */
  dir: string;
  /** The folder writes must stay inside (the repository, its git folder, or the configured hooks folder). */
  base: string;
  /** The repository's (common) git folder. */
  gitDir: string;
  /** `husky` when the hooks go in husky's own folder instead of its generated `_/` one. */
  kind: 'git' | 'hooksPath' | 'husky';
}

function git(cwd: string, args: string[], env: NodeJS.ProcessEnv): string | null {
  try {
    return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    return null;
  }
}

/**
 * Where the hooks of the repository holding `cwd` live, as git itself runs them. `env` is the
 * environment git is asked in: GIT_CONFIG_GLOBAL, GIT_DIR and the like change the answer.
 */
export function hooksPlace(cwd: string, env: NodeJS.ProcessEnv, opts: { write?: boolean } = {}): HooksPlace {
  const top = git(cwd, ['rev-parse', '--show-toplevel'], env);
  if (!top) throw new MemError(`not in a git work tree: ${cwd}`, { hint: 'run mem hooks in a git repository (git init)' });
  const hooks = git(top, ['rev-parse', '--git-path', 'hooks'], env);
  const common = git(top, ['rev-parse', '--git-common-dir'], env);
  if (hooks === null || common === null) throw new MemError(`git cannot tell where the hooks of ${top} are`);
  const configured = git(top, ['config', '--show-scope', '--get', 'core.hooksPath'], env);
  let dir = path.resolve(top, hooks);
  let kind: HooksPlace['kind'] = 'git';
  const gitDir = realRoot(path.resolve(top, common));
  let base = gitDir;
  if (configured) {
    const [scope, ...value] = configured.split('\t');
    if (opts.write && scope !== 'local' && scope !== 'worktree') {
      throw new MemError(`core.hooksPath is set in your ${scope} git config (${value.join('\t')}), for every repository`, {
        hint: 'mem installs hooks per repository: set core.hooksPath in this one (git config core.hooksPath .githooks), or add mem lint --staged / mem index --quiet to those hooks by hand',
      });
    }
    kind = 'hooksPath';
    // husky (v9: core.hooksPath=.husky/_, a generated folder whose hooks run .husky/<hook>):
    // mem's lines go in .husky/<hook>, which husky keeps; husky ≤8 uses .husky itself.
    if (path.basename(dir) === '_' && path.basename(path.dirname(dir)) === '.husky') {
      dir = path.dirname(dir);
      kind = 'husky';
    }
    // A folder the user named outright is theirs to write; one named relative to the work tree
    // must stay in the repository.
    base = path.isAbsolute(value.join('\t')) ? realRoot(dir) : realRoot(top);
  }
  const inside = staysInside(dir, base);
  if (opts.write && !inside.inside) {
    throw new MemError(`refusing to install hooks in ${dir}: it leads out of the repository through a symlink${inside.real ? ` (to ${inside.real})` : ''}`, {
      hint: 'point core.hooksPath at a folder inside the repository',
    });
  }
  return { top: realRoot(top), dir, base, gitDir, kind };
}

// ---- install / uninstall / status ------------------------------------------------------------

export type HookState = 'installed' | 'missing' | 'foreign-only' | 'outdated';

export interface HookReport {
  hook: GitHook;
  path: string;
  state: HookState;
  /** Whether the block runs this mem (its Node and bin/mem.js). */
  points_here: boolean;
  /** The bin/mem.js the block names, null without a block. */
  mem: string | null;
  executable: boolean;
}

export interface HooksReport {
  repository: string;
  hooks_dir: string;
  /** git: .git/hooks; hooksPath: core.hooksPath; husky: .husky/ (run by husky with sh, need not be executable). */
  kind: HooksPlace['kind'];
  hooks: HookReport[];
}

function readHook(file: string): Buffer | null {
  // Checked on the open file: a FIFO in a hook's place is refused, never waited on.
  const r = readRegularBytes(file, 16 << 20);
  if (!isFailure(r)) return r;
  if (r.kind === 'missing') return null;
  throw new MemError(r.kind === 'special' || r.error.startsWith('not a regular file') ? `${file} is not a regular file` : `cannot read ${file}: ${r.error}`, { hint: 'move it away, then run mem hooks install --git again' });
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The vault folder as hooks see it: relative to the top of the work tree, '' when it is the top. */
function rootArg(place: HooksPlace, vaultRoot: string): string {
  const rel = path.relative(place.top, realRoot(vaultRoot));
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new MemError(`the vault ${vaultRoot} is not inside the git work tree ${place.top}`);
  }
  return rel.split(path.sep).join('/');
}

function blockValue(block: string, name: string): string | null {
  const m = new RegExp(`^\\s*${name}='((?:[^']|'\\\\'')*)'$`, 'm').exec(block);
  return m ? Buffer.from(m[1].replace(/'\\''/g, "'"), 'latin1').toString('utf8') : null;
}

// Hook files are edited as bytes (latin1 strings: one char per byte), so that whatever encoding
// the user's lines are in comes back unchanged; mem's block goes in as its UTF-8 bytes.
function bytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

export function hooksStatus(cwd: string, vaultRoot: string, launcher: Launcher, env: NodeJS.ProcessEnv): HooksReport {
  const place = hooksPlace(cwd, env);
  const arg = rootArg(place, vaultRoot);
  const hooks = GIT_HOOKS.map((hook): HookReport => {
    const file = path.join(place.dir, hook);
    const buf = readHook(file);
    const base = { hook, path: file, executable: buf !== null && executable(file) };
    if (buf === null) return { ...base, state: 'missing', points_here: false, mem: null };
    const text = buf.toString('latin1');
    const found = findBlock(text);
    if (!found) return { ...base, state: 'foreign-only', points_here: false, mem: null };
    const block = text.slice(found.start, found.end);
    const js = blockValue(block, 'mem_js');
    const here = js === launcher.js && blockValue(block, 'mem_node') === launcher.node;
    return { ...base, state: block === bytes(hookBlock(hook, launcher, arg)) ? 'installed' : 'outdated', points_here: here, mem: js };
  });
  return { repository: place.top, hooks_dir: place.dir, kind: place.kind, hooks };
}

export type InstallAction = 'created' | 'added' | 'updated' | 'unchanged';

export interface InstallReport {
  repository: string;
  hooks_dir: string;
  kind: HooksPlace['kind'];
  /** The hooks folder is inside the work tree: committed, the block names this machine's mem. */
  in_work_tree: boolean;
  hooks: { hook: GitHook; path: string; action: InstallAction; executable: boolean }[];
}

/**
 * Add mem's block to each git hook. Every hook is checked before any is written: one mem cannot
 * edit (not a shell script: a binary, a python script) stops the install with nothing changed.
 */
export function installGitHooks(cwd: string, vaultRoot: string, launcher: Launcher, env: NodeJS.ProcessEnv): InstallReport {
  const place = hooksPlace(cwd, env, { write: true });
  const arg = rootArg(place, vaultRoot);
  const plan = GIT_HOOKS.map((hook) => {
    const file = path.join(place.dir, hook);
    const target = writeTarget(file, file, place.base);
    const buf = readHook(target);
    if (buf !== null && !isShellScript(buf)) {
      throw new MemError(`${file} is not a shell script; mem does not edit it (no hook was changed)`, {
        hint: `call mem from it yourself (${hook === 'pre-commit' ? 'mem lint --staged' : 'mem index --quiet, in the background'}), or rename it, run mem hooks install --git, and call it from the new shell hook`,
      });
    }
    const before = buf === null ? null : buf.toString('latin1');
    return { hook, file, target, before, after: insertBlock(before, bytes(hookBlock(hook, launcher, arg))) };
  });
  fs.mkdirSync(place.dir, { recursive: true });
  const hooks = plan.map(({ hook, file, target, before, after }) => {
    const action: InstallAction = before === null ? 'created' : before === after ? 'unchanged' : findBlock(before) ? 'updated' : 'added';
    if (action !== 'unchanged') writeFileAtomic(target, Buffer.from(after, 'latin1'), { newMode: 0o755 });
    return { hook, path: file, action, executable: executable(target) };
  });
  // The background index's log: kept out of git by a .gitignore of its own.
  const logs = path.join(vaultRoot, '.mem', 'logs');
  const ignore = path.join(logs, '.gitignore');
  if (!fs.existsSync(ignore)) {
    try {
      writeFileAtomic(writeTarget(ignore, ignore, realRoot(vaultRoot)), '*\n');
    } catch {
      // a link out of the vault there: the hooks drop their output instead (see hookBlock)
    }
  }
  const real = resolveReal(place.dir);
  const inWorkTree = real !== null && within(real, place.top) && !within(real, place.gitDir);
  return { repository: place.top, hooks_dir: place.dir, kind: place.kind, in_work_tree: inWorkTree, hooks };
}

export type UninstallAction = 'removed' | 'deleted' | 'absent';

export function uninstallGitHooks(cwd: string, env: NodeJS.ProcessEnv): { repository: string; hooks_dir: string; hooks: { hook: GitHook; path: string; action: UninstallAction }[] } {
  const place = hooksPlace(cwd, env, { write: true });
  const hooks = GIT_HOOKS.map((hook) => {
    const file = path.join(place.dir, hook);
    const target = writeTarget(file, file, place.base);
    const buf = readHook(target);
    const text = buf?.toString('latin1') ?? null;
    if (text === null || !findBlock(text)) return { hook, path: file, action: 'absent' as const };
    const rest = removeBlock(text);
    if (rest === null) {
      fs.rmSync(target, { force: true });
      return { hook, path: file, action: 'deleted' as const };
    }
    writeFileAtomic(target, Buffer.from(rest, 'latin1'));
    return { hook, path: file, action: 'removed' as const };
  });
  return { repository: place.top, hooks_dir: place.dir, hooks };
}
