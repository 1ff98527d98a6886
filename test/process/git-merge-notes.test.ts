// Typed notes and memory/ files through real git merges that run the driver: it merges pattern notes
// by field, and an entry edited on both sides under memory/ stops with markers that mem resolve
// names (the rest, in-process: test/e2e/git-merge-notes.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { committer } from '../fixtures/git-merge.js';
import { gitTry, markers, NOW, PATTERN, withoutInit } from '../fixtures/git-merge-notes.js';
import { cleanup, git, mem, tempVault } from '../helpers.js';

afterEach(cleanup);

function setup(opts: { init?: boolean } = {}) {
  const v = tempVault({ git: true });
  git(v.root, ['checkout', '-q', '-b', 'main']);
  const run = (args: string[], now = NOW) => mem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: now } });
  if (opts.init !== false) expect(run(['init', '-q']).status).toBe(0);
  else withoutInit(v);
  const commit = committer(v);
  /** `onOther` on a branch, `onMain` on main, then a merge of the branch: its status. */
  const branches = (onOther: () => void, onMain: () => void) => {
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'other']);
    onOther();
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    onMain();
    commit('ours');
    return gitTry(v.root, ['merge', '--no-edit', 'other']);
  };
  const patternAdd = (args: string[], now = NOW) => {
    const r = run(['pattern', 'add', '--name', 'run-migrations-first', ...args], now);
    expect(r.status, r.stderr).toBe(0);
  };
  return { v, run, commit, branches, patternAdd };
}

type Row = { title: string; occurrences: number; success_rate: number; last_validated: string };

describe('pattern notes through a merge with the driver', () => {
  it('mem pattern add on two branches: a clean merge, occurrences added up from the base, the rate recomputed, evidence unioned', () => {
    const s = setup();
    s.patternAdd(['--trigger', 'API tests fail on a fresh database', '--action', 'Run the migrations first.', '--evidence-episode', 'base-1']);
    const m = s.branches(
      () => {
        s.patternAdd(['--success-rate', '0', '--evidence-episode', 'theirs-1'], '2026-11-26');
        s.patternAdd(['--success-rate', '1', '--relation', 'prevents:flaky-tests'], '2026-11-27');
      },
      () => s.patternAdd(['--success-rate', '0.5', '--evidence-episode', 'ours-1'], '2026-11-26'),
    );
    expect(m.status, m.out).toBe(0);
    const text = s.v.read(PATTERN);
    expect(markers(text)).toEqual([]);
    // Base 1 of 1; theirs 1 of 2 more; ours 0.5 of 1 more: 2.5 successes in 4.
    expect(text).toMatch(/^occurrences: 4$/m);
    expect(text).toMatch(/^success_rate: 0\.625$/m);
    expect(text).toMatch(/^last_validated: '?2026-11-27'?$/m);
    for (const ep of ['EPISODE-base-1', 'EPISODE-ours-1', 'EPISODE-theirs-1']) expect(text).toContain(`- [[${ep}]]`);
    expect(text).toContain('- prevents [[flaky-tests]]');
    const list = s.run(['pattern', 'list', '--json']);
    expect(list.status, list.stderr).toBe(0);
    const rows = list.json().patterns as Row[];
    expect(rows.map((r) => [r.title, r.occurrences, r.success_rate])).toEqual([['PATTERN-run-migrations-first', 4, 0.625]]);
    expect(list.stderr).toBe('');
    // The schema holds (the only findings: links to episodes this vault does not have).
    const validate = s.run(['validate']);
    expect(`${validate.stdout}${validate.stderr}`.split('\n').filter((l) => /PATTERN-run/.test(l) && !/broken link|no pattern (or observation )?note/.test(l))).toEqual([]);
  });
});

describe('mem resolve finds every file the driver covers', () => {
  it('an entry edited on both sides under memory/ (driver set up): mem resolve finds it and names the entry', () => {
    const s = setup();
    const e = (id: string, body: string) => `---\nid: ${id}\nstatus: active\n---\n## Entry ${id}\n\n${body}\n`;
    s.v.write('memory/x.md', `# X\n\n${e('a', 'Base body.')}`);
    const m = s.branches(() => s.v.write('memory/x.md', `# X\n\n${e('a', 'Theirs body.')}`), () => s.v.write('memory/x.md', `# X\n\n${e('a', 'Ours body.')}`));
    expect(m.status).not.toBe(0);
    const r = s.run(['resolve']);
    expect(r.stderr).not.toMatch(/no unmerged memory files/);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: memory\/x\.md: entry a "Entry a" edited on both sides; left between conflict markers\nhint: edit memory\/x\.md by hand: .* then run mem lint and git add memory\/x\.md$/m);
  });
});
