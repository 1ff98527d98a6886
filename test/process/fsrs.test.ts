// FSRS in the built CLI: a plain `mem search` never loads ts-fsrs, `--rank fsrs` does (what the
// process's module cache holds, seen through a --require probe).

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, entry, mem, tempDir, tempVault } from '../helpers.js';

afterAll(cleanup);

/** Two entries with the same words (equal relevance) and the same stability, reviewed 60 days and 1 day ago. */
function rankVault() {
  const v = tempVault();
  const state = (lr: string) => `{stability: 5, difficulty: 5, last_review: '${lr}', reps: 2, lapses: 0, state: review}`;
  v.write('MEMORY.md', `# Memory\n\n${entry('11111111-0000-4000-8000-00000000000a', '## Rotate the signing keys\nRotate the signing keys every quarter.', { created_at: '2026-09-01', fsrs: state('2026-09-27T12:00:00Z') })}`
    + `${entry('22222222-0000-4000-8000-00000000000b', '## Rotate the signing keys\nRotate the signing keys every quarter.', { created_at: '2026-09-01', fsrs: state('2026-11-25T12:00:00Z') })}`);
  return v;
}

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
