// sha1 with node:crypto loaded on first use (importing it costs about 6 ms), for ids derived
// from content; and a fast non-cryptographic hash of a file's bytes for change detection.

import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';

let crypto: typeof Crypto | undefined;

export function sha1Hex(data: string | Buffer): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return crypto.createHash('sha1').update(data).digest('hex');
}

/**
 * A 64-bit hash of bytes (two FNV-1a-style lanes) that tells the index whether a file whose stat
 * changed has new content. Not cryptographic, not stable across mem versions, never stored in
 * files; it spares the refresh after an edit loading node:crypto.
 */
export function bytesHash(buf: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ buf.length;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return `${(a >>> 0).toString(16).padStart(8, '0')}${(b >>> 0).toString(16).padStart(8, '0')}:${buf.length}`;
}
