import { describe, expect, it } from 'vitest';
import { lineAt, parseNote } from '../../src/notes/note.js';

describe('lineAt', () => {
  it('gives the 1-based line of an offset, LF and CRLF, and follows a note whose text changed', () => {
    const n = parseNote('a\nbb\r\nccc\n');
    expect([0, 1, 2, 6, 9].map((o) => lineAt(n, o))).toEqual([1, 1, 2, 3, 3]);
    n.text = 'x\ny\nz';
    expect(lineAt(n, 4)).toBe(3);
  });
  it('costs a lookup per call, not a scan of the note: 100,000 calls on a 2 MB note (a scan per call would run past the test timeout)', () => {
    const n = parseNote(Array.from({ length: 100_000 }, (_, i) => `line ${i} ${'x'.repeat(12)}`).join('\n'));
    let sum = 0;
    for (let i = 0; i < 100_000; i++) sum += lineAt(n, i * 20);
    expect(lineAt(n, n.text.length - 1)).toBe(100_000);
    expect(sum).toBeGreaterThan(0);
  });
});
