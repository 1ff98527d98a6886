#!/usr/bin/env node
// `npm run pack-check` (CI runs it): mem installed the ways a user installs it, each into a
// temporary global prefix, then used from another folder with only that prefix's bin/ on PATH:
//   1. the tarball `npm pack` makes (what `npm publish` uploads, so `npm install -g mem-vault`);
//   2. a fresh clone given to `npm install -g <folder>` (scripts/prepare.mjs installs and builds);
//   3. a git URL given to `npm install -g`, with npm 12 or later (npm 11 cannot install one
//      globally: see scripts/prepare.mjs), else reported as skipped.
// Each runs `mem --version`, `mem init`, `mem add` and `mem search`. better-sqlite3 compiles its
// addon from source where no prebuilt one can be downloaded (a minute or more each time): the addon
// `npm ci` built in this checkout is offered as a local prebuild (prebuild-install's documented
// `<package>_local_prebuilds` setting), used only when version, Node ABI and platform all match.
// `--compile` offers no prebuild (each install compiles). `--keep` keeps the temporary folder; it
// is also kept, and named, when a step fails.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const keep = process.argv.includes('--keep');
const compile = process.argv.includes('--compile');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-pack-check-'));
const windows = process.platform === 'win32';
const npmEnv = { ...process.env };
const timings = [];

class CheckError extends Error {}

function fail(message) {
  throw new CheckError(message);
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Runs a command; its output is returned, and shown only when it fails. */
function run(cmd, args, { cwd = tmp, env = npmEnv, what } = {}) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', shell: windows, maxBuffer: 64 * 1024 * 1024 });
  const ms = Date.now() - started;
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`);
    fail(`${what ?? [cmd, ...args].join(' ')} exited with ${r.status ?? r.signal ?? r.error?.message}`);
  }
  return { stdout: r.stdout, stderr: r.stderr, ms };
}

function npm(args, opts) {
  // Under `npm run`, the same npm that runs this script; else the one on PATH.
  const cli = process.env.npm_execpath;
  return cli && cli.endsWith('.js') ? run(process.execPath, [cli, ...args], { what: `npm ${args.join(' ')}`, ...opts }) : run('npm', args, opts);
}

function timed(label, ms) {
  timings.push([label, ms]);
  console.log(`  ${label}: ${seconds(ms)}`);
}

/** The addon this checkout's `npm ci` built, as the prebuild prebuild-install looks for. */
function offerLocalPrebuild() {
  let sqlite;
  try {
    sqlite = JSON.parse(fs.readFileSync(path.join(repo, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'));
  } catch {
    return;
  }
  const addon = path.join(repo, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  if (!fs.existsSync(addon)) return;
  // prebuild-install's file name: glibc Linux and other platforms have no libc part.
  const glibc = process.platform !== 'linux' || Boolean(process.report?.getReport?.().header?.glibcVersionRuntime);
  const name = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}${glibc ? '' : 'musl'}-${process.arch}.tar.gz`;
  const dir = path.join(tmp, 'prebuilds');
  fs.mkdirSync(dir);
  run('tar', ['-czf', path.join(dir, name), '-C', path.join(repo, 'node_modules', 'better-sqlite3'), 'build/Release/better_sqlite3.node']);
  npmEnv.npm_config_better_sqlite3_local_prebuilds = dir;
  console.log(`offering the better-sqlite3 addon npm ci built as ${name}`);
}

/** Install-script warnings about anything but mem-vault itself: the install command must allow them. */
function unallowedScripts(output) {
  const names = [...output.matchAll(/^npm warn install-scripts\s+((?:@[^/\s]+\/)?[^@\s]+)@\S+ \(/gm)].map((m) => m[1]);
  return names.filter((n) => n !== pkg.name);
}

/** The installed `mem`, from a folder outside the repository, with only the prefix's bin on PATH first. */
function smoke(prefix, label) {
  const bin = windows ? prefix : path.join(prefix, 'bin');
  const home = path.join(tmp, `home-${label}`);
  const work = path.join(tmp, `work-${label}`);
  fs.mkdirSync(home);
  fs.mkdirSync(work);
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: home, USERPROFILE: home, MEM_HOME: home };
  for (const key of Object.keys(env)) if (key.startsWith('MEM_') && key !== 'MEM_HOME') delete env[key];
  const mem = (...args) => run('mem', args, { cwd: work, env, what: `mem ${args.join(' ')} (${label})` }).stdout;
  const started = Date.now();
  const version = mem('--version').trim();
  if (version !== pkg.version) fail(`mem --version printed ${JSON.stringify(version)}, package.json says ${pkg.version} (${label})`);
  mem('init');
  for (const f of ['MEMORY.md', 'institutional.md', path.join('.mem', 'config.yaml')]) {
    if (!fs.existsSync(path.join(work, f))) fail(`mem init wrote no ${f} (${label})`);
  }
  const id = mem('add', 'Run the database migrations before the API tests', '--type', 'corrective').trim();
  const hits = JSON.parse(mem('search', 'api tests fail on a fresh database', '--json')).results;
  if (hits[0]?.id !== id) fail(`mem search did not find the entry mem add wrote (${label})`);
  timed(`mem --version, init, add, search (${label})`, Date.now() - started);
}

/**
 * `npm install -g` as the README says, into a prefix of its own. better-sqlite3 is the one
 * dependency whose install script must run (npm 12 runs no other); a local folder is allowed by
 * its path, which is how npm 12 names it (npm 11 runs every script and lists those not allowed).
 */
function installGlobal(spec, label, { allow = [], extra = [] } = {}) {
  const prefix = path.join(tmp, `global-${label}`);
  const allowed = ['better-sqlite3', ...allow].join(',');
  const r = npm(['install', '-g', '--prefix', prefix, `--allow-scripts=${allowed}`, '--no-audit', '--no-fund', ...extra, spec]);
  timed(`npm install -g (${label})`, r.ms);
  const unallowed = unallowedScripts(`${r.stdout}\n${r.stderr}`);
  if (unallowed.length) fail(`install scripts not allowed by --allow-scripts=${allowed}: ${unallowed.join(', ')} (the README's install command must allow them)`);
  return prefix;
}

let ok = false;
try {
  console.log(`pack-check in ${tmp}`);
  if (!compile) offerLocalPrebuild();

  // 1. The tarball.
  const packed = npm(['pack', '--json', '--pack-destination', tmp], { cwd: repo });
  timed('npm pack (builds dist/)', packed.ms);
  // npm 11 prints a list, npm 12 an object keyed by package name.
  const report = JSON.parse(packed.stdout);
  const info = Array.isArray(report) ? report[0] : report[pkg.name];
  const files = info.files.map((f) => f.path);
  const templates = fs.readdirSync(path.join(repo, 'templates')).map((f) => `templates/${f}`);
  const needed = ['package.json', 'README.md', 'LICENSE', pkg.bin.mem, 'bin/package.json', 'dist/main.cjs', 'dist/quick.cjs', 'dist/search.cjs', 'dist/context.cjs', 'dist/parse-worker.js', 'dist/scan-worker.js', 'dist/secrets-engine.cjs', ...templates];
  const missing = needed.filter((f) => !files.includes(f));
  if (missing.length) fail(`the tarball lacks ${missing.join(', ')}`);
  const stray = files.filter((f) => /^(src|test|scripts|bench|node_modules|\.ci)\//.test(f));
  if (stray.length) fail(`the tarball ships ${stray.slice(0, 5).join(', ')}`);
  console.log(`  ${info.filename}: ${(info.size / 1024).toFixed(0)} kB packed, ${(info.unpackedSize / 1024).toFixed(0)} kB unpacked, ${info.entryCount} files`);
  smoke(installGlobal(path.join(tmp, info.filename), 'tarball'), 'tarball');

  // 2 and 3 need this checkout's commit in git; what is not committed is not in a clone.
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' });
  if (head.status !== 0) {
    console.log('skipped the folder and git URL installs: not a git checkout');
  } else {
    const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
    if (dirty) console.log('note: uncommitted changes are not in the clone the next installs use');
    const clone = path.join(tmp, 'clone');
    run('git', ['clone', '--quiet', repo, clone]);
    run('git', ['checkout', '--quiet', head.stdout.trim()], { cwd: clone });

    // 2. A fresh clone as a folder: linked, so it is installed and built in place.
    smoke(installGlobal(clone, 'folder', { allow: [clone] }), 'folder');

    // 3. A git URL: npm clones the commit itself, so what the folder install added is not in it.
    const npmMajor = Number(npm(['--version']).stdout.trim().split('.')[0]);
    if (npmMajor >= 12) {
      const url = `git+file://${clone.split(path.sep).join('/')}#${head.stdout.trim()}`;
      smoke(installGlobal(url, 'git', { extra: ['--allow-git=root'] }), 'git');
    } else {
      // npm 11 installs a git URL given to `npm install -g` without its dependencies
      // (https://github.com/npm/cli/issues/8440; prepare.mjs says so and what works instead).
      // What works on npm 11 is running it from the git URL: `npx -p <git url> mem …` installs it
      // into npx's cache as a project of its own, dependencies included, and builds it there.
      console.log(`npm ${npmMajor}: npm install -g <git url> is npm's bug 8440; checking npx -p <git url> mem instead`);
      const url = `git+file://${clone.split(path.sep).join('/')}#${head.stdout.trim()}`;
      const prefix = path.join(tmp, 'npx-git');
      fs.mkdirSync(path.join(prefix, 'bin'), { recursive: true });
      const cache = path.join(tmp, 'npx-cache');
      const first = npm(['exec', '--yes', '--cache', cache, `--package=${url}`, '--', 'mem', '--version']);
      timed('npx -p <git url> mem --version (first run: clone, install, build)', first.ms);
      const unallowed = unallowedScripts(`${first.stdout}\n${first.stderr}`);
      if (unallowed.length) console.log(`  note: npx lists install scripts not yet allowed: ${unallowed.join(', ')}`);
      // The same command for the smoke test's four calls, answered from npx's cache.
      const q = (a) => `'${a.replace(/'/g, `'\\''`)}'`;
      const cli = process.env.npm_execpath;
      const npmCmd = cli && cli.endsWith('.js') ? `${q(process.execPath)} ${q(cli)}` : 'npm';
      const shim = path.join(prefix, 'bin', 'mem');
      fs.writeFileSync(shim, `#!/bin/sh\nexec ${npmCmd} exec --yes --cache ${q(cache)} --package=${q(url)} -- mem "$@"\n`);
      fs.chmodSync(shim, 0o755);
      if (!windows) smoke(prefix, 'npx-git');
    }
  }
  const total = timings.reduce((s, [, ms]) => s + ms, 0);
  console.log(`pack-check passed (${seconds(total)} in the steps above)`);
  ok = true;
} catch (err) {
  process.stderr.write(`pack-check: ${err instanceof CheckError ? err.message : err?.stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  if (ok && !keep) fs.rmSync(tmp, { recursive: true, force: true });
  else console.log(`kept ${tmp}`);
}
