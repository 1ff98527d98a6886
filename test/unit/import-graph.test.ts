import { describe, expect, it } from 'vitest';
import { dateOf, patternsFromGraph } from '../../src/notes/import-graph.js';
import { parseNote } from '../../src/notes/note.js';
import { formatObservationNote, observationFromNote } from '../../src/notes/observation-note.js';
import { formatPatternNote, parsePatternNote } from '../../src/notes/pattern-note.js';

describe('ai-agents causal graph → pattern data', () => {
  it('reads dates as written, 7-digit fractions and offsets included; rejects non-dates', () => {
    expect(dateOf('2026-01-02T22:18:26.5643068-06:00')).toBe('2026-01-02');
    expect(dateOf('2026-01-05')).toBe('2026-01-05');
    expect(dateOf('2026-02-30T00:00:00Z')).toBeNull();
    expect(dateOf(null)).toBeNull();
    expect(dateOf('soon')).toBeNull();
  });

  it('maps edges from the node labelled with a pattern\'s name; other nodes become observation notes; nulls tolerated', () => {
    const g = {
      updated: '2026-01-08T11:44:20.4503980-06:00',
      nodes: [{ id: 'a', label: 'Good pattern' }, { id: 'b', label: 'bad pattern' }, { id: 'c', label: 'error: [[x]] boom' }, null],
      edges: [{ source: 'a', target: 'b', type: 'Causes' }, { source: 'a', target: 'c', type: 'enables' }, { source: 'a', target: 'b', type: 'causes' }, { source: 'b', target: 'a', type: 'blocks' }],
      patterns: [
        { name: 'Good pattern', trigger: 'T1', action: 'A1', description: '', success_rate: 0.9, occurrences: 3, last_used: null },
        { name: 'Bad Pattern', trigger: null, action: null, success_rate: 2, occurrences: 0 },
        { name: 'good-pattern' }, 7, { name: '' },
      ],
    };
    const r = patternsFromGraph(g, '2026-11-20');
    expect(r.notes.map((n) => [n.title, n.causal, n.observations.length])).toEqual([
      ['PATTERN-good-pattern', [{ type: 'causes', target: 'PATTERN-bad-pattern' }, { type: 'enables', target: 'OBSERVATION-error-x-boom' }], 1],
      ['PATTERN-bad-pattern', [], 2],
    ]);
    // A node with no type is an observation; its label is text, never a link.
    expect(r.others).toEqual([{
      name: 'error-x-boom', kind: 'observation', title: 'OBSERVATION-error-x-boom', permalink: 'patterns/observation-error-x-boom', tags: ['causal', 'observation'],
      context: 'error: [ [x] ] boom', observations: ['[migrated] from ai-agents causal-graph.json (node c) #migration'], causal: [], relations: [],
    }]);
    expect(r.notes[0].last_validated).toBe('2026-01-08');
    expect(r.notes[1]).toMatchObject({ success_rate: 0.5, occurrences: 1, trigger: '(not recorded in causal-graph.json)' });
    // A type that is no causal relationship stays as text.
    expect(r.notes[1].observations[0]).toBe('[blocks] Good pattern #causal-graph');
    expect(r.observations).toBe(1);
    expect(r.warnings).toEqual([
      'patterns[2] "good-pattern" has the same note name as "Good pattern"; skipped',
      'patterns[3] is not an object; skipped',
      'patterns[4] has no usable name; skipped',
      expect.stringMatching(/"Bad Pattern": success_rate 2 is not a number from 0 to 1/),
    ]);
    // What the import writes reads back as the same data.
    for (const d of r.notes) expect(parsePatternNote(formatPatternNote(d), `${d.title}.md`)).toEqual(d);
    for (const d of r.others) expect(observationFromNote(parseNote(formatObservationNote(d)), `${d.title}.md`)).toEqual(d);
  });
});
