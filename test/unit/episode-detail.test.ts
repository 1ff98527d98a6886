import { describe, expect, it } from 'vitest';
import { detailLevel, episodeMark, messagesOfBody, showsDetail, withoutMessages } from '../../src/episodes/detail.js';
import { MemError } from '../../src/errors.js';

const BODY = 'The summary sentence.\n\n<details>\n<summary>Messages 1–2 (2)</summary>\n\n**user** · 2026-01-01T00:00:00Z\n\n> hello there\n\n**assistant**\n\n> hi\n\n</details>\n';

describe('detail levels', () => {
  it('auto: key moments ranked 1-2 only; full: all; none: none', () => {
    expect([0, 1, 2].map((r) => showsDetail('auto', r, true))).toEqual([true, true, false]);
    expect(showsDetail('auto', 0, false)).toBe(false);
    expect(showsDetail('full', 9, false)).toBe(true);
    expect(showsDetail('none', 0, true)).toBe(false);
  });

  it('a --detail value: any case; anything else is a usage error', () => {
    expect(detailLevel(undefined, 'auto')).toBe('auto');
    expect(detailLevel('FULL', 'none')).toBe('full');
    expect(() => detailLevel('most', 'none')).toThrow(MemError);
    try {
      detailLevel('most', 'none');
    } catch (e) {
      expect((e as MemError).message).toMatch(/unknown --detail "most"/);
    }
  });

  it('the messages section and the body without it', () => {
    expect(messagesOfBody(BODY)).toBe('**user** · 2026-01-01T00:00:00Z\n\n> hello there\n\n**assistant**\n\n> hi');
    expect(withoutMessages(BODY)).toBe('The summary sentence.');
    expect(withoutMessages(BODY.replace(/\n/g, '\r\n'))).toBe('The summary sentence.');
    expect(messagesOfBody('Only a summary.')).toBe('');
    expect(withoutMessages('Only a summary.')).toBe('Only a summary.');
  });

  it('the mark from the indexed frontmatter', () => {
    expect(episodeMark(JSON.stringify({ surprise: 0.7 }))).toEqual({ surprise: 0.7, key_moment: true });
    expect(episodeMark(JSON.stringify({ surprise: 0.69 }))).toEqual({ surprise: 0.69, key_moment: false });
    expect(episodeMark(JSON.stringify({ surprise: '0.9' }))).toEqual({ surprise: null, key_moment: false });
    expect(episodeMark('{broken')).toEqual({ surprise: null, key_moment: false });
  });
});
