// CI checks: `--check` on lint, compact, promote and consolidate — exit codes, nothing written
// (bytes and mtimes of every file and folder), the JSON shape — and the CI workflow in examples/ci/
// as a file. The real check.sh and the workflow's steps run the installed command:
// test/process/git-ci.test.ts.

import { afterEach, describe, expect, it } from 'vitest';
import { CLEAN, DUP_A, DUP_B, expectUnchanged, NOW, POSIX, runAtNow, snapshot, workflowJob } from '../fixtures/git-ci.js';
import { cleanup, entry, git, tempVault, type TempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

const run = runAtNow(runIn);

interface Dirty {
  name: string;
  command: 'lint' | 'compact' | 'promote' | 'consolidate';
  make(v: TempVault): void;
}

const DIRTY: Dirty[] = [
  { name: 'a near-duplicate pair', command: 'compact', make: (v) => v.write('MEMORY.md', `# Memory\n\n${entry('d1', DUP_A)}${entry('d2', DUP_B, { importance: 0.6 })}`) },
  {
    name: 'a retired entry in a CRLF file with a BOM', command: 'compact',
    make: (v) => v.write('institutional.md', Buffer.from(`\ufeff# Memory\r\n\r\n${(entry('k1', 'Tag releases from the main branch only.') + entry('r1', 'An old lesson nobody follows.', { status: 'retired' })).replace(/\n/g, '\r\n')}`)),
  },
  {
    name: 'a lesson learnt in three jobs', command: 'promote',
    make: (v) => { for (const j of ['j1', 'j2', 'j3']) v.write(`.mem/jobs/${j}/MEMORY.md`, entry(`${j}-l`, 'Always run the linter before committing changes to avoid failing builds.')); },
  },
  {
    name: 'two contradicting learnings', command: 'consolidate',
    make: (v) => v.write('MEMORY.md', entry('old', 'Use npm to install packages in this repository.', { created_at: '2026-10-01' }) + entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' })),
  },
  { name: 'an enum in the wrong case', command: 'lint', make: (v) => v.write('MEMORY.md', entry('c1', 'Keep the changelog up to date.', { type: 'Procedural' })) },
  { name: 'an id used twice across files', command: 'lint', make: (v) => { v.write('MEMORY.md', entry('same', 'One lesson.')); v.write('institutional.md', entry('same', 'Another lesson entirely.')); } },
];

describe('--check on lint, compact, promote and consolidate', () => {
  for (const d of DIRTY) {
    it(`${d.command} --check: ${d.name} → exit 1, the dry run's lines, nothing written`, async () => {
      const v = tempVault();
      d.make(v);
      const before = snapshot(v.root, v.home);
      const check = await run(v, [d.command, '--check']);
      expect(check.status, check.stderr).toBe(1);
      expectUnchanged(v, before);
      // The lines the command prints without --check (as a dry run where it has one).
      if (d.command !== 'lint') {
        const dry = await run(v, [d.command, '--dry-run']);
        expect(dry.status, dry.stderr).toBe(0);
        expect(check.stdout).toBe(dry.stdout);
        expect(check.stdout.trim()).not.toBe('');
      } else {
        expect(check.stdout).toContain((await run(v, ['lint'])).stdout);
      }
      const json = await run(v, [d.command, '--check', '--json']);
      expect(json.status).toBe(1);
      expect(json.json()).toMatchObject({ dry_run: true, check: true, clean: false });
      expectUnchanged(v, before);
    });
  }

  it('a clean vault passes all four, with the same JSON shape as the dry run plus check/clean', async () => {
    const v = tempVault();
    v.write('MEMORY.md', CLEAN);
    const before = snapshot(v.root, v.home);
    for (const c of ['compact', 'promote', 'consolidate']) {
      const r = await run(v, [c, '--check', '--json']);
      expect(r.status, `${c}: ${r.stderr}`).toBe(0);
      const dry = (await run(v, [c, '--dry-run', '--json'])).json();
      expect(r.json()).toEqual({ ...dry, check: true, clean: true });
      expect((await run(v, [c, '--check'])).status).toBe(0);
    }
    const lint = await run(v, ['lint', '--check', '--json']);
    expect(lint.status, lint.stderr).toBe(0);
    expect(lint.json()).toEqual({ dry_run: true, check: true, clean: true, files: 1, problems: [], fixed: 0, removed: 0, would_fix: [] });
    expectUnchanged(v, before);
  });

  it('a malformed entry never passes a check: compact --check and lint --check exit 1, nothing written', async () => {
    for (const bad of ['---\nid: [broken\n---\n## x\n\nbody\n', '---\nid: x1\ntype: procedural\n  nested: oops\n---\nBody.\n']) {
      const v = tempVault();
      v.write('MEMORY.md', `# Memory\n\n${entry('g1', 'A good lesson.')}${bad}`);
      const before = snapshot(v.root, v.home);
      for (const c of ['compact', 'lint']) {
        const r = await run(v, [c, '--check']);
        expect(r.status, `${c}: ${r.stderr}`).toBe(1);
        expect(r.stdout + r.stderr).toMatch(/MEMORY\.md:\d+/);
      }
      expectUnchanged(v, before);
    }
  });

  it('consolidate --check counts a flagged same-day pair as not clean, and agrees with its --dry-run JSON', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('y1', 'Use yarn to install the packages of this repository.', { created_at: NOW }) + entry('p1', 'Use pnpm to install the packages of this repository.', { created_at: NOW }));
    const before = snapshot(v.root, v.home);
    const r = await run(v, ['consolidate', '--check', '--json']);
    expect(r.status).toBe(1);
    const dry = (await run(v, ['consolidate', '--dry-run', '--json'])).json();
    expect(dry.conflicts.length).toBeGreaterThan(0);
    expect(r.json()).toEqual({ ...dry, check: true, clean: false });
    expectUnchanged(v, before);
  });

  it('lint --check also fails when only --fix --remove-empty would change a file; --check --fix is a usage error', async () => {
    const v = tempVault();
    v.write('MEMORY.md', `# Memory\n\n---\nid: e1\ntype: procedural\ndomain: team\nimportance: 0.5\nstatus: active\n---\n\n${entry('a1', 'A real lesson with text.')}`);
    const before = snapshot(v.root, v.home);
    // An empty entry is a warning: lint passes, and so does --check (--fix alone keeps it).
    expect((await run(v, ['lint'])).status).toBe(0);
    expect((await run(v, ['lint', '--check'])).status).toBe(0);
    const r = await run(v, ['lint', '--check', '--remove-empty']);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('MEMORY.md: mem lint --fix would remove 1 empty entry');
    const j = (await run(v, ['lint', '--check', '--remove-empty', '--json'])).json();
    expect(j).toMatchObject({ check: true, clean: false, fixed: 0, removed: 1, would_fix: [{ file: 'MEMORY.md', fixes: 0, removed: 1 }] });
    expect((await run(v, ['lint', '--check', '--fix'])).status).toBe(2);
    expectUnchanged(v, before);
    // What --check announced is what --fix does.
    expect((await run(v, ['lint', '--fix', '--remove-empty'])).status).toBe(0);
    expect((await run(v, ['lint', '--check', '--remove-empty'])).status).toBe(0);
  });

  it('lint --check reports a pending normalisation per file; after --fix it passes', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('c1', 'Keep the changelog up to date.', { type: 'Procedural', domain: 'TEAM' }));
    v.write('institutional.md', entry('c2', 'Review every migration twice.', { last_reinforced: '2026/1/2' }));
    const r = await run(v, ['lint', '--check']);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('MEMORY.md: mem lint --fix would fix 2 values');
    expect(r.stdout).toContain('institutional.md: mem lint --fix would fix 1 value');
    expect((await run(v, ['lint', '--fix'])).status).toBe(0);
    expect((await run(v, ['lint', '--check'])).status).toBe(0);
  });

  it.runIf(POSIX)('lint --check --staged looks at the staged text, not the file on disk', async () => {
    const v = tempVault({ git: true });
    v.write('MEMORY.md', entry('s1', 'Staged lesson.', { type: 'Procedural' }));
    git(v.root, ['add', 'MEMORY.md']);
    v.write('MEMORY.md', entry('s1', 'Staged lesson.'));
    expect((await run(v, ['lint', '--check'])).status).toBe(0);
    const r = await run(v, ['lint', '--check', '--staged']);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('mem lint --fix would fix 1 value');
  });
});

describe.runIf(POSIX)('examples/ci/mem.yml', () => {
  const { job, step } = workflowJob();

  it('is a complete job: checkout, Node 20, install mem from MEM_REPO at MEM_REF, check', () => {
    expect(job['runs-on']).toBe('ubuntu-latest');
    expect(job.steps[0].uses).toMatch(/^actions\/checkout@/);
    expect(job.steps[1]).toMatchObject({ uses: expect.stringMatching(/^actions\/setup-node@/), with: { 'node-version': 20 } });
    expect(Object.keys(job.env)).toEqual(expect.arrayContaining(['MEM_REPO', 'MEM_REF']));
    expect(step('Install mem').run).toMatch(/npm ci/);
    expect(step('Check memory').run).toContain('examples/ci/check.sh');
  });
});
