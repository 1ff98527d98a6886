// The merge driver with real git: mem init registers it, and merges, rebases and cherry-picks of
// memory files then merge by entry id; only a body edited on both sides stops with markers.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, git, mem, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const NOW = '2026-11-25';

/** git that may fail (a conflicted merge): its status and output. */
function gitTry(cwd: string, args: string[]): { status: number; out: string } {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

function setup(opts: { init?: boolean } = {}) {
  const v = tempVault({ git: true });
  git(v.root, ['checkout', '-q', '-b', 'main']);
  const run = (args: string[], now = NOW) => {
    const r = mem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: now } });
    return r;
  };
  if (opts.init !== false) expect(run(['init', '-q']).status).toBe(0);
  const commit = (msg: string) => {
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-q', '-m', msg]);
  };
  const add = (text: string, extra: string[] = []): string => {
    const r = run(['add', text, '--json', ...extra]);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout).id as string;
  };
  /** Entries as mem reads them, in file order. */
  const list = () => {
    const r = run(['list', '--json', '--all', '--limit', '1000']);
    expect(r.status, r.stderr).toBe(0);
    type Row = { id: string; status: string; reinforcement_count: number; last_reinforced: string; body: string; title: string };
    const rows = r.json().entries as Row[];
    const order = [...v.read('MEMORY.md').matchAll(/^id: (\S+)/gm)].map((x) => x[1]);
    expect(rows.map((e) => e.id).sort()).toEqual([...order].sort());
    return order.map((id) => rows.find((e) => e.id === id)!);
  };
  return { v, run, commit, add, list };
}

const markers = (text: string) => text.split(/\r?\n/).filter((l) => /^(<{7}|={7}|>{7}|\|{7})( |$)/.test(l));

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
    expect(inside.match(/^id: /gm)).toHaveLength(2);
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

describe('mem merge-driver run directly', () => {
  function files(dir: string, texts: Record<string, string | Buffer>) {
    for (const [name, text] of Object.entries(texts)) fs.writeFileSync(path.join(dir, name), text);
    return ['O', 'A', 'B'].map((n) => path.join(dir, n));
  }
  const entry = (id: string, body = `Body of ${id}.`, count = 0) => `---\nid: ${id}\nstatus: active\nreinforcement_count: ${count}\n---\n## ${id}\n\n${body}\n`;

  it('a side merged with itself is that side; base = ours gives theirs; exit 0', () => {
    const dir = tempDir();
    const base = `# M\n\n${entry('a')}`;
    const side = `# M\n\n${entry('a', 'Body of a.', 2)}\n${entry('b')}`;
    for (const [o, a, b, want] of [[base, side, side, side], [base, base, side, side], [base, side, base, side], [side, side, side, side]]) {
      const [O, A, B] = files(dir, { O: o, A: a, B: b });
      const r = mem(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
      expect(r.status, r.stderr).toBe(0);
      expect(fs.readFileSync(A, 'utf8')).toBe(want);
    }
  });

  it('a conflict: exit 1, the entry id named on stderr', () => {
    const dir = tempDir();
    const [O, A, B] = files(dir, { O: entry('a'), A: entry('a', 'ours'), B: entry('a', 'theirs') });
    const r = mem(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: warning: MEMORY\.md: entry a edited on both sides/m);
    expect(markers(fs.readFileSync(A, 'utf8'))).toHaveLength(3);
  });

  it('plain text (no entries) goes through git merge-file: clean when the edits do not overlap, markers when they do', () => {
    const dir = tempDir();
    const base = 'line 1\nline 2\nline 3\nline 4\nline 5\n';
    let [O, A, B] = files(dir, { O: base, A: base.replace('line 1', 'LINE ONE'), B: base.replace('line 5', 'LINE FIVE') });
    expect(mem(['merge-driver', O, A, B, 'notes.md'], { cwd: dir }).status).toBe(0);
    expect(fs.readFileSync(A, 'utf8')).toBe('LINE ONE\nline 2\nline 3\nline 4\nLINE FIVE\n');
    [O, A, B] = files(dir, { O: base, A: base.replace('line 3', 'ours 3'), B: base.replace('line 3', 'theirs 3') });
    expect(mem(['merge-driver', O, A, B, 'notes.md'], { cwd: dir }).status).toBe(1);
    const text = fs.readFileSync(A, 'utf8');
    expect(text).toContain('ours 3');
    expect(text).toContain('theirs 3');
    expect(markers(text).length).toBeGreaterThanOrEqual(3);
  });

  it('binary or already-conflicted input: exit 1 and nothing lost (binary: the current side untouched)', () => {
    const dir = tempDir();
    const bin = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x80, 0x0a]);
    const ours = `# M\n\n${entry('a')}\n${entry('o')}`;
    let [O, A, B] = files(dir, { O: `# M\n\n${entry('a')}`, A: ours, B: bin });
    const r = mem(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: /m);
    expect(fs.readFileSync(A, 'utf8')).toBe(ours);
    const marked = `# M\n\n<<<<<<< HEAD\n${entry('a', 'x')}=======\n${entry('a', 'y')}>>>>>>> b\n`;
    [O, A, B] = files(dir, { O: `# M\n\n${entry('a')}`, A: marked, B: `# M\n\n${entry('a')}\n${entry('t')}` });
    const m = mem(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
    expect(m.status).toBe(1);
    const text = fs.readFileSync(A, 'utf8');
    for (const s of ['\nx\n', '\ny\n', 'id: t']) expect(text).toContain(s);
  });
});

describe('mem init registers the driver', () => {
  function attrsOf(v: TempVault) {
    return v.read('.gitattributes');
  }
  const config = (v: TempVault) => gitTry(v.root, ['config', '--local', '--get-regexp', '^merge\\.mem\\.']).out;

  it('writes .gitattributes lines and merge.mem.* in the git config; running twice changes nothing', () => {
    const { v, run } = setup();
    const attrs = attrsOf(v);
    for (const l of ['MEMORY.md merge=mem', 'institutional.md merge=mem', 'proxy*.md merge=mem', 'memory/**/*.md merge=mem']) expect(attrs.split('\n')).toContain(l);
    const cfg = config(v);
    expect(cfg).toMatch(/^merge\.mem\.driver .*merge-driver %O %A %B %P$/m);
    expect(cfg).toMatch(/^merge\.mem\.name /m);
    // git applies it to memory files in subfolders and under memory/ (plain notes there merge as
    // text through the driver), not to markdown elsewhere.
    const check = gitTry(v.root, ['check-attr', 'merge', 'MEMORY.md', '.mem/proxy/MEMORY.md', 'team/institutional.md', 'proxy-alice.md', 'memory/notes.md', 'docs/guide.md']).out;
    expect(check).toMatch(/^MEMORY\.md: merge: mem$/m);
    expect(check).toMatch(/^\.mem\/proxy\/MEMORY\.md: merge: mem$/m);
    expect(check).toMatch(/^team\/institutional\.md: merge: mem$/m);
    expect(check).toMatch(/^proxy-alice\.md: merge: mem$/m);
    expect(check).toMatch(/^memory\/notes\.md: merge: mem$/m);
    expect(check).toMatch(/^docs\/guide\.md: merge: unspecified$/m);
    const configFile = fs.readFileSync(path.join(v.root, '.git', 'config'));
    const again = run(['init']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/already set up/);
    expect(attrsOf(v)).toBe(attrs);
    expect(fs.readFileSync(path.join(v.root, '.git', 'config')).equals(configFile)).toBe(true);
  });

  it('keeps existing .gitattributes lines, their CRLF and BOM; adds only what is missing', () => {
    const { v, run } = setup({ init: false });
    const before = '\ufeff*.png binary\r\nMEMORY.md merge=mem\r\n*.sh text eol=lf';
    v.write('.gitattributes', before);
    expect(run(['init', '-q']).status).toBe(0);
    const after = v.read('.gitattributes');
    expect(after.startsWith(before + '\r\n')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expect(after.match(/^MEMORY\.md merge=mem\r$/gm)).toHaveLength(1);
    expect(after).toContain('institutional.md merge=mem\r\n');
    const once = after;
    expect(run(['init', '-q']).status).toBe(0);
    expect(v.read('.gitattributes')).toBe(once);
  });

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

  it('mem doctor says whether the driver is registered in this clone', () => {
    const { v, run } = setup({ init: false });
    const before = run(['doctor', '--json']).json().checks.find((c: { name: string }) => c.name === 'merge driver');
    expect(before).toMatchObject({ status: 'warn' });
    expect(before.hint).toMatch(/mem init/);
    expect(run(['init', '-q']).status).toBe(0);
    expect(run(['doctor', '--json']).json().checks.find((c: { name: string }) => c.name === 'merge driver')).toMatchObject({ status: 'ok' });
    void v;
  });

  it('outside a git repository: .gitattributes written, no git config touched, exit 0', () => {
    const dir = tempDir();
    const root = path.join(dir, 'p');
    fs.mkdirSync(root);
    const r = mem(['--root', root, 'init', '-q'], { cwd: root, home: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, '.gitattributes'), 'utf8')).toContain('MEMORY.md merge=mem');
  });
});

describe('mem resolve', () => {
  /** A repository whose merges do not use the driver (a clone without mem init's config). */
  function noDriver() {
    const s = setup({ init: false });
    s.v.write('MEMORY.md', '# Project memory\n');
    s.v.write('.gitignore', '.memory.db*\n');
    return s;
  }

  function conflictedMerge(s: ReturnType<typeof noDriver>, onOther: () => void, onMain: () => void) {
    s.commit('base');
    git(s.v.root, ['checkout', '-q', '-b', 'other']);
    onOther();
    s.commit('other');
    git(s.v.root, ['checkout', '-q', 'main']);
    onMain();
    s.commit('main');
    const m = gitTry(s.v.root, ['merge', 'other', '-m', 'merge']);
    expect(m.status).not.toBe(0);
    expect(markers(s.v.read('MEMORY.md')).length).toBeGreaterThan(0);
  }

  it('resolves a text-conflicted merge from the index stages, stages it; lint is clean, nothing lost', () => {
    const s = noDriver();
    const a = s.add('Shared entry about migrations.');
    const ids: string[] = [a];
    conflictedMerge(
      s,
      () => {
        ids.push(s.add('Theirs one.'), s.add('Theirs two.'));
        expect(s.run(['reinforce', a], '2026-11-27').status).toBe(0);
      },
      () => {
        ids.push(s.add('Ours one.'));
        expect(s.run(['reinforce', a], '2026-11-26').status).toBe(0);
        expect(s.run(['reinforce', a], '2026-11-26').status).toBe(0);
      },
    );
    const r = s.run(['resolve']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^resolved MEMORY\.md \(staged\)$/m);
    expect(markers(s.v.read('MEMORY.md'))).toEqual([]);
    expect(gitTry(s.v.root, ['ls-files', '-u']).out).toBe('');
    const got = s.list();
    expect(got.map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(got.find((e) => e.id === a)).toMatchObject({ reinforcement_count: 3, last_reinforced: '2026-11-27' });
    expect(s.run(['lint']).status).toBe(0);
    expect(gitTry(s.v.root, ['commit', '-q', '--no-edit']).status).toBe(0);
  });

  it('a body edited on both sides stays marked (exit 1, the id named); the rest is resolved', () => {
    const s = noDriver();
    const a = s.add('Keep me.');
    const b = s.add('The token lives in the vault.');
    const extra: string[] = [];
    conflictedMerge(
      s,
      () => {
        s.v.write('MEMORY.md', s.v.read('MEMORY.md').replace('The token lives in the vault.', 'The token lives in vault path secret/deploy.'));
        extra.push(s.add('Theirs extra.'));
      },
      () => {
        s.v.write('MEMORY.md', s.v.read('MEMORY.md').replace('The token lives in the vault.', 'The token is DEPLOY_TOKEN.'));
        extra.push(s.add('Ours extra.'));
      },
    );
    const r = s.run(['resolve']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`entry ${b} edited on both sides`);
    const text = s.v.read('MEMORY.md');
    expect(markers(text)).toHaveLength(3);
    const inside = text.slice(text.indexOf('<<<<<<<'), text.indexOf('>>>>>>>'));
    expect(inside).toContain('DEPLOY_TOKEN');
    expect(inside).toContain('secret/deploy');
    expect(inside).not.toContain(`id: ${a}`);
    for (const id of extra) expect(inside).not.toContain(id);
    for (const id of [a, ...extra]) expect(text).toContain(`id: ${id}`);
    // Still unmerged: the user decides.
    expect(gitTry(s.v.root, ['ls-files', '-u']).out).toMatch(/MEMORY\.md/);
  });

  it('markers without index stages (a merge made elsewhere, committed): both sides kept, counters added up from a diff3 base', () => {
    const { v, run, list } = setup({ init: false });
    const e = (id: string, count: number, status = 'active') => `---\nid: ${id}\nstatus: ${status}\nreinforcement_count: ${count}\n---\n## Entry ${id}\n\nBody of ${id}.\n`;
    const variants = [
      // Whole entries on each side.
      `# M\n\n${e('a', 1)}\n<<<<<<< HEAD\n${e('o', 0)}=======\n${e('t', 0)}>>>>>>> origin/main\n`,
      // A hunk inside one entry: the counter lines, diff3 style with a base section.
      `# M\n\n---\nid: a\nstatus: active\n<<<<<<< ours\nreinforcement_count: 4\n||||||| base\nreinforcement_count: 1\n=======\nreinforcement_count: 2\n>>>>>>> theirs\n---\n## Entry a\n\nBody of a.\n\n${e('o', 0)}\n${e('t', 0)}`,
    ];
    for (const text of variants) {
      v.write('MEMORY.md', text);
      const r = run(['resolve', 'MEMORY.md']);
      expect(r.status, r.stderr).toBe(0);
      const out = v.read('MEMORY.md');
      expect(markers(out)).toEqual([]);
      expect(list().map((x) => x.id)).toEqual(['a', 'o', 't']);
    }
    expect(list()[0].reinforcement_count).toBe(1 + 3 + 1);
    // Status lines in conflict: the retirement wins.
    v.write('MEMORY.md', `---\nid: a\n<<<<<<< HEAD\nstatus: retired\n=======\nstatus: active\nreinforcement_count: 3\n>>>>>>> b\n---\n## Entry a\n\nBody.\n`);
    expect(run(['resolve', 'MEMORY.md']).status).toBe(0);
    expect(list()[0]).toMatchObject({ status: 'retired', reinforcement_count: 3 });
  });

  it('leaves alone what it cannot resolve: unpaired markers, a file already fixed by hand', () => {
    const s = noDriver();
    s.add('Shared.');
    conflictedMerge(s, () => s.add('Theirs.'), () => s.add('Ours.'));
    // Fixed by hand (no markers), not yet staged: never merged over.
    const byHand = s.v.read('MEMORY.md').replace(/^(<{7}|={7}|>{7}).*\n/gm, '') + '\nA note the user wrote.\n';
    s.v.write('MEMORY.md', byHand);
    const r = s.run(['resolve']);
    expect(r.status).toBe(0);
    expect(s.v.read('MEMORY.md')).toBe(byHand);
    const broken = `# M\n\n<<<<<<< HEAD\n---\nid: x\n---\nBody.\n`;
    s.v.write('institutional.md', broken);
    const b = s.run(['resolve', 'institutional.md']);
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/^mem: institutional\.md: .*markers do not pair up/m);
    expect(s.v.read('institutional.md')).toBe(broken);
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
    expect(inside.match(/^id: (\S+)/gm)).toEqual([`id: ${shared[3]}`, `id: ${shared[3]}`]);
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

describe('mem lint --fix resolves conflict markers by the driver rules', () => {
  it('a merge made without the driver: lint --fix resolves it (not staged), lint is clean; a body edited on both sides stays marked', () => {
    const { v, run, commit, add, list } = setup({ init: false });
    fs.writeFileSync(v.path('.gitignore'), '.memory.db*\n');
    fs.mkdirSync(v.path('.mem'), { recursive: true });
    const { ours, theirs } = appendOnTwoBranches(v, add, commit);
    expect(gitTry(v.root, ['merge', '-q', '--no-edit', 'other']).status).not.toBe(0);
    expect(markers(v.read('MEMORY.md')).length).toBeGreaterThan(0);
    expect(run(['lint']).status).toBe(1);
    const fix = run(['lint', '--fix']);
    expect(fix.status, fix.stderr).toBe(0);
    expect(fix.stderr).toMatch(/resolved the git conflict markers of 1 file/);
    expect(markers(v.read('MEMORY.md'))).toEqual([]);
    expect(list().map((e) => e.id)).toEqual(expect.arrayContaining([ours, theirs]));
    expect(gitTry(v.root, ['diff', '--name-only', '--diff-filter=U']).out.trim()).toBe('MEMORY.md'); // left to the user to stage
    expect(run(['lint']).status).toBe(0);

    // Both sides edit the same body: lint --fix leaves that entry marked and says so.
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-q', '--no-edit']);
    const edit = (from: string, to: string) => fs.writeFileSync(v.path('MEMORY.md'), v.read('MEMORY.md').replace(from, to));
    git(v.root, ['checkout', '-q', '-b', 'edit2']);
    edit('reset every night', 'reset every night at 02:00 (theirs)');
    commit('theirs edit');
    git(v.root, ['checkout', '-q', 'main']);
    edit('reset every night', 'reset every night by the cron job (ours)');
    commit('ours edit');
    expect(gitTry(v.root, ['merge', '-q', '--no-edit', 'edit2']).status).not.toBe(0);
    const again = run(['lint', '--fix']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`${ours}.*stay between conflict markers`));
    expect(markers(v.read('MEMORY.md')).length).toBeGreaterThan(0);
  });
});
