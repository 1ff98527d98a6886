#!/usr/bin/env node
// The `mem` command (package.json "bin"): runs the built CLI (dist/main.cjs, or the smaller bundle
// of the command asked for; written by npm run build) in this process. A Node entry point, so npm
// installs it the same way everywhere Node 20+ runs (a symlink on POSIX, a cmd/PowerShell shim on
// Windows). CommonJS (see bin/package.json): an ES module entry would start Node's module loader,
// about 5 ms of every command.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

/**
 * Load dist/<name> the way require() would, but with V8's code cache of it when the build made
 * one (dist/<name without .cjs>.<build id>.cache): the functions a command runs are not parsed or
 * compiled again (measured: `mem search` 12 ms faster than a plain require of the same bundle). A
 * cache from another build is never used; one V8 rejects (another Node version) is ignored.
 */
function loadBundle(name) {
  const file = path.join(__dirname, '..', 'dist', name);
  let source;
  try {
    // The build writes its bundles in ASCII only (esbuild charset 'ascii', checked by the build):
    // read as latin1, the same text without UTF-8 decoding (~1.5 ms less for 1.5 MB).
    source = fs.readFileSync(file, 'latin1');
  } catch {
    process.stderr.write(`mem: dist/${name} is missing\nhint: run npm run build (npm ci does it too)\n`);
    process.exit(1);
  }
  const id = /^\/\/ mem build ([0-9a-f]+)/.exec(source)?.[1];
  const cacheFile = id ? path.join(path.dirname(file), `${path.basename(name, '.cjs')}.${id}.cache`) : null;
  let cachedData;
  if (cacheFile && !process.env.MEM_WRITE_CODE_CACHE) {
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const mod = new Module(file, module);
  mod.filename = file;
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  mod.loaded = true;
  const writeCache = () => {
    if (!process.env.MEM_WRITE_CODE_CACHE || !cacheFile) return;
    const tmp = `${cacheFile}.${process.pid}`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
  };
  return { exports: mod.exports, writeCache };
}

/**
 * The command word: the first argument that is neither an option nor the value of --root. The
 * same rule as commandWord in src/cli/program.ts, written again here because this file must pick
 * a bundle before loading any (test/process/launcher.test.ts checks the routing).
 */
function commandWord(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') i++;
    else if (argv[i] === '--') return undefined;
    else if (!argv[i].startsWith('-')) return argv[i];
  }
  return undefined;
}

function fail(err) {
  process.stderr.write(`mem: ${err?.message ?? err}\n`);
  process.exitCode = 1;
}

function finish(code, bundle) {
  process.exitCode = code;
  bundle.writeCache();
}

/**
 * The CLI for the command word: the hot commands have a bundle of their own (the same program
 * with that one command; src/cli/one/), everything else the whole CLI.
 */
const ONE_COMMAND = { search: 'search.cjs', context: 'context.cjs' };

function runCli(argv, word) {
  const cli = loadBundle(Object.hasOwn(ONE_COMMAND, word) ? ONE_COMMAND[word] : 'main.cjs');
  cli.exports.main(argv).then((code) => finish(code, cli), fail);
}

const argv = process.argv.slice(2);
const word = commandWord(argv);
// A bare `mem --version` (an install check, a plugin's probe) needs no CLI: the package's own
// version, which the CLI's (src/cli/version.ts) equals (test/unit/version.test.ts).
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${require('../package.json').version}\n`);
// `mem index` (git hooks, the agent hooks' background refresh) starts on the short path, which
// hands anything but a plain run (other options, --help) back to the whole CLI.
} else if (word === 'index') {
  const short = loadBundle('quick.cjs');
  short.exports.quick(argv).then((code) => (code === undefined ? runCli(argv, word) : finish(code, short)), fail);
} else runCli(argv, word);
