// CI checks that run the installed command: `--check` as another user on a vault it cannot write,
// the real examples/ci/check.sh on temporary git repositories, and the workflow's install and
// check steps (test/e2e/git-ci.test.ts has the rest, in-process).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLEAN, DUP_A, DUP_B, expectUnchanged, NOW, POSIX, runAtNow, snapshot, workflowJob } from '../fixtures/git-ci.js';
import { BIN, REPO, cleanup, entry, git, mem, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const CHECK_SH = path.join(REPO, 'examples', 'ci', 'check.sh');

const run = runAtNow(mem);

describe('--check on lint, compact, promote and consolidate', () => {
  it.runIf(POSIX && process.getuid?.() === 0)('compact --check and --dry-run work on a vault the user cannot write (no lock file is taken)', () => {
    const v = tempVault();
    v.write('MEMORY.md', `# Memory\n\n${entry('d1', DUP_A)}${entry('d2', DUP_B)}`);
    // Readable by everyone, writable by root alone; mem runs as nobody.
    for (let d = v.root; d !== path.dirname(d) && d.startsWith(path.dirname(path.dirname(v.root))); d = path.dirname(d)) fs.chmodSync(d, 0o755);
    const as = { uid: 65534, gid: 65534 };
    const before = snapshot(v.root, v.home);
    for (const args of [['compact', '--dry-run'], ['compact', '--check']]) {
      const r = mem(args, { cwd: v.root, home: v.home, spawn: as });
      expect(r.stderr).not.toMatch(/cannot lock|EACCES/);
      expect(r.status, r.stderr).toBe(args[1] === '--check' ? 1 : 0);
      expect(r.stdout).toMatch(/^merge +d\d/m);
    }
    expectUnchanged(v, before);
  });
});

/** A git repository holding a memory vault, committed, with the index ignored (as mem init sets it up). */
function repo(files: Record<string, string | Buffer>): TempVault {
  const v = tempVault({ git: true });
  v.write('.gitignore', '.memory.db*\n');
  for (const [rel, text] of Object.entries(files)) v.write(rel, text);
  git(v.root, ['add', '-A']);
  git(v.root, ['commit', '-qm', 'memory']);
  return v;
}

function checkSh(v: TempVault, env: Record<string, string> = {}) {
  const r = spawnSync('sh', [CHECK_SH], {
    cwd: v.root, encoding: 'utf8',
    env: { ...process.env, MEM: `${process.execPath} ${BIN}`, MEM_HOME: v.home, MEM_NOW: NOW, NO_COLOR: '1', MEM_ROOT: '', ...env },
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`, stderr: r.stderr };
}

function failedSteps(stderr: string): string[] {
  return [...stderr.matchAll(/^== FAILED: mem (.+)$/gm)].map((m) => m[1]);
}

describe.runIf(POSIX)('examples/ci/check.sh on a git repository', () => {
  it('clean → exit 0 and the checkout stays clean; a near-duplicate fails compact --check by name; after mem compact it passes', () => {
    const v = repo({ 'MEMORY.md': CLEAN });
    const ok = checkSh(v);
    expect(ok.status, ok.out).toBe(0);
    expect(ok.stderr).toContain('check.sh: memory is clean');
    expect(ok.out).toMatch(/mem search ".+": [1-9]\d* result/);
    expect(git(v.root, ['status', '--porcelain'])).toBe('');

    v.write('MEMORY.md', `${CLEAN}${entry('d1', DUP_A)}${entry('d2', DUP_B, { importance: 0.6 })}`);
    git(v.root, ['commit', '-qam', 'near-duplicates']);
    const bad = checkSh(v);
    expect(bad.status, bad.out).toBe(1);
    expect(failedSteps(bad.stderr)).toEqual(['compact --check']);
    expect(bad.stderr).toMatch(/failed:\n  mem compact --check/);
    expect(bad.out).toMatch(/^merge +d1 .*→ d2/m);
    expect(git(v.root, ['status', '--porcelain'])).toBe('');

    expect(run(v, ['compact']).status).toBe(0);
    const fixed = checkSh(v);
    expect(fixed.status, fixed.out).toBe(0);
  });

  it('a lint problem fails lint --check; every other step still runs and each failure is named', () => {
    const v = repo({ 'MEMORY.md': CLEAN.replace('type: procedural', 'type: Procedural'), 'institutional.md': entry('r1', 'Old.', { status: 'retired' }) });
    const r = checkSh(v);
    expect(r.status, r.out).toBe(1);
    expect(failedSteps(r.stderr)).toEqual(['lint --check', 'compact --check']);
    expect(r.out).toContain('type must be one of');
    expect(r.stderr).toContain('== ok: mem consolidate --check');
    expect(git(v.root, ['status', '--porcelain'])).toBe('');
  });

  it('promote and consolidate work pending fail their steps', () => {
    const v = repo({ 'MEMORY.md': entry('old', 'Use npm to install packages in this repository.', { created_at: '2026-10-01' }) + entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' }) });
    for (const j of ['j1', 'j2', 'j3']) v.write(`.mem/jobs/${j}/MEMORY.md`, entry(`${j}-l`, 'Always run the linter before committing changes to avoid failing builds.'));
    const r = checkSh(v);
    expect(r.status, r.out).toBe(1);
    expect(failedSteps(r.stderr)).toEqual(['promote --check', 'consolidate --check']);
  });

  it('the smoke search fails on no hit for MEM_SMOKE_QUERY, and on a vault with no entries', () => {
    const v = repo({ 'MEMORY.md': CLEAN });
    expect(checkSh(v, { MEM_SMOKE_QUERY: 'payment fixtures' }).status).toBe(0);
    const miss = checkSh(v, { MEM_SMOKE_QUERY: 'kubernetes helm chart' });
    expect(miss.status).toBe(1);
    expect(failedSteps(miss.stderr)).toEqual(['search (smoke query)']);
    const empty = repo({ 'MEMORY.md': '# Project memory\n' });
    const e = checkSh(empty);
    expect(e.status).toBe(1);
    expect(failedSteps(e.stderr)).toEqual(['search (smoke query)']);
  });

  it('a mem that cannot run fails every step, never passes', () => {
    const v = repo({ 'MEMORY.md': CLEAN });
    const r = checkSh(v, { MEM: `${process.execPath} ${path.join(tempDir(), 'missing.js')}` });
    expect(r.status).toBe(1);
    expect(failedSteps(r.stderr)).toHaveLength(5);
  });
});

describe.runIf(POSIX)('examples/ci/mem.yml', () => {
  const { job, step } = workflowJob();

  it("the install step's fetch takes a pinned commit of a mem repository; the check step runs the real script", () => {
    // The install step without its npm ci (no network here), against this repository at HEAD.
    const temp = tempDir();
    const head = git(REPO, ['rev-parse', 'HEAD']).trim();
    const fetchLines = (step('Install mem').run as string).split('\n').filter((l) => !/npm ci/.test(l)).join('\n');
    const inst = spawnSync('sh', ['-ec', fetchLines], { encoding: 'utf8', env: { ...process.env, RUNNER_TEMP: temp, MEM_REPO: REPO, MEM_REF: head } });
    expect(inst.status, inst.stderr).toBe(0);
    expect(git(path.join(temp, 'mem'), ['rev-parse', 'HEAD']).trim()).toBe(head);
    expect(fs.existsSync(path.join(temp, 'mem', 'bin', 'mem.js'))).toBe(true);

    // The check step, with RUNNER_TEMP/mem this (built) checkout, in a clean and a dirty project.
    const runner = tempDir();
    fs.symlinkSync(REPO, path.join(runner, 'mem'));
    const checkStep = (v: TempVault) => spawnSync('sh', ['-ec', step('Check memory').run], {
      cwd: v.root, encoding: 'utf8', env: { ...process.env, ...job.env, RUNNER_TEMP: runner, MEM_HOME: v.home, MEM_NOW: NOW, NO_COLOR: '1' },
    });
    const clean = checkStep(repo({ 'MEMORY.md': CLEAN }));
    expect(clean.status, clean.stderr).toBe(0);
    const dirty = checkStep(repo({ 'MEMORY.md': `${entry('d1', DUP_A)}${entry('d2', DUP_B)}` }));
    expect(dirty.status).toBe(1);
    expect(dirty.stderr).toContain('== FAILED: mem compact --check');
  });
});
