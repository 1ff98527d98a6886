// The built CLI under Node's pending deprecations: a process flag (NODE_OPTIONS,
// NODE_PENDING_DEPRECATION) that only a process started with it shows.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, entry, tempVault } from '../helpers.js';

afterEach(cleanup);

describe('statInto', () => {
  it('prints no deprecation warning when Node is asked to show pending ones', () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations first.'));
    for (const env of [{ NODE_OPTIONS: '--pending-deprecation' }, { NODE_PENDING_DEPRECATION: '1' }]) {
      const r = spawnSync(process.execPath, [BIN, 'search', 'migrations'], { cwd: v.root, encoding: 'utf8', env: { ...process.env, MEM_HOME: v.home, NO_COLOR: '1', ...env } });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/Deprecation/);
      expect(r.stdout).toContain('migrations');
    }
  });
});
