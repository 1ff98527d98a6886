// Hostile entry headers end to end: header rewrites change only the lines of the keys they change
// (checked with real git diffs), alias-amplified or huge headers are one broken entry and never
// take the vault down, and every value mem writes reads back as itself.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, git, tempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

const TODAY = '2026-11-25';

function vault() {
  const v = tempVault({ git: true });
  const run = async (args: string[], env: Record<string, string> = {}, input?: string) => runIn(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: TODAY, ...env } });
  const commit = () => {
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-qm', 'state']);
  };
  /** Changed lines (+/-) of the working tree against HEAD, as git shows them. */
  const diff = () => git(v.root, ['diff', '-U0', '--', 'MEMORY.md']).split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));
  return { v, run, commit, diff };
}

const J85 = ['alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo',
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec sierra tango'];

/** A header a person wrote by hand, with every YAML spelling a re-serialiser would change. */
function hostileHeader(id: string, over: Record<string, string> = {}): string[] {
  const f = {
    type: 'type: procedural', domain: 'domain: task', phase: 'phase: implementation', status: 'status:    active    # spaced',
    rc: 'reinforcement_count: 0x02', last: "last_reinforced: '2026-01-01'", ...over,
  };
  return [
    '# owned by the infra team',
    `id: ${id}   # stable id`,
    f.type,
    f.domain,
    f.phase,
    'importance: 0.80',
    f.status,
    f.rc,
    f.last,
    'ticket: 9007199254740993',
    'mask: 0x1F',
    'mode: 0o755',
    'budget: 1e3',
    'owner: ~',
    'motto: "tab\\there \\u00e9 \\"quoted\\" back\\\\slash"',
    "single: 'it''s'",
    'limits: {cpu: 2, mem: [1, 2]}',
    'tags:',
    '  - alpha   # first',
    '  - "beta"',
    '',
    '   # an indented comment',
    'base: &b shared',
    'copy: *b',
    'notes: |',
    '  line one',
    '  line two',
  ];
}

function fileText(header: string[], body: string, eol = '\n'): string {
  return ['---', ...header, '---', body, '', ''].join(eol);
}

describe('header rewrites change only the keys they change (git diff)', () => {
  it('mem reinforce: two value texts change; big ints, hex, octal, comments, flow maps, lists, anchors stay byte for byte', async () => {
    const { v, run, commit, diff } = vault();
    const before = `# Memory\n\n${fileText(hostileHeader('h1'), 'The nightly backup writes to the offsite bucket.')}${entry('plain', 'Another learning.')}`;
    v.write('MEMORY.md', before);
    commit();
    const r = await run(['reinforce', 'h1']);
    expect(r.status, r.stderr).toBe(0);
    expect(diff()).toEqual(['-reinforcement_count: 0x02', "-last_reinforced: '2026-01-01'", '+reinforcement_count: 3', `+last_reinforced: '${TODAY}'`]);
    const shown = (await run(['show', 'h1', '--json'])).json();
    expect(shown).toMatchObject({ reinforcement_count: 3, mask: 31, mode: 493, budget: 1000, owner: null, motto: 'tab\there é "quoted" back\\slash', single: "it's", limits: { cpu: 2, mem: [1, 2] }, tags: ['alpha', 'beta'], copy: 'shared' });
  });

  it('mem stage set: status text replaced inside its spacing and comment, retired_at appended after the block scalar', async () => {
    const { v, run, commit, diff } = vault();
    v.write('MEMORY.md', `# Memory\n\n${fileText(hostileHeader('h2'), 'A task learning of implementation.')}`);
    expect((await run(['stage', 'set', 'implementation'])).status).toBe(0);
    commit();
    const r = await run(['stage', 'set', 'review']);
    expect(r.status, r.stderr).toBe(0);
    expect(diff()).toEqual(['-status:    active    # spaced', '+status:    retired    # spaced', `+retired_at: '${TODAY}'`]);
    expect((await run(['show', 'h2', '--json'])).json()).toMatchObject({ status: 'retired', notes: 'line one\nline two\n' });
  });

  it('mem lint --fix: only the normalised value changes', async () => {
    const { v, run, commit, diff } = vault();
    v.write('MEMORY.md', `# Memory\n\n${fileText(hostileHeader('h3', { type: 'type:   Procedural   # capitalised' }), 'A learning.')}`);
    commit();
    const r = await run(['lint', '--fix']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(diff()).toEqual(['-type:   Procedural   # capitalised', '+type:   procedural   # capitalised']);
  });

  it('mem compact: the survivor gets its status and compacted_from, nothing else of its header moves', async () => {
    const { v, run, commit, diff } = vault();
    v.write('MEMORY.md', `# Memory\n\n${fileText(hostileHeader('h4'), J85[1])}${entry('m2', J85[0], { importance: 0.5, last_reinforced: '2025-06-01' })}`);
    commit();
    const r = await run(['compact', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().merges[0].survivor.id).toBe('h4');
    const changed = diff();
    // The absorbed entry's lines go; in the survivor's header only status changes and one key is added.
    const header = changed.filter((l) => !entry('m2', J85[0], { importance: 0.5, last_reinforced: '2025-06-01' }).split('\n').some((e) => l === `-${e}`));
    expect(header).toEqual(['-status:    active    # spaced', '+status:    compacted    # spaced', '+compacted_from: [m2]']);
  });

  it('mem consolidate: the decayed entry gets its new importance and superseded_by, nothing else', async () => {
    const { v, run, commit, diff } = vault();
    const header = hostileHeader('old', { domain: 'domain: team', last: "last_reinforced: '2026-01-01'\ncreated_at: '2026-10-01'" });
    v.write('MEMORY.md', `# Memory\n\n${fileText(header, 'Use npm to install packages in this repository.')}`
      + entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' }));
    commit();
    const r = await run(['consolidate', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().decisions).toMatchObject([{ id: 'old', by: 'new' }]);
    const changed = diff();
    expect(changed[0]).toBe('-importance: 0.80');
    expect(changed[1]).toMatch(/^\+importance: 0\.\d+$/);
    expect(changed.slice(2)).toEqual(['+superseded_by: new']);
  });

  it('keeps CRLF headers CRLF, every other byte identical', async () => {
    const { v, run } = vault();
    const header = hostileHeader('h5');
    const before = `# Memory\r\n\r\n${fileText(header, 'A CRLF learning.', '\r\n')}`;
    v.write('MEMORY.md', before);
    expect((await run(['reinforce', 'h5'])).status).toBe(0);
    const expected = before.replace('reinforcement_count: 0x02\r\n', 'reinforcement_count: 3\r\n').replace("last_reinforced: '2026-01-01'\r\n", `last_reinforced: '${TODAY}'\r\n`);
    expect(v.read('MEMORY.md')).toBe(expected);
  });

  it('replaces exactly the lines of a multi-line value (a block list, a folded scalar)', async () => {
    const { v, run, commit, diff } = vault();
    const header = hostileHeader('h6', { last: "last_reinforced: >-\n  2026-01-01", rc: 'reinforcement_count:\n  7' });
    v.write('MEMORY.md', `# Memory\n\n${fileText(header, 'A learning.')}`);
    commit();
    expect((await run(['reinforce', 'h6'])).status).toBe(0);
    expect(diff()).toEqual(['-reinforcement_count:', '-  7', '-last_reinforced: >-', '-  2026-01-01', '+reinforcement_count: 8', `+last_reinforced: '${TODAY}'`]);
  });

  it('refuses, writing nothing, an edit that cannot be made in place (an anchored value read through an alias)', async () => {
    const { v, run } = vault();
    const header = hostileHeader('h7', { rc: 'reinforcement_count: &rc 2\nfloor: *rc' });
    const before = `# Memory\n\n${fileText(header, 'A learning.')}`;
    v.write('MEMORY.md', before);
    const r = await run(['reinforce', 'h7']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: .*h7.*reinforcement_count/m);
    expect(r.stderr).not.toMatch(/TypeError|at .*\.js/);
    expect(v.read('MEMORY.md')).toBe(before);
  });
});

describe('alias amplification and huge headers: one broken entry, the vault still answers', () => {
  function bombVault(bomb: string) {
    const { v, run } = vault();
    const good = (i: number) => entry(`good-${i}`, `Zebras graze near waterhole number ${i}.`);
    const text = `# Memory\n\n${good(1)}${bomb}${good(2)}${good(3)}`;
    v.write('MEMORY.md', text);
    const bombLine = text.slice(0, text.indexOf(bomb)).split('\n').length;
    return { v, run, text, bombLine };
  }

  const variants: Record<string, () => string> = {
    // ~1 MB once expanded: 99 aliases of a 10 KB string.
    'a 10 KB string under 99 aliases': () => `---\nid: bomb\nbig: &a "${'x'.repeat(10_000)}"\nrefs: [${Array(99).fill('*a').join(', ')}]\n---\nZebras bomb body\n\n`,
    // Aliases of aliases: small file, 9^4 copies.
    'nested aliases (lists of lists)': () => `---\nid: bomb\na: &a [${'zzzzzzzzzzzzzzzzzzzz, '.repeat(5)}z]\nb: &b [${Array(9).fill('*a').join(', ')}]\nc: &c [${Array(9).fill('*b').join(', ')}]\nd: &d [${Array(9).fill('*c').join(', ')}]\ne: [${Array(9).fill('*d').join(', ')}]\n---\nZebras bomb body\n\n`,
    // A block list of aliases to a big map.
    'a block list of aliases to a map': () => `---\nid: bomb\nm: &m {k1: "${'y'.repeat(4000)}", k2: "${'w'.repeat(4000)}"}\nlist:\n${'  - *m\n'.repeat(40)}---\nZebras bomb body\n\n`,
    // A comment line first: still read as a (broken) header, not as the previous entry's body.
    'a comment line, then a big string under aliases': () => `---\n# generated\nid: bomb\nbig: &a ${'v'.repeat(8_000)}\nrefs:\n${'  - *a\n'.repeat(90)}---\nZebras bomb body\n\n`,
    // One 6 MB line, no alias at all.
    'one 6 MB line': () => `---\nid: bomb\nbig: ${'q'.repeat(6_000_000)}\n---\nZebras bomb body\n\n`,
  };

  for (const [name, make] of Object.entries(variants)) {
    it(`${name}: search finds the good entries, lint names file:line, show --json stays small`, async () => {
      const { v, run, text, bombLine } = bombVault(make());
      const s = await run(['search', 'zebras', '--json']);
      expect(s.status, s.stderr).toBe(0);
      expect(s.json().results.map((h: { id: string }) => h.id).sort()).toEqual(['good-1', 'good-2', 'good-3']);
      const at = Number(/MEMORY\.md:(\d+)/.exec(s.stderr)?.[1]);
      expect(at).toBeGreaterThan(bombLine);
      expect(at).toBeLessThan(bombLine + 8);
      expect(s.stderr).not.toMatch(/TypeError|reading 'code'/);
      const show = await run(['show', 'good-1', '--json']);
      expect(show.status, show.stderr).toBe(0);
      expect(show.stdout.length).toBeLessThan(2000);
      expect((await run(['show', 'bomb', '--json'])).status).not.toBe(0);
      const list = await run(['list', '--json']);
      expect(list.status).toBe(0);
      expect(list.stdout.length).toBeLessThan(10_000);
      const lint = await run(['lint']);
      expect(lint.status).toBe(1);
      expect(lint.stdout + lint.stderr).toMatch(new RegExp(`MEMORY\\.md:\\d+.*(over|alias|limit)`));
      expect(fs.statSync(v.path('.memory.db')).size).toBeLessThan(1_000_000);
      expect((await run(['doctor'])).stdout).toMatch(/broken files/);
      expect(v.read('MEMORY.md')).toBe(text);
    });
  }

  it('a few small aliases are still fine', async () => {
    const { run } = bombVault('---\nid: ok-alias\nbase: &b zebra stripes\ncopy: *b\n---\nZebras with aliases\n\n');
    expect((await run(['show', 'ok-alias', '--json'])).json()).toMatchObject({ copy: 'zebra stripes' });
    expect((await run(['lint'])).status).toBe(0);
  });
});

describe('every value mem writes reads back as itself', () => {
  const HOSTILE_TAGS = ['- x', '? y', '[z]', '{w}', "'q'", '"d"', '*s', '&a', '!t', '|p', '>g', '%h', '@i', '`k`', 'null', 'True', '~', '123',
    '-0', '0x1F', '1e3', '.inf', '2026-01-01', '12:30', 'a: b', 'c #d', '#e', '\\back\\', 'tab\tinside', 'ünï', '😀', 'nbsp\u00a0x', 'x\u00ad'];

  it('mem add with hostile --tags / --session / --phase: show --json returns them; lint and compact accept the file', async () => {
    const { run } = vault();
    const session = 's: #1\t"quoted" \'single\' \\ [x] {y} \u2028 after-ls \u2029 after-ps';
    const r = await run(['add', '--tags', HOSTILE_TAGS.join(','), '--session', session, '--phase', 'design', 'Hostile values learning'], {});
    expect(r.status, r.stderr).toBe(0);
    const id = r.stdout.trim();
    const shown = await run(['show', id, '--json']);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.json()).toMatchObject({ tags: HOSTILE_TAGS, session_id: session, phase: 'design' });
    expect((await run(['lint'])).status).toBe(0);
    const c = await run(['compact']);
    expect(c.status, c.stderr).toBe(0);
    // A second entry with the same hostile values, then a header rewrite of both.
    expect((await run(['add', '--tags', HOSTILE_TAGS.slice(0, 10).join(','), '--session', session, 'Second hostile learning about other things'])).status).toBe(0);
    expect((await run(['reinforce', id])).status).toBe(0);
    expect((await run(['show', id, '--json'])).json()).toMatchObject({ tags: HOSTILE_TAGS, session_id: session, reinforcement_count: 1 });
    expect((await run(['lint'])).status).toBe(0);
  });

  it('--tags with line breaks: commas and line breaks both separate tags; the header parses', async () => {
    const { run } = vault();
    for (const [tags, want] of [['a\nb', ['a', 'b']], ['one,\r\ntwo\u2028three', ['one', 'two', 'three']], ['\n\n', undefined]] as const) {
      const r = await run(['add', '--tags', tags, `Learning with tags ${JSON.stringify(tags)}`]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/malformed|warning/);
      expect((await run(['show', r.stdout.trim(), '--json'])).json().tags).toEqual(want);
    }
    const c = await run(['compact']);
    expect(c.status, c.stderr).toBe(0);
    expect((await run(['lint'])).status).toBe(0);
  });

  it('mem promote copies hostile tags and session_task from hand-written entries; they read back the same', async () => {
    const { v, run } = vault();
    const lesson = 'Always run the linter before committing changes to avoid failing builds.';
    const tags = ['a\nb', '- x', 'c: d #e', "it's", '"q"', '\\', ' pad ', '', 'null', '0x1F', 'ls\u2028ls', '\x1b[31mred', 'nel\u0085', 'bom\ufeff'];
    const task = 'fix: the #1 bug\tnow\n  and "then" \\ more \x07';
    const head = (id: string) => ['---', `id: ${id}`, 'type: procedural', 'tags:', ...tags.map((t) => `  - ${JSON.stringify(t)}`), `session_task: ${JSON.stringify(task)}`, '---', lesson, '', ''].join('\n');
    for (const j of ['j1', 'j2', 'j3']) v.write(`.mem/jobs/${j}/MEMORY.md`, head(`${j}-l`));
    const r = await run(['promote', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const p = r.json().promoted;
    expect(p).toHaveLength(1);
    expect((await run(['show', p[0].id, '--json'])).json()).toMatchObject({ tags, session_task: task, scope: 'project' });
    // Controls are written as escapes, never as raw bytes in the file.
    expect(v.read('MEMORY.md')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\ufeff]/);
    expect((await run(['lint'])).status).toBe(0);
    expect((await run(['compact'])).status).toBe(0);
  });

  it('a value too large for a header is refused with one mem: line, nothing written', async () => {
    const { v, run } = vault();
    expect((await run(['add', 'First learning'])).status).toBe(0);
    const before = v.read('MEMORY.md');
    for (const [args, env] of [[['--tags', 't'.repeat(70_000)], {}], [[], { MEM_SESSION: `s${'\u2028'.repeat(20_000)}` }]] as const) {
      const r = await run(['add', ...args, 'A learning with a huge value'], env);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^mem: .*too large.*nothing was written$/m);
      expect(v.read('MEMORY.md')).toBe(before);
    }
  });

  it('a session id with a newline is stored as written and reads back', async () => {
    const { run } = vault();
    const r = await run(['add', 'Learning from a strange session'], { MEM_SESSION: 'line1\nline2: x' });
    expect(r.status, r.stderr).toBe(0);
    expect((await run(['show', r.stdout.trim(), '--json'])).json().session_id).toBe('line1\nline2: x');
    expect((await run(['compact'])).status).toBe(0);
  });
});
