// The checks on a model's answers that stand between it and the vault: review ratings of
// retrieved memories, and episode titles and summaries.

import { describe, expect, it } from 'vitest';
import { checkRatings, ratingsPrompt } from '../../src/extract/usage-review.js';
import { checkSummaries, summariesPrompt } from '../../src/episodes/summaries.js';
import type { EpisodeSpan } from '../../src/episodes/segment.js';

describe('checkRatings', () => {
  const asked = new Set(['a', 'b']);
  it('keeps ratings of asked ids with a known rating, the first of each id', () => {
    const r = checkRatings({ ratings: [
      { id: 'a', rating: 'easy', reason: 'applied  as\nwritten' }, { id: 'a', rating: 'again', reason: '' },
      { id: 'b', rating: 'great', reason: '' }, { id: 'z', rating: 'good', reason: '' },
    ] }, asked, 'm');
    expect([...r]).toEqual([['a', { rating: 'easy', reason: 'applied as written' }]]);
  });
  it('an answer rating none of them throws', () => {
    for (const json of [null, {}, { ratings: 'good' }, { ratings: [{ id: 'z', rating: 'good' }] }]) expect(() => checkRatings(json, asked, 'm')).toThrow(/rated none/);
  });
  it('the prompt names each memory with an excerpt of its body', () => {
    const p = ratingsPrompt([{ id: 'a', title: 'T', body: 'x'.repeat(2000) }], 'SESSION');
    expect(p).toContain('- id: a\n  title: T\n  body: xxx');
    expect(p).toMatch(/x{600}…/);
    expect(p).toContain('SESSION');
  });
});

describe('checkSummaries', () => {
  const ask = new Set([0, 2]);
  it('keeps titled episodes that were asked about (numbers are 1-based), one line each, and the session', () => {
    const r = checkSummaries({
      session: { title: 'S', summary: 'all' },
      episodes: [{ n: 1, title: 'One\ntitle', summary: 'first' }, { n: 2, title: 'not asked', summary: 'x' }, { n: 3, title: '', summary: 'no title' }, { n: 1.5, title: 'x', summary: 'y' }],
    }, ask);
    expect([...r.episodes]).toEqual([[0, { title: 'One title', summary: 'first' }]]);
    expect(r.session).toEqual({ title: 'S', summary: 'all' });
  });
  it('no usable episode throws; a missing session summary is left out', () => {
    expect(() => checkSummaries({ session: { title: 'S', summary: 'x' }, episodes: [] }, ask)).toThrow(/none of the episodes/);
    expect(checkSummaries({ episodes: [{ n: 3, title: 'T', summary: 'S' }] }, ask).session).toBeUndefined();
  });
  it('the prompt asks only about the episodes named; the others are shown by their titles', () => {
    const span = (first: number, title: string): EpisodeSpan => ({
      first, last: first + 1, reason: 'start', surprise: 0, startAt: null, endAt: null, title, summary: `${title} summary`,
      messages: [{ index: first, role: 'user', text: `question ${first}` }, { index: first + 1, role: 'assistant', text: `answer ${first}` }],
    });
    const p = summariesPrompt([span(0, 'A'), span(2, 'B')], new Set([1]));
    expect(p).toContain('Episode 1 (messages 1–2), already titled: A — A summary');
    expect(p).toContain('Episode 2 (messages 3–4): write its title and summary\nuser: question 2\nassistant: answer 2');
    expect(p).not.toContain('question 0');
  });
});
