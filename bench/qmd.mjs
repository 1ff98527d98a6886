#!/usr/bin/env node
// `npm run bench:qmd`: mem's keyword search against qmd's (`qmd search`, its BM25 mode: no
// embeddings, no LLM) on the same markdown, side by side: the English pages of tldr-pages
// (https://github.com/tldr-pages/tldr, CC BY 4.0), one note per command.
//
// Steps, all in a temporary folder that is removed at the end (nothing is saved to package.json):
// 1. the pages: --pages DIR (a tldr-pages checkout, or its pages/ folder), else a shallow
//    `git clone` of the repository. No npm package ships the pages: the npm client `tldr`
//    downloads them on first use.
// 2. qmd (npm package @tobilu/qmd, --qmd-version, default 2.8.3) with `npm install --no-save` into
//    a temporary prefix. qmd needs Node 22 or later: when this Node is older, the npm package
//    node-<platform>-<arch> (Node's own binaries, --qmd-node-version, default 22) is installed
//    beside it and runs qmd; its headers let better-sqlite3 build from source if it must.
// 3. both index the same files: `mem index` on a vault whose config includes pages/**/*.md, and
//    `qmd collection add` with its cache and config folders under the temporary HOME.
// 4. the same queries through each, alternating which goes first, each round paired with a bare
//    `node -e 0`; medians of wall time, process start included, as users run them (`node
//    bin/mem.js`; qmd both through its `qmd` launcher, which starts a second Node process for
//    dist/cli/qmd.js, and as `node dist/cli/qmd.js` directly). The ratio is taken against the
//    direct run, the stricter of the two. mem also runs with --no-refresh: `mem search` stats every
//    file first so that its index is never stale, which `qmd search` does not do. NODE_EXTRA_CA_CERTS is unset for all of them.
// 5. then, with `mem watch` running on mem's vault (Linux): searches ask it whether the index is
//    fresh instead of stat-ing every file. The same queries, mem and qmd alternating again.
//
// Usage: node bench/qmd.mjs [--pages DIR] [--rounds 3] [--qmd-version 2.8.3]
//   [--qmd-node-version 22] [--bin PATH (another build of mem's bin/mem.js)] [--json] [--keep]
//   [--qmd-prefix DIR (a prefix where @tobilu/qmd is installed already: no install)]
//   [--qmd-node PATH (the Node 22+ that runs it)]

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { whileWatched } from './watcher.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const ROUNDS = Number(opt('rounds', 3));
const QMD_VERSION = opt('qmd-version', '2.8.3');
const QMD_NODE = opt('qmd-node-version', '22');
const memBin = path.resolve(opt('bin', path.join(repo, 'bin', 'mem.js')));
const asJson = argv.includes('--json');

// Command-ish questions, as someone who forgot a command would type them.
const QUERIES = ['extract tar archive', 'list open ports', 'find files by name', 'kill process by name', 'show disk usage',
  'compress directory zip', 'change file permissions', 'git undo last commit', 'docker remove all containers', 'search text in files recursively',
  'download file from url', 'create ssh key', 'show network interfaces', 'mount usb drive', 'convert video to gif',
  'replace string in file', 'count lines in file', 'schedule cron job', 'check dns records', 'resize image'];

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-bench-qmd-'));
// Installs run with the environment as it is (a proxy's certificates in NODE_EXTRA_CA_CERTS
// included: npm needs them to reach the registry); the timed runs without that variable.
const installEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const env = { ...installEnv };
delete env.NODE_EXTRA_CA_CERTS;
delete env.MEM_SESSION;
const log = (s) => process.stderr.write(`${s}\n`);

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts, env: opts.env ?? env });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal ?? r.error?.message}):\n${(r.stderr || r.stdout || '').slice(-2000)}`);
  return r.stdout;
}

/** The English pages folder (pages/, not pages.<lang>/) of --pages or of a fresh clone. */
function englishPages() {
  let dir = opt('pages', null);
  if (!dir) {
    dir = path.join(base, 'tldr');
    log('cloning tldr-pages (--pages DIR uses a checkout you have)…');
    sh('git', ['clone', '--quiet', '--depth', '1', 'https://github.com/tldr-pages/tldr', dir]);
  }
  dir = path.resolve(dir);
  return path.basename(dir) === 'pages' ? dir : path.join(dir, 'pages');
}

/** The node that runs qmd: this one when new enough, else Node's binaries from their npm package. */
function qmdNode() {
  if (opt('qmd-node', null)) return { bin: path.resolve(opt('qmd-node')), dir: null };
  if (Number(process.versions.node.split('.')[0]) >= 22) return { bin: process.execPath, dir: null };
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = path.join(base, 'node');
  log(`qmd needs Node >= 22 (this is ${process.version}): installing ${pkg}@${QMD_NODE} into a temporary prefix…`);
  sh('npm', ['install', '--no-save', '--no-package-lock', '--prefix', prefix, `${pkg}@${QMD_NODE}`], { env: installEnv });
  const dir = path.join(prefix, 'node_modules', pkg);
  return { bin: path.join(dir, 'bin', process.platform === 'win32' ? 'node.exe' : 'node'), dir };
}

function installQmd(node) {
  const qenv = { ...installEnv, PATH: `${path.dirname(node.bin)}${path.delimiter}${env.PATH}`, ...(node.dir ? { npm_config_nodedir: node.dir } : {}) };
  let prefix = opt('qmd-prefix', null);
  if (prefix) prefix = path.resolve(prefix);
  else {
    prefix = path.join(base, 'qmd');
    log(`installing @tobilu/qmd@${QMD_VERSION} into a temporary prefix…`);
    sh('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', prefix, `@tobilu/qmd@${QMD_VERSION}`], { env: qenv, stdio: ['ignore', 'pipe', 'pipe'] });
  }
  const launcher = path.join(prefix, 'node_modules', '@tobilu', 'qmd', 'bin', 'qmd');
  const home = path.join(base, 'qmd-home');
  fs.mkdirSync(home);
  // qmd keeps its index under XDG_CACHE_HOME and its collections under XDG_CONFIG_HOME.
  const entry = path.join(prefix, 'node_modules', '@tobilu', 'qmd', 'dist', 'cli', 'qmd.js');
  const runEnv = { ...qenv };
  delete runEnv.NODE_EXTRA_CA_CERTS;
  return { launcher, entry, env: { ...runEnv, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), XDG_CONFIG_HOME: path.join(home, '.config') }, node: node.bin };
}

function time(cmd, args, opts) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed (${r.status}): ${String(r.stderr).slice(-1000)}`);
  return { ms, out: String(r.stdout) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  const pages = englishPages();
  const files = fs.readdirSync(pages, { recursive: true }).filter((f) => String(f).endsWith('.md'));
  log(`${files.length} English pages in ${pages}`);

  // mem: a vault holding a copy of the pages.
  const vault = path.join(base, 'mem');
  fs.mkdirSync(path.join(vault, '.mem'), { recursive: true });
  fs.writeFileSync(path.join(vault, '.mem', 'config.yaml'), 'include:\n  - pages/**/*.md\n');
  fs.cpSync(pages, path.join(vault, 'pages'), { recursive: true, filter: (src) => !path.basename(src).startsWith('.') });
  const memHome = path.join(base, 'mem-home');
  fs.mkdirSync(memHome);
  const memEnv = { ...env, MEM_HOME: memHome, MEM_ROOT: vault };
  const memIndex = time(process.execPath, [memBin, 'index', '--quiet'], { env: memEnv }).ms;

  // qmd: a collection of the same copy.
  let qmd;
  try {
    qmd = installQmd(qmdNode());
  } catch (err) {
    throw new Error(`qmd could not be installed here: ${err.message}`);
  }
  const qmdIndex = time(qmd.node, [qmd.launcher, 'collection', 'add', path.join(vault, 'pages'), '--name', 'tldr'], { env: qmd.env }).ms;

  const rows = { node: [], mem: [], memNoRefresh: [], qmd: [], qmdLauncher: [] };
  const agree = [];
  for (let round = 0; round < ROUNDS; round++) {
    QUERIES.forEach((q, i) => {
      rows.node.push(time(process.execPath, ['-e', '0'], { env }).ms);
      const runMem = () => time(process.execPath, [memBin, 'search', q, '--json', '--limit', '10'], { env: memEnv });
      const runQmd = () => time(qmd.node, [qmd.entry, 'search', q, '--json', '-n', '10'], { env: qmd.env });
      const memFirst = (round + i) % 2 === 0;
      const a = memFirst ? runMem() : runQmd();
      const b = memFirst ? runQmd() : runMem();
      const [m, d] = memFirst ? [a, b] : [b, a];
      rows.mem.push(m.ms);
      rows.qmd.push(d.ms);
      // Without the freshness check (a stat of every file), as qmd searches: its index is brought up
      // to date by `qmd update` only.
      rows.memNoRefresh.push(time(process.execPath, [memBin, 'search', q, '--json', '--limit', '10', '--no-refresh'], { env: memEnv }).ms);
      rows.qmdLauncher.push(time(qmd.node, [qmd.launcher, 'search', q, '--json', '-n', '10'], { env: qmd.env }).ms);
      if (round === 0) {
        // Whether both put the same page first (a sanity check that both searched the same pages).
        const memTop = JSON.parse(m.out).results[0]?.path?.replace(/^pages\//, '') ?? null;
        const qmdTop = (JSON.parse(d.out)[0]?.file ?? '').replace(/^qmd:\/\/tldr\//, '') || null;
        agree.push(memTop !== null && memTop === qmdTop);
      }
    });
  }
  // With `mem watch` running: its start line, then a few seconds so that what was just indexed is
  // no longer racy (see mem watch --help), and the same queries again beside qmd.
  const watched = { mem: [], qmd: [], node: [] };
  // (No such row for a build whose watch does not answer reads, or off Linux.)
  await whileWatched(memBin, memEnv, () => {
    for (let round = 0; round < ROUNDS; round++) {
      QUERIES.forEach((q, i) => {
        watched.node.push(time(process.execPath, ['-e', '0'], { env }).ms);
        const runMem = () => time(process.execPath, [memBin, 'search', q, '--json', '--limit', '10'], { env: memEnv }).ms;
        const runQmd = () => time(qmd.node, [qmd.entry, 'search', q, '--json', '-n', '10'], { env: qmd.env }).ms;
        if ((round + i) % 2 === 0) {
          watched.mem.push(runMem());
          watched.qmd.push(runQmd());
        } else {
          watched.qmd.push(runQmd());
          watched.mem.push(runMem());
        }
      });
    }
  });
  const med = { node: median(rows.node), mem: median(rows.mem), memNoRefresh: median(rows.memNoRefresh), qmd: median(rows.qmd), qmdLauncher: median(rows.qmdLauncher) };
  const withWatch = watched.mem.length > 0 ? { mem: median(watched.mem), qmd: median(watched.qmd), node: median(watched.node) } : null;
  const result = {
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.versions.node} (qmd on ${sh(qmd.node, ['-v']).trim()})`,
    pages: files.length,
    queries: QUERIES.length,
    rounds: ROUNDS,
    index_ms: { mem: Math.round(memIndex), qmd: Math.round(qmdIndex) },
    search_median_ms: { mem: +med.mem.toFixed(1), mem_no_refresh: +med.memNoRefresh.toFixed(1), qmd: +med.qmd.toFixed(1), qmd_launcher: +med.qmdLauncher.toFixed(1), node_e_0: +med.node.toFixed(1) },
    ratio: +(med.mem / med.qmd).toFixed(3),
    ratio_launcher: +(med.mem / med.qmdLauncher).toFixed(3),
    ratio_no_refresh: +(med.memNoRefresh / med.qmd).toFixed(3),
    ratio_over_node: +((med.mem - med.node) / (med.qmd - med.node)).toFixed(3),
    ...(withWatch ? {
      with_mem_watch_median_ms: { mem: +withWatch.mem.toFixed(1), qmd: +withWatch.qmd.toFixed(1), node_e_0: +withWatch.node.toFixed(1) },
      ratio_with_mem_watch: +(withWatch.mem / withWatch.qmd).toFixed(3),
    } : {}),
    same_top_page: `${agree.filter(Boolean).length}/${agree.length}`,
  };
  if (asJson) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`${result.machine}; ${result.pages} pages, ${result.queries} queries × ${result.rounds} rounds, alternating\n`);
    console.log('| | mem | qmd search | mem / qmd |');
    console.log('| --- | ---: | ---: | ---: |');
    console.log(`| index from scratch | ${result.index_ms.mem} ms | ${result.index_ms.qmd} ms | ${(memIndex / qmdIndex).toFixed(2)} |`);
    console.log(`| keyword search, median (qmd: node dist/cli/qmd.js) | ${med.mem.toFixed(1)} ms | ${med.qmd.toFixed(1)} ms | ${result.ratio} |`);
    console.log(`| keyword search, median (qmd: its qmd launcher) | ${med.mem.toFixed(1)} ms | ${med.qmdLauncher.toFixed(1)} ms | ${result.ratio_launcher} |`);
    console.log(`| \`mem search --no-refresh\` (no freshness check, as qmd) vs node dist/cli/qmd.js | ${med.memNoRefresh.toFixed(1)} ms | ${med.qmd.toFixed(1)} ms | ${result.ratio_no_refresh} |`);
    console.log(`| the same over a bare \`node -e 0\` (${med.node.toFixed(1)} ms) | ${(med.mem - med.node).toFixed(1)} ms | ${(med.qmd - med.node).toFixed(1)} ms | ${result.ratio_over_node} |`);
    if (withWatch) console.log(`| keyword search with \`mem watch\` running (it answers the freshness check), median; node -e 0 ${withWatch.node.toFixed(1)} ms | ${withWatch.mem.toFixed(1)} ms | ${withWatch.qmd.toFixed(1)} ms | ${result.ratio_with_mem_watch} |`);
    console.log(`\nsame first page: ${result.same_top_page} queries`);
  }
} finally {
  if (argv.includes('--keep')) log(`kept ${base}`);
  else fs.rmSync(base, { recursive: true, force: true });
}
