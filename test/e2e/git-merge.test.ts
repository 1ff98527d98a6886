// The merge driver's setup and its rules without git running it, in-process: mem init registers it,
// mem merge-driver run directly, and mem resolve and mem lint --fix on the markers of a merge made
// without it; mem resolve on what git leaves unmerged without markers (a driver that could not run,
// modify/delete). Merges, rebases and pulls that run the driver: test/process/git-merge.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addedId, committer, gitTry, inFileOrder, LIST_ALL, markers, NOW } from '../fixtures/git-merge.js';
import { cleanup, git, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

async function setup(opts: { init?: boolean } = {}) {
  const v = tempVault({ git: true });
  git(v.root, ['checkout', '-q', '-b', 'main']);
  const run = (args: string[], now = NOW) => runIn(args, { cwd: v.root, home: v.home, env: { MEM_NOW: now } });
  if (opts.init !== false) expect((await run(['init', '-q'])).status).toBe(0);
  const commit = committer(v);
  const add = async (text: string, extra: string[] = []): Promise<string> => addedId(await run(['add', text, '--json', ...extra]));
  /** Entries as mem reads them, in file order. */
  const list = async () => inFileOrder(v, await run(LIST_ALL));
  return { v, run, commit, add, list };
}

describe('mem merge-driver run directly', () => {
  function files(dir: string, texts: Record<string, string | Buffer>) {
    for (const [name, text] of Object.entries(texts)) fs.writeFileSync(path.join(dir, name), text);
    return ['O', 'A', 'B'].map((n) => path.join(dir, n));
  }
  const entry = (id: string, body = `Body of ${id}.`, count = 0) => `---\nid: ${id}\nstatus: active\nreinforcement_count: ${count}\n---\n## ${id}\n\n${body}\n`;

  it('a side merged with itself is that side; base = ours gives theirs; exit 0', async () => {
    const dir = tempDir();
    const base = `# M\n\n${entry('a')}`;
    const side = `# M\n\n${entry('a', 'Body of a.', 2)}\n${entry('b')}`;
    for (const [o, a, b, want] of [[base, side, side, side], [base, base, side, side], [base, side, base, side], [side, side, side, side]]) {
      const [O, A, B] = files(dir, { O: o, A: a, B: b });
      const r = await runIn(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
      expect(r.status, r.stderr).toBe(0);
      expect(fs.readFileSync(A, 'utf8')).toBe(want);
    }
  });

  it('a conflict: exit 1, the entry id named on stderr', async () => {
    const dir = tempDir();
    const [O, A, B] = files(dir, { O: entry('a'), A: entry('a', 'ours'), B: entry('a', 'theirs') });
    const r = await runIn(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: warning: MEMORY\.md: entry a edited on both sides/m);
    expect(markers(fs.readFileSync(A, 'utf8'))).toHaveLength(3);
  });

  it('plain text (no entries) goes through git merge-file: clean when the edits do not overlap, markers when they do', async () => {
    const dir = tempDir();
    const base = 'line 1\nline 2\nline 3\nline 4\nline 5\n';
    let [O, A, B] = files(dir, { O: base, A: base.replace('line 1', 'LINE ONE'), B: base.replace('line 5', 'LINE FIVE') });
    expect((await runIn(['merge-driver', O, A, B, 'notes.md'], { cwd: dir })).status).toBe(0);
    expect(fs.readFileSync(A, 'utf8')).toBe('LINE ONE\nline 2\nline 3\nline 4\nLINE FIVE\n');
    [O, A, B] = files(dir, { O: base, A: base.replace('line 3', 'ours 3'), B: base.replace('line 3', 'theirs 3') });
    expect((await runIn(['merge-driver', O, A, B, 'notes.md'], { cwd: dir })).status).toBe(1);
    const text = fs.readFileSync(A, 'utf8');
    expect(text).toContain('ours 3');
    expect(text).toContain('theirs 3');
    expect(markers(text).length).toBeGreaterThanOrEqual(3);
  });

  it('binary or already-conflicted input: exit 1 and nothing lost (binary: the current side untouched)', async () => {
    const dir = tempDir();
    const bin = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x80, 0x0a]);
    const ours = `# M\n\n${entry('a')}\n${entry('o')}`;
    let [O, A, B] = files(dir, { O: `# M\n\n${entry('a')}`, A: ours, B: bin });
    const r = await runIn(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: /m);
    expect(fs.readFileSync(A, 'utf8')).toBe(ours);
    const marked = `# M\n\n<<<<<<< HEAD\n${entry('a', 'x')}=======\n${entry('a', 'y')}>>>>>>> b\n`;
    [O, A, B] = files(dir, { O: `# M\n\n${entry('a')}`, A: marked, B: `# M\n\n${entry('a')}\n${entry('t')}` });
    const m = await runIn(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
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

  it('writes .gitattributes lines and merge.mem.* in the git config; running twice changes nothing', async () => {
    const { v, run } = await setup();
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
    const again = await run(['init']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/already set up/);
    expect(attrsOf(v)).toBe(attrs);
    expect(fs.readFileSync(path.join(v.root, '.git', 'config')).equals(configFile)).toBe(true);
  });

  it('keeps existing .gitattributes lines, their CRLF and BOM; adds only what is missing', async () => {
    const { v, run } = await setup({ init: false });
    const before = '\ufeff*.png binary\r\nMEMORY.md merge=mem\r\n*.sh text eol=lf';
    v.write('.gitattributes', before);
    expect((await run(['init', '-q'])).status).toBe(0);
    const after = v.read('.gitattributes');
    expect(after.startsWith(before + '\r\n')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expect(after.match(/^MEMORY\.md merge=mem\r$/gm)).toHaveLength(1);
    expect(after).toContain('institutional.md merge=mem\r\n');
    const once = after;
    expect((await run(['init', '-q'])).status).toBe(0);
    expect(v.read('.gitattributes')).toBe(once);
  });

  it('adds the .gitignore lines in the file\'s own line endings', async () => {
    const { v, run } = await setup({ init: false });
    for (const [before, nl] of [['node_modules/\r\n*.log\r\n', '\r\n'], ['node_modules/\r\n*.log', '\r\n'], ['node_modules/\n*.log\n', '\n']] as const) {
      v.write('.gitignore', before);
      expect((await run(['init', '-q'])).status).toBe(0);
      const after = v.read('.gitignore');
      expect(after.startsWith(before)).toBe(true);
      const other = nl === '\r\n' ? /(?<!\r)\n/ : /\r/;
      expect(after, JSON.stringify(before)).not.toMatch(other);
      expect(after).toContain(`# mem${nl}.memory.db*${nl}`);
      expect(after.endsWith(nl)).toBe(true);
    }
  });

  it('mem doctor says whether the driver is registered in this clone', async () => {
    const { v, run } = await setup({ init: false });
    const before = (await run(['doctor', '--json'])).json().checks.find((c: { name: string }) => c.name === 'merge driver');
    expect(before).toMatchObject({ status: 'warn' });
    expect(before.hint).toMatch(/mem init/);
    expect((await run(['init', '-q'])).status).toBe(0);
    expect((await run(['doctor', '--json'])).json().checks.find((c: { name: string }) => c.name === 'merge driver')).toMatchObject({ status: 'ok' });
    void v;
  });

  it('outside a git repository: .gitattributes written, no git config touched, exit 0', async () => {
    const dir = tempDir();
    const root = path.join(dir, 'p');
    fs.mkdirSync(root);
    const r = await runIn(['--root', root, 'init', '-q'], { cwd: root, home: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, '.gitattributes'), 'utf8')).toContain('MEMORY.md merge=mem');
  });
});

describe('mem resolve', () => {
  /** A repository whose merges do not use the driver (a clone without mem init's config). */
  async function noDriver() {
    const s = await setup({ init: false });
    s.v.write('MEMORY.md', '# Project memory\n');
    s.v.write('.gitignore', '.memory.db*\n');
    return s;
  }

  async function conflictedMerge(s: Awaited<ReturnType<typeof noDriver>>, onOther: () => unknown, onMain: () => unknown) {
    s.commit('base');
    git(s.v.root, ['checkout', '-q', '-b', 'other']);
    await onOther();
    s.commit('other');
    git(s.v.root, ['checkout', '-q', 'main']);
    await onMain();
    s.commit('main');
    const m = gitTry(s.v.root, ['merge', 'other', '-m', 'merge']);
    expect(m.status).not.toBe(0);
    expect(markers(s.v.read('MEMORY.md')).length).toBeGreaterThan(0);
  }

  it('resolves a text-conflicted merge from the index stages, stages it; lint is clean, nothing lost', async () => {
    const s = await noDriver();
    const a = await s.add('Shared entry about migrations.');
    const ids: string[] = [a];
    await conflictedMerge(
      s,
      async () => {
        ids.push(await s.add('Theirs one.'), await s.add('Theirs two.'));
        expect((await s.run(['reinforce', a], '2026-11-27')).status).toBe(0);
      },
      async () => {
        ids.push(await s.add('Ours one.'));
        expect((await s.run(['reinforce', a], '2026-11-26')).status).toBe(0);
        expect((await s.run(['reinforce', a], '2026-11-26')).status).toBe(0);
      },
    );
    const r = await s.run(['resolve']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^resolved MEMORY\.md \(staged\)$/m);
    expect(markers(s.v.read('MEMORY.md'))).toEqual([]);
    expect(gitTry(s.v.root, ['ls-files', '-u']).out).toBe('');
    const got = await s.list();
    expect(got.map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(got.find((e) => e.id === a)).toMatchObject({ reinforcement_count: 3, last_reinforced: '2026-11-27' });
    expect((await s.run(['lint'])).status).toBe(0);
    expect(gitTry(s.v.root, ['commit', '-q', '--no-edit']).status).toBe(0);
  });

  it('a body edited on both sides stays marked (exit 1, the id named); the rest is resolved', async () => {
    const s = await noDriver();
    const a = await s.add('Keep me.');
    const b = await s.add('The token lives in the vault.');
    const extra: string[] = [];
    await conflictedMerge(
      s,
      async () => {
        s.v.write('MEMORY.md', s.v.read('MEMORY.md').replace('The token lives in the vault.', 'The token lives in vault path secret/deploy.'));
        extra.push(await s.add('Theirs extra.'));
      },
      async () => {
        s.v.write('MEMORY.md', s.v.read('MEMORY.md').replace('The token lives in the vault.', 'The token is DEPLOY_TOKEN.'));
        extra.push(await s.add('Ours extra.'));
      },
    );
    const r = await s.run(['resolve']);
    expect(r.status).toBe(1);
    // Named with its title as this side (ours) has it.
    expect(r.stderr).toContain(`entry ${b} "Procedural: The token is DEPLOY_TOKEN." edited on both sides`);
    expect(r.stderr).toMatch(/^hint: edit MEMORY\.md by hand: .*keep one version of the entry.*then run mem lint and git add MEMORY\.md$/m);
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

  it('markers without index stages (a merge made elsewhere, committed): both sides kept, counters added up from a diff3 base', async () => {
    const { v, run, list } = await setup({ init: false });
    const e = (id: string, count: number, status = 'active') => `---\nid: ${id}\nstatus: ${status}\nreinforcement_count: ${count}\n---\n## Entry ${id}\n\nBody of ${id}.\n`;
    const variants = [
      // Whole entries on each side.
      `# M\n\n${e('a', 1)}\n<<<<<<< HEAD\n${e('o', 0)}=======\n${e('t', 0)}>>>>>>> origin/main\n`,
      // A hunk inside one entry: the counter lines, diff3 style with a base section.
      `# M\n\n---\nid: a\nstatus: active\n<<<<<<< ours\nreinforcement_count: 4\n||||||| base\nreinforcement_count: 1\n=======\nreinforcement_count: 2\n>>>>>>> theirs\n---\n## Entry a\n\nBody of a.\n\n${e('o', 0)}\n${e('t', 0)}`,
    ];
    for (const text of variants) {
      v.write('MEMORY.md', text);
      const r = await run(['resolve', 'MEMORY.md']);
      expect(r.status, r.stderr).toBe(0);
      const out = v.read('MEMORY.md');
      expect(markers(out)).toEqual([]);
      expect((await list()).map((x) => x.id)).toEqual(['a', 'o', 't']);
    }
    expect((await list())[0].reinforcement_count).toBe(1 + 3 + 1);
    // Status lines in conflict: the retirement wins.
    v.write('MEMORY.md', `---\nid: a\n<<<<<<< HEAD\nstatus: retired\n=======\nstatus: active\nreinforcement_count: 3\n>>>>>>> b\n---\n## Entry a\n\nBody.\n`);
    expect((await run(['resolve', 'MEMORY.md'])).status).toBe(0);
    expect((await list())[0]).toMatchObject({ status: 'retired', reinforcement_count: 3 });
  });

  it('leaves alone what it cannot resolve: unpaired markers, a file already fixed by hand', async () => {
    const s = await noDriver();
    await s.add('Shared.');
    await conflictedMerge(s, () => s.add('Theirs.'), () => s.add('Ours.'));
    // Fixed by hand (no markers), not yet staged: never merged over, and not called resolved (mem
    // cannot tell whether theirs is all in it): the user stages it.
    const byHand = s.v.read('MEMORY.md').replace(/^(<{7}|={7}|>{7}).*\n/gm, '') + '\nA note the user wrote.\n';
    s.v.write('MEMORY.md', byHand);
    const r = await s.run(['resolve']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: MEMORY\.md: edited since the merge/m);
    expect(s.v.read('MEMORY.md')).toBe(byHand);
    expect(gitTry(s.v.root, ['ls-files', '-u']).out).toMatch(/MEMORY\.md/);
    const broken = `# M\n\n<<<<<<< HEAD\n---\nid: x\n---\nBody.\n`;
    s.v.write('institutional.md', broken);
    const b = await s.run(['resolve', 'institutional.md']);
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/^mem: institutional\.md: .*markers do not pair up/m);
    expect(s.v.read('institutional.md')).toBe(broken);
  });
});

describe('mem resolve: unmerged files without conflict markers', () => {
  // A driver that cannot run (mem moved or upgraded since mem init): git leaves the file unmerged
  // in its index and this side's version in the work tree, with no markers.
  const BROKEN_DRIVER = ['-c', 'merge.mem.driver=node /nonexistent/mem.js merge-driver %O %A %B %P'];
  const unmergedStages = (v: TempVault) => gitTry(v.root, ['ls-files', '-u']).out;

  /** A base entry, edited on a branch `other`, an entry added on main, merged with the broken driver. */
  async function failedDriverMerge(opts: { crlf?: boolean } = {}) {
    const s = await setup();
    if (opts.crlf) git(s.v.root, ['config', 'core.autocrlf', 'true']);
    const lint = await s.add('Run eslint before push.');
    s.commit('base');
    git(s.v.root, ['checkout', '-q', '-b', 'other']);
    s.v.write('MEMORY.md', s.v.read('MEMORY.md').replace('Run eslint before push.', 'Run eslint --fix before push.'));
    s.commit('theirs');
    git(s.v.root, ['checkout', '-q', 'main']);
    const mine = await s.add('Mine, added on main.');
    s.commit('ours');
    const m = gitTry(s.v.root, [...BROKEN_DRIVER, 'merge', 'other', '-m', 'merge']);
    expect(m.status).not.toBe(0);
    expect(markers(s.v.read('MEMORY.md'))).toEqual([]);
    expect(s.v.read('MEMORY.md')).not.toContain('--fix');
    expect(unmergedStages(s.v)).toMatch(/ 3\tMEMORY\.md/);
    return { ...s, lint, mine };
  }

  it('the driver could not run: merged by entry id from the stages, both sides kept, staged', async () => {
    const s = await failedDriverMerge();
    const a = await s.run(['resolve', '--no-stage', '--json']);
    expect(a.status, a.stderr).toBe(0);
    expect(a.json().files).toEqual([expect.objectContaining({ path: 'MEMORY.md', resolved: true, changed: true, staged: false, source: 'stages' })]);
    const merged = s.v.read('MEMORY.md');
    expect(merged).toContain('Run eslint --fix before push.');
    expect(merged).toContain('Mine, added on main.');
    expect(unmergedStages(s.v)).not.toBe('');
    // Run again: it is that merge already; only staging was left.
    const b = await s.run(['resolve']);
    expect(b.status, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/^resolved MEMORY\.md \(staged\)$/m);
    expect(s.v.read('MEMORY.md')).toBe(merged);
    expect(unmergedStages(s.v)).toBe('');
    expect((await s.list()).map((e) => e.id).sort()).toEqual([s.lint, s.mine].sort());
    expect((await s.run(['lint'])).status).toBe(0);
    expect(gitTry(s.v.root, ['commit', '-q', '--no-edit']).status).toBe(0);
  });

  it('a CRLF checkout (core.autocrlf) of the version git left counts as that version', async () => {
    const s = await failedDriverMerge({ crlf: true });
    expect(s.v.read('MEMORY.md')).toContain('\r\n');
    const r = await s.run(['resolve']);
    expect(r.status, r.stderr).toBe(0);
    expect(s.v.read('MEMORY.md')).toContain('Run eslint --fix before push.');
    expect(unmergedStages(s.v)).toBe('');
  });

  it('edited after the driver failed: not merged over, not called resolved, nothing staged; the hint works', async () => {
    const s = await failedDriverMerge();
    const edited = `${s.v.read('MEMORY.md')}\nA note written after the merge stopped.\n`;
    s.v.write('MEMORY.md', edited);
    const stagesBefore = unmergedStages(s.v);
    const r = await s.run(['resolve']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^mem: MEMORY\.md: edited since the merge, which git left unfinished; mem resolve does not merge over your edits and cannot tell whether the other side's changes are in it; nothing staged$/m);
    expect(r.stderr).toMatch(/^hint: if it holds both sides' changes, git add MEMORY\.md; else git checkout --merge MEMORY\.md \(this drops your edits\) and run mem resolve again$/m);
    expect(s.v.read('MEMORY.md')).toBe(edited);
    expect(unmergedStages(s.v)).toBe(stagesBefore);
    expect((await s.run(['resolve', '--json'])).json().files).toEqual([expect.objectContaining({ resolved: false, changed: false, staged: false, source: 'none' })]);
    // Following the hint: git puts back its version, and mem merges it.
    expect(gitTry(s.v.root, [...BROKEN_DRIVER, 'checkout', '--merge', 'MEMORY.md']).status).toBe(0);
    const again = await s.run(['resolve']);
    expect(again.status, again.stderr).toBe(0);
    expect(s.v.read('MEMORY.md')).toContain('Run eslint --fix before push.');
    expect(unmergedStages(s.v)).toBe('');
  });

  for (const deletedBy of ['them', 'us'] as const) {
    it(`modify/delete, deleted by ${deletedBy}: left for the user to decide, exit 1, nothing staged, the file untouched`, async () => {
      const s = await setup();
      await s.add('Base entry.');
      s.commit('base');
      const remove = () => git(s.v.root, ['rm', '-q', 'MEMORY.md']);
      const change = () => s.add(`Added on the side that kept the file.`);
      git(s.v.root, ['checkout', '-q', '-b', 'other']);
      await (deletedBy === 'them' ? remove() : change());
      s.commit('theirs');
      git(s.v.root, ['checkout', '-q', 'main']);
      await (deletedBy === 'us' ? remove() : change());
      s.commit('ours');
      const m = gitTry(s.v.root, ['merge', 'other', '-m', 'merge']);
      expect(m.out).toMatch(/CONFLICT \(modify\/delete\)/);
      const before = s.v.read('MEMORY.md');
      const stagesBefore = unmergedStages(s.v);
      expect(stagesBefore).toMatch(deletedBy === 'them' ? / 2\tMEMORY\.md/ : / 3\tMEMORY\.md/);
      const r = await s.run(['resolve']);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      const what = deletedBy === 'them' ? 'deleted by them, changed by us' : 'deleted by us, changed by them';
      expect(r.stderr).toContain(`mem: MEMORY.md: ${what}: keep it or delete it, which only you can say; nothing staged\n`);
      expect(r.stderr).toContain('hint: to keep it as it is: git add MEMORY.md; to delete it: git rm MEMORY.md; then commit the merge\n');
      expect(s.v.read('MEMORY.md')).toBe(before);
      expect(unmergedStages(s.v)).toBe(stagesBefore);
      const json = await s.run(['resolve', 'MEMORY.md', '--json']);
      expect(json.status).toBe(1);
      expect(json.json().files).toEqual([expect.objectContaining({ path: 'MEMORY.md', resolved: false, staged: false, deleted_by: deletedBy })]);
      expect(unmergedStages(s.v)).toBe(stagesBefore);
    });
  }
});

/** A base entry, then one `mem add` on a branch `other` and one on main: returns the two new ids. */
async function appendOnTwoBranches(v: TempVault, add: (text: string) => Promise<string>, commit: (msg: string) => void): Promise<{ ours: string; theirs: string }> {
  await add('The base learning about the release checklist.');
  commit('base');
  git(v.root, ['checkout', '-q', '-b', 'other']);
  const theirs = await add('Theirs: rotate the signing keys every month.');
  commit('theirs');
  git(v.root, ['checkout', '-q', 'main']);
  const ours = await add('Ours: the staging database is reset every night.');
  commit('ours');
  return { ours, theirs };
}

describe('mem lint --fix resolves conflict markers by the driver rules', () => {
  it('a merge made without the driver: lint --fix resolves it (not staged), lint is clean; a body edited on both sides stays marked', async () => {
    const { v, run, commit, add, list } = await setup({ init: false });
    fs.writeFileSync(v.path('.gitignore'), '.memory.db*\n');
    fs.mkdirSync(v.path('.mem'), { recursive: true });
    const { ours, theirs } = await appendOnTwoBranches(v, add, commit);
    expect(gitTry(v.root, ['merge', '-q', '--no-edit', 'other']).status).not.toBe(0);
    expect(markers(v.read('MEMORY.md')).length).toBeGreaterThan(0);
    expect((await run(['lint'])).status).toBe(1);
    const fix = await run(['lint', '--fix']);
    expect(fix.status, fix.stderr).toBe(0);
    expect(fix.stderr).toMatch(/resolved the git conflict markers of 1 file/);
    expect(markers(v.read('MEMORY.md'))).toEqual([]);
    expect((await list()).map((e) => e.id)).toEqual(expect.arrayContaining([ours, theirs]));
    expect(gitTry(v.root, ['diff', '--name-only', '--diff-filter=U']).out.trim()).toBe('MEMORY.md'); // left to the user to stage
    expect((await run(['lint'])).status).toBe(0);

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
    const again = await run(['lint', '--fix']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`${ours}.*stay between conflict markers`));
    expect(markers(v.read('MEMORY.md')).length).toBeGreaterThan(0);
  });
});
