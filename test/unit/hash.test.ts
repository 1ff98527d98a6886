import { describe, expect, it } from 'vitest';
import { BIG_FILE, bytesHash, piecesHash, prefixAndWholeHash, quickHash, quickHashParts } from '../../src/hash.js';

/** The same two lanes, written out with Number#toString (the reference for the digits). */
function reference(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

describe('fast hashes', () => {
  it('write both 32-bit lanes as 16 hex digits, leading zeros kept', () => {
    const inputs = ['', 'a', 'entry text', 'ünïcode ✓', 'x'.repeat(5000), ...Array.from({ length: 300 }, (_, i) => `k${i}`)];
    for (const s of inputs) {
      expect(quickHash(s)).toBe(reference(s));
      expect(quickHash(s)).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(new Set(inputs.map(quickHash)).size).toBe(inputs.length);
  });

  it('hash strings in parts to what their join hashes to', () => {
    const cases: string[][] = [[], [''], ['', ''], ['a'], ['title', '\n', 'body'], ['ünï', 'code ✓', ''], ['\ud83d', '\ude00'], ['x'.repeat(5000), '\u0000', 'y']];
    for (const parts of cases) expect(quickHashParts(parts), JSON.stringify(parts)).toBe(quickHash(parts.join('')));
    // The length counts too: moving text from one part to the next changes nothing, changing it does.
    expect(quickHashParts(['ab', 'c'])).toBe(quickHashParts(['a', 'bc']));
    expect(quickHashParts(['ab', 'c'])).not.toBe(quickHashParts(['ab', 'c', ' ']));
  });

  it('hash bytes with their length', () => {
    const h = bytesHash(Buffer.from('hello'));
    expect(h).toMatch(/^[0-9a-f]{16}:5$/);
    expect(bytesHash(Buffer.from('hellp'))).not.toBe(h);
  });
});

describe('big files', () => {
  it('hash the prefix and the whole in one pass to what bytesHash gives each, and tell one changed byte', () => {
    const buf = Buffer.alloc(3 * BIG_FILE + 123);
    for (let i = 0; i < buf.length; i++) buf[i] = (i * 7919) & 255;
    for (const cut of [0, 10, BIG_FILE - 1, BIG_FILE, 2 * BIG_FILE + 5, buf.length]) {
      const { prefix, whole } = prefixAndWholeHash(buf, cut);
      expect(prefix).toBe(bytesHash(buf.subarray(0, cut)));
      expect(whole).toBe(bytesHash(buf));
    }
    const changed = Buffer.from(buf);
    changed[BIG_FILE + 17] ^= 1;
    expect(bytesHash(changed)).not.toBe(bytesHash(buf));
    expect(bytesHash(buf)).toMatch(new RegExp(`:${buf.length}$`));
    // In pieces (a last one shorter than the 64 KB the byte loop takes): the same hash.
    const split = (cuts: number[]) => [0, ...cuts].map((start, i, all) => buf.subarray(start, all[i + 1] ?? buf.length));
    for (const cuts of [[5], [BIG_FILE, buf.length - 10], [100, 200, buf.length - 70_000, buf.length - 3]]) expect(piecesHash(split(cuts))).toBe(bytesHash(buf));
    expect(piecesHash([buf.subarray(0, 10), buf.subarray(10, 20)])).toBe(bytesHash(buf.subarray(0, 20)));
  });
});
