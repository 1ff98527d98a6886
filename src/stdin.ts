// Reading standard input to its end, for the commands that take input on it and for the agent
// hooks. A pipe may be non-blocking (a parent set it so, or process.stdin was created): "nothing
// yet" (EAGAIN) then means wait for the writer, not an empty input.

import fs from 'node:fs';
import { MemError } from './errors.js';

export interface StdinLimits {
  /** Stop with an error past this many bytes. */
  maxBytes?: number;
  /** Give up waiting for a writer after this long in all (a hook never waits for long); none: wait to the end. */
  maxWaitMs?: number;
  /** What the input is, for messages ("standard input", "the hook payload"). */
  what?: string;
}

export function readStdinText(limits: StdinLimits = {}): string {
  const what = limits.what ?? 'standard input';
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(64 * 1024);
  const nap = new Int32Array(new SharedArrayBuffer(4));
  let total = 0;
  let waited = 0;
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && (limits.maxWaitMs === undefined || waited < limits.maxWaitMs)) {
        Atomics.wait(nap, 0, 0, 5);
        waited += 5;
        continue;
      }
      if (code === 'EAGAIN' || code === 'EOF') break;
      throw new MemError(`cannot read ${what}: ${(err as Error).message}`);
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
    total += n;
    if (limits.maxBytes !== undefined && total > limits.maxBytes) throw new MemError(`${what} is over ${limits.maxBytes / 1024 / 1024} MB`);
  }
  return Buffer.concat(chunks).toString('utf8');
}
