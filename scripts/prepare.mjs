#!/usr/bin/env node
// `npm run prepare`: npm runs it after `npm install` / `npm ci` in a clone, before `npm pack` and
// `npm publish`, and in a clone it makes of a git URL it installs from. It builds dist/
// (scripts/build.mjs) with esbuild, a dev dependency, which npm leaves out of a folder install
// (`npm install -g <folder>` of a fresh clone): there, say so in one message and how to install
// instead, rather than fail on a missing module.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(repo, 'package.json'));

let esbuild = true;
try {
  require.resolve('esbuild');
} catch {
  esbuild = false;
}

if (esbuild) {
  await import('./build.mjs');
} else if (fs.existsSync(path.join(repo, 'dist', 'main.cjs'))) {
  // Built earlier (npm ci, then the dev dependencies pruned): the bundle there is what runs.
  process.stderr.write('mem: esbuild is not installed; keeping the dist/ built before\n');
} else {
  process.stderr.write(
    [
      'mem: cannot build dist/: esbuild (a dev dependency) is not installed here',
      'hint: npm install -g mem-vault                 (the published package, built already)',
      'hint: npm ci && npm install -g .               (from a clone: the dev dependencies first)',
      '',
    ].join('\n'),
  );
  process.exit(1);
}
