// mem's git hooks as git runs them, in temporary repositories: real merges, checkouts, amends,
// rebases and commits run the hooks, existing hooks still run beside them, and the hooks never get
// in git's way (mem gone, a broken vault, a big vault indexed in the background). Installing and
// reporting alone run in-process: test/e2e/git-hooks.test.ts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { g, hookFile, HOOKS, ok, repo } from '../fixtures/git-hooks.js';
import { REPO, cleanup, entry, mem, tempDir, type TempVault } from '../helpers.js';

afterEach(cleanup);

function ids(v: TempVault): string[] | null {
  const r = mem(['list', '--no-refresh', '--json'], { cwd: v.root, home: v.home });
  if (r.status !== 0) return null;
  try {
    return (r.json().entries as { id: string }[]).map((e) => e.id);
  } catch {
    return null; // the index being swapped in
  }
}

/**
 * Wait until the index, as it stands, says `want`: the background index ran. The deadline is
 * generous (a busy machine may take long to start it); success ends the wait at once.
 */
async function waitFor(v: TempVault, want: (ids: string[]) => boolean): Promise<string[]> {
  const deadline = Date.now() + 90_000;
  let last: string[] | null = null;
  while (Date.now() < deadline) {
    last = ids(v);
    if (last && want(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`the background index never got there; last ids: ${JSON.stringify(last)}`);
}

/**
 * Until no process works in `root` (its working folder there): what the hooks started in the
 * background there is done. Linux (/proc); elsewhere a pause.
 */
async function backgroundDone(root: string): Promise<void> {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  if (process.platform !== 'linux') return void (await pause(1500));
  const real = fs.realpathSync(root);
  const busy = () => fs.readdirSync('/proc').some((p) => {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) return false;
    try {
      const cwd = fs.readlinkSync(`/proc/${p}/cwd`);
      return cwd === real || cwd.startsWith(`${real}/`);
    } catch {
      return false; // gone, or not ours to see
    }
  });
  // Generous: the wait ends as soon as the work is done.
  const deadline = Date.now() + 90_000;
  while (busy()) {
    if (Date.now() > deadline) throw new Error(`a process still works in ${root}`);
    await pause(50);
  }
}

const install = (v: TempVault, extra: string[] = [], cwd = v.root) => mem(['hooks', 'install', '--git', ...extra], { cwd, home: v.home });

/** A copy of the built mem in a folder of its own, to install from and then take away. */
function memCopy(): string {
  const dest = path.join(tempDir('mem-copy-'), 'mem');
  for (const rel of ['bin', 'dist', 'package.json', 'templates', 'node_modules/yaml', 'node_modules/better-sqlite3/package.json', 'node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'node_modules/bindings', 'node_modules/file-uri-to-path']) {
    if (fs.existsSync(path.join(REPO, rel))) fs.cpSync(path.join(REPO, rel), path.join(dest, rel), { recursive: true });
  }
  return path.join(dest, 'bin', 'mem.js');
}

/** A PATH with git and sh but no `mem` on it. */
function pathWithoutMem(): string {
  const p = ['/usr/bin', '/bin', path.dirname(spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim())].join(':');
  expect(spawnSync('sh', ['-c', 'command -v mem'], { env: { PATH: p } }).status).not.toBe(0);
  return p;
}

describe('mem hooks install --git', () => {
  it('real checkout, merge and commit --amend index the memory in the background', async () => {
    const v = repo();
    expect(mem(['index'], { cwd: v.root, home: v.home }).status).toBe(0);
    expect(install(v).status).toBe(0);
    // a branch with an entry of its own, committed
    ok(v.root, ['checkout', '-qb', 'other']);
    v.write('institutional.md', entry('from-other', 'Deploys go through the staging cluster first.'));
    ok(v.root, ['add', '-A']);
    ok(v.root, ['commit', '-qm', 'other entry']);
    ok(v.root, ['checkout', '-q', 'main']);
    await waitFor(v, (i) => i.includes('base-entry') && !i.includes('from-other'));
    // post-checkout
    ok(v.root, ['checkout', '-q', 'other']);
    await waitFor(v, (i) => i.includes('from-other'));
    ok(v.root, ['checkout', '-q', 'main']);
    await waitFor(v, (i) => !i.includes('from-other'));
    // post-merge (a true merge: main moved on too)
    v.write('notes.txt', 'not memory\n');
    ok(v.root, ['add', '-A']);
    ok(v.root, ['commit', '-qm', 'main moves']);
    ok(v.root, ['merge', '--no-edit', '-q', 'other']);
    await waitFor(v, (i) => i.includes('from-other'));
    // post-rewrite (amend)
    fs.appendFileSync(v.path('MEMORY.md'), entry('amended-in', 'Amended entries get indexed too.'));
    ok(v.root, ['add', 'MEMORY.md']);
    ok(v.root, ['commit', '-q', '--amend', '--no-edit']);
    await waitFor(v, (i) => i.includes('amended-in'));
    // the hooks' output went to the log, not to git's terminal
    expect(fs.existsSync(path.join(v.root, '.mem', 'logs', 'git-hooks.log'))).toBe(true);
    expect(ok(v.root, ['status', '--porcelain'])).not.toMatch(/\.mem\/logs/);
  });

  it('post-rewrite after a rebase indexes too', async () => {
    const v = repo();
    ok(v.root, ['checkout', '-qb', 'topic']);
    v.write('institutional.md', entry('rebased-one', 'Rebased entry.'));
    ok(v.root, ['add', '-A']);
    ok(v.root, ['commit', '-qm', 'topic']);
    ok(v.root, ['checkout', '-q', 'main']);
    v.write('other.txt', 'x\n');
    ok(v.root, ['add', '-A']);
    ok(v.root, ['commit', '-qm', 'main']);
    ok(v.root, ['checkout', '-q', 'topic']);
    expect(mem(['index'], { cwd: v.root, home: v.home }).status).toBe(0);
    fs.rmSync(v.path('.memory.db'));
    expect(install(v).status).toBe(0);
    ok(v.root, ['rebase', '-q', 'main']);
    await waitFor(v, (i) => i.includes('rebased-one') && i.includes('base-entry'));
  });

  it('pre-commit blocks a malformed memory file with lint\'s message and lets a good one through', () => {
    const v = repo();
    expect(install(v).status).toBe(0);
    const head = ok(v.root, ['rev-parse', 'HEAD']);
    const bad = [
      `# Memory\n\n${entry('bad-type', 'x', { type: 'nonsense' })}`,
      '# Memory\n\n---\nid: [unclosed\n---\nBody\n',
    ];
    for (const text of bad) {
      v.write('MEMORY.md', text);
      ok(v.root, ['add', 'MEMORY.md']);
      const r = g(v.root, ['commit', '-qm', 'bad']);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/MEMORY\.md:\d+: /);
      expect(r.stderr).toMatch(/--no-verify/);
      expect(ok(v.root, ['rev-parse', 'HEAD'])).toBe(head);
    }
    // commit -a (git lints through a temporary index): blocked too
    v.write('MEMORY.md', bad[0]);
    expect(g(v.root, ['commit', '-aqm', 'bad']).status).not.toBe(0);
    v.write('MEMORY.md', `# Memory\n\n${entry('good-one', 'A fine entry.')}`);
    ok(v.root, ['add', 'MEMORY.md']);
    const good = g(v.root, ['commit', '-qm', 'good']);
    expect(good.status, good.stderr).toBe(0);
    expect(ok(v.root, ['rev-parse', 'HEAD'])).not.toBe(head);
  });

  it('keeps existing hooks: they still run (with their arguments), and uninstall restores them byte for byte', () => {
    const v = repo();
    const pre = Buffer.from('#!/bin/sh\n# caf\xe9\necho ran > pre-commit.marker\nexit 0\n', 'latin1');
    const post = '#!/usr/bin/env bash\r\necho "$1 $2 $3" > checkout.marker\r\n'.replace(/\r/g, ''); // bash, args used
    fs.writeFileSync(hookFile(v, 'pre-commit'), pre, { mode: 0o750 });
    fs.writeFileSync(hookFile(v, 'post-checkout'), post, { mode: 0o700 });
    const r = install(v, ['--json']);
    expect(r.status, r.stderr).toBe(0);
    const actions = Object.fromEntries(r.json().git.hooks.map((h: { hook: string; action: string }) => [h.hook, h.action]));
    expect(actions).toEqual({ 'post-merge': 'created', 'post-checkout': 'added', 'post-rewrite': 'created', 'pre-commit': 'added' });
    expect(fs.statSync(hookFile(v, 'pre-commit')).mode & 0o777).toBe(0o750);
    const s = mem(['hooks', 'status', '--json'], { cwd: v.root, home: v.home }).json();
    expect(s.git.hooks.every((h: { state: string }) => h.state === 'installed')).toBe(true);
    // they still run
    v.write('MEMORY.md', `# Memory\n\n${entry('x1', 'fine')}`);
    ok(v.root, ['add', 'MEMORY.md']);
    ok(v.root, ['commit', '-qm', 'c']);
    expect(fs.readFileSync(v.path('pre-commit.marker'), 'utf8')).toBe('ran\n');
    const from = ok(v.root, ['rev-parse', 'HEAD']).trim();
    ok(v.root, ['checkout', '-qb', 'b2']);
    expect(fs.readFileSync(v.path('checkout.marker'), 'utf8')).toBe(`${from} ${from} 1\n`);
    // uninstall: the originals, byte for byte and mode; mem's own files gone
    const u = mem(['hooks', 'uninstall', '--git', '--json'], { cwd: v.root, home: v.home });
    expect(u.status, u.stderr).toBe(0);
    expect(fs.readFileSync(hookFile(v, 'pre-commit'))).toEqual(pre);
    expect(fs.statSync(hookFile(v, 'pre-commit')).mode & 0o777).toBe(0o750);
    expect(fs.readFileSync(hookFile(v, 'post-checkout'), 'utf8')).toBe(post);
    expect(fs.existsSync(hookFile(v, 'post-merge'))).toBe(false);
    expect(fs.existsSync(hookFile(v, 'post-rewrite'))).toBe(false);
    const st = mem(['hooks', 'status', '--json'], { cwd: v.root, home: v.home }).json();
    expect(st.git.hooks.map((h: { state: string }) => h.state)).toEqual(['missing', 'foreign-only', 'missing', 'foreign-only']);
    // uninstall again: nothing to do, nothing changed
    expect(mem(['hooks', 'uninstall', '--git'], { cwd: v.root, home: v.home }).status).toBe(0);
    expect(fs.readFileSync(hookFile(v, 'pre-commit'))).toEqual(pre);
  });


  it('status tells outdated and foreign blocks; reinstall brings them up to date', () => {
    const v = repo();
    const copy = memCopy();
    const r = spawnSync(process.execPath, [copy, 'hooks', 'install', '--git'], { cwd: v.root, encoding: 'utf8', env: { ...process.env, MEM_HOME: v.home } });
    expect(r.status, r.stderr).toBe(0);
    const s = mem(['hooks', 'status', '--json'], { cwd: v.root, home: v.home }).json();
    for (const h of s.git.hooks) {
      expect(h.state).toBe('outdated');
      expect(h.points_here).toBe(false);
      expect(fs.realpathSync(h.mem)).toBe(fs.realpathSync(copy));
    }
    const human = mem(['hooks', 'status'], { cwd: v.root, home: v.home });
    expect(human.stdout).toMatch(/post-merge\s+outdated \(runs .*mem\.js\)/);
    const doc = mem(['doctor', '--json'], { cwd: v.root, home: v.home }).json();
    expect(doc.checks.find((c: { name: string }) => c.name === 'git hooks').status).toBe('warn');
    const again = install(v, ['--json']).json();
    expect(again.git.hooks.every((h: { action: string }) => h.action === 'updated')).toBe(true);
    const doc2 = mem(['doctor', '--json'], { cwd: v.root, home: v.home }).json();
    const c = doc2.checks.find((c: { name: string }) => c.name === 'git hooks');
    expect(c.status).toBe('ok');
    expect(c.detail).toBe('post-merge installed, post-checkout installed, post-rewrite installed, pre-commit installed');
  });
});

describe('where the hooks go', () => {
  it('core.hooksPath relative to the work tree (also when run from a subfolder) and absolute', () => {
    const v = repo();
    ok(v.root, ['config', 'core.hooksPath', '.githooks']);
    fs.mkdirSync(v.path('deep/er'), { recursive: true });
    const r = install(v, [], v.path('deep/er'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: the hooks are inside the work tree \(\.githooks\)/m);
    for (const h of HOOKS) {
      expect(fs.existsSync(v.path(`.githooks/${h}`))).toBe(true);
      expect(fs.existsSync(hookFile(v, h))).toBe(false);
    }
    // git really runs them from there
    v.write('MEMORY.md', `# Memory\n\n${entry('bad', 'x', { type: 'nonsense' })}`);
    ok(v.root, ['add', 'MEMORY.md']);
    expect(g(v.root, ['commit', '-qm', 'bad']).stderr).toMatch(/MEMORY\.md:\d+: type must be/);

    const w = repo();
    const abs = path.join(tempDir('hooks-abs-'), 'hooks');
    ok(w.root, ['config', 'core.hooksPath', abs]);
    expect(install(w).status).toBe(0);
    for (const h of HOOKS) expect(fs.existsSync(path.join(abs, h))).toBe(true);
    w.write('MEMORY.md', `# Memory\n\n${entry('bad', 'x', { importance: 'lots' })}`);
    ok(w.root, ['add', 'MEMORY.md']);
    expect(g(w.root, ['commit', '-qm', 'bad']).status).not.toBe(0);
  });

  it('a vault in a subfolder of the repository: the hooks name it (--root), lint and index find it', async () => {
    const v = repo();
    v.write('docs/mem/.mem/config.yaml', '');
    v.write('docs/mem/MEMORY.md', `# Memory\n\n${entry('sub-entry', 'Lives in a subfolder vault.')}`);
    const sub = v.path('docs/mem');
    const r = mem(['hooks', 'install', '--git'], { cwd: sub, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(hookFile(v, 'pre-commit'), 'utf8')).toContain("mem_run --root 'docs/mem' lint --staged");
    v.write('docs/mem/MEMORY.md', `# Memory\n\n${entry('sub-bad', 'x', { type: 'nonsense' })}`);
    ok(v.root, ['add', '-A']);
    const bad = g(v.root, ['commit', '-qm', 'bad']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/MEMORY\.md:\d+: type must be/);
    v.write('docs/mem/MEMORY.md', `# Memory\n\n${entry('sub-good', 'fine')}`);
    ok(v.root, ['add', '-A']);
    ok(v.root, ['commit', '-qm', 'good']);
    ok(v.root, ['checkout', '-qb', 'side']);
    await waitFor({ ...v, root: sub }, (i) => i.includes('sub-good'));
    expect(fs.existsSync(v.path('.memory.db'))).toBe(false);
  });

  it('husky (core.hooksPath=.husky/_): mem\'s lines go in .husky/<hook>, which husky runs; its generated folder is untouched', () => {
    const v = repo();
    // What husky 9 generates: .husky/_/<hook> runs .husky/_/h, which runs .husky/<hook> with sh -e.
    const h = '#!/usr/bin/env sh\nn=$(basename "$0"); s=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n';
    v.write('.husky/_/h', h);
    for (const k of HOOKS) v.write(`.husky/_/${k}`, '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n');
    for (const f of fs.readdirSync(v.path('.husky/_'))) fs.chmodSync(v.path(`.husky/_/${f}`), 0o755);
    v.write('.husky/pre-commit', 'echo husky-user > husky.marker\n');
    ok(v.root, ['config', 'core.hooksPath', '.husky/_']);
    const generated = fs.readdirSync(v.path('.husky/_')).map((f) => fs.readFileSync(v.path(`.husky/_/${f}`)));
    const r = install(v, ['--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().git.hooks_dir).toBe(fs.realpathSync(v.path('.husky')));
    expect(r.json().git.kind).toBe('husky');
    expect(r.json().git.in_work_tree).toBe(true);
    expect(install(v).stderr).not.toMatch(/not executable/); // husky runs .husky/<hook> with sh
    expect(fs.readdirSync(v.path('.husky/_')).map((f) => fs.readFileSync(v.path(`.husky/_/${f}`)))).toEqual(generated);
    expect(fs.readFileSync(v.path('.husky/pre-commit'), 'utf8')).toMatch(/^# >>> mem >>>[^]*# <<< mem <<<\necho husky-user > husky.marker\n$/);
    v.write('MEMORY.md', `# Memory\n\n${entry('bad', 'x', { type: 'nonsense' })}`);
    ok(v.root, ['add', '-A']);
    const bad = g(v.root, ['commit', '-qm', 'bad']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/type must be/);
    v.write('MEMORY.md', `# Memory\n\n${entry('good', 'fine')}`);
    ok(v.root, ['add', '-A']);
    const good = g(v.root, ['commit', '-qm', 'good']);
    expect(good.status, good.stderr).toBe(0);
    expect(fs.readFileSync(v.path('husky.marker'), 'utf8')).toBe('husky-user\n');
    // post-checkout through husky's sh -e: still exits 0 and goes on
    expect(g(v.root, ['checkout', '-qb', 'x']).status).toBe(0);
  });

});

describe('hooks never get in git\'s way', () => {
  it('with mem gone (not where it was installed from, not on PATH): post-* exit 0, pre-commit warns and lets the commit through', () => {
    const v = repo();
    const copy = memCopy();
    const r = spawnSync(process.execPath, [copy, 'hooks', 'install', '--git'], { cwd: v.root, encoding: 'utf8', env: { ...process.env, MEM_HOME: v.home } });
    expect(r.status, r.stderr).toBe(0);
    fs.rmSync(path.dirname(path.dirname(copy)), { recursive: true, force: true });
    const env = { PATH: pathWithoutMem() };
    const co = g(v.root, ['checkout', '-qb', 'nomem'], env);
    expect(co.status).toBe(0);
    expect(co.stderr).toMatch(/mem: warning: mem not found .*index was not updated/);
    for (const h of ['post-merge', 'post-checkout', 'post-rewrite']) {
      expect(spawnSync(hookFile(v, h), ['0', '0', '1'], { cwd: v.root, env, input: '' }).status).toBe(0);
    }
    v.write('MEMORY.md', `# Memory\n\n${entry('bad', 'x', { type: 'nonsense' })}`);
    ok(v.root, ['add', 'MEMORY.md'], env);
    const c = g(v.root, ['commit', '-qm', 'no mem here'], env);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stderr).toMatch(/mem: warning: mem not found .*not linted/);
    // and under set -e (as husky runs hooks) the post-* block still lets the hook go on
    const e = spawnSync('sh', ['-e', '-c', `. ${hookFile(v, 'post-merge')}; echo after`], { cwd: v.root, env, encoding: 'utf8' });
    expect(e.status).toBe(0);
    expect(e.stdout).toBe('after\n');
  });

  it('a broken vault never fails a checkout, merge or amend', () => {
    const v = repo();
    expect(install(v).status).toBe(0);
    fs.mkdirSync(v.path('.memory.db'), { recursive: true }); // the index cannot be opened
    fs.writeFileSync(v.path('.mem/config.yaml'), 'search: [unclosed\n');
    // A second commit, so the amend below rewrites a commit with a parent: amending the root
    // commit in a later second than it was made gives an unrelated history, which git refuses to merge.
    expect(g(v.root, ['commit', '-q', '--allow-empty', '--no-verify', '-m', 'second']).status).toBe(0);
    expect(g(v.root, ['checkout', '-qb', 'b']).status).toBe(0);
    expect(g(v.root, ['commit', '-q', '--amend', '--allow-empty', '--no-edit', '--no-verify']).status).toBe(0);
    expect(g(v.root, ['checkout', '-q', 'main']).status).toBe(0);
    expect(g(v.root, ['merge', '-q', 'b']).status).toBe(0);
  });

  it('the hooks\' log is cut back past 1 MB (one old copy kept) and never written through a link', async () => {
    const v = repo();
    expect(install(v).status).toBe(0);
    const log = v.path('.mem/logs/git-hooks.log');
    fs.writeFileSync(log, 'x'.repeat(1_100_000));
    expect(spawnSync(hookFile(v, 'post-merge'), ['0'], { cwd: v.root }).status).toBe(0);
    await backgroundDone(v.root);
    expect(fs.statSync(`${log}.1`).size).toBe(1_100_000);
    expect(fs.statSync(log).size).toBeLessThan(1000);
    // a link where the log goes: the output is dropped, the target untouched
    const w = repo();
    expect(install(w).status).toBe(0);
    const target = path.join(tempDir('log-target-'), 'elsewhere.log');
    fs.writeFileSync(target, 'untouched\n');
    fs.symlinkSync(target, w.path('.mem/logs/git-hooks.log'));
    fs.writeFileSync(w.path('.mem/config.yaml'), 'search: [unclosed\n'); // index would complain into the log
    expect(spawnSync(hookFile(w, 'post-merge'), ['0'], { cwd: w.root }).status).toBe(0);
    await backgroundDone(w.root);
    expect(fs.readFileSync(target, 'utf8')).toBe('untouched\n');
  });

  it('a post-* hook returns before its background index is done, even on a large vault', async () => {
    const v = repo();
    expect(mem(['index'], { cwd: v.root, home: v.home }).status).toBe(0);
    const parts: string[] = ['# Memory\n\n'];
    for (let i = 0; i < 8000; i++) parts.push(entry(`e-${i}`, `Entry number ${i} about topic ${i % 97} and the build ${i % 13}.`));
    v.write('MEMORY.md', parts.join(''));
    for (let f = 0; f < 40; f++) v.write(`memory/n${f}/MEMORY.md`, parts.slice(0, 100).join(''));
    expect(install(v).status).toBe(0);
    // The index is held by another writer while the hooks run, and their index waits for it far
    // longer than the test runs: a hook that indexed in the foreground would never return.
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(v.path('.memory.db'));
    db.exec('BEGIN IMMEDIATE');
    try {
      for (const h of ['post-merge', 'post-checkout', 'post-rewrite']) {
        // stdout and stderr are pipes, as under an IDE or a wrapper that reads git's output: the
        // hook is done when they close, not only when its process exits.
        const r = spawnSync(hookFile(v, h), h === 'post-checkout' ? ['0', '0', '1'] : h === 'post-rewrite' ? ['amend'] : ['0'], {
          cwd: v.root, input: '', stdio: 'pipe', env: { ...process.env, MEM_BUSY_TIMEOUT_MS: '600000' }, timeout: 100_000, killSignal: 'SIGKILL',
        });
        expect(r.signal, `${h} waited for its index`).toBeNull();
        expect(r.status).toBe(0);
      }
      // Returned, and their index is still to come.
      expect(ids(v)).toEqual(['base-entry']);
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
    // the index they started in the background does get there
    await waitFor(v, (i) => i.includes('e-7999'));
  });
});
