#!/usr/bin/env node
// `npm run build`: the CLI as one CommonJS file (dist/main.cjs), the short start path of a plain
// `mem index` (dist/quick.cjs), the CLI with `mem search` or `mem context` alone (dist/search.cjs,
// dist/context.cjs), the index's and the compaction's worker threads (dist/parse-worker.js,
// dist/scan-worker.js), then a V8 code cache for each CLI bundle, made by running the command it
// serves on a small vault.
//
// Why this shape: start-up is most of what `mem search` costs. One CommonJS file loads without the
// ES module loader's per-module work (20-odd chunks before), modules are still evaluated only
// when first used (esbuild's lazy wrappers), and bin/mem.js compiles the file with the cached
// bytecode of every function a search runs, so V8 neither parses nor compiles them again.
// Measured on the 100k-entry bench vault: 248 → 196 ms median for `mem search` end to end.

import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(repo, 'dist');
fs.rmSync(dist, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  // commander loads node:child_process for features mem never uses; a lazy stand-in instead.
  alias: { 'node:child_process': path.join(repo, 'src/child-process.ts') },
  // The LLM SDKs load only when a provider is used; better-sqlite3's `bindings` only as a fallback.
  // The MCP SDK (with zod), chokidar and smol-toml serve `mem mcp`, `mem watch` and the Codex
  // hook installer only, ts-fsrs the fsrs ranking and reviews: kept out of the bundle so a plain
  // `mem search` does not parse them at start-up.
  external: ['@anthropic-ai/sdk', 'openai', 'bindings', '@modelcontextprotocol/sdk', 'zod', 'chokidar', 'smol-toml', 'ts-fsrs'],
};

// A build id ties the code cache to this exact bundle (V8 itself only checks the source length).
const buildId = crypto.randomBytes(6).toString('hex');
// secretlint (ESM-only packages, ~0.7 MB bundled) serves only the commands that write: it gets its
// own CommonJS file, which the CLI's bundle requires on first use. Inside main.cjs it cost every
// `mem search` ~30 ms of parsing.
const ENGINE = 'secrets-engine.cjs';
const engineOutside = {
  name: 'secrets-engine-outside',
  setup(b) {
    b.onResolve({ filter: /^\.\/engine\.js$/ }, (args) => (args.importer.endsWith(path.join('src', 'secrets', 'redact.ts')) ? { path: `./${ENGINE}`, external: true } : undefined));
  },
};
await build({
  ...common,
  entryPoints: [path.join(repo, 'src/secrets/engine.ts')],
  outfile: path.join(dist, ENGINE),
  format: 'cjs',
  // Half the bytes to read and parse: loading it and the first scan, ~40 → ~32 ms.
  minify: true,
});
// The whole CLI (main.cjs); the short start path of a plain `mem index` (quick.cjs: the same
// command without commander and the other commands, ~1/7 of the code to load; see src/cli/quick.ts);
// and the CLI with one hot command alone: `mem search`, and `mem context`, which the agents' hooks
// run before every prompt (src/cli/one/). bin/mem.js picks the file by the command word.
const CLI_BUNDLES = {
  'main.cjs': 'src/cli/main.ts',
  'quick.cjs': 'src/cli/quick.ts',
  'search.cjs': 'src/cli/one/search.ts',
  'context.cjs': 'src/cli/one/context.ts',
};
for (const [out, entry] of Object.entries(CLI_BUNDLES)) {
  await build({
    ...common,
    // The quick path never shows a spinner (it hands a terminal to main.cjs): no ora (~120 KB).
    external: out === 'quick.cjs' ? [...common.external, 'ora'] : common.external,
    plugins: [engineOutside],
    entryPoints: [path.join(repo, entry)],
    outfile: path.join(dist, out),
    format: 'cjs',
    // import() of bundled modules becomes a lazy require; import.meta.url comes from __filename.
    supported: { 'dynamic-import': false },
    define: { 'import.meta.url': '__import_meta_url' },
    // bin/mem.js reads the bundle as latin1 (no UTF-8 decoding): non-ASCII text is escaped.
    charset: 'ascii',
    // 'use strict' first: after the banner's statement, esbuild's own directive would not count.
    banner: {
      js: `// mem build ${buildId}\n'use strict';\nconst __import_meta_url = require('node:url').pathToFileURL(__filename).href;\n`
        + 'var __toESMNode = ((seen) => (mod) => seen.get(mod) ?? seen.set(mod, __toESM(mod)).get(mod))(new Map());',
    },
  });
}
for (const [entry, out] of [['src/index/parse-worker.ts', 'parse-worker.js'], ['src/lifecycle/scan-worker.ts', 'scan-worker.js']]) {
  await build({
    ...common,
    entryPoints: [path.join(repo, entry)],
    outfile: path.join(dist, out),
    format: 'esm',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
}

// esbuild gives every module that imports a Node builtin by default (import fs from 'node:fs') a
// copy of it made by __toESM, which defines a getter per export: node:fs 17 times and node:path 12
// times in search.cjs, ~1.3 ms of every search. One copy per builtin serves them all the same
// (the copies only read through to the module).
// (__toESMNode is defined in the banner.)
for (const out of Object.keys(CLI_BUNDLES)) {
  const file = path.join(dist, out);
  const text = fs.readFileSync(file, 'utf8');
  if (!/^var __toESM = /m.test(text)) throw new Error(`dist/${out}: esbuild's __toESM helper not found`);
  fs.writeFileSync(file, text.replaceAll('__toESM(require("node:', '__toESMNode(require("node:'));
}

// bin/mem.js reads its bundles as latin1, which is the same text only while every byte is ASCII.
for (const out of Object.keys(CLI_BUNDLES)) {
  if (fs.readFileSync(path.join(dist, out)).some((b) => b > 0x7f)) throw new Error(`dist/${out} is not ASCII: bin/mem.js reads it as latin1`);
}

// The code caches: on a throwaway vault run a `mem list` (the whole CLI; it builds the index
// first), a `mem index` that finds nothing changed (the quick path), a search and a prompt's hook,
// and let bin/mem.js write the cache of everything compiled by then in the bundle it loaded
// (MEM_WRITE_CODE_CACHE).
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-build-'));
try {
  const root = path.join(tmp, 'vault');
  fs.mkdirSync(path.join(root, '.mem'), { recursive: true });
  fs.writeFileSync(path.join(root, '.mem', 'config.yaml'), 'include: []\nsearch:\n  limit: 10\n');
  const entry = (id, body) => `---\nid: ${id}\ntype: procedural\nimportance: 0.6\ncreated_at: '2026-01-05'\n---\n${body}\n\n`;
  fs.writeFileSync(path.join(root, 'MEMORY.md'), `# Memory\n\n${entry('a1', '## Migrations\nRun migrations before the API tests.')}${entry('a2', 'Deploys need the VPN.')}`);
  const env = { ...process.env, MEM_ROOT: root, MEM_HOME: tmp, MEM_WRITE_CODE_CACHE: '1' };
  delete env.MEM_SESSION;
  const prompt = JSON.stringify({ session_id: 'build', hook_event_name: 'UserPromptSubmit', prompt: 'fix the api tests after the migrations', cwd: root });
  // The whole CLI first: its listing builds the index, so the code that reads and indexes files
  // (which every command may need) is in its cache.
  const warmUps = [
    ['main', ['list', '--limit', '5', '--json']],
    ['quick', ['index', '--json']],
    ['search', ['search', 'api tests migrations on 5 January 2026', '--json']],
    ['context', ['context', '--hook', 'claude'], prompt],
  ];
  for (const [bundle, args, input] of warmUps) {
    const r = spawnSync(process.execPath, [path.join(repo, 'bin', 'mem.js'), ...args], { env, encoding: 'utf8', input: input ?? '' });
    if (r.status !== 0) throw new Error(`warm-up ${args[0]} failed: ${r.stderr}`);
    if (!fs.existsSync(path.join(dist, `${bundle}.${buildId}.cache`))) throw new Error(`the code cache of ${bundle}.cjs was not written`);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
