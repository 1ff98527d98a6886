// The vault's edges where a real process is the point: the agent's hook run with its payload on
// standard input (with .mem/logs linked out), and a folder mem cannot list, which needs mem to run
// as another user when the tests run as root. The rest is in test/e2e/hostile-boundary.test.ts.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { vaultBesideSecrets } from '../fixtures/hostile-boundary.js';
import { cleanup, entry, mem, REPO, tempDir, tempVault } from '../helpers.js';

afterEach(cleanup);

describe('writes never go through a link out of the vault', () => {
  it('mem extract --hook with .mem/logs linked out: exit 0 for the agent, no log written outside', () => {
    const { v } = vaultBesideSecrets();
    const elsewhere = tempDir('mem-elsewhere-');
    fs.symlinkSync(elsewhere, v.path('.mem/logs'));
    const sample = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');
    for (const input of ['not json', JSON.stringify({ session_id: 'h1', transcript_path: sample, cwd: v.root, hook_event_name: 'SessionEnd' })]) {
      const r = mem(['extract', '--hook', 'claude'], { cwd: v.root, home: v.home, input });
      expect(r.status).toBe(0);
    }
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});

const isRoot = process.getuid?.() === 0;
/** nobody: a folder with mode 000 does not stop root, so as root the CLI runs as this user. */
const NOBODY = 65534;

describe('a memory folder mem cannot list', () => {
  it.skipIf(process.platform === 'win32')('is reported by search, context, doctor and lint, and comes back when readable', () => {
    const v = tempVault();
    v.write('memory/ok.md', entry('ok1', '## Deploy public\nDeploy via CI.'));
    v.write('memory/private/keys.md', entry('pv1', '## Deploy keys\nRotate deploy keys monthly.'));
    v.write('memory/private/sub/more.md', entry('pv2', '## Deploy more keys\nMore deploy keys.'));
    if (isRoot) {
      const base = path.dirname(v.root);
      fs.chmodSync(base, 0o755);
      spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, base]);
    }
    const run = (args: string[]) => mem(args, { cwd: v.root, home: v.home, spawn: isRoot ? { uid: NOBODY, gid: NOBODY } : undefined });
    expect(run(['search', 'deploy', '--ids']).stdout.split('\n')).toContain('pv1');
    // No permission at all, and read without search (the names listed, none can be opened).
    for (const mode of [0o000, 0o444, 0o111]) {
      fs.chmodSync(v.path('memory/private'), mode);
      try {
        for (const args of [['search', 'deploy'], ['context', 'deploy'], ['list'], ['index'], ['index', '--rebuild']]) {
          const r = run(args);
          expect(r.status, `${mode.toString(8)} ${args.join(' ')}: ${r.stderr}`).toBe(0);
          expect(r.stderr.match(/mem: warning: cannot list memory\/private(\/sub)?\/ \(permission denied\)/g), mode.toString(8)).toHaveLength(1);
        }
        expect(run(['doctor']).stdout).toMatch(/cannot list memory\/private(\/sub)?\//);
        expect(run(['lint']).stderr).toMatch(/cannot list memory\/private(\/sub)?\//);
      } finally {
        fs.chmodSync(v.path('memory/private'), 0o755);
      }
    }
    const back = run(['search', 'deploy', '--ids']);
    expect(back.stdout.split('\n')).toEqual(expect.arrayContaining(['pv1', 'pv2']));
    expect(back.stderr).not.toContain('cannot list');
  });
});

describe('an index made read-only and writable again', () => {
  it.skipIf(process.platform === 'win32')('a read while it was read-only leaves its -shm read-only: mem index names that file', () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('k1', '## Kiwi\nKiwi fruit ripens at room temperature.'));
    if (isRoot) {
      const base = path.dirname(v.root);
      fs.chmodSync(base, 0o755);
      spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, base]);
    }
    const run = (args: string[]) => mem(args, { cwd: v.root, home: v.home, spawn: isRoot ? { uid: NOBODY, gid: NOBODY } : undefined });
    expect(run(['index']).status).toBe(0);
    fs.chmodSync(v.path('.memory.db'), 0o444);
    // A read still answers (from a temporary index); SQLite makes -shm with the index's permissions.
    expect(run(['search', 'kiwi', '--ids']).stdout.trim()).toBe('k1');
    fs.chmodSync(v.path('.memory.db'), 0o644);
    fs.appendFileSync(v.path('MEMORY.md'), entry('k2', '## Kiwi skin\nThe skin is edible.'));
    const r = run(['index']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: the index \.memory\.db cannot be written \(attempt to write a readonly database\)\nhint: \.memory\.db-(shm|wal)( and \.memory\.db-(shm|wal))? cannot be written: make (it|them) writable/);
    fs.chmodSync(v.path('.memory.db-shm'), 0o644);
    if (fs.existsSync(v.path('.memory.db-wal'))) fs.chmodSync(v.path('.memory.db-wal'), 0o644);
    expect(run(['index']).status).toBe(0);
    expect(run(['search', 'skin', '--ids']).stdout.trim()).toBe('k2');
  });
});
