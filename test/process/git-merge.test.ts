// The merge driver as git runs it: mem init registers it, and merges, rebases, cherry-picks and
// pulls of memory files then merge by entry id; only a body edited on both sides stops with markers.
// (The driver run directly, its setup, mem resolve and mem lint --fix: test/e2e/git-merge.test.ts.)
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addedId, committer, gitTry, inFileOrder, LIST_ALL, markers, NOW } from '../fixtures/git-merge.js';
import { cleanup, git, headerIds, mem, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

function setup(opts: { init?: boolean } = {}) {
  const v = tempVault({ git: true });
  git(v.root, ['checkout', '-q', '-b', 'main']);
  const run = (args: string[], now = NOW) => {
    const r = mem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: now } });
    return r;
  };
  if (opts.init !== false) expect(run(['init', '-q']).status).toBe(0);
  const commit = committer(v);
  const add = (text: string, extra: string[] = []): string => addedId(run(['add', text, '--json', ...extra]));
  /** Entries as mem reads them, in file order. */
  const list = () => inFileOrder(v, run(LIST_ALL));
  return { v, run, commit, add, list };
}

describe('git merge of memory files with the mem driver', () => {
  it('both sides append (mem add on two branches): a clean merge with every entry once', () => {
    const { v, run, commit, add, list } = setup();
    const a = add('The API tests need a migrated database.');
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'other']);
    const t1 = add('Theirs: the cache must be warmed after deploys.');
    const t2 = add('Theirs: staging is slow on Mondays.');
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    const o1 = add('Ours: lint runs before the unit tests.');
    commit('ours');
    const m = gitTry(v.root, ['merge', '-q', 'other', '-m', 'merge']);
    expect(m.status, m.out).toBe(0);
    const text = v.read('MEMORY.md');
    expect(markers(text)).toEqual([]);
    expect(list().map((e) => e.id)).toEqual([a, o1, t1, t2]);
    expect(run(['lint']).status).toBe(0);
  });

  it('both reinforce one entry: the counts add up from the base, the date is the later', () => {
    const { v, run, commit, add, list } = setup();
    const a = add('Run npm run db:migrate before the API tests.');
    const b = add('Deploys go through the staging box.');
    const c = add('The cache is warmed after each deploy.');
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'other']);
    for (let i = 0; i < 3; i++) expect(run(['reinforce', a], '2026-11-26').status).toBe(0);
    expect(run(['reinforce', c], '2026-11-27').status).toBe(0);
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    expect(run(['reinforce', a], '2026-11-28').status).toBe(0);
    expect(run(['reinforce', b], '2026-11-28').status).toBe(0);
    expect(run(['reinforce', c], '2026-11-27').status).toBe(0);
    commit('ours');
    const m = gitTry(v.root, ['merge', '-q', 'other', '-m', 'merge']);
    expect(m.status, m.out).toBe(0);
    const byId = new Map(list().map((e) => [e.id, e]));
    expect(byId.get(a)).toMatchObject({ reinforcement_count: 4, last_reinforced: '2026-11-28' });
    expect(byId.get(b)).toMatchObject({ reinforcement_count: 1 });
    // Both sides 0 → 1, the same bytes for that entry on both: still two reinforcements.
    expect(byId.get(c)).toMatchObject({ reinforcement_count: 2, last_reinforced: '2026-11-27' });
  });

  it('one side retires, the other reinforces: retired wins and the reinforcement is kept (both directions)', () => {
    for (const retireOnMain of [true, false]) {
      const { v, run, commit, add, list } = setup();
      const a = add('Design docs live in docs/adr.', ['--domain', 'task', '--phase', 'design']);
      const keep = add('Keep this one active.');
      commit('base');
      git(v.root, ['checkout', '-q', '-b', 'other']);
      const retire = () => expect(run(['retire-stage', 'design']).status).toBe(0);
      const reinforce = () => {
        expect(run(['reinforce', a]).status).toBe(0);
        expect(run(['reinforce', a]).status).toBe(0);
      };
      if (retireOnMain) reinforce();
      else retire();
      commit('other');
      git(v.root, ['checkout', '-q', 'main']);
      if (retireOnMain) retire();
      else reinforce();
      commit('main');
      const m = gitTry(v.root, ['merge', '-q', 'other', '-m', 'merge']);
      expect(m.status, m.out).toBe(0);
      const byId = new Map(list().map((e) => [e.id, e]));
      expect(byId.get(a)).toMatchObject({ status: 'retired', reinforcement_count: 2 });
      expect(byId.get(keep)?.status).toBe('active');
    }
  });

  it('both edit one body: markers around that entry alone, merge exits non-zero, the rest merged', () => {
    const { v, commit, add } = setup();
    add('First entry stays as it is.');
    const b = add('The deploy script needs a token.');
    add('Third entry stays too.');
    commit('base');
    const edit = (from: string, to: string) => v.write('MEMORY.md', v.read('MEMORY.md').replace(from, to));
    git(v.root, ['checkout', '-q', '-b', 'other']);
    edit('The deploy script needs a token.', 'The deploy script needs a token from the vault (theirs).');
    const t1 = add('Theirs added this.');
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    edit('The deploy script needs a token.', 'The deploy script needs DEPLOY_TOKEN set (ours).');
    const o1 = add('Ours added this.');
    commit('ours');
    const m = gitTry(v.root, ['merge', 'other', '-m', 'merge']);
    expect(m.status).not.toBe(0);
    expect(m.out).toMatch(/CONFLICT.*MEMORY\.md/);
    expect(gitTry(v.root, ['status', '--porcelain']).out).toMatch(/^UU MEMORY\.md/m);
    const text = v.read('MEMORY.md');
    const lines = text.split('\n');
    expect(markers(text)).toHaveLength(3);
    const open = lines.findIndex((l) => l.startsWith('<<<<<<<'));
    const close = lines.findIndex((l) => l.startsWith('>>>>>>>'));
    const inside = lines.slice(open, close + 1).join('\n');
    expect(inside).toContain('(ours)');
    expect(inside).toContain('(theirs)');
    expect(inside).toContain(`id: ${b}`);
    expect(headerIds(inside)).toHaveLength(2);
    const outside = [...lines.slice(0, open), ...lines.slice(close + 1)].join('\n');
    for (const s of ['First entry stays', 'Third entry stays', `id: ${t1}`, `id: ${o1}`]) expect(outside).toContain(s);
  });

  it('rebase and cherry-pick of memory commits apply without conflicts', () => {
    const { v, commit, add, list } = setup();
    const a = add('Base entry.');
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'feature']);
    const f1 = add('Feature learned one.');
    commit('feature 1');
    const f2 = add('Feature learned two.');
    commit('feature 2');
    git(v.root, ['checkout', '-q', 'main']);
    const m1 = add('Main learned this meanwhile.');
    commit('main 1');
    // Cherry-pick one feature commit onto main.
    git(v.root, ['checkout', '-q', '-b', 'picked', 'main']);
    const cp = gitTry(v.root, ['cherry-pick', 'feature~0']);
    expect(cp.status, cp.out).toBe(0);
    expect(list().map((e) => e.id)).toEqual([a, m1, f2]);
    // Rebase the feature branch onto main.
    git(v.root, ['checkout', '-q', 'feature']);
    const rb = gitTry(v.root, ['rebase', '-q', 'main']);
    expect(rb.status, rb.out).toBe(0);
    expect(list().map((e) => e.id)).toEqual([a, m1, f1, f2]);
    expect(markers(v.read('MEMORY.md'))).toEqual([]);
  });

  it('three branches merged in sequence: every entry once, each branch\'s reinforcements counted', () => {
    const { v, run, commit, add, list } = setup();
    const a = add('Shared entry.');
    commit('base');
    const added: string[] = [];
    for (const [i, br] of ['one', 'two', 'three'].entries()) {
      git(v.root, ['checkout', '-q', '-b', br, 'main']);
      added.push(add(`Branch ${br} learned something.`));
      for (let k = 0; k <= i; k++) expect(run(['reinforce', a]).status).toBe(0);
      commit(br);
    }
    git(v.root, ['checkout', '-q', 'main']);
    for (const br of ['one', 'two', 'three']) {
      const m = gitTry(v.root, ['merge', '-q', br, '-m', `merge ${br}`]);
      expect(m.status, m.out).toBe(0);
    }
    const got = list();
    expect(got.map((e) => e.id)).toEqual([a, ...added]);
    expect(got[0].reinforcement_count).toBe(1 + 2 + 3);
    expect(run(['lint']).status).toBe(0);
  });

  it('a legacy ## [ file merges by section', () => {
    const { v, commit } = setup();
    const sec = (d: string, t: string, body: string) => `## [${d}] ${t}\n\n${body}\n\n`;
    v.write('MEMORY.md', '# Memory\n\n' + sec('2025-01-02', 'Old learning one', 'Use the old build script.') + sec('2025-02-03', 'Old learning two', 'The staging box is slow.'));
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'other']);
    v.write('MEMORY.md', v.read('MEMORY.md').replace('The staging box is slow.', 'The staging box is slow; use staging-2.') + sec('2025-03-01', 'Theirs learning', 'Theirs.'));
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    v.write('MEMORY.md', v.read('MEMORY.md') + sec('2025-03-02', 'Ours learning', 'Ours.'));
    commit('ours');
    const m = gitTry(v.root, ['merge', '-q', 'other', '-m', 'merge']);
    expect(m.status, m.out).toBe(0);
    const text = v.read('MEMORY.md');
    expect(markers(text)).toEqual([]);
    expect(text.match(/^## \[/gm)).toHaveLength(4);
    expect(text).toContain('use staging-2.');
    expect(text.indexOf('Ours learning')).toBeLessThan(text.indexOf('Theirs learning'));
  });

  it('a CRLF file stays CRLF, with entries from both sides', () => {
    const { v, run, commit, add, list } = setup();
    const a = add('First entry.');
    v.write('MEMORY.md', v.read('MEMORY.md').replace(/\r?\n/g, '\r\n'));
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'other']);
    const t = add('Theirs entry.');
    expect(run(['reinforce', a]).status).toBe(0);
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    const o = add('Ours entry.');
    commit('ours');
    const m = gitTry(v.root, ['merge', '-q', 'other', '-m', 'merge']);
    expect(m.status, m.out).toBe(0);
    const text = v.read('MEMORY.md');
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(list().map((e) => e.id)).toEqual([a, o, t]);
    expect(list()[0].reinforcement_count).toBe(1);
  });
});

describe('the driver on other memory files', () => {
  it('institutional.md, proxy*.md, a MEMORY.md in a subfolder and entries under memory/ merge by entry; a plain note merges as text', () => {
    const { v, commit } = setup();
    const e = (id: string, count = 0) => `---\nid: ${id}\nstatus: active\nreinforcement_count: ${count}\n---\n## Entry ${id}\n\nBody of ${id}.\n`;
    const files = ['institutional.md', 'proxy-alice.md', '.mem/team/MEMORY.md', 'docs/MEMORY.md', 'memory/backend/deploy.md'];
    for (const f of files) v.write(f, `# ${f}\n\n${e('a')}`);
    v.write('memory/notes.md', '# Notes\n\nline one\n');
    commit('base');
    git(v.root, ['checkout', '-q', '-b', 'other']);
    for (const f of files) v.write(f, `# ${f}\n\n${e('a', 2)}\n${e('t')}`);
    v.write('memory/notes.md', '# Notes\n\nline one\ntheirs line\n');
    commit('theirs');
    git(v.root, ['checkout', '-q', 'main']);
    for (const f of files) v.write(f, `# ${f}\n\n${e('a', 1)}\n${e('o')}`);
    v.write('memory/notes.md', '# Notes\n\nline one\nours line\n');
    commit('ours');
    const m = gitTry(v.root, ['merge', 'other', '-m', 'merge']);
    expect(m.status).not.toBe(0);
    // Only the plain note conflicts, as text.
    expect(gitTry(v.root, ['diff', '--name-only', '--diff-filter=U']).out.trim()).toBe('memory/notes.md');
    for (const f of files) expect(v.read(f), f).toBe(`# ${f}\n\n${e('a', 3)}\n${e('o')}\n${e('t')}`);
  });
});

describe('mem init registers the driver', () => {
  it('the driver works for a clone: registered by mem init there, used by git pull', () => {
    const { v, commit, add } = setup();
    add('Shared learning.');
    commit('base');
    const bare = path.join(tempDir(), 'origin.git');
    git(v.root, ['clone', '-q', '--bare', v.root, bare]);
    const clone = path.join(tempDir(), 'clone');
    git(path.dirname(clone), ['clone', '-q', bare, clone]);
    git(v.root, ['remote', 'add', 'origin', bare]);
    const home = path.join(clone, '..', 'home');
    fs.mkdirSync(home, { recursive: true });
    const inClone = (args: string[]) => mem(args, { cwd: clone, home, env: { MEM_NOW: NOW } });
    expect(inClone(['init', '-q']).status).toBe(0);
    expect(inClone(['add', 'Clone learned this.']).status).toBe(0);
    git(clone, ['commit', '-q', '-am', 'clone']);
    git(clone, ['push', '-q', 'origin', 'HEAD:main']);
    add('Origin checkout learned that.');
    commit('local');
    const pull = gitTry(v.root, ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main']);
    expect(pull.status, pull.out).toBe(0);
    const text = v.read('MEMORY.md');
    expect(markers(text)).toEqual([]);
    expect(text).toContain('Clone learned this.');
    expect(text).toContain('Origin checkout learned that.');
  });

});

describe('two clones sharing one memory', () => {
  it('concurrent add / reinforce / retire on both, git pull: only the body edited on both conflicts; no id lost or doubled', () => {
    const bare = path.join(tempDir(), 'shared.git');
    const clones = ['alice', 'bob'].map((name) => {
      const dir = path.join(path.dirname(bare), name);
      return { name, dir, home: path.join(path.dirname(bare), `${name}-home`) };
    });
    const runIn = (c: (typeof clones)[number], args: string[], now = NOW) => mem(args, { cwd: c.dir, home: c.home, env: { MEM_NOW: now } });
    // Alice starts the memory and pushes it; Bob clones it.
    const [alice, bob] = clones;
    fs.mkdirSync(alice.dir);
    fs.mkdirSync(alice.home);
    fs.mkdirSync(bob.home);
    git(path.dirname(bare), ['init', '-q', '--bare', '-b', 'main', bare]);
    git(alice.dir, ['init', '-q', '-b', 'main']);
    expect(runIn(alice, ['init', '-q']).status).toBe(0);
    const shared: string[] = [];
    for (let i = 0; i < 4; i++) shared.push(JSON.parse(runIn(alice, ['add', `Shared learning ${i} about the build.`, '--json', '--domain', 'task', '--phase', 'design']).stdout).id);
    git(alice.dir, ['add', '-A']);
    git(alice.dir, ['commit', '-q', '-m', 'memory']);
    git(alice.dir, ['remote', 'add', 'origin', bare]);
    git(alice.dir, ['push', '-q', 'origin', 'main']);
    git(path.dirname(bare), ['clone', '-q', bare, bob.dir]);
    expect(runIn(bob, ['init', '-q']).status).toBe(0);
    const edit = (c: (typeof clones)[number], from: string, to: string) => {
      const f = path.join(c.dir, 'MEMORY.md');
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(from, to));
    };
    const added: string[] = [];
    // Alice: adds, reinforces 0 and 1, edits the body of 3, pushes.
    added.push(JSON.parse(runIn(alice, ['add', 'Alice: the cache needs a warm-up.', '--json']).stdout).id);
    expect(runIn(alice, ['reinforce', shared[0], shared[1]], '2026-11-26').status).toBe(0);
    edit(alice, 'Shared learning 3 about the build.', 'Shared learning 3: use make ci (alice).');
    git(alice.dir, ['commit', '-q', '-am', 'alice']);
    git(alice.dir, ['push', '-q', 'origin', 'main']);
    // Bob, meanwhile: adds two, reinforces 0 twice, retires the design stage, edits the body of 3.
    for (const t of ['Bob: staging is slow on Mondays.', 'Bob: run lint before tests.']) added.push(JSON.parse(runIn(bob, ['add', t, '--json']).stdout).id);
    expect(runIn(bob, ['reinforce', shared[0]], '2026-11-27').status).toBe(0);
    expect(runIn(bob, ['reinforce', shared[0]], '2026-11-27').status).toBe(0);
    expect(runIn(bob, ['retire-stage', 'design']).status).toBe(0);
    edit(bob, 'Shared learning 3 about the build.', 'Shared learning 3: use npm run ci (bob).');
    git(bob.dir, ['commit', '-q', '-am', 'bob']);
    const pull = gitTry(bob.dir, ['pull', '--no-rebase', '--no-edit', 'origin', 'main']);
    expect(pull.status).not.toBe(0);
    const text = fs.readFileSync(path.join(bob.dir, 'MEMORY.md'), 'utf8');
    expect(markers(text)).toHaveLength(3);
    const inside = text.slice(text.indexOf('<<<<<<<'), text.indexOf('>>>>>>>'));
    expect(headerIds(inside)).toEqual([shared[3], shared[3]]);
    // mem resolve cannot pick a body: it says so and leaves it marked.
    const r = runIn(bob, ['resolve']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(shared[3]);
    // Bob keeps his version of the body, by hand.
    const lines = text.split('\n');
    const open = lines.findIndex((l) => l.startsWith('<<<<<<<'));
    const mid = lines.indexOf('=======');
    const close = lines.findIndex((l) => l.startsWith('>>>>>>>'));
    fs.writeFileSync(path.join(bob.dir, 'MEMORY.md'), [...lines.slice(0, open), ...lines.slice(open + 1, mid), ...lines.slice(close + 1)].join('\n'));
    expect(runIn(bob, ['lint']).status).toBe(0);
    git(bob.dir, ['commit', '-q', '-am', 'merge']);
    const list = runIn(bob, ['list', '--json', '--all', '--limit', '1000']).json().entries as { id: string; status: string; reinforcement_count: number; last_reinforced: string }[];
    const ids = list.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...shared, ...added].sort());
    const byId = new Map(list.map((e) => [e.id, e]));
    expect(byId.get(shared[0])).toMatchObject({ reinforcement_count: 3, last_reinforced: '2026-11-27', status: 'retired' });
    expect(byId.get(shared[1])).toMatchObject({ reinforcement_count: 1, status: 'retired' });
    // Alice pulls Bob's merge: a fast-forward, the same memory.
    git(bob.dir, ['push', '-q', 'origin', 'HEAD:main']);
    expect(gitTry(alice.dir, ['pull', '-q', '--no-rebase', 'origin', 'main']).status).toBe(0);
    expect(fs.readFileSync(path.join(alice.dir, 'MEMORY.md'), 'utf8')).toBe(fs.readFileSync(path.join(bob.dir, 'MEMORY.md'), 'utf8'));
  });
});

/** A base entry, then one `mem add` on a branch `other` and one on main: returns the two new ids. */
function appendOnTwoBranches(v: TempVault, add: (text: string) => string, commit: (msg: string) => void): { ours: string; theirs: string } {
  add('The base learning about the release checklist.');
  commit('base');
  git(v.root, ['checkout', '-q', '-b', 'other']);
  const theirs = add('Theirs: rotate the signing keys every month.');
  commit('theirs');
  git(v.root, ['checkout', '-q', 'main']);
  const ours = add('Ours: the staging database is reset every night.');
  commit('ours');
  return { ours, theirs };
}

describe('mem hooks install --git registers the merge driver too', () => {
  it('without mem init: .gitattributes and git config set, a second install changes nothing, memory merges by entry', () => {
    const { v, run, commit, add, list } = setup({ init: false });
    fs.writeFileSync(v.path('.gitattributes'), '*.png binary\r\n');
    fs.writeFileSync(v.path('.gitignore'), '.memory.db*\n');
    fs.mkdirSync(v.path('.mem'), { recursive: true });
    const first = run(['hooks', 'install', '--git', '--json']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.json().merge_driver).toEqual({ created: [], updated: ['.gitattributes', 'git config merge.mem'] });
    const attrs = v.read('.gitattributes');
    expect(attrs.startsWith('*.png binary\r\n')).toBe(true);
    expect(attrs).toMatch(/^MEMORY\.md merge=mem\r$/m);
    expect(gitTry(v.root, ['config', '--get', 'merge.mem.driver']).out).toMatch(/merge-driver %O %A %B %P/);
    const config = fs.readFileSync(v.path('.git/config'));
    const again = run(['hooks', 'install', '--git', '--json']);
    expect(again.json().merge_driver).toEqual({ created: [], updated: [] });
    expect(v.read('.gitattributes')).toBe(attrs);
    expect(fs.readFileSync(v.path('.git/config')).equals(config)).toBe(true);
    // And git uses it: both branches append, the merge is clean.
    const { ours, theirs } = appendOnTwoBranches(v, add, commit);
    const m = gitTry(v.root, ['merge', '-q', '--no-edit', 'other']);
    expect(m.status, m.out).toBe(0);
    expect(list().map((e) => e.id)).toEqual(expect.arrayContaining([theirs, ours]));
  });
});
