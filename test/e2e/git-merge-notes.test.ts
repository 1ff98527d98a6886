// Typed notes and memory/ files after real git merges, in-process: mem resolve finds every file the
// driver covers, a note left with conflict markers is named as such, and a vault set up by an older
// mem gets the new coverage when the setup runs again. Merges that run the driver:
// test/process/git-merge-notes.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { committer } from '../fixtures/git-merge.js';
import { gitTry, markers, NOW, PATTERN, withoutInit } from '../fixtures/git-merge-notes.js';
import { cleanup, git, tempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

async function setup(opts: { init?: boolean } = {}) {
  const v = tempVault({ git: true });
  git(v.root, ['checkout', '-q', '-b', 'main']);
  const run = (args: string[], now = NOW) => runIn(args, { cwd: v.root, home: v.home, env: { MEM_NOW: now } });
  if (opts.init !== false) expect((await run(['init', '-q'])).status).toBe(0);
  else withoutInit(v);
  const commit = committer(v);
  /** `onOther` on a branch, `onMain` on main, then a merge of the branch: its status. */
  const branches = async (onOther: () => unknown, onMain: () => unknown) => {
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'other']);
    await onOther();
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    await onMain();
    commit('ours');
    return gitTry(v.root, ['merge', '--no-edit', 'other']);
  };
  const patternAdd = async (args: string[], now = NOW) => {
    const r = await run(['pattern', 'add', '--name', 'run-migrations-first', ...args], now);
    expect(r.status, r.stderr).toBe(0);
  };
  return { v, run, commit, branches, patternAdd };
}

describe('mem resolve finds every file the driver covers', () => {
  it('memory/ files and pattern notes conflicted by a merge without the driver: found and resolved with no file named', async () => {
    const s = await setup({ init: false });
    const e = (id: string, count = 0) => `---\nid: ${id}\nstatus: active\nreinforcement_count: ${count}\n---\n## Entry ${id}\n\nBody of ${id}.\n`;
    s.v.write('memory/backend/deploy.md', `# Deploy\n\n${e('a')}`);
    await s.patternAdd(['--trigger', 'API tests fail on a fresh database', '--action', 'Run the migrations first.']);
    const m = await s.branches(
      async () => {
        s.v.write('memory/backend/deploy.md', `# Deploy\n\n${e('a', 1)}\n${e('t')}`);
        await s.patternAdd(['--evidence-episode', 'theirs-1', '--success-rate', '0'], '2026-11-26');
      },
      async () => {
        s.v.write('memory/backend/deploy.md', `# Deploy\n\n${e('a', 1)}\n${e('o')}`);
        await s.patternAdd(['--evidence-episode', 'ours-1'], '2026-11-27');
      },
    );
    expect(m.status).not.toBe(0);
    const unmerged = gitTry(s.v.root, ['diff', '--name-only', '--diff-filter=U']).out.trim().split('\n').sort();
    expect(unmerged).toEqual(['.mem/patterns/PATTERN-run-migrations-first.md', 'memory/backend/deploy.md']);
    // The note as git left it: named as a conflict by the listing, validate and lint.
    const list = await s.run(['pattern', 'list']);
    expect(list.stderr).toMatch(new RegExp(`${PATTERN.replace(/[.]/g, '\\.')}:\\d+: (not listed: )?unresolved merge conflict`));
    expect(list.stderr).not.toMatch(/does not parse/);
    const validate = await s.run(['validate']);
    expect(validate.status).toBe(1);
    expect(`${validate.stdout}${validate.stderr}`).toMatch(new RegExp(`${PATTERN.replace(/[.]/g, '\\.')}:\\d+.*unresolved merge conflict`));
    expect(`${validate.stdout}${validate.stderr}`).not.toMatch(/frontmatter/);
    const lint = await s.run(['lint']);
    expect(lint.status).toBe(1);
    expect(`${lint.stdout}${lint.stderr}`).toMatch(/unresolved merge conflict/);
    // Adding to it is refused, with the reason.
    const add = await s.run(['pattern', 'add', '--name', 'run-migrations-first']);
    expect(add.status).toBe(1);
    expect(add.stderr).toMatch(/unresolved merge conflict/);

    const r = await s.run(['resolve']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^resolved memory\/backend\/deploy\.md \(staged\)$/m);
    expect(r.stdout).toMatch(/^resolved \.mem\/patterns\/PATTERN-run-migrations-first\.md \(staged\)$/m);
    expect(gitTry(s.v.root, ['ls-files', '-u']).out).toBe('');
    expect(s.v.read('memory/backend/deploy.md')).toBe(`# Deploy\n\n${e('a', 2)}\n${e('o')}\n${e('t')}`);
    const note = s.v.read(PATTERN);
    expect(markers(note)).toEqual([]);
    expect(note).toMatch(/^occurrences: 3$/m);
    expect(note).toMatch(/^success_rate: 0\.666667$/m);
    const after = await s.run(['validate']);
    expect(`${after.stdout}${after.stderr}`.split('\n').filter((l) => /PATTERN-run/.test(l) && !/broken link/.test(l))).toEqual([]);
    expect((await s.run(['pattern', 'list'])).stderr).toBe('');
  });

});

describe('a vault set up by an older mem', () => {
  it('mem doctor says the driver setup is out of date; mem init adds the missing lines and keeps the rest', async () => {
    const s = await setup({ init: false });
    const old = '*.png binary\n\n# mem: memory files merge by entry id\nMEMORY.md merge=mem\ninstitutional.md merge=mem\nproxy*.md merge=mem\n';
    s.v.write('.gitattributes', old);
    expect((await s.run(['init', '-q'])).status).toBe(0);
    const attrs = s.v.read('.gitattributes');
    expect(attrs.startsWith(old)).toBe(true);
    expect(attrs.slice(old.length)).toBe('memory/**/*.md merge=mem\n.mem/patterns/*.md merge=mem\n.mem/episodes/*.md merge=mem\n');
    expect((await s.run(['doctor', '--json'])).json().checks.find((c: { name: string }) => c.name === 'merge driver')).toMatchObject({ status: 'ok' });
    // Back to the old lines: doctor names what is not covered.
    s.v.write('.gitattributes', old);
    const check = (await s.run(['doctor', '--json'])).json().checks.find((c: { name: string }) => c.name === 'merge driver');
    expect(check).toMatchObject({ status: 'warn' });
    expect(check.detail).toMatch(/out of date: memory\/\*\*\/\*\.md, \.mem\/patterns\/\*\.md, \.mem\/episodes\/\*\.md/);
    expect(check.hint).toMatch(/mem init/);
    // mem hooks install --git brings them too.
    expect((await s.run(['hooks', 'install', '--git', '-q'])).status).toBe(0);
    expect(s.v.read('.gitattributes')).toBe(attrs);
  });
});
