// Test helpers: temporary vaults on disk and running the built CLI in them, as the `mem` command
// npm installs: bin/mem.js, executed through its `#!/usr/bin/env node` line (npm links it into a
// bin folder on POSIX; on Windows its shim runs `node bin/mem.js`, which is what we do there).

import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseMemoryFile } from '../src/vault/format.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.join(REPO, 'bin', 'mem.js');
/** The command npm installs (package.json "bin"): the Node entry point itself. */
export const LAUNCHER = BIN;

/** The program and arguments that run the installed command with `args`, as npm's shims do. */
export function launch(args: string[], launcher = LAUNCHER): [string, string[]] {
  return process.platform === 'win32' ? [process.execPath, [launcher, ...args]] : [launcher, args];
}

/** Whether a user other than the owner can reach `p`: every folder above it searchable by others. */
export function othersCanReach(p: string): boolean {
  for (let dir = path.dirname(path.resolve(p)); ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return false;
    if (path.dirname(dir) === dir) return true;
  }
}

/**
 * The installed command as another (unprivileged) user can run it. Tests that need file modes to
 * bite run mem as `nobody` when they run as root; a fresh clone may sit in a folder only root can
 * enter (mktemp -d), so then they get a copy of what the command loads at run time (bin/, dist/,
 * package.json, the SQLite addon, yaml) in a folder anyone can read, made once per build.
 */
export function launcherFor(spawnOpts?: SpawnSyncOptions): string {
  if (spawnOpts?.uid === undefined || spawnOpts.uid === process.getuid?.() || othersCanReach(LAUNCHER)) return LAUNCHER;
  const build = /^\/\/ mem build ([0-9a-f]+)/.exec(fs.readFileSync(path.join(REPO, 'dist', 'main.cjs'), 'utf8').slice(0, 200))?.[1] ?? 'unknown';
  const dest = path.join(os.tmpdir(), `mem-cli-${build}`);
  const bin = path.join(dest, 'bin', 'mem.js');
  if (fs.existsSync(bin)) return bin;
  const tmp = `${dest}.${process.pid}.tmp`;
  const copy = (rel: string) => fs.cpSync(path.join(REPO, rel), path.join(tmp, rel), { recursive: true });
  for (const rel of ['bin', 'dist', 'package.json', 'node_modules/yaml', 'node_modules/better-sqlite3/package.json', 'node_modules/better-sqlite3/build/Release/better_sqlite3.node']) copy(rel);
  fs.chmodSync(tmp, 0o755);
  try {
    fs.renameSync(tmp, dest);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true }); // another test file made it first
  }
  return bin;
}

/**
 * An agent hook answers within 2 s of its process's start or gives up, answering nothing. A busy
 * machine can spend that long starting node, so a hook a test runs gets ten minutes, past any
 * test's timeout: what they check is the answer, not its speed (npm run bench). The deadline's own
 * tests set theirs.
 */
export const HOOK_TIME: Record<string, string> = { MEM_HOOK_DEADLINE_MS: '600000' };

/** The environment a test's mem runs in: this node first on PATH, so the `#!/usr/bin/env node` line runs it. */
export function runEnv(opts: { cwd: string; home?: string; env?: Record<string, string | undefined> }): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = {
    ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    MEM_HOME: opts.home ?? path.join(opts.cwd, '..', 'home'), NO_COLOR: '1', MEM_ROOT: undefined, MEM_SESSION: undefined,
    // A machine-wide CA bundle costs each Node start ~75 ms and mem never needs it in tests.
    NODE_EXTRA_CA_CERTS: undefined,
    // Offline unless a test says otherwise: an agent CLI on this machine's PATH (claude, codex,
    // gemini) is never chosen as the model, and a test run from inside one is no model call.
    MEM_AGENT_CLI: '0', MEM_IN_MODEL_CALL: undefined, ...HOOK_TIME, ...opts.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env as NodeJS.ProcessEnv;
}

export interface TempVault {
  root: string;
  home: string;
  write(rel: string, text: string | Buffer): string;
  read(rel: string): string;
  path(rel: string): string;
}

const made: string[] = [];

export function tempDir(prefix = 'mem-test-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

/**
 * A copy of the built package (bin, dist, package.json; node_modules linked) in a temp folder,
 * for a test to break a part of: its launcher is `<folder>/bin/mem.js`.
 */
export function packageCopy(): string {
  const pkg = tempDir();
  for (const d of ['bin', 'dist']) fs.cpSync(path.join(REPO, d), path.join(pkg, d), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'package.json'), path.join(pkg, 'package.json'));
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(pkg, 'node_modules'));
  return pkg;
}

export function tempVault(opts: { git?: boolean; mem?: boolean } = {}): TempVault {
  const base = tempDir();
  const root = path.join(base, 'project');
  const home = path.join(base, 'home');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  if (opts.mem !== false) fs.mkdirSync(path.join(root, '.mem'), { recursive: true });
  if (opts.git) git(root, ['init', '-q']);
  return {
    root,
    home,
    write(rel, text) {
      const p = path.join(root, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
      return p;
    },
    read: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
    path: (rel) => path.join(root, rel),
  };
}

export function git(cwd: string, args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
  json<T = any>(): T;
}

export function mem(args: string[], opts: { cwd: string; home?: string; env?: Record<string, string | undefined>; input?: string; spawn?: SpawnSyncOptions }): RunResult {
  const [cmd, argv] = launch(args, launcherFor(opts.spawn));
  const r = spawnSync(cmd, argv, {
    cwd: opts.cwd,
    env: runEnv(opts),
    input: opts.input ?? '',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // A hang fails its test (status -1, the signal in stderr) instead of stalling the whole run.
    timeout: 180_000,
    killSignal: 'SIGKILL',
    ...opts.spawn,
  });
  return {
    status: r.status ?? -1,
    stdout: String(r.stdout ?? ''),
    stderr: String(r.stderr ?? '') + (r.signal ? `\n[killed by ${r.signal}${r.error ? `: ${r.error.message}` : ''}]` : ''),
    json() {
      return JSON.parse(String(r.stdout));
    },
  };
}

/** Like mem(), without blocking the event loop: for tests that serve HTTP to the CLI from this process. */
export function memAsync(args: string[], opts: { cwd: string; home?: string; env?: Record<string, string | undefined>; input?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = launch(args);
    const child = spawn(cmd, argv, { cwd: opts.cwd, env: runEnv(opts) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) }));
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * The ids of a memory file's entry headers, in file order, whichever form each header has (an
 * `id:` line under `---`, or a `<!-- mem {id: …} -->` line, the form new files get).
 */
export function headerIds(text: string): string[] {
  return [...text.matchAll(/^(?:id: *|<!-- mem \{id: )([^\s,}]+)/gm)].map((m) => m[1]);
}

/** The metadata of a memory file's entries, in file order, read by mem's parser (either header form). */
export function entryMetas(text: string, file = 'MEMORY.md'): Record<string, unknown>[] {
  return parseMemoryFile(text, file).entries.map((e) => e.meta);
}

/** A frontmatter entry as mem writes them. */
export function entry(id: string, body: string, meta: Record<string, string | number> = {}): string {
  const fields: Record<string, string | number> = { id, type: 'procedural', domain: 'team', importance: 0.5, status: 'active', reinforcement_count: 0, ...meta };
  const lines = Object.entries(fields).map(([k, v]) => `${k}: ${typeof v === 'string' && /^\d{4}-/.test(v) ? `'${v}'` : v}`);
  return `---\n${lines.join('\n')}\n---\n${body}\n\n`;
}

export function cleanup(): void {
  // A detached process a test started (hook extraction, background index after a git hook) may
  // still be writing: retry, then leave the temp folder rather than fail a test that passed.
  for (const d of made.splice(0)) {
    try {
      fs.rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // left in the temp folder
    }
  }
}

/**
 * Hold back every `mem CMD` started in the background with `env` (a hook's detached extraction,
 * the `mem index` a git hook starts): Node preloads a script that, in such a process (CMD among
 * its arguments, no --hook), leaves a marker and waits for release() before mem runs. A hook
 * that has returned while its child is held did not wait for the child's work, however loaded
 * the machine is. A process never released goes when the test's temp folders are removed.
 */
export function holdBackground(cmd: string): { env: Record<string, string>; held: () => number; release: () => void } {
  const dir = tempDir('mem-hold-');
  const script = path.join(dir, 'hold.cjs');
  fs.writeFileSync(script, `'use strict';
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
if (args.includes(${JSON.stringify(cmd)}) && !args.includes('--hook')) {
  fs.writeFileSync(path.join(__dirname, 'held-' + process.pid), '');
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(path.join(__dirname, 'release'))) {
    if (!fs.existsSync(__dirname)) process.exit(0);
    Atomics.wait(nap, 0, 0, 20);
  }
}
`);
  return {
    env: { NODE_OPTIONS: `--require ${JSON.stringify(script)}` },
    held: () => fs.readdirSync(dir).filter((n) => n.startsWith('held-')).length,
    release: () => fs.writeFileSync(path.join(dir, 'release'), ''),
  };
}

/** A FIFO at `p` (its folder made first), for the tests of what mem does with one where a file should be. */
export function mkfifo(p: string): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const r = spawnSync('mkfifo', [p]);
  if (r.status !== 0) throw new Error(`mkfifo ${p}: ${r.stderr}`);
}
