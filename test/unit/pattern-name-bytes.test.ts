import { describe, expect, it } from 'vitest';
import { kebab } from '../../src/notes/pattern-note.js';

describe('kebab: a pattern name that makes a file name any file system takes', () => {
  it('at most 200 UTF-8 bytes, cut on a character boundary; ASCII names keep their 120 characters', () => {
    const cjk = kebab('漢'.repeat(119));
    expect(Buffer.byteLength(cjk)).toBeLessThanOrEqual(200);
    expect(cjk).toBe('漢'.repeat(66));
    expect(kebab('a'.repeat(130))).toBe('a'.repeat(120));
  });
  it('never splits a surrogate pair (letters outside the BMP)', () => {
    const k = kebab('𠀀'.repeat(130));
    expect(k).toBe('𠀀'.repeat(50));
    expect(k).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
  it('no trailing dash after the cut', () => {
    expect(kebab(`${'é'.repeat(99)} ${'b'.repeat(10)}`)).toBe('e'.repeat(99) + '-' + 'b'.repeat(10));
    expect(kebab(`${'ж'.repeat(100)} x`).endsWith('-')).toBe(false);
  });
});
