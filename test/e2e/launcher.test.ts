// The `mem` command npm installs (bin/mem): found through symlinks, and offline commands started
// without NODE_EXTRA_CA_CERTS (Node reads every certificate it names before running any code),
// which bin/mem.js hands back to the processes mem starts.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAUNCHER, cleanup, entry, mem, tempDir, tempVault } from '../helpers.js';

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

describe('the mem launcher', () => {
  it('runs through a chain of relative and absolute symlinks, as npm links it', () => {
    const d = tempDir();
    fs.mkdirSync(path.join(d, 'a'));
    fs.mkdirSync(path.join(d, 'b'));
    fs.symlinkSync(LAUNCHER, path.join(d, 'b', 'mem-abs'));
    fs.symlinkSync(path.join('..', 'b', 'mem-abs'), path.join(d, 'a', 'mem'));
    const r = spawnSync(path.join(d, 'a', 'mem'), ['--version'], {
      cwd: d, encoding: 'utf8', env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(r.status).toBe(0);
  });

  it('starts offline commands without NODE_EXTRA_CA_CERTS and gives it back to their children', () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.'));
    const certs = path.join(tempDir(), 'no-such-bundle.pem');
    for (const args of [['search', 'migrations'], ['--root', v.root, 'list'], ['-q', 'index']]) {
      const r = probed(args, v.root, certs);
      expect(r.status, r.stderr).toBe(0);
      // Node warns at start-up about a bundle it cannot read: it did not try.
      expect(r.stderr).not.toContain('Ignoring extra certs');
      expect(r.probes).toEqual([`probe start=unset exit=${certs}`]);
    }
  });

  it('keeps the re-executed bulk commands offline too', () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.') + entry('m-2', 'Run the migrations before the API tests, always.'));
    const certs = path.join(tempDir(), 'no-such-bundle.pem');
    const r = probed(['compact', '--dry-run'], v.root, certs);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Ignoring extra certs');
    // The parent and the child it re-executes with a larger young generation.
    expect(r.probes.sort()).toEqual([`probe start=unset exit=${certs}`, `probe start=unset exit=${certs}`]);
  });

  it('leaves the environment alone for commands that may call an LLM, and for unknown ones', () => {
    const v = tempVault();
    const certs = path.join(tempDir(), 'no-such-bundle.pem');
    for (const args of [['extract', '--help'], ['doctor', '--help'], ['frobnicate']]) {
      const r = probed(args, v.root, certs);
      expect(r.stderr).toContain('Ignoring extra certs');
      expect(r.probes).toEqual([`probe start=${certs} exit=${certs}`]);
    }
  });
});
