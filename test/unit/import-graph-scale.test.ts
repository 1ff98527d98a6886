import { describe, expect, it } from 'vitest';
import { patternsFromGraph } from '../../src/notes/import-graph.js';

describe('patternsFromGraph: edges grouped by source once', () => {
  it('each pattern gets its own edges in file order, duplicates once, labels matched case- and space-insensitively', () => {
    const nodes = [{ id: '1', label: 'Alpha' }, { id: '2', label: 'beta' }, { id: '3', label: 'an error' }, { id: '4', label: ' ALPHA ' }];
    const edges = [
      { source: '1', target: '2', type: 'causes' }, { source: '4', target: '2', type: 'causes' }, { source: '2', target: '1', type: 'prevents' },
      { source: '1', target: '3', type: 'causes' }, { source: '9', target: '1', type: 'causes' }, { source: '1', target: '2', type: 'enables' },
    ];
    const g = patternsFromGraph({ nodes, edges, patterns: [{ name: 'alpha' }, { name: 'Beta' }] }, '2026-11-26');
    expect(g.notes.map((n) => n.causal)).toEqual([
      [{ type: 'causes', target: 'PATTERN-beta' }, { type: 'causes', target: 'OBSERVATION-an-error' }, { type: 'enables', target: 'PATTERN-beta' }],
      [{ type: 'prevents', target: 'PATTERN-alpha' }],
    ]);
    expect(g.others.map((o) => o.title)).toEqual(['OBSERVATION-an-error']);
    expect(g.observations).toBe(0);
    expect(g.warnings[0]).toBe('edges[4]: its source node "9" is not in the graph; skipped');
  });
});
