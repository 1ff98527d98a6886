import { describe, expect, it } from 'vitest';
import { linkTails } from '../../src/notes/episode-note.js';

describe('linkTails: the ← / → links ending an event line', () => {
  it('reads them in order and leaves the text', () => {
    expect(linkTails('npm test passed #test ← [[d001]] → [[e3]]')).toEqual({
      text: 'npm test passed #test', links: [{ arrow: '←', id: 'd001' }, { arrow: '→', id: 'e3' }],
    });
  });
  it('stops at what is not a tail: no arrow, no blank around it, brackets in the id, text after', () => {
    expect(linkTails('see [[x]]')).toEqual({ text: 'see [[x]]', links: [] });
    expect(linkTails('a →[[x]]').links).toEqual([]);
    expect(linkTails('a → [[x[y]]').links).toEqual([]);
    expect(linkTails('a → [[x]] more').links).toEqual([]);
    expect(linkTails('→ [[x]]')).toEqual({ text: '→ [[x]]', links: [] });
    expect(linkTails('a\t\u2192\t[[x]]')).toEqual({ text: 'a', links: [{ arrow: '→', id: 'x' }] });
  });
  it('reads 100,000 tails in order, and none when text follows them', () => {
    const line = `x${Array.from({ length: 100_000 }, (_, i) => ` ${i % 2 ? '←' : '→'} [[e${i}]]`).join('')}`;
    const { text, links } = linkTails(line);
    expect(text).toBe('x');
    expect(links).toHaveLength(100_000);
    expect(links[0]).toEqual({ arrow: '→', id: 'e0' });
    expect(links[99_999]).toEqual({ arrow: '←', id: 'e99999' });
    expect(linkTails(`${line} y`).links).toHaveLength(0);
  });
});
