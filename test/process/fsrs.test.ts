// FSRS in the built CLI: a plain `mem search` never loads ts-fsrs, `--rank fsrs` does (what the
// process's module cache holds, seen through a --require probe).

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rankVault } from '../fixtures/fsrs.js';
import { cleanup, mem, tempDir } from '../helpers.js';

afterAll(cleanup);

describe('--rank fsrs', () => {
  it('a plain mem search does not load ts-fsrs; --rank fsrs does', () => {
    const v = rankVault();
    const probe = path.join(tempDir(), 'probe.cjs');
    fs.writeFileSync(probe, `process.on('exit', () => { const hits = Object.keys(require.cache).filter((k) => /[\\\\/]ts-fsrs[\\\\/]/.test(k)); process.stderr.write('LOADED:' + JSON.stringify(hits) + '\\n'); });\n`);
    const env = { NODE_OPTIONS: `--require ${probe}` };
    const plain = mem(['search', 'signing keys'], { cwd: v.root, home: v.home, env });
    expect(plain.status).toBe(0);
    expect(plain.stderr).toContain('LOADED:[]');
    const ranked = mem(['search', 'signing keys', '--rank', 'fsrs'], { cwd: v.root, home: v.home, env });
    expect(ranked.stderr).toMatch(/LOADED:\[".*ts-fsrs/);
  });
});
