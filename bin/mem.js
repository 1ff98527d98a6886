#!/usr/bin/env node
// Launcher: run the built CLI (npm run build writes dist/). CommonJS (see bin/package.json): an
// ES module entry would start Node's module loader, about 5 ms of every command.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const args = process.argv.slice(2);

// The shell launcher (bin/mem) starts offline commands without NODE_EXTRA_CA_CERTS, which costs
// Node ~75 ms to read at start-up, and keeps the value here; any process mem starts gets it back.
const movedCaCerts = process.env.MEM_NODE_EXTRA_CA_CERTS;
if (movedCaCerts !== undefined) {
  delete process.env.MEM_NODE_EXTRA_CA_CERTS;
  if (process.env.NODE_EXTRA_CA_CERTS === undefined) process.env.NODE_EXTRA_CA_CERTS = movedCaCerts;
}

/** The command word: the first argument that is neither an option nor the value of --root. */
function commandOf(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') i++;
    else if (!argv[i].startsWith('-')) return argv[i];
  }
  return undefined;
}

// Bulk commands (compaction, evaluation, consolidation) allocate many short-lived strings; a
// larger young generation saves them about a second per 100k entries (measured on `mem compact`).
// V8 takes the size only at start-up, so they run in a child process started with it, and with
// `gc` exposed, so that a command can collect one phase's garbage before the next (compaction).
// (A rebuild parses in a worker thread instead, where the flag only costs memory.)
const cmd = commandOf(args);
const bulk = cmd === 'compact' || cmd === 'eval' || cmd === 'consolidate';
if (bulk && !process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) {
  // Required here only: node:child_process costs ~5 ms of start-up that `mem search` never needs.
  const { spawnSync } = require('node:child_process');
  // The same offline command: it starts without the certificates too.
  const env = { ...process.env };
  if (movedCaCerts !== undefined && env.NODE_EXTRA_CA_CERTS === movedCaCerts) {
    delete env.NODE_EXTRA_CA_CERTS;
    env.MEM_NODE_EXTRA_CA_CERTS = movedCaCerts;
  }
  const r = spawnSync(process.execPath, [...process.execArgv, '--max-semi-space-size=64', '--expose-gc', __filename, ...args], { stdio: 'inherit', env });
  if (r.error) {
    process.stderr.write(`mem: cannot start: ${r.error.message}\n`);
    process.exit(1);
  }
  process.exit(r.status ?? 1);
}

/**
 * Load dist/main.cjs the way require() would, but with V8's code cache of it when the build made
 * one (dist/main.<build id>.cache): the functions a search runs are not parsed or compiled again.
 * A cache from another build is never used; one V8 rejects (another Node version) is ignored.
 */
function loadCli() {
  const file = path.join(__dirname, '..', 'dist', 'main.cjs');
  let source;
  try {
    // The bundle is ASCII (esbuild escapes the rest): decoding it as latin1 gives the same string
    // without UTF-8 decoding (up to a millisecond of every command here).
    const bytes = fs.readFileSync(file);
    source = require('node:buffer').isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
  } catch {
    process.stderr.write('mem: dist/main.cjs is missing\nhint: run npm run build (npm ci does it too)\n');
    process.exit(1);
  }
  const id = /^\/\/ mem build ([0-9a-f]+)/.exec(source)?.[1];
  const cacheFile = id ? path.join(path.dirname(file), `main.${id}.cache`) : null;
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
  return { main: mod.exports.main, writeCache };
}

const { main, writeCache } = loadCli();
main(args).then(
  (code) => {
    process.exitCode = code;
    writeCache();
  },
  (err) => {
    process.stderr.write(`mem: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
