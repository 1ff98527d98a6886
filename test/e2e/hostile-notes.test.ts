// Hostile input against the typed notes (episodes, patterns): what a cloned repository's vault
// files, an import folder or stdin can hold, run through the CLI in this process. What stays fast
// is measured in the bench; here a run that blows up ends by the test's timeout.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(() => cleanup());

function run(v: TempVault, args: string[], input?: string) {
  return runIn(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: '2026-11-26T12:00:00Z' } });
}

const T = '2026-11-25T10:00:00Z';

describe('decision ids mem accepts are ids mem validate resolves', () => {
  it('an episode whose decisions are named pick-db / setup.db (store_episode allows them) validates clean', async () => {
    const v = tempVault();
    const ep = {
      session_id: 's1', task: 'choose a database', outcome: 'success',
      decisions: [
        { id: 'pick-db', timestamp: T, type: 'design', context: 'need storage', chosen: 'postgres', outcome: 'success', effects: ['setup.db', 'e1'] },
        { id: 'setup.db', timestamp: T, type: 'implementation', context: 'set it up', chosen: 'docker compose', outcome: 'success' },
      ],
      events: [{ id: 'e1', timestamp: T, type: 'milestone', content: 'db up' }],
    };
    expect((await run(v, ['episode', 'add'], JSON.stringify(ep))).status).toBe(0);
    const r = await run(v, ['validate']);
    expect(r.stdout + r.stderr).not.toMatch(/broken link/);
    expect(r.status).toBe(0);
    // A link to a decision that does not exist is still reported.
    const note = v.read('.mem/episodes/EPISODE-s1.md');
    v.write('.mem/episodes/EPISODE-s1.md', note.replace('[[setup.db]]', '[[setup.dbx]]'));
    const bad = await run(v, ['validate']);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/\[\[setup\.dbx\]\] is not a decision or event/);
  });

  it('an imported ai-agents episode with its own decision ids (even __proto__) validates clean', async () => {
    const v = tempVault();
    const dir = tempDir();
    const json = {
      session: 'imp', timestamp: T, outcome: 'failure', task: 't',
      decisions: [{ id: '__proto__', chosen: 'a', effects: ['constructor'] }, { id: 'constructor', chosen: 'b' }],
    };
    fs.writeFileSync(`${dir}/episode-imp.json`, JSON.stringify(json));
    expect((await run(v, ['import', 'ai-agents', dir])).status).toBe(0);
    const r = await run(v, ['validate']);
    expect(r.stdout).not.toMatch(/broken link/);
    expect(r.status).toBe(0);
  });
});

// A cloned repository's notes may carry terminal escapes (OSC sets the window title, CSI redraws)
// and bidirectional overrides (text shown reversed): what mem prints from them acts on nothing.
const ACTIVE = /[\u001b\u0007\u009b\u202a-\u202e\u2066-\u2069]/;

describe('terminal controls and bidi overrides in typed notes are never printed raw', () => {
  it('episode list / decisions, pattern list / path, validate and context', async () => {
    const v = tempVault();
    v.write('.mem/episodes/EPISODE-s1.md', [
      '---', 'title: "EPISODE-s1\\e]0;pwned\\a"', 'type: episode', 'tags: [episodic]', 'permalink: episodes/episode-s1', 'session_id: s1',
      'created_at: "2026-11-25\\e]0;owned\\a"', 'outcome: failure', 'task: "fix \\u202elogin\\e[2J"', '---', '', '# EPISODE-s1', '',
      '## Decisions', '### d1: pick \u001b[31mred\u202e', '- **Timestamp**: 2026-11-25T10:00:00Z\u001b[8m', '- **Type**: design', '- **Context**: c',
      '- **Chosen**: x\u009b31m', '- **Outcome**: success', '- **Effects**: [[e9\u001b]0;t\u0007]]', '',
      '## Lessons Learned', '- never \u202eexe.txt', '', '## Relations', '- relates_to [[gone\u0007\u001bc\u202e]]', '',
    ].join('\n'));
    v.write('.mem/episodes/EPISODE-s2.md', [
      '---', 'title: "EPISODE-s2\\u202e"', 'type: episode', 'tags: [episodic]', 'permalink: episodes/episode-s2', 'session_id: s2',
      'created_at: 2026-11-25', 'outcome: failure', 'task: "fix \\u202elogin\\e]0;t\\a"', '---', '', '# EPISODE-s2', '',
      '## Lessons Learned', '- never \u202eexe.txt \u001b[2J', '',
    ].join('\n'));
    const pat = (name: string, title: string, rel: string) => [
      '---', `title: "${title}"`, 'type: pattern', 'tags: [causal, pattern]', `permalink: patterns/${name.toLowerCase()}`, 'trigger: "when \\u202ereversed\\e[31m"',
      'success_rate: 0.9', 'occurrences: 3', 'last_validated: 2026-11-20', '---', '', `# ${name}`, '', '## Context', 'c', '', '## Trigger', 't', '',
      '## Action', 'do \u001b]0;x\u0007 it', '', '## Causal Relationships', `- causes [[${rel}]]`, '', '## Relations', '',
    ].join('\n');
    v.write('.mem/patterns/PATTERN-a.md', pat('PATTERN-a', 'PATTERN-a\\e[31m\\u2066', 'PATTERN-b'));
    v.write('.mem/patterns/PATTERN-b.md', pat('PATTERN-b', 'PATTERN-b\\u202e\\e]0;t\\a', 'PATTERN-zz\u001b[2J'));
    const outs = [
      await run(v, ['episode', 'list']), await run(v, ['episode', 'decisions', 's1']), await run(v, ['pattern', 'list']), await run(v, ['pattern', 'path', 'PATTERN-a', 'PATTERN-b']),
      await run(v, ['pattern', 'path', 'pattern', 'PATTERN-b']), await run(v, ['validate']), await run(v, ['context', 'fix login']),
    ];
    expect(outs[0].stdout).toMatch(/EPISODE-s1/);
    expect(outs[1].stdout).toMatch(/pick/);
    expect(outs[2].stdout).toMatch(/PATTERN-a/);
    expect(outs[3].stdout).toMatch(/—causes→/);
    expect(outs[4].stderr).toMatch(/matches 2 patterns/);
    expect(outs[5].stdout).toMatch(/broken link/);
    expect(outs[6].stdout).toMatch(/### Recent failures[\s\S]*### Patterns that have worked here/);
    for (const r of outs) {
      expect(r.stdout).not.toMatch(ACTIVE);
      expect(r.stderr).not.toMatch(ACTIVE);
    }
  });
});

describe('terminal controls and bidi overrides in memory entries are never printed raw', () => {
  it('list, show, search (and their --json, which keeps the exact text), stats and lint', async () => {
    const v = tempVault();
    const title = 'Title \u001b[2J\u001b]52;c;ZWNobyBoaQ==\u0007 \u202e evil';
    v.write('MEMORY.md', `# Memory\n\n---\nid: esc00001\ntype: directive\ndomain: team\nimportance: 0.5\nstatus: active\nreinforcement_count: 0\n---\n## ${title}\n\nbody \u001b[31mred zebra\u009b31m and\r more\n`);
    const outs = [
      await run(v, ['list']), await run(v, ['show', 'esc00001']), await run(v, ['search', 'zebra']), await run(v, ['search', 'zebra', '--explain']),
      await run(v, ['stats']), await run(v, ['lint']), await run(v, ['context', 'zebra']),
      // An error that quotes what it was given.
      await run(v, ['show', 'zz\u001b]0;t\u0007\u202e']),
    ];
    expect(outs[7].status).not.toBe(0);
    expect(outs[7].stderr).toMatch(/^mem: no entry with id "zz/);
    expect(outs[0].stdout).toMatch(/Title ␛\[2J␛\]52;c;ZWNobyBoaQ==␇ \ufffd evil/);
    expect(outs[1].stdout).toMatch(/body ␛\[31mred zebra\ufffd31m and␍ more/);
    expect(outs[2].stdout).toMatch(/zebra/);
    for (const r of outs) {
      expect(r.stdout).not.toMatch(ACTIVE);
      expect(r.stderr).not.toMatch(ACTIVE);
    }
    // JSON keeps the value: the same title, the characters written as escapes.
    for (const args of [['list', '--json'], ['show', 'esc00001', '--json'], ['search', 'zebra', '--json']]) {
      const r = await run(v, args);
      expect(r.stdout).not.toMatch(ACTIVE);
      expect(r.stdout).toContain('\\u001b[2J');
      expect(JSON.stringify(r.json())).toContain(JSON.stringify(title).slice(1, -1));
    }
  });
});

describe('a typed note whose frontmatter does not parse is named, never silently left out', () => {
  it('YAML alias bomb, 5000-deep nesting, unclosed frontmatter: listed as warnings, other notes still listed, nothing hangs', async () => {
    const v = tempVault();
    const bomb = ['---', 'title: EPISODE-bomb', 'type: episode', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1, prev = 'a'; i < 12; prev = `b${i}`, i++) bomb.push(`b${i}: &b${i} [${Array(9).fill(`*${prev}`).join(',')}]`);
    v.write('.mem/episodes/EPISODE-bomb.md', [...bomb, 'task: bomb', 'outcome: failure', '---', '', '# EPISODE-bomb', ''].join('\n'));
    v.write('.mem/episodes/EPISODE-deep.md', `---\ntitle: EPISODE-deep\ntype: episode\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n---\n\n# EPISODE-deep\n`);
    v.write('.mem/episodes/EPISODE-ok.md', '---\ntitle: EPISODE-ok\ntype: episode\ntags: [episodic]\nsession_id: ok\noutcome: success\ntask: fine\n---\n\n# EPISODE-ok\n');
    v.write('.mem/patterns/PATTERN-open.md', '---\ntitle: PATTERN-open\ntype: pattern\ntrigger: t\n\n# never closed\n');
    v.write('.mem/patterns/README.md', '# What these are\n');
    const eps = await run(v, ['episode', 'list']);
    expect(eps.status).toBe(0);
    expect(eps.stdout).toMatch(/EPISODE-ok/);
    expect(eps.stderr).toMatch(/EPISODE-bomb\.md:\d+: not listed: its frontmatter does not parse \(.*alias/);
    expect(eps.stderr).toMatch(/EPISODE-deep\.md:\d+: not listed/);
    const pats = await run(v, ['pattern', 'list']);
    expect(pats.stderr).toMatch(/PATTERN-open\.md:1: not listed: .*closing/);
    expect(pats.stderr).not.toMatch(/README/);
    expect((await run(v, ['validate'])).status).toBe(1);
  });
});

describe('mem import ai-agents: a large causal graph does not hang', () => {
  it('1,500 patterns and 150,000 edges (a 10 MB causal-graph.json) import whole: every pattern and edge read (their time: npm run bench)', async () => {
    const v = tempVault();
    const dir = tempDir();
    const P = 1500;
    const nodes = Array.from({ length: P }, (_, i) => ({ id: `n${i}`, label: `p${i}` }));
    const edges = Array.from({ length: 150_000 }, (_, i) => ({ source: `n${(i * 7919) % P}`, target: `n${(i * 104729 + 13) % P}`, type: i % 2 ? 'causes' : 'enables' }));
    const patterns = nodes.map((n) => ({ name: n.label, trigger: 't', action: 'a', success_rate: 0.5, occurrences: 2 }));
    fs.writeFileSync(`${dir}/causal-graph.json`, JSON.stringify({ nodes, edges, patterns }));
    const r = await run(v, ['import', 'ai-agents', dir, '--dry-run', '--json']);
    expect(r.status).toBe(0);
    const g = r.json().graphs[0];
    expect(g.notes).toHaveLength(P);
    // Every edge between two patterns is a relationship of its source (duplicates once).
    const want = new Set(edges.map((e) => `${e.source} ${e.type} ${e.target}`)).size;
    expect(g.notes.reduce((n: number, x: { relationships: number }) => n + x.relationships, 0)).toBe(want);
  }, 60_000);

  it('an existing CRLF note gains every missing relationship in one edit; its other bytes stay', async () => {
    const v = tempVault();
    const dir = tempDir();
    const hand = '\ufeff---\r\ntitle: PATTERN-a\r\ntype: pattern\r\ntags: [causal, pattern] # mine\r\npermalink: patterns/pattern-a\r\ntrigger: t\r\nsuccess_rate: 0.5\r\noccurrences: 2\r\nlast_validated: 2026-11-01\r\n---\r\n\r\n# PATTERN-a\r\n\r\n## Action\r\nhand <!-- kept -->\r\n\r\n## Causal Relationships\r\n- causes [[PATTERN-b]]\r\n\r\n## Relations\r\n';
    v.write('.mem/patterns/PATTERN-a.md', hand);
    const nodes = ['a', 'b', 'c', 'd'].map((x) => ({ id: x, label: x }));
    const edges = [{ source: 'a', target: 'b', type: 'causes' }, { source: 'a', target: 'c', type: 'enables' }, { source: 'a', target: 'd', type: 'prevents' }, { source: 'a', target: 'c', type: 'enables' }];
    fs.writeFileSync(`${dir}/causal-graph.json`, JSON.stringify({ nodes, edges, patterns: nodes.map((n) => ({ name: n.label, trigger: 't', action: 'x' })) }));
    expect((await run(v, ['import', 'ai-agents', dir])).status).toBe(0);
    expect(v.read('.mem/patterns/PATTERN-a.md')).toBe(hand.replace('- causes [[PATTERN-b]]\r\n', '- causes [[PATTERN-b]]\r\n- enables [[PATTERN-c]]\r\n- prevents [[PATTERN-d]]\r\n'));
    const again = fs.readFileSync(v.path('.mem/patterns/PATTERN-a.md'));
    expect((await run(v, ['import', 'ai-agents', dir])).status).toBe(0);
    expect(fs.readFileSync(v.path('.mem/patterns/PATTERN-a.md')).equals(again)).toBe(true);
  });
});

describe('mem import ai-agents: an episode file with many quirks', () => {
  it('150,000 events without times: imported, and the text output summarises the notes instead of printing 150,000 lines', async () => {
    const v = tempVault();
    const dir = tempDir();
    const events = Array.from({ length: 150_000 }, (_, i) => ({ content: `event ${i}`, type: 'error' }));
    fs.writeFileSync(`${dir}/episode-big.json`, JSON.stringify({ session: 'big', timestamp: T, outcome: 'failure', task: 'big', events }));
    const r = await run(v, ['import', 'ai-agents', dir]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/created \.mem\/episodes\/EPISODE-big\.md/);
    expect(r.stderr.split('\n').length).toBeLessThan(40);
    expect(r.stderr).toMatch(/… 149980 more such notes \(--json lists them all\)/);
    const list = (await run(v, ['episode', 'list', '--json'])).json().episodes;
    expect(list[0].session_id).toBe('big');
  }, 60_000);
});

describe('a pattern name in a script of 3- or 4-byte characters', () => {
  it('mem pattern add writes a file whose name fits in 255 bytes, and the next add finds it', async () => {
    const v = tempVault();
    const name = '漢'.repeat(119);
    const first = await run(v, ['pattern', 'add', '--name', name, '--trigger', 't', '--action', 'a', '--json']);
    expect(first.status).toBe(0);
    const file: string = first.json().path;
    expect(Buffer.byteLength(file.split('/').pop()!)).toBeLessThanOrEqual(255);
    expect(fs.existsSync(v.path(file))).toBe(true);
    const again = (await run(v, ['pattern', 'add', '--name', name, '--success-rate', '0', '--json'])).json();
    expect(again).toMatchObject({ action: 'updated', path: file, occurrences: 2 });
    expect((await run(v, ['validate'])).status).toBe(0);
  });
});

describe('an episode note with pathological lines stays fast to read', () => {
  it('an event line with 40,000 link tails and an Effects line of 60,000 "[[a": list, decisions and validate in seconds', async () => {
    const v = tempVault();
    const tails = ' \u2192 [[e1]]'.repeat(40_000);
    const opens = '[[a'.repeat(60_000);
    v.write('.mem/episodes/EPISODE-r.md', [
      '---', 'title: EPISODE-r', 'type: episode', 'tags: [episodic]', 'session_id: r', 'outcome: failure', 'task: t', 'created_at: 2026-11-25', '---', '', '# EPISODE-r', '',
      '## Decisions', '### d1: x', '- **Timestamp**: 2026-11-25T10:00:00Z', `- **Effects**: ${opens}`, '',
      '## Events Timeline', `1. [2026-11-25T10:00:00Z] started #milestone${tails}`, `2. [2026-11-25T10:01:00Z] x${tails} y #error`, '',
    ].join('\n'));
    for (const args of [['episode', 'list', '--json'], ['episode', 'decisions', 'r'], ['validate']]) {
      const r = await run(v, args);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    expect((await run(v, ['validate'])).stdout).toMatch(/Effects must be \[\[d002\]\] \/ \[\[e003\]\] links/);
  }, 120_000);
});

describe('a pattern note with a very long Causal Relationships section', () => {
  it('30,000 relationship and junk lines in a 1 MB note: list, path, validate, context and add all answer (their time: npm run bench)', async () => {
    const v = tempVault();
    const rels = Array.from({ length: 20_000 }, (_, i) => `- causes [[PATTERN-x${i}]]`).join('\n');
    const junk = Array.from({ length: 10_000 }, (_, i) => `junk line ${i}`).join('\n');
    const obs = Array.from({ length: 20_000 }, (_, i) => `- observation number ${i} padding the note`).join('\n');
    v.write('.mem/patterns/PATTERN-big.md', [
      '---', 'title: PATTERN-big', 'type: pattern', 'tags: [causal, pattern]', 'permalink: patterns/pattern-big', 'trigger: big trigger', 'success_rate: 0.9', 'occurrences: 3',
      'last_validated: 2026-11-20', '---', '', '# PATTERN-big', '', '## Context', 'c', '', '## Trigger', 't', '', '## Action', 'a', '', '## Observations', obs, '',
      '## Causal Relationships', rels, junk, '', '## Relations', '',
    ].join('\n'));
    expect((await run(v, ['pattern', 'list'])).stdout).toMatch(/PATTERN-big/);
    expect((await run(v, ['pattern', 'path', 'PATTERN-big', 'PATTERN-big'])).status).toBeLessThanOrEqual(1);
    expect((await run(v, ['validate'])).stdout).toMatch(/causal relationship not understood: "junk line 0"/);
    expect((await run(v, ['context', 'big trigger'])).stdout).toMatch(/### Patterns that have worked here/);
    const before = v.read('.mem/patterns/PATTERN-big.md');
    expect((await run(v, ['pattern', 'add', '--name', 'big', '--relation', 'enables:PATTERN-new'])).status).toBe(0);
    const after = v.read('.mem/patterns/PATTERN-big.md');
    expect(after.replace('- enables [[PATTERN-new]]\n', '').replace(/^(success_rate|occurrences|last_validated): .*$/gm, '')).toBe(before.replace(/^(success_rate|occurrences|last_validated): .*$/gm, ''));
  }, 180_000);
});
