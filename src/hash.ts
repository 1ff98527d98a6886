// sha1 with node:crypto loaded on first use: importing it costs about 6 ms, and the refresh
// before a search only hashes when a file changed.

import { createRequire } from 'node:module';
import type * as Crypto from 'node:crypto';

let crypto: typeof Crypto | undefined;

export function sha1Hex(data: string | Buffer): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return crypto.createHash('sha1').update(data).digest('hex');
}
