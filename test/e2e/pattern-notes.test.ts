import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CUTOVER_GRAPH, runAtNow, vault } from '../fixtures/pattern-notes.js';
import { cleanup, entry, REPO, tempDir, type TempVault } from '../helpers.js';
import { run as runMem } from '../run.js';

afterEach(cleanup);

const run = runAtNow(runMem);

async function addChain(v: TempVault): Promise<void> {
  expect((await run(v, ['pattern', 'add', '--name', 'run-migrations-first', '--trigger', 'API tests fail on a fresh database', '--action', 'run npm run db:migrate first',
    '--description', 'The test database starts empty.', '--relation', 'prevents:flaky-api-tests', '--evidence-episode', '2026-11-01-session-1'])).status).toBe(0);
  expect((await run(v, ['pattern', 'add', '--name', 'flaky-api-tests', '--trigger', 'tests fail at random', '--action', 'quarantine the test', '--relation', 'causes:ANTIPATTERN-retry-until-green', '--success-rate', '0.8'])).status).toBe(0);
  expect((await run(v, ['pattern', 'add', '--name', 'retry-until-green', '--antipattern', '--trigger', 'CI is red', '--action', 're-run CI until it passes', '--success-rate', '0.2'])).status).toBe(0);
}

describe('mem pattern add', () => {
  it('creates a note with the pattern frontmatter and sections, then upserts it byte-stably', async () => {
    const v = vault();
    await addChain(v);
    const rel = '.mem/patterns/PATTERN-run-migrations-first.md';
    const created = v.read(rel);
    expect(created).toBe(`---
title: PATTERN-run-migrations-first
type: pattern
tags: [causal, pattern]
permalink: patterns/pattern-run-migrations-first
trigger: 'API tests fail on a fresh database'
success_rate: 1
occurrences: 1
last_validated: '2026-11-20'
---

# PATTERN-run-migrations-first

## Context
The test database starts empty.

## Trigger
API tests fail on a fresh database

## Action
run npm run db:migrate first

## Observations

## Causal Relationships
- prevents [[flaky-api-tests]]

## Evidence Episodes
- [[EPISODE-2026-11-01-session-1]]

## Relations
`);
    expect(v.read('.mem/patterns/ANTIPATTERN-retry-until-green.md')).toContain('tags: [causal, pattern, antipattern]');
    // A hand edit, CRLF and a BOM: kept through the update.
    const hand = `\ufeff${created.replace('The test database starts empty.\n', 'The test database starts empty.\nHand-written note, kept.  \n')}`.replace(/\n/g, '\r\n');
    v.write(rel, hand);
    const r = await runMem(['pattern', 'add', '--name', 'Run Migrations First', '--success-rate', '0', '--evidence-episode', 'episode-2026-11-02-session-2', '--relation', 'enables:fast-ci', '--json'], { cwd: v.root, home: v.home, env: { MEM_NOW: '2026-11-21' } });
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ action: 'updated', occurrences: 2, success_rate: 0.5, last_validated: '2026-11-21', added_evidence: ['EPISODE-2026-11-02-session-2'], added_relations: [{ type: 'enables', target: 'fast-ci' }] });
    const after = v.read(rel);
    expect(after.startsWith('\ufeff')).toBe(true);
    expect(after).toBe(hand
      .replace('success_rate: 1\r\n', 'success_rate: 0.5\r\n').replace('occurrences: 1\r\n', 'occurrences: 2\r\n').replace("'2026-11-20'", "'2026-11-21'")
      .replace('- prevents [[flaky-api-tests]]\r\n', '- prevents [[flaky-api-tests]]\r\n- enables [[fast-ci]]\r\n')
      .replace('- [[EPISODE-2026-11-01-session-1]]\r\n', '- [[EPISODE-2026-11-01-session-1]]\r\n- [[EPISODE-2026-11-02-session-2]]\r\n'));
    // The same evidence and relation again: counted, but no second link.
    const again = (await run(v, ['pattern', 'add', '--name', 'run-migrations-first', '--success-rate', '1', '--evidence-episode', 'EPISODE-2026-11-02-session-2', '--relation', 'enables:FAST-CI', '--json'])).json();
    expect(again).toMatchObject({ occurrences: 3, added_evidence: [], added_relations: [] });
    expect(again.success_rate).toBeCloseTo(2 / 3, 5);
    expect(v.read(rel).match(/EPISODE-2026-11-02-session-2/g)).toHaveLength(1);
  });

  it('reads the add_pattern JSON on stdin, and refuses bad input without writing', async () => {
    const v = vault();
    const ok = await run(v, ['pattern', 'add', '-', '--json'], JSON.stringify({ name: 'retry-once', trigger: 'network flake', action: 'retry once', success_rate: 0.9, causal_relationships: [{ type: 'prevents', target: 'red-ci' }], is_antipattern: null, project: 'x' }));
    expect(ok.status).toBe(0);
    expect(ok.json()).toMatchObject({ action: 'created', title: 'PATTERN-retry-once', permalink: 'patterns/pattern-retry-once' });
    for (const [args, input, msg] of [
      [['pattern', 'add', '-'], '{"name": "x", "success_rate": 3}', /success_rate" must be a number from 0 to 1/],
      [['pattern', 'add', '-'], '[1]', /expected a JSON object/],
      [['pattern', 'add', '-'], '{not json', /stdin is not JSON/],
      [['pattern', 'add', '--name', 'x', '--trigger', 't', '--action', 'a', '--relation', 'breaks:y'], '', /--relation must be TYPE:TARGET/],
      [['pattern', 'add', '--name', 'x', '--action', 'a'], '', /needs a trigger/],
      [['pattern', 'add', '--name', '!!!', '--trigger', 't', '--action', 'a'], '', /no letters or digits/],
      [['pattern', 'add', '--name', 'x', '--trigger', 't', '--action', 'a', '--success-rate', '1.5'], '', /--success-rate must be a number from 0 to 1/],
    ] as [string[], string, RegExp][]) {
      const r = await run(v, args, input);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.split('\n')[0]).toMatch(/^mem: /);
    }
    expect(fs.readdirSync(v.path('.mem/patterns'))).toEqual(['PATTERN-retry-once.md']);
  });

  it('--dry-run says what would happen and writes nothing', async () => {
    const v = vault();
    const d = await run(v, ['pattern', 'add', '--name', 'p', '--trigger', 't', '--action', 'a', '--dry-run']);
    expect(d.status).toBe(0);
    expect(d.stdout).toBe('would be created: PATTERN-p (.mem/patterns/PATTERN-p.md): success rate 1.00 over 1 occurrence\n');
    expect(fs.existsSync(v.path('.mem/patterns'))).toBe(false);
    await run(v, ['pattern', 'add', '--name', 'p', '--trigger', 't', '--action', 'a']);
    const before = v.read('.mem/patterns/PATTERN-p.md');
    expect((await run(v, ['pattern', 'add', '--name', 'p', '--success-rate', '0', '--dry-run', '--json'])).json()).toMatchObject({ dry_run: true, action: 'updated', occurrences: 2, success_rate: 0.5 });
    expect(v.read('.mem/patterns/PATTERN-p.md')).toBe(before);
  });

  it('keeps hostile names and text inside the note\'s structure', async () => {
    const v = vault();
    const r = await run(v, ['pattern', 'add', '--name', '../../evil\nname', '--trigger', 'x: y\n---\n# z', '--action', '## Relations\n- causes [[Injected]]', '--description', '```\n## Trigger']);
    expect(r.status).toBe(0);
    expect(fs.readdirSync(v.path('.mem/patterns'))).toEqual(['PATTERN-evil-name.md']);
    // The injected text stays text: a link in the Action section (which validate reports as
    // broken), never a causal edge or a section of its own.
    const v2 = await run(v, ['validate']);
    expect(v2.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^\.mem\/patterns\/PATTERN-evil-name\.md:\d+: broken link \[\[Injected\]\]/)]);
    expect((await run(v, ['pattern', 'list', '--json'])).json().patterns[0]).toMatchObject({ trigger: 'x: y --- # z', causal: [] });
  });
});

describe('mem pattern list / path / antipatterns', () => {
  it('lists with filters, best first', async () => {
    const v = vault();
    await addChain(v);
    await run(v, ['pattern', 'add', '--name', 'retry-until-green', '--antipattern', '--success-rate', '0']);
    const all = (await run(v, ['pattern', 'list', '--json'])).json();
    expect(all.patterns.map((p: { title: string }) => p.title)).toEqual(['PATTERN-run-migrations-first', 'PATTERN-flaky-api-tests', 'ANTIPATTERN-retry-until-green']);
    expect(all.patterns[2]).toMatchObject({ kind: 'antipattern', success_rate: 0.1, occurrences: 2 });
    expect((await run(v, ['pattern', 'list', '--trigger', 'DATABASE', '--json'])).json().patterns.map((p: { name: string }) => p.name)).toEqual(['run-migrations-first']);
    expect((await run(v, ['pattern', 'list', '--min-success-rate', '0.8', '--json'])).json().total).toBe(2);
    expect((await run(v, ['pattern', 'list', '--min-occurrences', '2', '--json'])).json().patterns).toHaveLength(1);
    expect((await run(v, ['pattern', 'list', '--limit', '1', '--json'])).json()).toMatchObject({ total: 3, patterns: [{ name: 'run-migrations-first' }] });
    const human = await run(v, ['pattern', 'list']);
    expect(human.stdout.split('\n')[0]).toBe('1.00  ×1   PATTERN-run-migrations-first  — API tests fail on a fresh database');
    expect((await run(v, ['pattern', 'list', '--limit', '0'])).status).toBe(2);
  });

  it('finds causal paths with edge types, or says why none (exit 1)', async () => {
    const v = vault();
    await addChain(v);
    const p = await run(v, ['pattern', 'path', 'run-migrations-first', 'retry']);
    expect(p.status).toBe(0);
    expect(p.stdout.trim()).toBe('PATTERN-run-migrations-first —prevents→ PATTERN-flaky-api-tests —causes→ ANTIPATTERN-retry-until-green');
    const j = (await run(v, ['pattern', 'path', 'migrations', 'ANTIPATTERN-retry-until-green', '--json'])).json();
    expect(j).toMatchObject({ found: true, depth: 2, max_depth: 5, path: [{ label: 'PATTERN-run-migrations-first' }, { via: 'prevents' }, { via: 'causes', type: 'antipattern' }] });
    const depth = await run(v, ['pattern', 'path', 'migrations', 'retry', '--max-depth', '1', '--json']);
    expect(depth.status).toBe(1);
    expect(depth.json()).toMatchObject({ found: false, depth: null, reason: expect.stringMatching(/more than 1 step/) });
    const back = await run(v, ['pattern', 'path', 'retry', 'migrations']);
    expect(back.status).toBe(1);
    expect(back.stdout).toMatch(/^no path: no chain of causal relationships leads from ANTIPATTERN-retry-until-green to PATTERN-run-migrations-first/);
    const amb = await run(v, ['pattern', 'path', 'r', 'flaky']);
    expect(amb.status).toBe(1);
    expect(amb.stderr).toMatch(/"r" matches 3 patterns: /);
    expect((await run(v, ['pattern', 'path', 'nope', 'flaky'])).stderr).toMatch(/no pattern matches "nope"/);
    expect((await run(v, ['pattern', 'path', 'a', 'b', '--max-depth', '11'])).status).toBe(2);
  });

  it('lists anti-patterns: low success over several occurrences, worst first', async () => {
    const v = vault();
    await addChain(v);
    expect((await run(v, ['pattern', 'antipatterns', '--json'])).json().patterns).toEqual([]);
    await run(v, ['pattern', 'add', '--name', 'retry-until-green', '--antipattern', '--success-rate', '0.2']);
    await run(v, ['pattern', 'add', '--name', 'skip-flaky', '--trigger', 'a test flakes', '--action', 'skip it', '--success-rate', '0']);
    await run(v, ['pattern', 'add', '--name', 'skip-flaky', '--success-rate', '0']);
    const res = (await run(v, ['pattern', 'antipatterns', '--json'])).json();
    expect(res.patterns.map((p: { title: string; success_rate: number }) => [p.title, p.success_rate])).toEqual([['PATTERN-skip-flaky', 0], ['ANTIPATTERN-retry-until-green', 0.2]]);
    expect((await run(v, ['pattern', 'antipatterns', '--max-success-rate', '0.1', '--json'])).json().patterns).toHaveLength(1);
    expect((await run(v, ['pattern', 'antipatterns', '--min-occurrences', '3', '--json'])).json().patterns).toHaveLength(0);
    expect((await run(v, ['pattern', 'antipatterns'])).stdout).toMatch(/^0\.00  ×2   PATTERN-skip-flaky/);
  });

  it('has --help with examples on every subcommand', async () => {
    const v = vault();
    for (const sub of ['add', 'list', 'path', 'antipatterns']) {
      const h = await run(v, ['pattern', sub, '--help']);
      expect(h.status).toBe(0);
      expect(h.stdout).toMatch(new RegExp(`\\$ mem pattern ${sub}`));
    }
  });
});

const EPISODE = `---
title: EPISODE-2026-11-01-session-1
type: episode
tags: [episodic]
permalink: episodes/episode-2026-11-01-session-1
outcome: failure
task: fix the API tests
---

# EPISODE-2026-11-01-session-1

## Context
The API tests failed on a fresh database.

## Decisions
### d001: Run migrations
- **Timestamp**: 2026-11-01T10:05:00Z
- **Type**: recovery
- **Context**: tests fail on a fresh database
- **Chosen**: run the migrations first
- **Outcome**: failure
- **Effects**: [[d002]], [[e001]], [[e009]]

## Events Timeline
1. [2026-11-01T10:00:00Z] tests fail #error

## Lessons Learned
- Run the migrations before the API tests.

## Relations
- applies [[PATTERN-run-migrations-first]]
- about [[3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10]]
- see [[nowhere-at-all]]
`;

describe('mem validate and mem lint', () => {
  it('passes a vault mem wrote, then reports schema errors, broken links and dangling causal edges at file:line', async () => {
    const v = vault();
    await addChain(v);
    v.write('.mem/episodes/EPISODE-2026-11-01-session-1.md', EPISODE.replace('- see [[nowhere-at-all]]\n', '').replace('[[d002]], ', '').replace(', [[e009]]', ''));
    v.write('MEMORY.md', entry('3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10', 'Run migrations before the API tests.'));
    const ok = await run(v, ['validate']);
    expect(ok.stderr + ok.stdout).toMatch(/4 notes checked, no problems/);
    expect(ok.status).toBe(0);
    expect((await run(v, ['lint'])).status).toBe(0);

    v.write('.mem/episodes/EPISODE-2026-11-01-session-1.md', EPISODE);
    const rel = '.mem/patterns/PATTERN-flaky-api-tests.md';
    v.write(rel, v.read(rel).replace('success_rate: 0.8', 'success_rate: 1.8').replace('## Action\n', '## Actions\n')
      .replace('- causes [[ANTIPATTERN-retry-until-green]]\n', '- causes [[ANTIPATTERN-retry-until-green]]\n- causes [[PATTERN-missing]]\n- leads to [[nothing-here]]\n'));
    // A note named like a pattern whose frontmatter does not say so is still checked.
    v.write('.mem/patterns/PATTERN-untyped.md', '# PATTERN-untyped\n\n## Context\nx\n');
    // Not a typed note: a `mem segment` episode file and a stray file are left alone.
    v.write('.mem/episodes/3f0c.md', '---\nid: x\n---\n[[whatever]]\n');
    const bad = await run(v, ['validate']);
    expect(bad.status).toBe(1);
    expect(bad.stdout.trim().split('\n')).toEqual([
      '.mem/episodes/EPISODE-2026-11-01-session-1.md:16: decision d001: effect [[d002]] is not a decision or event of this note',
      '.mem/episodes/EPISODE-2026-11-01-session-1.md:16: decision d001: effect [[e009]] is not a decision or event of this note',
      '.mem/episodes/EPISODE-2026-11-01-session-1.md:33: broken link [[nowhere-at-all]]: no note, entry, decision or event has that name',
      '.mem/patterns/PATTERN-flaky-api-tests.md:7: success_rate must be a number from 0 to 1 (got 1.8)',
      '.mem/patterns/PATTERN-flaky-api-tests.md:12: missing section "## Action"',
      '.mem/patterns/PATTERN-flaky-api-tests.md:26: causal edge "causes [[PATTERN-missing]]": no pattern or observation note has that name, title or permalink',
      expect.stringMatching(/^\.mem\/patterns\/PATTERN-flaky-api-tests\.md:27: causal relationship not understood: "leads to \[\[nothing-here\]\]"/),
      '.mem/patterns/PATTERN-untyped.md:1: a pattern note needs a YAML frontmatter (title, type: pattern, tags, permalink, trigger, success_rate, occurrences, last_validated)',
    ]);
    const j = await run(v, ['validate', '--json']);
    expect(j.status).toBe(1);
    expect(j.json()).toMatchObject({ notes: 5, problems: expect.arrayContaining([{ file: '.mem/patterns/PATTERN-flaky-api-tests.md', line: 7, severity: 'error', message: 'success_rate must be a number from 0 to 1 (got 1.8)' }]) });
    expect(j.json().problems).toHaveLength(8);
    // mem lint reports the same problems, and fails.
    const lint = await run(v, ['lint']);
    expect(lint.status).toBe(1);
    for (const line of bad.stdout.trim().split('\n')) expect(lint.stdout).toContain(line);
    // Linting one memory file checks that file only.
    expect((await run(v, ['lint', 'MEMORY.md'])).status).toBe(0);
  });
});

const FIX = path.join(REPO, 'test', 'fixtures', 'ai-agents');

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).sort().map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

describe('import of the ai-agents causal graph', () => {
  it('writes pattern and observation notes with their causal relationships; re-import changes no byte; BOM and nulls tolerated', async () => {
    const v = vault();
    const dry = await run(v, ['import', 'ai-agents', FIX, '--dry-run', '--json']);
    expect(dry.status).toBe(0);
    expect(dry.json().graphs[0]).toMatchObject({ dry_run: true, notes: [{ action: 'created' }, { action: 'created' }, { action: 'created' }, { action: 'created' }] });
    expect(fs.existsSync(v.path('.mem/patterns'))).toBe(false);
    const r = await run(v, ['import', 'ai-agents', FIX, '--json']);
    expect(r.status).toBe(0);
    const rep = r.json().graphs[0];
    expect(rep.notes).toEqual([
      { title: 'PATTERN-run-migrations-first', path: '.mem/patterns/PATTERN-run-migrations-first.md', action: 'created', relationships: 1 },
      { title: 'PATTERN-flaky-api-tests', path: '.mem/patterns/PATTERN-flaky-api-tests.md', action: 'created', relationships: 2 },
      { title: 'PATTERN-retry-until-green', path: '.mem/patterns/PATTERN-retry-until-green.md', action: 'created', relationships: 1 },
      { title: 'PATTERN-missing-numbers', path: '.mem/patterns/PATTERN-missing-numbers.md', action: 'created', relationships: 0 },
    ]);
    // The error and the outcome are notes of their own; every edge between two nodes is a causal relationship.
    expect(rep.other_notes).toEqual([
      { title: 'ERROR-404-from-the-model-api-table-x-not-a-link', path: '.mem/patterns/ERROR-404-from-the-model-api-table-x-not-a-link.md', action: 'created', relationships: 0 },
      { title: 'OUTCOME-success-session-305-2026-01-04', path: '.mem/patterns/OUTCOME-success-session-305-2026-01-04.md', action: 'created', relationships: 0 },
    ]);
    expect(rep).toMatchObject({ observations: 1, other_nodes: 0, warnings: [expect.stringMatching(/Missing numbers.*success_rate null/)] });
    expect(v.read('.mem/patterns/PATTERN-flaky-api-tests.md')).toContain('- causes [[PATTERN-retry-until-green]]\n- correlates [[ERROR-404-from-the-model-api-table-x-not-a-link]]\n');
    expect(v.read('.mem/patterns/OUTCOME-success-session-305-2026-01-04.md')).toBe(`---
title: OUTCOME-success-session-305-2026-01-04
type: observation
kind: outcome
tags: [causal, observation, outcome]
permalink: patterns/outcome-success-session-305-2026-01-04
---

# OUTCOME-success-session-305-2026-01-04

## Context
Outcome: success - Session 305 - 2026-01-04

## Observations
- [evidence] frequency 1, success rate 1 #metrics
- [migrated] from ai-agents causal-graph.json (node n005) #migration

## Causal Relationships

## Relations
`);
    // The foreign label is text: its [[…]] is no link.
    expect(v.read('.mem/patterns/ERROR-404-from-the-model-api-table-x-not-a-link.md')).toContain('## Context\nerror: 404 from the model API | table `x` [ [not a link] ]\n');
    const first = v.read('.mem/patterns/PATTERN-run-migrations-first.md');
    expect(first).toContain("last_validated: '2026-01-02'\n");
    expect(first).toContain('success_rate: 0.9\noccurrences: 4\n');
    expect(first).toContain('## Causal Relationships\n- prevents [[PATTERN-flaky-api-tests]]\n');
    expect(first).toContain('- [enables] n999 #causal-graph');
    expect(v.read('.mem/patterns/PATTERN-retry-until-green.md')).toContain("last_validated: '2026-01-05'");
    // last_used null: the graph's "updated" date.
    expect(v.read('.mem/patterns/PATTERN-flaky-api-tests.md')).toContain("last_validated: '2026-01-08'");
    expect((await run(v, ['validate'])).status).toBe(0);
    expect((await run(v, ['pattern', 'path', 'migrations', 'retry'])).stdout.trim()).toBe('PATTERN-run-migrations-first —prevents→ PATTERN-flaky-api-tests —causes→ PATTERN-retry-until-green');
    // A path ends at an outcome, named as the graph's label is written.
    const toOutcome = await run(v, ['pattern', 'path', 'Run migrations first', 'Outcome: success - Session 305', '--json']);
    expect(toOutcome.json()).toMatchObject({ found: true, depth: 3, to: 'OUTCOME-success-session-305-2026-01-04' });
    expect(toOutcome.json().path.map((s: { type: string }) => s.type)).toEqual(['pattern', 'pattern', 'pattern', 'outcome']);
    const j = (await run(v, ['validate', '--json'])).json();
    expect(j).toMatchObject({ notes: 8, problems: [], episodes: { total: 2, valid: 2 }, patterns: { total: 4, valid: 4 }, observations: { total: 2, valid: 2 }, graph_integrity: { total_edges: 4, valid_edges: 4, broken_links: [] } });
    const before = snapshot(v.path('.mem/patterns'));
    // Again, and from the BOM + CRLF copy: nothing changes.
    const again = (await run(v, ['import', 'ai-agents', FIX, '--json'])).json().graphs[0];
    expect([...again.notes, ...again.other_notes].map((n: { action: string }) => n.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect((await run(v, ['import', 'ai-agents', path.join(FIX, 'causal-graph-bom.json')])).status).toBe(0);
    expect(snapshot(v.path('.mem/patterns'))).toEqual(before);
  });

  it('keeps a note the user changed, adding only missing relationships; bad input is one mem: line', async () => {
    const v = vault();
    await run(v, ['pattern', 'add', '--name', 'flaky-api-tests', '--trigger', 'my own trigger', '--action', 'my own action', '--success-rate', '0.3']);
    const mine = v.read('.mem/patterns/PATTERN-flaky-api-tests.md');
    const r = await run(v, ['import', 'ai-agents', path.join(FIX, 'causal-graph.json'), '--json']);
    expect(r.json().graphs[0].notes[1]).toMatchObject({ title: 'PATTERN-flaky-api-tests', action: 'updated' });
    expect(v.read('.mem/patterns/PATTERN-flaky-api-tests.md')).toBe(mine.replace('## Causal Relationships\n', '## Causal Relationships\n- causes [[PATTERN-retry-until-green]]\n- correlates [[ERROR-404-from-the-model-api-table-x-not-a-link]]\n'));
    const d = v.path('bad');
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'causal-graph.json'), '{"patterns": 3');
    const bad = await run(v, ['import', 'ai-agents', d]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^mem: warning: bad\/causal-graph\.json is not JSON.*; skipped$/m);
    fs.writeFileSync(path.join(d, 'causal-graph.json'), '{"patterns": {"a": 1}}');
    expect((await run(v, ['import', 'ai-agents', d])).stderr).toMatch(/"patterns" must be a list/);
    const none = await run(v, ['import', 'ai-agents', v.path('.mem')]);
    expect([none.status, none.stderr]).toEqual([0, expect.stringMatching(/no episode-\*\.json or causal-graph\.json files in/)]);
  });
});

describe('mem pattern add: writes are locked, confined and never half-done', () => {
  it('refuses to write through a symlink out of the vault, or into a note whose header does not parse', async () => {
    const v = vault();
    const outside = tempDir();
    fs.symlinkSync(outside, v.path('.mem/patterns'));
    const r = await run(v, ['pattern', 'add', '--name', 'x', '--trigger', 't', '--action', 'a']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: refusing to write \.mem\/patterns\/PATTERN-x\.md: it leads out of the vault through a symlink/);
    expect(fs.readdirSync(outside)).toEqual([]);
    // And what lies out there is not read either.
    fs.writeFileSync(path.join(outside, 'PATTERN-y.md'), '---\ntitle: PATTERN-y\ntype: pattern\ntrigger: t\nsuccess_rate: 1\noccurrences: 1\n---\n');
    expect((await run(v, ['pattern', 'list', '--json'])).json().patterns).toEqual([]);
    fs.unlinkSync(v.path('.mem/patterns'));
    const broken = '---\ntitle: [PATTERN-z\ntype: pattern\n---\n# PATTERN-z\n';
    v.write('.mem/patterns/PATTERN-z.md', broken);
    const z = await run(v, ['pattern', 'add', '--name', 'z', '--success-rate', '0']);
    expect(z.status).toBe(1);
    expect(z.stderr).toMatch(/^mem: \.mem\/patterns\/PATTERN-z\.md: the frontmatter does not parse; not updating it/);
    expect(v.read('.mem/patterns/PATTERN-z.md')).toBe(broken);
  });
});

describe('the causal graph named as users write it, through imported outcomes', () => {
  function graphDir(v: TempVault): string {
    const d = v.path('export');
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'causal-graph.json'), JSON.stringify(CUTOVER_GRAPH, null, 2));
    return d;
  }

  it('mem pattern path takes names as pattern add normalises them, or a unique prefix; ambiguous names list the candidates', async () => {
    const v = vault();
    expect((await run(v, ['pattern', 'add', '--name', 'Stop old job before cutover', '--trigger', 'migrating a job', '--action', 'disable the old one', '--relation', 'causes:Invoices sent once'])).status).toBe(0);
    expect((await run(v, ['pattern', 'add', '--name', 'Invoices sent once', '--trigger', 'billing run', '--action', 'check the sent log'])).status).toBe(0);
    expect(fs.existsSync(v.path('.mem/patterns/PATTERN-stop-old-job-before-cutover.md'))).toBe(true);
    // The relation target was written as the user wrote it, and resolves all the same.
    expect(v.read('.mem/patterns/PATTERN-stop-old-job-before-cutover.md')).toContain('- causes [[Invoices sent once]]\n');
    for (const [from, to] of [['Stop old job before cutover', 'Invoices sent once'], ['Stop old job', 'invoices sent'], ['PATTERN-stop-old-job-before-cutover.md', 'INVOICES_SENT_ONCE']]) {
      const r = await run(v, ['pattern', 'path', from, to]);
      expect([r.status, r.stdout.trim()]).toEqual([0, 'PATTERN-stop-old-job-before-cutover —causes→ PATTERN-invoices-sent-once']);
    }
    expect((await run(v, ['pattern', 'add', '--name', 'Stop old cron', '--trigger', 't', '--action', 'a'])).status).toBe(0);
    const amb = await run(v, ['pattern', 'path', 'Stop old', 'Invoices sent once']);
    expect(amb.status).toBe(1);
    expect(amb.stderr).toMatch(/^mem: "Stop old" matches 2 patterns: PATTERN-stop-old-cron, PATTERN-stop-old-job-before-cutover$/m);
    // A link in a note to a name as the user wrote it is no broken link.
    const rel = '.mem/patterns/PATTERN-stop-old-cron.md';
    v.write(rel, v.read(rel).replace(/## Relations\n$/, '## Relations\n- relates_to [[Stop old job before cutover]]\n'));
    expect((await run(v, ['validate'])).status).toBe(0);
  });

  it('imports outcomes, errors and decisions as notes with every edge, paths reach them, re-import changes nothing; validate --json totals', async () => {
    const v = vault();
    const dir = graphDir(v);
    const r = await run(v, ['import', 'ai-agents', dir, '--json']);
    expect(r.status).toBe(0);
    const g = r.json().graphs[0];
    expect(g.notes).toEqual([{ title: 'PATTERN-stop-old-job-before-cutover', path: '.mem/patterns/PATTERN-stop-old-job-before-cutover.md', action: 'created', relationships: 2 }]);
    expect(g.other_notes.map((n: { title: string; relationships: number }) => [n.title, n.relationships])).toEqual([
      ['OUTCOME-no-duplicate-invoices', 0], ['ERROR-duplicate-invoice-emails', 1], ['DECISION-run-both-jobs-during-cutover', 1],
    ]);
    expect(g).toMatchObject({ observations: 1, other_nodes: 0, warnings: ['edges[5]: its source node "n8" is not in the graph; skipped'] });
    expect(v.read('.mem/patterns/PATTERN-stop-old-job-before-cutover.md')).toContain('## Causal Relationships\n- causes [[OUTCOME-no-duplicate-invoices]]\n- prevents [[ERROR-duplicate-invoice-emails]]\n');
    const err = v.read('.mem/patterns/ERROR-duplicate-invoice-emails.md');
    expect(err).toContain('type: observation\nkind: error\n');
    expect(err).toContain('## Causal Relationships\n- prevents [[OUTCOME-no-duplicate-invoices]]\n');
    // The edge to a node the file lacks is kept as a line of text.
    expect(err).toContain('- [causes] n9 #causal-graph\n');
    expect(v.read('.mem/patterns/OUTCOME-no-duplicate-invoices.md')).toContain('- [episode] episode-2026-01-30-session-4 #causal-graph\n');
    // Observation notes are no patterns: the lists of patterns leave them out.
    expect((await run(v, ['pattern', 'list', '--json'])).json().total).toBe(1);

    const p = await run(v, ['pattern', 'path', 'Stop old job', 'No duplicate invoices']);
    expect([p.status, p.stdout.trim()]).toEqual([0, 'PATTERN-stop-old-job-before-cutover —causes→ OUTCOME-no-duplicate-invoices']);
    const through = await run(v, ['pattern', 'path', 'Run both jobs', 'no duplicate invoices', '--json']);
    expect(through.json()).toMatchObject({ found: true, depth: 2 });
    expect(through.json().path.map((s: { label: string; type: string }) => `${s.type}:${s.label}`)).toEqual([
      'decision:DECISION-run-both-jobs-during-cutover', 'error:ERROR-duplicate-invoice-emails', 'outcome:OUTCOME-no-duplicate-invoices',
    ]);

    // Again: the same bytes, every note unchanged.
    const before = snapshot(v.path('.mem/patterns'));
    const again = await run(v, ['import', 'ai-agents', dir]);
    expect(again.stderr).toMatch(/1 pattern: 0 created, 0 updated, 1 unchanged; 3 other nodes \(outcomes, errors, decisions, events\): 0 created, 0 updated, 3 unchanged; 1 edge to no node kept as observation text/);
    expect(snapshot(v.path('.mem/patterns'))).toEqual(before);

    const ok = (await run(v, ['validate', '--json'])).json();
    expect(ok).toEqual({
      notes: 4, problems: [], episodes: { total: 0, valid: 0 }, patterns: { total: 1, valid: 1 }, observations: { total: 3, valid: 3 },
      graph_integrity: { total_edges: 4, valid_edges: 4, broken_links: [] },
    });
    // A hand-added edge to nothing, and an episode note with a broken link: counted and listed.
    const rel = '.mem/patterns/ERROR-duplicate-invoice-emails.md';
    v.write(rel, v.read(rel).replace('## Causal Relationships\n', '## Causal Relationships\n- causes [[Angry customers]]\n'));
    v.write('.mem/episodes/EPISODE-s1.md', '---\ntitle: EPISODE-s1\ntype: episode\ntags: [episodic]\npermalink: episodes/episode-s1\noutcome: success\ntask: cutover\n---\n\n# EPISODE-s1\n\n## Context\nx\n\n## Relations\n- relates_to [[nowhere]]\n');
    const bad = await run(v, ['validate', '--json']);
    expect(bad.status).toBe(1);
    expect(bad.json()).toMatchObject({
      notes: 5, episodes: { total: 1, valid: 0 }, patterns: { total: 1, valid: 1 }, observations: { total: 3, valid: 2 },
      graph_integrity: { total_edges: 5, valid_edges: 4, broken_links: [{ source: 'ERROR-duplicate-invoice-emails', target: 'Angry customers', type: 'causes', file: rel, line: 20 }] },
    });
  });
});
