import { describe, expect, it } from 'vitest';
import { linkTails } from '../../src/notes/episode-note.js';

type Link = { arrow: '←' | '→'; id: string };

/** The definition, spelled as directly as possible: strip one ` ← [[id]]` tail at a time off the end. */
function reference(line: string): { text: string; links: Link[] } {
  const links: Link[] = [];
  let text = line;
  for (let m; (m = /^([\s\S]*?)[ \t]+([←→])[ \t]+\[\[([^[\]]+)\]\]$/.exec(text)); text = m[1]) links.unshift({ arrow: m[2] as Link['arrow'], id: m[3] });
  return { text, links };
}

/** A small deterministic generator (LCG), so a failure names a seed that reproduces it. */
function randomLine(seed: number): string {
  let s = seed >>> 0;
  const next = (n: number) => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % n);
  const pieces = [' ', '\t', '  ', '←', '→', '[[', ']]', '[', ']', 'a', 'e1', 'x y', '\n', ' → [[e2]]', ' ← [[d001]]', '\t→\t[[k]]', ' → [[]]', ' ← [[a[b]]'];
  let line = '';
  for (let i = next(12); i > 0; i--) line += pieces[next(pieces.length)];
  // Most lines end in real tails, so the interesting cases (a tail after text, after another tail,
  // after a broken one) come up often.
  for (let i = next(4); i > 0; i--) line += pieces[12 + next(3)];
  return line;
}

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
    expect(linkTails(' → [[x]]')).toEqual({ text: '', links: [{ arrow: '→', id: 'x' }] });
    expect(linkTails('a\t\u2192\t[[x]]')).toEqual({ text: 'a', links: [{ arrow: '→', id: 'x' }] });
    expect(linkTails('')).toEqual({ text: '', links: [] });
  });
  it('agrees with a tail-at-a-time reference on 20,000 random lines', () => {
    for (let seed = 1; seed <= 20_000; seed++) {
      const line = randomLine(seed);
      expect(linkTails(line), `seed ${seed}: ${JSON.stringify(line)}`).toEqual(reference(line));
    }
  });
  it('reads 200,000 tails in order, and none when text follows them', () => {
    const want: Link[] = Array.from({ length: 200_000 }, (_, i) => ({ arrow: i % 2 ? '←' : '→', id: `e${i}` }));
    const line = `x${want.map((k, i) => `${i % 3 ? ' ' : '\t'}${k.arrow}${i % 5 ? ' ' : '  '}[[${k.id}]]`).join('')}`;
    expect(linkTails(line)).toEqual({ text: 'x', links: want });
    expect(linkTails(`${line} y`)).toEqual({ text: `${line} y`, links: [] });
  });
});
