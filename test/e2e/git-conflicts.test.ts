// Conflict safety without mem's merge driver: real git merges leave real conflict markers in
// MEMORY.md; the CLI must fail lint on them, keep the entries of both sides visible, warn on
// every read, refuse every write, and be normal again once the markers are resolved by hand.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { append, BASE, conflict, MARKER, markerLines, repo, resolveFromStages } from '../fixtures/git-conflicts.js';
import { cleanup, entry, git, tempVault, type TempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

const run = (v: TempVault, args: string[]) => runIn(args, { cwd: v.root, home: v.home });
const listedIds = async (v: TempVault) => ((await run(v, ['list', '--json'])).json().entries as { id: string }[]).map((e) => e.id);
const edit = (v: TempVault, from: string | RegExp, to: string) => () => {
  const t = v.read('MEMORY.md');
  const next = t.replace(from, to);
  expect(next).not.toBe(t);
  fs.writeFileSync(v.path('MEMORY.md'), next);
};

/** What every conflicted vault must show: lint fails at each marker, reads warn once per file, writes are refused. */
async function expectConflictHandled(v: TempVault, text: string, visible: { id: string; query: string }[]): Promise<void> {
  const lines = markerLines(text);
  expect(lines.length).toBeGreaterThanOrEqual(3);
  const lint = await run(v, ['lint']);
  expect(lint.status).toBe(1);
  for (const l of lines) expect(lint.stdout).toMatch(new RegExp(`^MEMORY\\.md:${l}: git conflict marker`, 'm'));
  const lintJson = await run(v, ['lint', '--json']);
  expect(lintJson.status).toBe(1);
  expect(lintJson.json().problems.filter((p: { message: string }) => /conflict marker/.test(p.message)).map((p: { line: number }) => p.line)).toEqual(lines);

  const warning = new RegExp(`MEMORY\\.md has unresolved git conflict markers.*\\(MEMORY\\.md:${lines[0]}\\)`);
  // Twice: the first read indexes the file, the second finds the index fresh and must still warn.
  for (let k = 0; k < 2; k++) {
    for (const args of [['list'], ['search', visible[0].query], ['stats'], ['context', 'anything'], ['index']]) {
      const r = await run(v, args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr.match(new RegExp(warning.source, 'g')) ?? [], `${args.join(' ')} warns once`).toHaveLength(1);
    }
  }
  const ids = await listedIds(v);
  for (const { id, query } of visible) {
    expect(ids).toContain(id);
    const hits = (await run(v, ['search', query, '--json'])).json().results as { id: string; title: string; body: string }[];
    expect(hits.map((h) => h.id), `search ${query}`).toContain(id);
    for (const h of hits) expect(`${h.title}\n${h.body}`).not.toMatch(/^(<{7}|={7}|>{7}|\|{7})/m);
  }
  const show = await run(v, ['show', visible[visible.length - 1].id]);
  expect(show.status).toBe(0);
  expect(show.stdout).not.toMatch(/^(<{7}|={7}|>{7})/m);

  const before = fs.readFileSync(v.path('MEMORY.md'));
  const refusal = new RegExp(`^mem: MEMORY\\.md has unresolved git conflict markers \\(MEMORY\\.md:${lines[0]}\\)$`, 'm');
  // (mem lint --fix resolves the markers by entry id, as mem resolve does: git-merge.test.ts.)
  for (const args of [['add', 'Never build on a conflicted file'], ['reinforce', visible[0].id], ['compact']]) {
    const r = await run(v, args);
    expect(r.status, args.join(' ')).not.toBe(0);
    expect(r.stderr + r.stdout, args.join(' ')).toMatch(refusal);
    expect(r.stderr).toMatch(/hint: resolve the conflict first \(git mergetool, or mem resolve\)/);
    expect(fs.readFileSync(v.path('MEMORY.md')).equals(before), `${args.join(' ')} wrote nothing`).toBe(true);
  }
}

/** Resolve by hand the way most people do: keep both sides, delete the marker lines (and the base section). */
function resolveKeepingBoth(v: TempVault): void {
  const out: string[] = [];
  let inBase = false;
  for (const l of v.read('MEMORY.md').split('\n')) {
    if (/^\|{7}/.test(l)) inBase = true;
    else if (/^={7}\r?$/.test(l)) inBase = false;
    if (MARKER.test(l) || inBase) continue;
    out.push(l);
  }
  fs.writeFileSync(v.path('MEMORY.md'), out.join('\n'));
}

async function expectNormalAfterResolving(v: TempVault, ids: string[]): Promise<void> {
  const lint = await run(v, ['lint']);
  expect(lint.stdout).not.toMatch(/conflict marker/);
  const list = await run(v, ['list', '--json']);
  expect(list.stderr).not.toMatch(/conflict markers/);
  for (const id of ids) expect(await listedIds(v)).toContain(id);
  const add = await run(v, ['add', 'After the merge the memory is writable again']);
  expect(add.status, add.stderr).toBe(0);
  expect((await run(v, ['search', 'writable'])).stderr).not.toMatch(/conflict/);
}


describe('git merges without the driver leave conflict markers', () => {
  it('both branches `mem add` an entry (the hunk cuts through the new headers)', async () => {
    const v = repo(BASE);
    let oursId = '';
    let theirsId = '';
    const text = await conflict(v, async () => {
      const r = await run(v, ['add', 'Deploys go through the blue cluster on Fridays']);
      expect(r.status, r.stderr).toBe(0);
      oursId = r.stdout.trim();
    }, async () => {
      const r = await run(v, ['add', 'Staging certificates rotate every ninety days']);
      expect(r.status, r.stderr).toBe(0);
      theirsId = r.stdout.trim();
    });
    expect(oursId).not.toBe('');
    await expectConflictHandled(v, text, [{ id: 'base-entry', query: 'esbuild' }, { id: oursId, query: 'blue cluster' }, { id: theirsId, query: 'certificates rotate' }]);
    // The lifecycle commands that plan over the whole vault leave the file out, and say so.
    const before = fs.readFileSync(v.path('MEMORY.md'));
    for (const args of [['consolidate'], ['promote']]) {
      const r = await run(v, args);
      expect(r.stderr, args[0]).toMatch(new RegExp(`MEMORY\\.md has unresolved git conflict markers.*\\(MEMORY\\.md:${markerLines(text)[0]}\\)`));
      expect(fs.readFileSync(v.path('MEMORY.md')).equals(before), args[0]).toBe(true);
    }
    resolveFromStages(v);
    await expectNormalAfterResolving(v, ['base-entry', oursId, theirsId]);
    expect((await run(v, ['lint'])).status).toBe(0);
  });

  it('both sides edit one entry body: both versions stay searchable, lint reports the id twice', async () => {
    const v = repo(`${BASE}${entry('pkg', '## Package manager\n\nUse npm for installs.')}${entry('tail', '## Tail entry\n\nUnrelated text.')}`);
    const text = await conflict(v, edit(v, 'Use npm for installs.', 'Use pnpm for installs.'), edit(v, 'Use npm for installs.', 'Use yarn berry for installs.'));
    await expectConflictHandled(v, text, [{ id: 'tail', query: 'unrelated' }, { id: 'pkg', query: 'pnpm' }, { id: 'pkg', query: 'yarn berry' }]);
    const hits = (await run(v, ['search', 'installs', '--json'])).json().results as { id: string; body: string }[];
    expect(hits.filter((h) => h.id === 'pkg').map((h) => h.body).sort()).toEqual(['Use pnpm for installs.', 'Use yarn berry for installs.']);
    expect((await run(v, ['lint'])).stdout).toMatch(/duplicate id "pkg"/);
    // show names both places
    expect((await run(v, ['show', 'pkg'])).stderr).toMatch(/id pkg appears 2 times/);
    // Resolved by choosing one version: one entry, no duplicate.
    const resolved = v.read('MEMORY.md').replace(/<<<<<<< [^\n]*\n(Use pnpm for installs\.\n)=======\nUse yarn berry for installs\.\n>>>>>>> [^\n]*\n/, '$1');
    fs.writeFileSync(v.path('MEMORY.md'), resolved);
    expect((await run(v, ['lint'])).status).toBe(0);
    expect((await listedIds(v)).filter((id) => id === 'pkg')).toHaveLength(1);
  });

  it('mem resolve leaves entries whose text both sides edited marked and says how to finish by hand; following it works', async () => {
    const v = repo(`${BASE}${entry('pkg', '## Package manager\n\nUse npm for installs.')}${entry('tail', '## Tail entry\n\nUnrelated text.')}`
      + entry('ci', '## CI runner\n\nThe CI runs on ubuntu-22.04.'));
    await conflict(v,
      () => { edit(v, 'Use npm for installs.', 'Use pnpm for installs.')(); edit(v, 'The CI runs on ubuntu-22.04.', 'The CI runs on ubuntu-24.04.')(); },
      () => { edit(v, 'Use npm for installs.', 'Use yarn berry for installs.')(); edit(v, 'The CI runs on ubuntu-22.04.', 'The CI runs on a self-hosted runner.')(); });
    // Run from a folder below the top: the file is named as it is typed from there.
    fs.mkdirSync(v.path('docs'));
    const r = await runIn(['resolve'], { cwd: v.path('docs'), home: v.home });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'mem: MEMORY.md: entries pkg "Package manager", ci "CI runner" edited on both sides; left between conflict markers',
      'hint: edit ../MEMORY.md by hand: between each <<<<<<< and >>>>>>> keep one version of the entry (or write the two as one), '
        + 'delete the marker lines (<<<<<<<, |||||||, =======, >>>>>>>), then run mem lint and git add ../MEMORY.md',
    ]);
    const json = (await runIn(['resolve', '--json'], { cwd: v.path('docs'), home: v.home })).json();
    expect(json.files).toEqual([expect.objectContaining({ path: 'MEMORY.md', file: '../MEMORY.md', resolved: false, conflict_ids: ['pkg', 'ci'], conflict_titles: ['Package manager', 'CI runner'] })]);
    // Lint still fails on the markers until the user has chosen.
    expect((await run(v, ['lint'])).status).toBe(1);

    // As the hint says: one version of each entry kept, the markers gone, lint, git add.
    const text = v.read('MEMORY.md');
    const chosen = text.replace(/^<<<<<<< [^\n]*\n([\s\S]*?)^=======\n[\s\S]*?^>>>>>>> [^\n]*\n/gm, '$1');
    expect(chosen).not.toMatch(MARKER);
    fs.writeFileSync(v.path('MEMORY.md'), chosen);
    const lint = await runIn(['lint'], { cwd: v.path('docs'), home: v.home });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
    git(v.path('docs'), ['add', '../MEMORY.md']);
    git(v.root, ['commit', '-qm', 'merged by hand']);
    expect(await listedIds(v)).toEqual(['base-entry', 'pkg', 'tail', 'ci']);
    expect(v.read('MEMORY.md')).toContain('Use pnpm for installs.');
    expect(v.read('MEMORY.md')).toContain('ubuntu-24.04');
  });

  it('one side edits a header key and the body end of the last entry, the other appends after it', async () => {
    const v = repo(`${BASE}${entry('last', '## Last entry\n\nThe tests need Docker.', { importance: 0.4 })}`);
    // Ours changes the key and the last body line (and drops the blank line after it), theirs
    // appends there: the changes touch, so git cannot merge them.
    const text = await conflict(v, edit(v, /importance: 0\.4\n([\s\S]*)The tests need Docker\.\n\n$/, 'importance: 0.9\n$1The tests need Docker and a VPN.\n'),
      append(v, `---\nid: appended\ntype: procedural\ndomain: team\nimportance: 0.5\n---\n## Appended by theirs\n\nCache the node_modules folder in CI.\n`));
    await expectConflictHandled(v, text, [{ id: 'last', query: 'docker' }, { id: 'appended', query: 'node_modules' }, { id: 'last', query: 'vpn' }]);
    const last = ((await run(v, ['list', '--json'])).json().entries as { id: string; importance: number }[]).filter((e) => e.id === 'last');
    expect(last.map((e) => e.importance)).toContain(0.9);
    resolveFromStages(v);
    await expectNormalAfterResolving(v, ['last', 'appended']);
  });

  it.each(['diff3', 'zdiff3'] as const)('%s style: the base section is neither side', async (style) => {
    const v = repo(`${BASE}${entry('shared', '## Shared\n\nOld wording of the rule.')}`);
    const text = await conflict(v,
      () => { edit(v, 'Old wording of the rule.', 'Ours: lint before pushing.')(); append(v, `\n${entry('ours-new', '## Ours new\n\nFeature flags live in LaunchDarkly.')}`)(); },
      () => { edit(v, 'Old wording of the rule.', 'Theirs: format before pushing.')(); append(v, `\n${entry('theirs-new', '## Theirs new\n\nThe staging database resets nightly.')}`)(); },
      style);
    expect(text).toMatch(/^\|{7} /m);
    await expectConflictHandled(v, text, [{ id: 'base-entry', query: 'esbuild' }, { id: 'ours-new', query: 'launchdarkly' }, { id: 'theirs-new', query: 'nightly' }, { id: 'shared', query: 'format' }]);
    // The base version's words are not an entry any more.
    expect((await run(v, ['search', 'old wording', '--json'])).json().results).toEqual([]);
    resolveKeepingBoth(v);
    expect((await run(v, ['lint'])).stdout).not.toMatch(/conflict marker/);
  });

  it('a CRLF file: markers end in CRLF, entries of both sides are read, the resolved file keeps CRLF', async () => {
    const v = repo(BASE, { crlf: true });
    const text = await conflict(v,
      append(v, `\r\n${entry('crlf-ours', '## Ours\r\n\r\nWindows runners need long paths enabled.').replace(/\r?\n/g, '\r\n')}`),
      append(v, `\r\n${entry('crlf-theirs', '## Theirs\r\n\r\nPowerShell scripts must be signed.').replace(/\r?\n/g, '\r\n')}`));
    expect(text).toMatch(/^<<<<<<< [^\r\n]*\r\n/m);
    expect(text).toMatch(/^=======\r\n/m);
    await expectConflictHandled(v, text, [{ id: 'crlf-ours', query: 'long paths' }, { id: 'crlf-theirs', query: 'signed' }]);
    resolveFromStages(v);
    await expectNormalAfterResolving(v, ['crlf-ours', 'crlf-theirs', 'base-entry']);
    expect(v.read('MEMORY.md')).not.toMatch(/[^\r]\n/);
  });

  it('mem add writes a body with marker-like lines so that the file stays writable', async () => {
    const v = repo(BASE);
    const r = await runIn(['add', '-'], { cwd: v.root, home: v.home, input: 'How a conflict looks\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n' });
    expect(r.status, r.stderr).toBe(0);
    expect(v.read('MEMORY.md')).not.toMatch(/^(<{7}|={7}|>{7})/m);
    expect(v.read('MEMORY.md')).toMatch(/^ <{7} HEAD$/m);
    expect((await run(v, ['lint'])).status).toBe(0);
    expect((await run(v, ['add', 'A second entry after it'])).status).toBe(0);
  });
});

describe('other files and other conflict kinds', () => {
  it('add/add: two clones each create MEMORY.md with mem add (the whole file is one conflict)', async () => {
    const v = tempVault({ git: true });
    v.write('.gitignore', '.memory.db*\n.mem/\n');
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-qm', 'init']);
    git(v.root, ['branch', '-M', 'main']);
    const ids: string[] = [];
    const text = await conflict(v, async () => {
      ids.push((await run(v, ['add', 'Production deploys need a second approval'])).stdout.trim());
      git(v.root, ['add', 'MEMORY.md']);
    }, async () => {
      ids.push((await run(v, ['add', 'Staging uses the green cluster'])).stdout.trim());
      git(v.root, ['add', 'MEMORY.md']);
    });
    expect(ids.every((id) => id.length > 0)).toBe(true);
    await expectConflictHandled(v, text, [{ id: ids[1], query: 'second approval' }, { id: ids[0], query: 'green cluster' }]);
    const doctor = await run(v, ['doctor']);
    expect(doctor.stdout).toMatch(new RegExp(`FAIL +git conflicts +unresolved conflict markers in MEMORY\\.md:${markerLines(text)[0]}`));
    resolveFromStages(v);
    await expectNormalAfterResolving(v, ids);
  });

  it('a conflicted note under memory/ and institutional.md: named in the warnings, sections of both sides searchable', async () => {
    const v = repo(BASE);
    v.write('memory/deploy.md', '# Deploy notes\n\n## Cluster\n\nWe deploy to the old cluster.\n');
    v.write('institutional.md', `# Norms\n\n${entry('norm', '## Reviews\n\nEvery change gets one review.')}`);
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-qm', 'notes']);
    git(v.root, ['checkout', '-qb', 'other']);
    fs.writeFileSync(v.path('memory/deploy.md'), '# Deploy notes\n\n## Cluster\n\nWe deploy to the green cluster in Frankfurt.\n');
    fs.writeFileSync(v.path('institutional.md'), v.read('institutional.md').replace('one review', 'two reviews from owners'));
    git(v.root, ['commit', '-qam', 'theirs']);
    git(v.root, ['checkout', '-q', 'main']);
    fs.writeFileSync(v.path('memory/deploy.md'), '# Deploy notes\n\n## Cluster\n\nWe deploy to the blue cluster in Dublin.\n');
    fs.writeFileSync(v.path('institutional.md'), v.read('institutional.md').replace('one review', 'a review and green CI'));
    git(v.root, ['commit', '-qam', 'ours']);
    expect(spawnSync('git', ['merge', 'other'], { cwd: v.root, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).status).not.toBe(0);
    const search = await run(v, ['search', 'cluster', '--json']);
    expect(search.stderr).toMatch(/memory\/deploy\.md has unresolved git conflict markers.*\(memory\/deploy\.md:5\)/);
    expect(search.stderr).toMatch(/institutional\.md has unresolved git conflict markers/);
    const bodies = (search.json().results as { body: string }[]).map((r) => r.body).join('\n');
    expect(bodies).toMatch(/Frankfurt/);
    expect(bodies).toMatch(/Dublin/);
    expect(bodies).not.toMatch(/={7}|<{7}|>{7}/);
    const lint = await run(v, ['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout).toMatch(/^memory\/deploy\.md:5: git conflict marker <<<<<<</m);
    expect(lint.stdout).toMatch(/^institutional\.md:\d+: git conflict marker =======/m);
    const reviews = (await run(v, ['search', 'reviews', '--json'])).json().results as { id: string; body: string }[];
    expect(reviews.filter((r) => r.id === 'norm').map((r) => r.body).sort()).toEqual(['Every change gets a review and green CI.', 'Every change gets two reviews from owners.']);
  });
});

describe('duplicate ids without markers (a union merge)', () => {
  it('lint reports duplicate ids within one file and across files', async () => {
    const v = repo(`${BASE}${entry('twice', '## One\n\nfirst copy')}${entry('twice', '## Two\n\nsecond copy')}`);
    v.write('memory/notes.md', entry('base-entry', '## Elsewhere\n\nsame id in another file'));
    const lint = await run(v, ['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout.match(/duplicate id "twice"/g)).toHaveLength(2);
    expect(lint.stdout).toMatch(/MEMORY\.md:\d+: duplicate id "base-entry" \(also at memory\/notes\.md:1\)/);
    expect(lint.stdout).not.toMatch(/conflict marker/);
  });
});
