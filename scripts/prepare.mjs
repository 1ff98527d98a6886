#!/usr/bin/env node
// `npm run prepare`: npm runs it after `npm install` / `npm ci` in a clone, before `npm pack` and
// `npm publish`, and when mem is installed globally from a folder or a git URL. It builds dist/
// (scripts/build.mjs) with esbuild, a dev dependency.
//
// A global install from a folder (`npm install -g ./mem`) links the folder and runs this without
// installing any of its dependencies: this installs the ones the lockfile names into that folder
// first (what `npm ci` does in a clone; the linked command needs them too), then builds.
// A git URL: npm clones it into its cache, installs the dependencies, dev ones included, and runs
// this there. npm 11 does that install in global mode when the git URL was given to
// `npm install -g`, into the global folder, so it fails (https://github.com/npm/cli/issues/8440,
// fixed in npm 12): nothing done here can repair that install, so it says what works instead.
// Anywhere else a missing esbuild is one message.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;

function esbuildInstalled() {
  try {
    createRequire(path.join(repo, 'package.json')).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

function fail(lines) {
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(1);
}

/**
 * `npm ci` (or `npm install` without a lockfile) in this folder, as a project of its own: the
 * global install's settings npm passed down (global, its prefix, its allow-scripts list) are
 * left out, so the dependencies land in ./node_modules and this package.json's allowScripts
 * applies. That npm runs this script again, which then finds esbuild and builds.
 */
function installDependencies() {
  const child = { ...env, MEM_PREPARE_DEPENDENCIES: '1' };
  for (const key of Object.keys(child)) {
    if (/^npm_config_(global|global_prefix|prefix|local_prefix|allow_scripts|force)$/i.test(key)) delete child[key];
  }
  const lock = fs.existsSync(path.join(repo, 'package-lock.json'));
  process.stderr.write(`mem: installing the dependencies to build with (${lock ? 'npm ci' : 'npm install'} in ${repo})\n`);
  const r = spawnSync(process.execPath, [env.npm_execpath, lock ? 'ci' : 'install', '--include=dev', '--no-audit', '--no-fund'], {
    cwd: repo,
    env: child,
    stdio: ['ignore', 2, 2],
  });
  return r.status === 0 && fs.existsSync(path.join(repo, 'dist', 'main.cjs'));
}

const global = env.npm_config_global === 'true' && env.npm_command === 'install';
// npm's own clone of a git URL sits in its cache folder; nobody keeps a checkout there.
const npmClone = Boolean(env.npm_config_cache) && !path.relative(path.resolve(env.npm_config_cache), repo).startsWith('..');

if (esbuildInstalled()) {
  await import('./build.mjs');
} else if (global && npmClone) {
  fail([
    `mem: npm ${env.npm_config_npm_version ?? ''} installs a git URL given to npm install -g without its dependencies, so it cannot be built (https://github.com/npm/cli/issues/8440)`,
    'hint: npm install -g mem-vault --allow-scripts=better-sqlite3   (the published package, built already)',
    'hint: npm 11: npx -p <git url> mem …   (runs it from the git URL: installed and built in npx\'s cache)',
    'hint: npm 12: npm install -g --allow-git=root --allow-scripts=better-sqlite3 <git url>',
    'hint: or clone it, then npm install -g ./<clone>',
  ]);
} else if (global && env.npm_execpath && !env.MEM_PREPARE_DEPENDENCIES) {
  if (!installDependencies()) fail(['mem: could not install the dependencies to build dist/ (see above)', 'hint: npm install -g mem-vault --allow-scripts=better-sqlite3   (the published package, built already)']);
} else if (fs.existsSync(path.join(repo, 'dist', 'main.cjs'))) {
  // Built before (npm ci), the dev dependencies pruned since: that bundle is what runs.
  process.stderr.write('mem: esbuild is not installed; keeping the dist/ built before\n');
} else {
  fail([
    'mem: cannot build dist/: esbuild (a dev dependency) is not installed here',
    'hint: npm install -g mem-vault --allow-scripts=better-sqlite3   (the published package, built already)',
    'hint: npm ci                     (in a clone: installs the dev dependencies, then builds)',
  ]);
}
