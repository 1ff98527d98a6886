// Each run of mem (a command in this process, as the tests run them) has its own settings: the
// timeouts its environment names and the folders its writes are confined to. None leaks into
// the next run or into what follows.
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

  it('a run sees its own timeouts and write confinement, and leaves nothing of them to the next run or to what follows', async () => {
    const a = tempDir();
    const b = tempDir();
    const outsideDir = tempDir();
    fs.symlinkSync(outsideDir, path.join(a, 'link'));
    const one = (ms: string, base: string | null) => inRun(settingsFrom({ MEM_LOCK_TIMEOUT_MS: ms }), async () => {
      if (base) confineWritesTo([base]);
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        await tick();
        seen.push(`${runSettings().lockTimeoutMs}:${runSettings().writeBases.join(',')}`);
      }
      // Only a run confined to `a` refuses a write through a's link out.
      try {
        writeTarget(path.join(a, 'link', 'x.md'));
        return { seen, write: 'written' };
      } catch (err) {
        return { seen, write: (err as Error).message };
      }
    });
    const ra = await one('111', a);
    expect(ra.seen).toEqual(Array(3).fill(`111:${path.resolve(a)}`));
    expect(ra.write).toMatch(/leads out of the vault through a symlink/);
    const rb = await one('222', null);
    expect(rb.seen).toEqual(Array(3).fill('222:'));
    expect(rb.write).toBe('written');
    // A run inside another (nothing in mem does it) gives the outer one back when it ends.
    await inRun(settingsFrom({ MEM_LOCK_TIMEOUT_MS: '333' }), async () => {
      await one('444', b);
      expect(runSettings().lockTimeoutMs).toBe(333);
      expect(runSettings().writeBases).toEqual([]);
    });
    // A run that fails gives them back too.
    await expect(inRun(settingsFrom({ MEM_LOCK_TIMEOUT_MS: '555' }), async () => {
      await tick();
      throw new Error('boom');
    })).rejects.toThrow('boom');
    // Outside any run: the defaults, untouched by all of them.
    expect(runSettings().lockTimeoutMs).toBe(LOCK_TIMEOUT_MS);
    expect(runSettings().writeBases).toEqual([]);
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
