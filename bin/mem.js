#!/usr/bin/env node
// The `mem` command (package.json "bin"): runs the built CLI (dist/main.cjs, written by npm run
// build) in this process. A Node entry point, so npm installs it the same way everywhere Node 20+
// runs (a symlink on POSIX, a cmd/PowerShell shim on Windows). CommonJS (see bin/package.json):
// an ES module entry would start Node's module loader, about 5 ms of every command.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

/**
 * Load dist/main.cjs the way require() would, but with V8's code cache of it when the build made
 * one (dist/main.<build id>.cache): the functions a search runs are not parsed or compiled again
 * (measured: `mem search` 12 ms faster than a plain require of the same bundle). A cache from
 * another build is never used; one V8 rejects (another Node version) is ignored.
 */
function loadCli() {
  const file = path.join(__dirname, '..', 'dist', 'main.cjs');
  let source;
  try {
    // The build writes the bundle in ASCII only (esbuild charset 'ascii', checked by the build):
    // read as latin1, the same text without UTF-8 decoding (~1.5 ms less for 1.5 MB).
    source = fs.readFileSync(file, 'latin1');
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
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    writeCache();
  },
  (err) => {
    process.stderr.write(`mem: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
