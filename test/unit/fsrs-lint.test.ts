import { describe, expect, it } from 'vitest';
import { checkEpisodicFields } from '../../src/lint/episodic-fields.js';
import { lintFiles } from '../../src/lint/entries.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const good = { stability: 2.3065, difficulty: 2.118, state: 'Review', last_review: '2026-11-19T10:00:00Z', reps: 0, lapses: 0 };

describe('checkEpisodicFields', () => {
  it('accepts what mem segment and mem review write, any state case, a null last review, no fsrs at all', () => {
    expect(checkEpisodicFields({ fsrs: good, kind: 'episode', surprise: 0.7 }, NOW)).toEqual([]);
    expect(checkEpisodicFields({ fsrs: { ...good, state: 'relearning', last_review: null } }, NOW)).toEqual([]);
    expect(checkEpisodicFields({ fsrs: { ...good, last_review: '2026-11-21' } }, NOW)).toEqual([]); // within a day: clock skew
    expect(checkEpisodicFields({}, NOW)).toEqual([]);
    expect(checkEpisodicFields({ fsrs: null }, NOW)).toEqual([]);
  });

  it('names each bad value with its key', () => {
    const keys = (fsrs: unknown, extra: Record<string, unknown> = {}) => checkEpisodicFields({ fsrs, ...extra }, NOW).map((p) => p.key);
    expect(keys({ ...good, stability: 0 })).toEqual(['fsrs.stability']);
    expect(keys({ ...good, stability: '2' })).toEqual(['fsrs.stability']);
    expect(keys({ ...good, difficulty: 0.5 })).toEqual(['fsrs.difficulty']);
    expect(keys({ ...good, difficulty: 11 })).toEqual(['fsrs.difficulty']);
    expect(keys({ ...good, last_review: 'yesterday' })).toEqual(['fsrs.last_review']);
    expect(keys({ ...good, last_review: '2026-02-30' })).toEqual(['fsrs.last_review']);
    expect(keys({ ...good, last_review: '2027-01-01T00:00:00Z' })).toEqual(['fsrs.last_review']);
    expect(keys({ ...good, reps: -1, lapses: 1.5 })).toEqual(['fsrs.reps', 'fsrs.lapses']);
    expect(keys({ ...good, state: 'Forgotten' })).toEqual(['fsrs.state']);
    expect(keys({ ...good, state: 2 })).toEqual(['fsrs.state']);
    expect(keys([1, 2])).toEqual(['fsrs']);
    expect(keys('high')).toEqual(['fsrs']);
    expect(keys(good, { kind: 'episode', surprise: 1.2 })).toEqual(['surprise']);
    expect(keys(good, { kind: 'episode', surprise: '0.5' })).toEqual(['surprise']);
    // Surprise is an episode's field: elsewhere it is not checked.
    expect(keys(good, { surprise: 7 })).toEqual([]);
  });
});

describe('lintFiles: FSRS findings', () => {
  const entry = (fsrs: string) => `---\nid: e1\ntype: procedural\nimportance: 0.5\n${fsrs}\n---\n## [2026-11-01] A learning\n\nText.\n`;

  it('a flow map: the fsrs line; a block map: the nested key\'s own line', () => {
    const flow = lintFiles([{ path: 'MEMORY.md', read: { text: entry('fsrs: {stability: -1, difficulty: 2, state: Review, last_review: 2026-11-01, reps: 0, lapses: 0}') } }], NOW);
    expect(flow.map((f) => [f.line, f.message])).toEqual([[5, 'fsrs.stability must be a number of days > 0 (got -1)']]);
    const block = lintFiles([{ path: 'MEMORY.md', read: { text: entry('fsrs:\n  stability: 3\n  difficulty: 12\n  state: Review\n  reps: -2') } }], NOW);
    expect(block.map((f) => [f.line, f.message])).toEqual([
      [7, 'fsrs.difficulty must be a number from 1 to 10 (got 12)'],
      [9, 'fsrs.reps must be an integer >= 0 (got -2)'],
    ]);
  });
});
