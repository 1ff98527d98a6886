// The duplicate check end to end: `mem extract` with the offline heuristics does not write a rule
// the project's memory already holds, in other words or in another memory file of the project.

import { afterEach, describe, expect, it } from 'vitest';
import { OFFLINE, SAMPLE, vault } from '../fixtures/extract.js';
import { cleanup, entry } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const MIGRATIONS = entry('0b6a1c2e-0a41-4d8e-9c77-1e2f3a4b5c6d', '## [2026-10-02] Corrective: run migrations before the API tests\n\nThe API tests fail with `relation "orders" does not exist` on a fresh database.\nRun `npm run db:migrate` first; CI does this in its setup step.', { type: 'corrective' });
const NPM = entry('1c7b2d3f-1b52-4e9f-8d88-2f3a4b5c6d7e', "## [2026-10-05] Corrective: use npm, not yarn, in this repo\n\nThe lockfile is package-lock.json; yarn would write its own.", { type: 'corrective' });

describe('extract: no second copy of a rule memory holds', () => {
  it('the same rule in other words, in the target file or in another file of the project, is a duplicate', async () => {
    const v = vault(MIGRATIONS);
    v.write('proxy.md', `# Proxy memory\n\n${NPM}`);
    const j = (await run(['extract', SAMPLE, '--json'], { cwd: v.root, env: OFFLINE })).json();
    // Only the preference is new.
    expect(j.written.map((w: { title: string }) => w.title)).toEqual(['I prefer small commits with the test in the same commit']);
    expect(j.rejected_learnings.map((r: { title: string; detail: string }) => `${r.title} | ${r.detail}`)).toEqual([
      'Don\'t use yarn here, we always use npm in this repo. | MEMORY.md states the same rule as "use npm, not yarn, in this repo" in proxy.md',
      'The API tests need the migrations on a fresh database; CI runs them in its setup step. | MEMORY.md states the same rule as "run migrations before the API tests"',
      'Run `npm run db:migrate -- --env test` before `npm test -- checkout` | MEMORY.md states the same rule as "run migrations before the API tests"',
    ]);
    // Each duplicate names the file that already holds the rule.
    expect(j.duplicates.map((d: { file: string }) => d.file)).toEqual(['proxy.md', 'MEMORY.md', 'MEMORY.md']);
    expect(v.read('MEMORY.md').match(/^## .*migrat/gm)).toHaveLength(1);
  });

  it('with nothing like them in memory, the same learnings are written', async () => {
    const v = vault();
    const j = (await run(['extract', SAMPLE, '--json'], { cwd: v.root, env: OFFLINE })).json();
    expect(j.written.map((w: { title: string }) => w.title)).toEqual([
      "Don't use yarn here, we always use npm in this repo.",
      'The API tests need the migrations on a fresh database; CI runs them in its setup step.',
      'I prefer small commits with the test in the same commit',
      'Run `npm run db:migrate -- --env test` before `npm test -- checkout`',
    ]);
  });
});
