// The `mem` command npm installs (package.json "bin" → bin/mem.js): a Node entry point that runs
// wherever Node 20+ runs, found through symlinks, and that passes its environment on untouched.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAUNCHER, REPO, cleanup, entry, mem, packageCopy, runEnv, tempDir, tempVault } from '../helpers.js';

afterAll(cleanup);

// Preloaded into every node process of a run: reports NODE_EXTRA_CA_CERTS as the process started
// with it and as it is when the process exits (what a child started then would inherit).
const PROBE = `
const seen = process.env.NODE_EXTRA_CA_CERTS ?? 'unset';
process.on('exit', () => process.stderr.write('probe start=' + seen + ' exit=' + (process.env.NODE_EXTRA_CA_CERTS ?? 'unset') + '\\n'));
`;

function probed(args: string[], cwd: string, certs: string) {
  const probe = path.join(tempDir(), 'probe.cjs');
  fs.writeFileSync(probe, PROBE);
  const r = mem(args, { cwd, env: { NODE_EXTRA_CA_CERTS: certs, NODE_OPTIONS: `--require ${JSON.stringify(probe)}` } });
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('probe '));
  return { ...r, probes: lines };
}

describe('the mem command', () => {
  it('is a Node entry point: package.json names bin/mem.js, which node runs directly', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ mem: 'bin/mem.js' });
    expect(LAUNCHER).toBe(path.join(REPO, 'bin', 'mem.js'));
    expect(fs.readFileSync(LAUNCHER, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    // What npm's Windows shim does: `node bin/mem.js …`, no shell involved.
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.'));
    const r = spawnSync(process.execPath, [LAUNCHER, 'search', 'migrations', '--json'], {
      cwd: v.root, encoding: 'utf8', env: { ...process.env, MEM_HOME: v.home, NO_COLOR: '1', PATH: '' },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).results[0].id).toBe('m-1');
  });

  it('runs through a chain of relative and absolute symlinks, as npm links it on POSIX', () => {
    const d = tempDir();
    fs.mkdirSync(path.join(d, 'a'));
    fs.mkdirSync(path.join(d, 'b'));
    fs.symlinkSync(LAUNCHER, path.join(d, 'b', 'mem-abs'));
    fs.symlinkSync(path.join('..', 'b', 'mem-abs'), path.join(d, 'a', 'mem'));
    const r = spawnSync(path.join(d, 'a', 'mem'), ['--version'], {
      cwd: d, encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version}\n`);
    expect(r.status).toBe(0);
    // Spelled otherwise, the CLI answers: the same version.
    expect(spawnSync(process.execPath, [LAUNCHER, '-V', '--no-color'], { cwd: d, encoding: 'utf8' }).stdout).toBe(r.stdout);
  });

  it('runs every command in one process, with the environment it was given', () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.') + entry('m-2', 'Run the migrations before the API tests, always.'));
    const certs = path.join(tempDir(), 'no-such-bundle.pem');
    for (const args of [['search', 'migrations'], ['--root', v.root, 'list'], ['-q', 'index'], ['compact', '--dry-run'], ['compact'], ['doctor']]) {
      const r = probed(args, v.root, certs);
      // Node itself read the variable at start-up (and warns that the bundle is missing).
      expect(r.stderr, args.join(' ')).toContain('Ignoring extra certs');
      // One process (no re-executed child), which saw the variable from start to end.
      expect(r.probes, args.join(' ')).toEqual([`probe start=${certs} exit=${certs}`]);
      expect(r.status, r.stderr).toBe(0);
    }
  });

  it('leaves an unset variable unset', () => {
    const v = tempVault();
    const probe = path.join(tempDir(), 'probe.cjs');
    fs.writeFileSync(probe, PROBE);
    const r = mem(['list'], { cwd: v.root, env: { NODE_EXTRA_CA_CERTS: undefined, MEM_NODE_EXTRA_CA_CERTS: '/x.pem', NODE_OPTIONS: `--require ${JSON.stringify(probe)}` } });
    expect(r.stderr).not.toContain('Ignoring extra certs');
    expect(r.stderr.split('\n').filter((l) => l.startsWith('probe '))).toEqual(['probe start=unset exit=unset']);
  });
  it('runs a plain mem index, mem search and mem context from their own bundles, and everything else from dist/main.cjs', () => {
    // A copy of the package without main.cjs: what still works came from the smaller bundles.
    const pkg = packageCopy();
    fs.rmSync(path.join(pkg, 'dist', 'main.cjs'));
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.'));
    const launcher = path.join(pkg, 'bin', 'mem.js');
    const env = runEnv({ cwd: v.root, home: v.home });
    for (const args of [['index', '--json'], ['--quiet', 'index'], ['index', '--root', v.root], ['search', 'migrations'], ['--root', v.root, 'search', 'index', '--help'], ['context', 'fix the API tests']]) {
      const r = spawnSync(process.execPath, [launcher, ...args], { cwd: v.root, encoding: 'utf8', env });
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.status, args.join(' ')).toBe(0);
    }
    for (const args of [['index', '--rebuild'], ['index', '--help'], ['index', 'extra'], ['list'], ['--json', 'stats'], ['--help'], []]) {
      const r = spawnSync(process.execPath, [launcher, ...args], { cwd: v.root, encoding: 'utf8', env });
      expect(r.stderr, args.join(' ')).toBe('mem: dist/main.cjs is missing\nhint: run npm run build (npm ci does it too)\n');
      expect(r.status, args.join(' ')).toBe(1);
    }
  });
});
