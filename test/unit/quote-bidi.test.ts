import { describe, expect, it } from 'vitest';
import { inlineText, oneLine, quoteBody } from '../../src/quote.js';

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
