// Typed notes and memory/ files through real git merges: the driver merges pattern notes by field,
// mem resolve finds every file the driver covers, a note left with conflict markers is named as
// such, and a vault set up by an older mem gets the new coverage when the setup runs again.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, git, mem, tempVault } from '../helpers.js';

afterEach(cleanup);

const NOW = '2026-11-25';

function gitTry(cwd: string, args: string[]): { status: number; out: string } {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

function setup(opts: { init?: boolean } = {}) {
  const v = tempVault({ git: true });
  git(v.root, ['checkout', '-q', '-b', 'main']);
  const run = (args: string[], now = NOW) => mem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: now } });
  if (opts.init !== false) expect(run(['init', '-q']).status).toBe(0);
  else {
    v.write('MEMORY.md', '# Project memory\n');
    v.write('.gitignore', '.memory.db*\n');
  }
  const commit = (msg: string) => {
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-q', '-m', msg]);
  };
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

const PATTERN = '.mem/patterns/PATTERN-run-migrations-first.md';
const markers = (text: string) => text.split(/\r?\n/).filter((l) => /^(<{7}|={7}|>{7})( |$)/.test(l));
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
    expect(`${validate.stdout}${validate.stderr}`.split('\n').filter((l) => /PATTERN-run/.test(l) && !/broken link|no pattern note/.test(l))).toEqual([]);
  });
});

describe('mem resolve finds every file the driver covers', () => {
  it('memory/ files and pattern notes conflicted by a merge without the driver: found and resolved with no file named', () => {
    const s = setup({ init: false });
    const e = (id: string, count = 0) => `---\nid: ${id}\nstatus: active\nreinforcement_count: ${count}\n---\n## Entry ${id}\n\nBody of ${id}.\n`;
    s.v.write('memory/backend/deploy.md', `# Deploy\n\n${e('a')}`);
    s.patternAdd(['--trigger', 'API tests fail on a fresh database', '--action', 'Run the migrations first.']);
    const m = s.branches(
      () => {
        s.v.write('memory/backend/deploy.md', `# Deploy\n\n${e('a', 1)}\n${e('t')}`);
        s.patternAdd(['--evidence-episode', 'theirs-1', '--success-rate', '0'], '2026-11-26');
      },
      () => {
        s.v.write('memory/backend/deploy.md', `# Deploy\n\n${e('a', 1)}\n${e('o')}`);
        s.patternAdd(['--evidence-episode', 'ours-1'], '2026-11-27');
      },
    );
    expect(m.status).not.toBe(0);
    const unmerged = gitTry(s.v.root, ['diff', '--name-only', '--diff-filter=U']).out.trim().split('\n').sort();
    expect(unmerged).toEqual(['.mem/patterns/PATTERN-run-migrations-first.md', 'memory/backend/deploy.md']);
    // The note as git left it: named as a conflict by the listing, validate and lint.
    const list = s.run(['pattern', 'list']);
    expect(list.stderr).toMatch(new RegExp(`${PATTERN.replace(/[.]/g, '\\.')}:\\d+: (not listed: )?unresolved merge conflict`));
    expect(list.stderr).not.toMatch(/does not parse/);
    const validate = s.run(['validate']);
    expect(validate.status).toBe(1);
    expect(`${validate.stdout}${validate.stderr}`).toMatch(new RegExp(`${PATTERN.replace(/[.]/g, '\\.')}:\\d+.*unresolved merge conflict`));
    expect(`${validate.stdout}${validate.stderr}`).not.toMatch(/frontmatter/);
    const lint = s.run(['lint']);
    expect(lint.status).toBe(1);
    expect(`${lint.stdout}${lint.stderr}`).toMatch(/unresolved merge conflict/);
    // Adding to it is refused, with the reason.
    const add = s.run(['pattern', 'add', '--name', 'run-migrations-first']);
    expect(add.status).toBe(1);
    expect(add.stderr).toMatch(/unresolved merge conflict/);

    const r = s.run(['resolve']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^resolved memory\/backend\/deploy\.md \(staged\)$/m);
    expect(r.stdout).toMatch(/^resolved \.mem\/patterns\/PATTERN-run-migrations-first\.md \(staged\)$/m);
    expect(gitTry(s.v.root, ['ls-files', '-u']).out).toBe('');
    expect(s.v.read('memory/backend/deploy.md')).toBe(`# Deploy\n\n${e('a', 2)}\n${e('o')}\n${e('t')}`);
    const note = s.v.read(PATTERN);
    expect(markers(note)).toEqual([]);
    expect(note).toMatch(/^occurrences: 3$/m);
    expect(note).toMatch(/^success_rate: 0\.666667$/m);
    const after = s.run(['validate']);
    expect(`${after.stdout}${after.stderr}`.split('\n').filter((l) => /PATTERN-run/.test(l) && !/broken link/.test(l))).toEqual([]);
    expect(s.run(['pattern', 'list']).stderr).toBe('');
  });

  it('an entry edited on both sides under memory/ (driver set up): mem resolve finds it and names the entry', () => {
    const s = setup();
    const e = (id: string, body: string) => `---\nid: ${id}\nstatus: active\n---\n## Entry ${id}\n\n${body}\n`;
    s.v.write('memory/x.md', `# X\n\n${e('a', 'Base body.')}`);
    const m = s.branches(() => s.v.write('memory/x.md', `# X\n\n${e('a', 'Theirs body.')}`), () => s.v.write('memory/x.md', `# X\n\n${e('a', 'Ours body.')}`));
    expect(m.status).not.toBe(0);
    const r = s.run(['resolve']);
    expect(r.stderr).not.toMatch(/no unmerged memory files/);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: memory\/x\.md: entry a edited on both sides/m);
  });
});

describe('a vault set up by an older mem', () => {
  it('mem doctor says the driver setup is out of date; mem init adds the missing lines and keeps the rest', () => {
    const s = setup({ init: false });
    const old = '*.png binary\n\n# mem: memory files merge by entry id\nMEMORY.md merge=mem\ninstitutional.md merge=mem\nproxy*.md merge=mem\n';
    s.v.write('.gitattributes', old);
    expect(s.run(['init', '-q']).status).toBe(0);
    const attrs = s.v.read('.gitattributes');
    expect(attrs.startsWith(old)).toBe(true);
    expect(attrs.slice(old.length)).toBe('memory/**/*.md merge=mem\n.mem/patterns/*.md merge=mem\n.mem/episodes/*.md merge=mem\n');
    expect(s.run(['doctor', '--json']).json().checks.find((c: { name: string }) => c.name === 'merge driver')).toMatchObject({ status: 'ok' });
    // Back to the old lines: doctor names what is not covered.
    s.v.write('.gitattributes', old);
    const check = s.run(['doctor', '--json']).json().checks.find((c: { name: string }) => c.name === 'merge driver');
    expect(check).toMatchObject({ status: 'warn' });
    expect(check.detail).toMatch(/out of date: memory\/\*\*\/\*\.md, \.mem\/patterns\/\*\.md, \.mem\/episodes\/\*\.md/);
    expect(check.hint).toMatch(/mem init/);
    // mem hooks install --git brings them too.
    expect(s.run(['hooks', 'install', '--git', '-q']).status).toBe(0);
    expect(s.v.read('.gitattributes')).toBe(attrs);
  });
});
