import { describe, expect, it } from 'vitest';
import { bfsPath, buildCausalGraph, checkDepth, findNode, normalForms, pathLine } from '../../src/notes/graph.js';
import { parseNote } from '../../src/notes/note.js';
import { formatObservationNote, observationFromNote, type ObservationFile, type ObservationKind } from '../../src/notes/observation-note.js';
import { formatPatternNote, patternFromNote, type CausalRelation, type PatternFile } from '../../src/notes/pattern-note.js';

function pat(name: string, causal: CausalRelation[], anti = false): PatternFile {
  const title = `${anti ? 'ANTIPATTERN' : 'PATTERN'}-${name}`;
  const text = formatPatternNote({
    name, antipattern: anti, title, permalink: `patterns/${title.toLowerCase()}`, tags: ['causal', 'pattern'], trigger: 't', success_rate: 1, occurrences: 1,
    last_validated: '2026-11-01', context: '', action: 'a', observations: [], causal, evidence: [], warning: '', relations: [],
  });
  const note = parseNote(text);
  return { path: `.mem/patterns/${title}.md`, file: `${title}.md`, note, data: patternFromNote(note, `${title}.md`) };
}

const chain = (n: number) => Array.from({ length: n }, (_, i) => pat(`n${i}`, i + 1 < n ? [{ type: 'causes', target: `PATTERN-n${i + 1}` }] : []));

describe('causal graph', () => {
  it('builds nodes and edges; resolves targets by title, name or permalink, case ignored', () => {
    const g = buildCausalGraph([
      pat('a', [{ type: 'causes', target: 'pattern-B' }, { type: 'enables', target: 'c' }, { type: 'prevents', target: 'patterns/pattern-d' }, { type: 'correlates', target: 'nowhere' }]),
      pat('b', []), pat('c', []), pat('d', [], false),
    ]);
    expect([...g.nodes.keys()]).toEqual(['patterns/pattern-a', 'patterns/pattern-b', 'patterns/pattern-c', 'patterns/pattern-d']);
    expect(g.edges.map((e) => [e.type, e.target])).toEqual([['causes', 'patterns/pattern-b'], ['enables', 'patterns/pattern-c'], ['prevents', 'patterns/pattern-d'], ['correlates', null]]);
    expect(g.edges[3]).toMatchObject({ target_text: 'nowhere', path: '.mem/patterns/PATTERN-a.md' });
    // A prefix of the other kind still names the pattern.
    const h = buildCausalGraph([pat('a', [{ type: 'causes', target: 'PATTERN-bad' }]), pat('bad', [], true)]);
    expect(h.edges[0].target).toBe('patterns/antipattern-bad');
  });

  it('finds the shortest path with its edge types', () => {
    const g = buildCausalGraph([
      pat('a', [{ type: 'causes', target: 'PATTERN-b' }, { type: 'enables', target: 'PATTERN-x' }]),
      pat('b', [{ type: 'prevents', target: 'PATTERN-c' }]),
      pat('x', [{ type: 'causes', target: 'PATTERN-y' }]), pat('y', [{ type: 'causes', target: 'PATTERN-c' }]),
      pat('c', []),
    ]);
    const p = bfsPath(g, findNode(g, 'a'), findNode(g, 'c'), 5);
    expect(p.found).toBe(true);
    expect(p.depth).toBe(2);
    expect(pathLine(p)).toBe('PATTERN-a —causes→ PATTERN-b —prevents→ PATTERN-c');
    // Direction matters.
    expect(bfsPath(g, findNode(g, 'c'), findNode(g, 'a'), 5)).toMatchObject({ found: false, depth: null, reason: expect.stringMatching(/no chain/) });
  });

  it('stops at the depth limit and says the target is further away', () => {
    const g = buildCausalGraph(chain(8));
    expect(bfsPath(g, findNode(g, 'n0'), findNode(g, 'n7'), 7)).toMatchObject({ found: true, depth: 7 });
    const p = bfsPath(g, findNode(g, 'n0'), findNode(g, 'n7'), 5);
    expect(p.found).toBe(false);
    expect(p.reason).toMatch(/more than 5 steps/);
    expect(checkDepth(undefined)).toBe(5);
    expect(checkDepth(10)).toBe(10);
    expect(() => checkDepth(11)).toThrow(/from 1 to 10/);
    expect(() => checkDepth(0)).toThrow(/from 1 to 10/);
  });

  it('survives cycles and self-loops', () => {
    const g = buildCausalGraph([
      pat('a', [{ type: 'causes', target: 'PATTERN-a' }, { type: 'causes', target: 'PATTERN-b' }]),
      pat('b', [{ type: 'enables', target: 'PATTERN-a' }, { type: 'causes', target: 'PATTERN-b' }]),
      pat('z', []),
    ]);
    expect(bfsPath(g, findNode(g, 'a'), findNode(g, 'z'), 10)).toMatchObject({ found: false });
    expect(bfsPath(g, findNode(g, 'b'), findNode(g, 'a'), 10)).toMatchObject({ found: true, depth: 1 });
    expect(bfsPath(g, findNode(g, 'a'), findNode(g, 'a'), 5)).toMatchObject({ found: true, depth: 0 });
  });

  it('matches names exactly first, then by unique partial match; ambiguity lists candidates', () => {
    const g = buildCausalGraph([pat('deploy', []), pat('deploy-canary', []), pat('run-migrations-first', []), pat('skip-tests', [], true)]);
    expect(findNode(g, 'Deploy').label).toBe('PATTERN-deploy');
    expect(findNode(g, 'migrations').label).toBe('PATTERN-run-migrations-first');
    expect(findNode(g, 'ANTIPATTERN-skip-tests').type).toBe('antipattern');
    expect(() => findNode(g, 'dep')).toThrow(/"dep" matches 2 patterns: PATTERN-deploy, PATTERN-deploy-canary/);
    expect(() => findNode(g, 'nothing')).toThrow(/no pattern matches "nothing"/);
  });
});

function obs(name: string, kind: ObservationKind, causal: CausalRelation[] = []): ObservationFile {
  const title = `${kind.toUpperCase()}-${name}`;
  const note = parseNote(formatObservationNote({ name, kind, title, permalink: `patterns/${kind}-${name}`, tags: ['causal', 'observation', kind], context: name, observations: [], causal, relations: [] }));
  return { path: `.mem/patterns/${title}.md`, file: `${title}.md`, note, data: observationFromNote(note, `${title}.md`) };
}

describe('names as users write them', () => {
  const g = buildCausalGraph([pat('stop-old-job-before-cutover', []), pat('stop-old-cron', []), pat('deploy', []), pat('deploy-canary', [])], [obs('no-duplicate-invoices', 'outcome')]);

  it('normalises a name as mem pattern add does: words, case, punctuation and a kind prefix', () => {
    expect(normalForms('Stop old job before cutover')).toEqual(['stop-old-job-before-cutover']);
    expect(normalForms('PATTERN-Stop old job')).toEqual(['pattern-stop-old-job', 'stop-old-job']);
    for (const q of ['Stop old job before cutover', 'stop_old_job_before_cutover', 'PATTERN-Stop old job before cutover', 'stopOldJobBeforeCutover', 'Stop old job before cutover.md']) {
      expect(findNode(g, q).label).toBe('PATTERN-stop-old-job-before-cutover');
    }
    expect(findNode(g, 'No duplicate invoices')).toMatchObject({ label: 'OUTCOME-no-duplicate-invoices', type: 'outcome' });
    expect(findNode(g, 'outcome: no duplicate invoices').label).toBe('OUTCOME-no-duplicate-invoices');
    // A kind prefix is dropped only when the name as given matches nothing, and only as a prefix (PATTERN-…), not a first word.
    expect(normalForms('Error handling')).toEqual(['error-handling']);
    const h = buildCausalGraph([pat('error-handling', []), pat('handling', []), pat('retry', [], true)]);
    expect(findNode(h, 'Error_Handling').label).toBe('PATTERN-error-handling');
    expect(findNode(h, 'pattern-handling').label).toBe('PATTERN-handling');
    expect(findNode(h, 'PATTERN-retry').label).toBe('ANTIPATTERN-retry');
  });

  it('a unique prefix of a normalised name matches at a word boundary; an ambiguous one names the candidates', () => {
    expect(findNode(g, 'Stop old job').label).toBe('PATTERN-stop-old-job-before-cutover');
    expect(findNode(g, 'No duplicate').label).toBe('OUTCOME-no-duplicate-invoices');
    // An exact name wins over the longer names it starts.
    expect(findNode(g, 'deploy').label).toBe('PATTERN-deploy');
    expect(() => findNode(g, 'Stop old')).toThrow(/"Stop old" matches 2 patterns: PATTERN-stop-old-cron, PATTERN-stop-old-job-before-cutover/);
    expect(() => findNode(g, 'stop')).toThrow(/matches 2 patterns/);
    expect(() => findNode(g, 'invoices for')).toThrow(/no pattern matches/);
  });

  it('a relation target in a note resolves the same way; ambiguous or unknown stays unresolved, with the candidates', () => {
    const h = buildCausalGraph([
      pat('stop-old-job-before-cutover', [{ type: 'causes', target: 'No duplicate invoices' }]),
      pat('deploy', [{ type: 'enables', target: 'Stop old job' }, { type: 'enables', target: 'Stop old' }, { type: 'causes', target: 'old job' }]),
      pat('stop-old-cron', []),
    ], [obs('no-duplicate-invoices', 'outcome', [{ type: 'prevents', target: 'deploy' }])]);
    expect(h.edges.map((e) => [e.target_text, e.target, e.candidates ?? null])).toEqual([
      ['No duplicate invoices', 'patterns/outcome-no-duplicate-invoices', null],
      ['Stop old job', 'patterns/pattern-stop-old-job-before-cutover', null],
      ['Stop old', null, ['PATTERN-stop-old-cron', 'PATTERN-stop-old-job-before-cutover']],
      // A part of a name is enough for a name typed on the command line, never for a link in a note.
      ['old job', null, null],
      ['deploy', 'patterns/pattern-deploy', null],
    ]);
    // Paths run through and end at observation notes.
    const p = bfsPath(h, findNode(h, 'deploy'), findNode(h, 'no duplicate invoices'), 5);
    expect(pathLine(p)).toBe('PATTERN-deploy —enables→ PATTERN-stop-old-job-before-cutover —causes→ OUTCOME-no-duplicate-invoices');
    expect(p.path.map((s) => s.type)).toEqual(['pattern', 'pattern', 'outcome']);
    expect(bfsPath(h, findNode(h, 'no duplicate'), findNode(h, 'stop old job'), 5).depth).toBe(2);
  });
});
