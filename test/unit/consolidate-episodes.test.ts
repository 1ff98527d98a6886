import { describe, expect, it } from 'vitest';
import { FLASHBULB, messagesFromEpisodeBody, MIN_EPISODES, thresholdMet } from '../../src/episodes/consolidate-episodes.js';
import { renderEpisodes } from '../../src/episodes/episode-file.js';
import { parseMemoryFile } from '../../src/vault/format.js';

describe('thresholdMet', () => {
  it('is due at three waiting episodes, or one flashbulb, and not otherwise', () => {
    expect(MIN_EPISODES).toBe(3);
    expect(FLASHBULB).toBe(0.85);
    expect(thresholdMet([])).toEqual({ due: false, why: null });
    expect(thresholdMet([{ surprise: 0.5 }, { surprise: 0.84 }])).toEqual({ due: false, why: null });
    expect(thresholdMet([{ surprise: 0.1 }, { surprise: 0.2 }, { surprise: 0.3 }])).toEqual({ due: true, why: 'count' });
    expect(thresholdMet([{ surprise: 0.85 }])).toEqual({ due: true, why: 'flashbulb' });
    expect(thresholdMet([{ surprise: 0.2 }, { surprise: 0.9 }])).toEqual({ due: true, why: 'flashbulb' });
  });
});

describe('messagesFromEpisodeBody', () => {
  const msgs = [
    { role: 'user' as const, text: 'Never run the deploy script with sudo.', timestamp: '2026-11-20T10:00:00Z' },
    { role: 'assistant' as const, text: '# Not a heading\n\n<b>html</b>\n---\nplain line' },
    { role: 'user' as const, text: 'Second paragraph follows.\n\nAnd another.' },
  ];
  const text = renderEpisodes({
    session: 's1', source: 's1.jsonl', now: '2026-11-20T12:00:00.000Z', shareMessages: true,
    episodes: [{ first: 0, last: 2, startAt: '2026-11-20T10:00:00Z', endAt: '2026-11-20T10:02:00Z', surprise: 0.4, title: 'Deploy rules', summary: 'A summary.', reason: 'start', messages: msgs } as any],
  });
  const body = parseMemoryFile(text, '.mem/episodes/s1.md').entries[0].body;

  it('recovers each message, its role and its time from the <details> section episode-file.ts writes', () => {
    const out = messagesFromEpisodeBody(body);
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(out.map((m) => m.text)).toEqual(msgs.map((m) => m.text));
    expect(out[0].timestamp).toBe('2026-11-20T10:00:00Z');
    expect(out.every((m) => m.kind === 'text')).toBe(true);
  });

  it('reads CRLF bodies alike, and a body without the section as no messages', () => {
    expect(messagesFromEpisodeBody(body.replace(/\n/g, '\r\n')).map((m) => m.text)).toEqual(msgs.map((m) => m.text));
    expect(messagesFromEpisodeBody('Just a summary, no details.')).toEqual([]);
  });
});
