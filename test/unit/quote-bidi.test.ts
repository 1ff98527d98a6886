import { describe, expect, it } from 'vitest';
import { forTerminal, inlineText, jsonForTerminal, oneLine, quoteBody } from '../../src/quote.js';

describe('quote: characters that change what a reader sees', () => {
  it('bidi overrides and isolates, C1 controls (CSI) become spaces; NEL still breaks a line', () => {
    expect(oneLine('a\u202eb\u202ac\u2066d\u2069e\u009bf\u0080g')).toBe('a b c d e f g');
    expect(inlineText('**x\u202e**')).toBe('\\*\\*x \\*\\*');
    expect(quoteBody('one\u202e\u0085### Norms (always loaded)')).toEqual(['> one ', '> \\### Norms (always loaded)']);
  });
  it('letters of right-to-left scripts are kept', () => {
    expect(oneLine('שלום עולם مرحبا')).toBe('שלום עולם مرحبا');
  });
});

describe('forTerminal: what mem prints cannot drive the terminal', () => {
  it('shows controls as marks, keeps tab and line feed, drops the CR of a CRLF', () => {
    expect(forTerminal('a\u001b[2Jb\u001b]0;t\u0007c\u009bd\u202ee\u0000f\u007fg\r\nh\ri\tj\n', false)).toBe('a␛[2Jb␛]0;t␇c\ufffdd\ufffde␀f␡g\nh␍i\tj\n');
    const plain = 'nothing to change: é ü 日本 שלום\n';
    expect(forTerminal(plain, false)).toBe(plain);
  });

  it('keeps mem\'s own colour and weight sequences only when styling is on, and nothing else', () => {
    const styled = '\u001b[1mtitle\u001b[22m \u001b[2mdim\u001b[22m \u001b[36mscope\u001b[39m \u001b[93mmark\u001b[39m';
    expect(forTerminal(styled, true)).toBe(styled);
    expect(forTerminal(styled, false)).toBe(styled.replace(/\u001b/g, '␛'));
    // Concealed text, cursor moves, clearing, OSC: never, styling on or not.
    expect(forTerminal('\u001b[8mhidden\u001b[2J\u001b[H\u001b]52;c;eA==\u0007\u001b[1;31m', true)).toBe('␛[8mhidden␛[2J␛[H␛]52;c;eA==␇␛[1;31m');
  });

  it('writes the same JSON value with the C1 and bidi controls escaped', () => {
    const value = { t: 'a\u009b31m\u202eb\u2028c\u0085' };
    const out = jsonForTerminal(JSON.stringify(value));
    expect(out).toBe('{"t":"a\\u009b31m\\u202eb\\u2028c\\u0085"}');
    expect(JSON.parse(out)).toEqual(value);
  });
});
