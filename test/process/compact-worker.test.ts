// `mem compact` on a vault big enough that a worker thread shares its first pass (the built
// dist/scan-worker.js): the same files and report as the compaction that reads every file on one
// thread (in this process, from source, where the worker's script does not exist), the same error
// for a malformed file, and the same result when the worker fails.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the benchmarks, without types
import { generateVault } from '../../bench/generate.mjs';
import { SCAN_WORKER } from '../../src/lifecycle/compact-scan.js';
import { OFFLOAD_MIN } from '../../src/vault/edit.js';
import { REPO, cleanup, entry, mem, packageCopy, runEnv, tempDir, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterAll(cleanup);

/** Every file under `root` (mem's index and logs aside), with its bytes. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, d.name);
      const rel = path.relative(root, abs);
      if (rel.startsWith('.memory.db') || rel.startsWith(path.join('.mem', 'logs'))) continue;
      if (d.isDirectory()) walk(abs);
      else out.set(rel, fs.readFileSync(abs, 'latin1'));
    }
  };
  walk(root);
  return out;
}

function sizeOf(root: string): number {
  return [...snapshot(root).values()].reduce((n, t) => n + t.length, 0);
}

/** A generated vault of ~35 MB (above OFFLOAD_MIN) and a copy of it. */
function bigVaults(): { a: string; b: string; home: string } {
  const v = tempVault();
  generateVault(v.root, { entries: 60_000, files: 30, seed: 7 });
  const b = path.join(tempDir(), 'copy');
  fs.cpSync(v.root, b, { recursive: true });
  return { a: v.root, b, home: v.home };
}

describe('compaction with a worker thread', () => {
  it('gives the same files and report as on one thread', async () => {
    const { a, b, home } = bigVaults();
    expect(sizeOf(a)).toBeGreaterThan(OFFLOAD_MIN);
    // From source there is no worker script: this run reads every file on one thread.
    expect(fs.existsSync(SCAN_WORKER)).toBe(false);
    const one = await run(['compact', '--json'], { cwd: a, home });
    const shared = mem(['compact', '--json'], { cwd: b, home });
    expect(one.stderr).toBe('');
    expect(shared.stderr).toBe('');
    expect(shared.status).toBe(0);
    const report = shared.json();
    expect(report).toEqual(one.json());
    expect(report.merges.length + report.duplicates.length).toBeGreaterThan(100);
    expect(report.written.length).toBeGreaterThan(5);
    expect(snapshot(b)).toEqual(snapshot(a));
    // And the index it left answers as the other one does.
    const q = ['search', 'staging deploy vpn', '--json', '--limit', '5'];
    expect(mem(q, { cwd: b, home }).json()).toEqual((await run(q, { cwd: a, home })).json());
  });

  it('reports the same malformed file, whichever thread read it, and writes nothing', async () => {
    const { a, b, home } = bigVaults();
    // Every third file broken, so that both threads meet some: the first in path order is the one reported.
    const files = [...snapshot(a).keys()].filter((f) => f.endsWith('.md')).sort();
    for (const f of files.filter((_, k) => k % 3 === 1)) {
      for (const root of [a, b]) fs.appendFileSync(path.join(root, f), '---\nid: broken-1\ntype: [oops\n---\n## Broken\n\nA header that does not parse.\n\n');
    }
    const before = snapshot(b);
    const one = await run(['compact'], { cwd: a, home });
    const shared = mem(['compact'], { cwd: b, home });
    expect(shared.status).toBe(1);
    expect(shared.status).toBe(one.status);
    expect(shared.stderr).toBe(one.stderr);
    expect(shared.stderr).toMatch(/^mem: malformed YAML in entry header: .*; fix it before mem rewrites this file \(/);
    expect(shared.stderr).toContain(`(${files[1]}:`);
    expect(snapshot(b)).toEqual(before);
  });

  it('a worker that fails leaves its files to the main thread: the same result, and a warning', async () => {
    // A copy of the package whose worker script throws as it loads.
    const pkg = packageCopy();
    fs.writeFileSync(path.join(pkg, 'dist', 'scan-worker.js'), "throw new Error('broken on purpose');\n");
    const compact = (cwd: string, home: string) => spawnSync(process.execPath, [path.join(pkg, 'bin', 'mem.js'), 'compact', '--json'], { cwd, env: runEnv({ cwd, home }), encoding: 'utf8' });

    const { a, b, home } = bigVaults();
    const r = compact(b, home);
    expect(r.stderr).toBe('mem: warning: the worker thread reading part of the vault failed (broken on purpose); going on with one thread\n');
    expect(r.status).toBe(0);
    const one = await run(['compact', '--json'], { cwd: a, home });
    expect(JSON.parse(r.stdout)).toEqual(one.json());
    expect(snapshot(b)).toEqual(snapshot(a));

    // One that stops after a few files: what it answered is kept, the rest read here.
    fs.copyFileSync(path.join(REPO, 'dist', 'scan-worker.js'), path.join(pkg, 'dist', 'real-worker.js'));
    // The real worker's listener first (imports run before the body), then one that stops the thread at the fourth file.
    fs.writeFileSync(path.join(pkg, 'dist', 'scan-worker.js'), [
      "import './real-worker.js';",
      "import { parentPort } from 'node:worker_threads';",
      'let n = 0;',
      "parentPort.on('message', () => { if (++n === 4) process.exit(3); });",
    ].join('\n'));
    const c = bigVaults();
    const mid = compact(c.b, c.home);
    expect(mid.stderr).toBe('mem: warning: the worker thread reading part of the vault failed (it stopped (exit code 3)); going on with one thread\n');
    expect(mid.status).toBe(0);
    expect(JSON.parse(mid.stdout)).toEqual(one.json());
    expect(snapshot(c.b)).toEqual(snapshot(a));

    // A small vault starts no worker at all.
    const small = tempVault();
    const body = 'The staging deploy needs the VPN connection; without it the Helm upgrade times out.';
    small.write('MEMORY.md', entry('vpn-1', body) + entry('vpn-2', `${body} Again.`) + entry('old-1', 'Retired advice.', { status: 'retired' }));
    const ok = compact(small.root, small.home);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout).written).toEqual(['MEMORY.md']);
  });
});
