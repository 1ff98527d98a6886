// Hashes: sha1 with node:crypto loaded on first use (importing it costs about 6 ms), for ids
// derived from content; and fast non-cryptographic ones for the index's change detection.

import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';

let crypto: typeof Crypto | undefined;

export function sha1Hex(data: string | Buffer): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return crypto.createHash('sha1').update(data).digest('hex');
}

// Fast 64-bit hashes (two FNV-1a-style lanes) for change detection inside the index, where a
// cryptographic hash only costs time (and loading node:crypto, 5 ms). Not stable across mem
// versions; never stored in files. One loop per input kind: a per-element callback would cost
// more than the hash.

/** Two hex digits per byte value. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * Two 32-bit lanes as 16 hex digits, a byte at a time from a table: Number#toString(16) costs
 * ~0.35 µs a lane once the code is hot (0.2 s per 100k entries indexed), and this stays cheap in
 * a short run too, where code runs unoptimised.
 */
function hex64(a: number, b: number): string {
  return HEX[a >>> 24] + HEX[(a >>> 16) & 255] + HEX[(a >>> 8) & 255] + HEX[a & 255] + HEX[b >>> 24] + HEX[(b >>> 16) & 255] + HEX[(b >>> 8) & 255] + HEX[b & 255];
}

/** A string's hash (entry text and metadata). */
export function quickHash(s: string): string {
  return quickHashParts([s]);
}

/**
 * quickHash of the strings one after another, without joining them: the same value as
 * quickHash(parts.join('')). A joined string is copied whole when first read, and at a million
 * entries the index's hashes of `title\nbody` and of the metadata joined ~0.7 GB of text.
 */
export function quickHashParts(parts: readonly string[]): string {
  let n = 0;
  for (const s of parts) n += s.length;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ n;
  for (const s of parts) {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
    }
  }
  return hex64(a, b);
}

/**
 * Files from this size are hashed natively (crc32, with the byte loop over their last 64 KB): the
 * byte loop alone costs ~1 s per 100 MB, 0.8 s of a million-entry rebuild's parsing with 1,000
 * files of 567 KB when this was 1 MB.
 */
export const BIG_FILE = 64 << 10;
/** The end of a big file also hashed with the byte loop, so that two 32-bit hashes must agree. */
const TAIL = 64 << 10;

let zlibCrc32: ((data: Uint8Array, value?: number) => number) | null | undefined;

function nativeCrc32(): ((data: Uint8Array, value?: number) => number) | null {
  if (zlibCrc32 === undefined) {
    const zlib = createRequire(import.meta.url)('node:zlib') as { crc32?: (data: Uint8Array, value?: number) => number };
    zlibCrc32 = typeof zlib.crc32 === 'function' ? zlib.crc32 : null;
  }
  return zlibCrc32;
}

/** The crc32 of `bytes` (native), or on a Node without zlib.crc32 another 32-bit sum of them. */
export function crc32(bytes: Uint8Array): number {
  const native = nativeCrc32();
  if (native) return native(bytes) >>> 0;
  let h = 0;
  for (let i = 0; i < bytes.length; i++) h = (Math.imul(h, 31) + bytes[i]) >>> 0;
  return h;
}

function fnv(buf: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ buf.length;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return hex64(a, b);
}

function bigHash(crc: number, buf: Uint8Array): string {
  return `c${(crc >>> 0).toString(16).padStart(8, '0')}${fnv(buf.subarray(Math.max(0, buf.length - TAIL)))}:${buf.length}`;
}

/**
 * A file's bytes' hash: whether a file whose stat changed has new content. A big file's is the
 * crc32 of all of it (native), the byte loop's of its last 64 KB, and its length.
 */
export function bytesHash(buf: Uint8Array): string {
  const native = buf.length >= BIG_FILE ? nativeCrc32() : null;
  return native ? bigHash(native(buf), buf) : `${fnv(buf)}:${buf.length}`;
}

/** bytesHash of the bytes of `pieces` one after another, without joining them (but for the last 64 KB). */
export function piecesHash(pieces: Uint8Array[]): string {
  const length = pieces.reduce((n, p) => n + p.length, 0);
  const native = length >= BIG_FILE ? nativeCrc32() : null;
  if (!native) return bytesHash(Buffer.concat(pieces));
  let c = 0;
  for (const p of pieces) c = native(p, c);
  const tail: Uint8Array[] = [];
  for (let i = pieces.length - 1, left = TAIL; i >= 0 && left > 0; i--) {
    const p = pieces[i];
    tail.unshift(p.subarray(Math.max(0, p.length - left)));
    left -= p.length;
  }
  return `c${(c >>> 0).toString(16).padStart(8, '0')}${fnv(Buffer.concat(tail))}:${length}`;
}

/**
 * bytesHash of `buf` and of its first `cut` bytes, reading the bytes once when both are big (the
 * crc32 of the whole goes on from the prefix's): what a file that grew at its end hashed to
 * before, and hashes to now.
 */
export function prefixAndWholeHash(buf: Uint8Array, cut: number): { prefix: string; whole: string } {
  const head = buf.subarray(0, cut);
  const native = cut >= BIG_FILE ? nativeCrc32() : null;
  if (!native) return { prefix: bytesHash(head), whole: bytesHash(buf) };
  const c = native(head);
  return { prefix: bigHash(c, head), whole: bigHash(native(buf.subarray(cut), c), buf) };
}
