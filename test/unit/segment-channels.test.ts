import { describe, expect, it } from 'vitest';
import { checkTopicAnswer, topicCandidates } from '../../src/episodes/channels.js';
import { segment, type ConversationMessage } from '../../src/episodes/segment.js';

const msgs: ConversationMessage[] = Array.from({ length: 10 }, (_, index) => ({
  index, role: index % 2 ? 'assistant' : 'user', text: `the orders migration step ${index} for postgres tables and columns`,
}));

describe('topic channel answers', () => {
  it('candidates are the human messages after the first', () => {
    expect(topicCandidates(msgs)).toEqual([2, 4, 6, 8]);
  });

  it('accepts candidates in increasing order, the empty list too', () => {
    expect(checkTopicAnswer({ boundaries: [2, 8] }, [2, 4, 6, 8])).toEqual([2, 8]);
    expect(checkTopicAnswer({ boundaries: [] }, [2, 4])).toEqual([]);
  });

  it('refuses anything else', () => {
    const c = [2, 4, 6, 8];
    for (const bad of [null, [], { boundaries: '2' }, { boundaries: [3] }, { boundaries: [10] }, { boundaries: [-2] }, { boundaries: [4, 4] }, { boundaries: [6, 2] }, { boundaries: [2.5] }, { boundaries: ['2'] }]) {
      expect(() => checkTopicAnswer(bad, c), JSON.stringify(bad)).toThrow();
    }
  });
});

describe('segment with the channels', () => {
  it('a topic boundary cuts once the episode is long enough; not before', () => {
    expect(segment(msgs, undefined, { topics: new Set([6]) }).map((e) => [e.first, e.reason])).toEqual([[0, 'start'], [6, 'topic']]);
    expect(segment(msgs, undefined, { topics: new Set([2]) }).map((e) => e.first)).toEqual([0]);
  });

  it('dense vectors replace the words: a turn pointing elsewhere surprises', () => {
    const v = (axis: number, wobble: number) => Float32Array.from([axis === 0 ? 1 : 0, axis === 1 ? 1 : 0, wobble, 0.1]);
    const vectors = msgs.map((m) => v(m.index >= 6 ? 1 : 0, (m.index % 3) * 0.05));
    const eps = segment(msgs, undefined, { vectors });
    expect(eps.map((e) => [e.first, e.reason])).toEqual([[0, 'start'], [6, 'surprise']]);
    // The wrong number of vectors: ignored, the words decide.
    expect(segment(msgs, undefined, { vectors: vectors.slice(1) }).map((e) => e.first)).toEqual([0]);
  });
});
