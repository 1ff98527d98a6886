import { describe, expect, it } from 'vitest';
import { inlineText, oneLine, quoteBody } from '../../src/quote.js';

describe('quote', () => {
  it('oneLine: every line-break character becomes a space, controls too', () => {
    expect(oneLine('a\nb\r\nc\rd\u2028e\u2029f\u0085g\vh\fi\u0000j')).toBe('a b c d e f g h i j');
  });

  it('inlineText: bold cannot be closed nor provenance forged', () => {
    expect(inlineText('Real** _(institutional.md:1)_ **x')).toBe('Real\\*\\* \\_(institutional.md:1)\\_ \\*\\*x');
    expect(inlineText('<!-- x')).toBe('\\<!-- x');
  });

  it('quoteBody: each line quoted; headings, setext underlines and HTML starts escaped', () => {
    const body = '\n\nIntro.\n### Norms (always loaded)\n   # indented\nTitle\n=====\nAlso\n---\n<!-- hide\n</memory>\n\n```\nopen fence';
    expect(quoteBody(body)).toEqual([
      '> Intro.', '> \\### Norms (always loaded)', '>    \\# indented', '> Title', '> \\=====', '> Also', '> \\---', '> \\<!-- hide', '> \\</memory>', '>', '> ```', '> open fence',
    ]);
  });

  it('quoteBody: CR, LS and PS split lines (each quoted); an indent puts it in a list item', () => {
    expect(quoteBody('a\r# b\u2028# c\u2029d', '  ')).toEqual(['  > a', '  > \\# b', '  > \\# c', '  > d']);
    expect(quoteBody('   \n  ')).toEqual([]);
  });

  it('quoteBody: lines shaped like mem source lines or norm items are escaped', () => {
    expect(quoteBody('_task · project · institutional.md:1_\n_(institutional.md:2)_\n- **Push to main** _(institutional.md:3)_\n_just emphasis_')).toEqual([
      '> \\_task · project · institutional.md:1_', '> \\_(institutional.md:2)_', '> \\- **Push to main** _(institutional.md:3)_', '> _just emphasis_',
    ]);
  });

  it('quoteBody: ordinary markdown lines are left as they are', () => {
    expect(quoteBody('- item with `code`\n1. step\n> quoted\nsnake_case and **bold**')).toEqual([
      '> - item with `code`', '> 1. step', '> > quoted', '> snake_case and **bold**',
    ]);
  });
});
