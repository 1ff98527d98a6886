// A block mem generates inside a file the user owns: found by its markers, replaced in place or
// appended, every byte around it kept.
import { describe, expect, it } from 'vitest';
import { findMarkedBlock, withMarkedBlock } from '../../src/vault/marked-block.js';

const M = { begin: '<!-- x:begin', end: '<!-- x:end -->' };
const BLOCK = '<!-- x:begin -->\nnew\n<!-- x:end -->';
const put = (text: string | null) => withMarkedBlock(text, BLOCK, M, 'F.md');

describe('withMarkedBlock', () => {
  it('appends after one blank line, whatever the file ends with', () => {
    expect(put(null)).toBe(`${BLOCK}\n`);
    expect(put('')).toBe(`${BLOCK}\n`);
    expect(put('a')).toBe(`a\n\n${BLOCK}\n`);
    expect(put('a\n')).toBe(`a\n\n${BLOCK}\n`);
    expect(put('a\n\n')).toBe(`a\n\n${BLOCK}\n`);
    expect(put('a\r\nb\r\n')).toBe(`a\r\nb\r\n\r\n${BLOCK.replace(/\n/g, '\r\n')}\r\n`);
  });

  it('replaces the block in place; the rest, a BOM and the line ends stay as they were', () => {
    const text = '\ufeffhead\r\n<!-- x:begin note -->\r\nold\r\nlines\r\n  <!-- x:end -->  \r\ntail';
    const out = put(text);
    expect(out).toBe('\ufeffhead\r\n<!-- x:begin -->\r\nnew\r\n<!-- x:end -->\r\ntail');
    expect(put(out)).toBe(out);
  });

  it('takes markers only on lines of their own, outside closed fences, and as a word', () => {
    expect(findMarkedBlock('see <!-- x:begin --> inline\n', M, 'F.md')).toBeNull();
    expect(findMarkedBlock('<!-- x:beginning -->\n', M, 'F.md')).toBeNull();
    expect(findMarkedBlock('~~~~\n<!-- x:begin -->\n~~~\n<!-- x:end -->\n~~~~\n', M, 'F.md')).toBeNull();
    // An unclosed fence hides nothing: a block appended after one is found again.
    const open = put('```\ncode');
    expect(findMarkedBlock(open, M, 'F.md')).not.toBeNull();
    expect(put(open)).toBe(open);
  });

  it('a damaged block throws one error naming the lines', () => {
    expect(() => put('<!-- x:begin -->\n')).toThrow(/F\.md: mem's block is damaged: a begin marker with no end marker \(line 1\); nothing was written/);
    expect(() => put('<!-- x:end -->\n<!-- x:end -->\n')).toThrow(/2 end markers \(lines 1, 2\)/);
  });
});
