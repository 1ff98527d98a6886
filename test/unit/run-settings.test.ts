// Each run of mem (a command in this process, as the tests run them) has its own settings: the
// timeouts its environment names and the folders its writes are confined to. None leaks into
// another run, however their steps interleave.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inRun, runSettings, settingsFrom, LOCK_TIMEOUT_MS, BUSY_TIMEOUT_MS } from '../../src/run.js';
import { confineWritesTo, writeTarget } from '../../src/vault/boundary.js';
import { acquireLock } from '../../src/vault/write.js';
import { cleanup, tempDir, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(() => {
  vi.unstubAllEnvs();
  cleanup();
});

/** A lock wait past any test's timeout. */
const LONG_WAIT_MS = 120_000;

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('run settings', () => {
  it('come from the run\'s environment, with defaults for what it does not name or names badly', () => {
    expect(settingsFrom({})).toMatchObject({ lockTimeoutMs: LOCK_TIMEOUT_MS, busyTimeoutMs: BUSY_TIMEOUT_MS, writeBases: [] });
    expect(settingsFrom({ MEM_LOCK_TIMEOUT_MS: '250', MEM_BUSY_TIMEOUT_MS: '0' })).toMatchObject({ lockTimeoutMs: 250, busyTimeoutMs: 0 });
    for (const bad of ['', ' ', '-1', 'soon', 'NaN']) {
      expect(settingsFrom({ MEM_LOCK_TIMEOUT_MS: bad }).lockTimeoutMs).toBe(LOCK_TIMEOUT_MS);
    }
  });

  it('two runs interleaved each see their own timeouts and write confinement', async () => {
    const a = tempDir();
    const b = tempDir();
    const outsideDir = tempDir();
    fs.symlinkSync(outsideDir, path.join(a, 'link'));
    const seen: string[] = [];
    const one = (name: string, ms: string, base: string) => inRun(settingsFrom({ MEM_LOCK_TIMEOUT_MS: ms }), async () => {
      confineWritesTo([base]);
      for (let i = 0; i < 5; i++) {
        await tick();
        seen.push(`${name}:${runSettings().lockTimeoutMs}:${runSettings().writeBases.join(',')}`);
      }
      // Only the run confined to `a` refuses a write through a's link out.
      try {
        writeTarget(path.join(a, 'link', 'x.md'));
        return 'written';
      } catch (err) {
        return (err as Error).message;
      }
    });
    const [ra, rb] = await Promise.all([one('a', '111', a), one('b', '222', b)]);
    expect(ra).toMatch(/leads out of the vault through a symlink/);
    expect(rb).toBe('written');
    expect(seen.filter((s) => s.startsWith('a:')).every((s) => s === `a:111:${path.resolve(a)}`)).toBe(true);
    expect(seen.filter((s) => s.startsWith('b:')).every((s) => s === `b:222:${path.resolve(b)}`)).toBe(true);
    // Outside any run: the defaults, untouched by either.
    expect(runSettings().lockTimeoutMs).toBe(LOCK_TIMEOUT_MS);
  });

  it('a command run in-process waits for a held lock as long as its own environment says, then says who holds it', async () => {
    const v = tempVault();
    v.write('MEMORY.md', '# Memory\n');
    // This process's environment and the run around the command both say two minutes, past this
    // test's timeout: a command that took either instead of its own 150 ms would end the test.
    vi.stubEnv('MEM_LOCK_TIMEOUT_MS', String(LONG_WAIT_MS));
    const lock = acquireLock(v.path('MEMORY.md'), 'MEMORY.md');
    try {
      const r = await inRun(settingsFrom({ MEM_LOCK_TIMEOUT_MS: String(LONG_WAIT_MS) }), () =>
        run(['add', 'The cache needs a warm-up after deploys.'], { cwd: v.root, home: v.home, env: { MEM_LOCK_TIMEOUT_MS: '150' } }));
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/^mem: MEMORY\.md is locked by another writer \(pid \d+\)/m);
    } finally {
      lock.release();
    }
    expect(v.read('MEMORY.md')).toBe('# Memory\n');
    const ok = await run(['add', 'The cache needs a warm-up after deploys.'], { cwd: v.root, home: v.home, env: { MEM_LOCK_TIMEOUT_MS: '150' } });
    expect(ok.status).toBe(0);
  });
});
