// `mem hooks install|uninstall|status --git` in temporary git repositories, in-process: where the
// hooks go (core.hooksPath, worktrees, submodules, symlinks), what they hold, and existing hooks kept
// byte for byte. Git running the hooks (commits, merges, checkouts): test/process/git-hooks.test.ts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookFile, HOOKS, ok, repo } from '../fixtures/git-hooks.js';
import { cleanup, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const install = (v: TempVault, extra: string[] = [], cwd = v.root) => run(['hooks', 'install', '--git', ...extra], { cwd, home: v.home });

describe('mem hooks install --git', () => {
  it('creates the four hooks (#!/bin/sh, mode 755); a second install changes no byte; status says installed', async () => {
    const v = repo();
    const r = await install(v, ['--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.json();
    expect(out.git.in_work_tree).toBe(false);
    expect(out.git.hooks.map((h: { hook: string; action: string }) => [h.hook, h.action])).toEqual(HOOKS.map((h) => [h, 'created']));
    const before = HOOKS.map((h) => fs.readFileSync(hookFile(v, h)));
    for (const h of HOOKS) {
      expect(fs.statSync(hookFile(v, h)).mode & 0o777).toBe(0o755);
      const t = fs.readFileSync(hookFile(v, h), 'utf8');
      expect(t.startsWith('#!/bin/sh\n# >>> mem >>>')).toBe(true);
      expect(t.trimEnd().endsWith('# <<< mem <<<')).toBe(true);
      expect(spawnSync('sh', ['-n', hookFile(v, h)]).status).toBe(0); // valid POSIX sh
    }
    const again = await install(v, ['--json']);
    expect(again.json().git.hooks.every((h: { action: string }) => h.action === 'unchanged')).toBe(true);
    expect(HOOKS.map((h) => fs.readFileSync(hookFile(v, h)))).toEqual(before);
    const s = (await run(['hooks', 'status', '--json'], { cwd: v.root, home: v.home })).json();
    expect(s.git.hooks.map((h: { state: string; points_here: boolean }) => [h.state, h.points_here])).toEqual(HOOKS.map(() => ['installed', true]));
    expect(fs.readFileSync(path.join(v.root, '.mem', 'logs', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('with no flag says which hooks exist (exit 2); outside git says so (exit 1)', async () => {
    const v = repo();
    const r = await run(['hooks', 'install'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--git/);
    expect(r.stderr).toMatch(/--claude/);
    const plain = tempVault();
    const n = await run(['hooks', 'install', '--git'], { cwd: plain.root, home: plain.home });
    expect(n.status).toBe(1);
    expect(n.stderr).toMatch(/^mem: not in a git work tree/);
  });

  it('a user line added after install survives uninstall; a hook that is not a shell script is refused, nothing changed', async () => {
    const v = repo();
    expect((await install(v)).status).toBe(0);
    fs.appendFileSync(hookFile(v, 'post-merge'), 'echo mine\n');
    await run(['hooks', 'uninstall', '--git'], { cwd: v.root, home: v.home });
    expect(fs.readFileSync(hookFile(v, 'post-merge'), 'utf8')).toBe('#!/bin/sh\necho mine\n');

    for (const foreign of [Buffer.from('#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0])]) {
      const w = repo();
      fs.writeFileSync(hookFile(w, 'post-checkout'), foreign, { mode: 0o755 });
      const r = await install(w);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^mem: .*post-checkout is not a shell script; mem does not edit it/);
      expect(fs.readFileSync(hookFile(w, 'post-checkout'))).toEqual(foreign);
      for (const h of ['post-merge', 'post-rewrite', 'pre-commit']) expect(fs.existsSync(hookFile(w, h))).toBe(false);
    }
  });
});

describe('where the hooks go', () => {
  it('a linked worktree installs into the shared hooks folder; a submodule into its own', async () => {
    const v = repo();
    const wt = path.join(path.dirname(v.root), 'wt');
    ok(v.root, ['worktree', 'add', '-q', wt]);
    const r = await run(['hooks', 'install', '--git', '--json'], { cwd: wt, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().git.hooks_dir).toBe(fs.realpathSync(path.join(v.root, '.git', 'hooks')));
    for (const h of HOOKS) expect(fs.existsSync(hookFile(v, h))).toBe(true);

    const sub = repo();
    const outer = tempVault({ git: true });
    ok(outer.root, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub.root, 'mods/sub']);
    const inner = path.join(outer.root, 'mods', 'sub');
    const s = await run(['hooks', 'install', '--git', '--json'], { cwd: inner, home: outer.home });
    expect(s.status, s.stderr).toBe(0);
    expect(s.json().git.hooks_dir).toBe(fs.realpathSync(path.join(outer.root, '.git', 'modules', 'mods', 'sub', 'hooks')));
    expect(fs.existsSync(path.join(outer.root, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('never writes through a symlink out of the repository', async () => {
    const outside = path.join(tempDir('outside-'), 'pre-commit');
    fs.writeFileSync(outside, '#!/bin/sh\necho outside\n', { mode: 0o755 });
    const v = repo();
    fs.symlinkSync(outside, hookFile(v, 'pre-commit'));
    const r = await install(v);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: refusing to write .*pre-commit: it leads out of the vault through a symlink/);
    expect(fs.readFileSync(outside, 'utf8')).toBe('#!/bin/sh\necho outside\n');
    expect(fs.existsSync(hookFile(v, 'post-merge'))).toBe(false);

    const w = repo();
    const dir = tempDir('outside-dir-');
    fs.symlinkSync(dir, w.path('hooks-link'));
    ok(w.root, ['config', 'core.hooksPath', 'hooks-link']);
    const r2 = await install(w);
    expect(r2.status).toBe(1);
    expect(r2.stderr).toMatch(/^mem: refusing to install hooks in .*hooks-link: it leads out of the repository/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses a core.hooksPath from the global config (it serves every repository)', async () => {
    const v = repo();
    const shared = path.join(tempDir('global-hooks-'), 'h');
    const cfg = path.join(tempDir('gitcfg-'), 'config');
    fs.writeFileSync(cfg, `[core]\n\thooksPath = ${shared}\n`);
    const r = await run(['hooks', 'install', '--git'], { cwd: v.root, home: v.home, env: { GIT_CONFIG_GLOBAL: cfg } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: core\.hooksPath is set in your global git config/);
    expect(fs.existsSync(shared)).toBe(false);
    const s = await run(['hooks', 'status', '--json'], { cwd: v.root, home: v.home, env: { GIT_CONFIG_GLOBAL: cfg } });
    expect(s.status).toBe(0);
    expect(s.json().git.hooks_dir).toBe(shared);
    expect(s.json().git.hooks.every((h: { state: string }) => h.state === 'missing')).toBe(true);
  });
});
