// The worker thread of `mem compact`'s first pass over a big vault (editFilesInPasses' offload):
// reads and checks the files it is sent as the main thread would (firstRead), and answers with
// the scan compaction keeps of each (scanFile), the word hashes moved rather than copied.

import { parentPort } from 'node:worker_threads';
import { MemError } from '../errors.js';
import { firstRead, type OffloadReply } from '../vault/edit.js';
import { compactable, scanFile } from './compact-scan.js';

parentPort?.on('message', ({ i, abs, path, hint }: { i: number; abs: string; path: string; hint?: string }) => {
  let reply: OffloadReply;
  try {
    const r = firstRead({ abs, path }, hint);
    const result = compactable(r.parsed) ? scanFile(i, r.parsed) : null;
    parentPort!.postMessage({ i, digest: r.digest, result } satisfies OffloadReply, result ? [result.hashes.buffer as ArrayBuffer, result.ends.buffer as ArrayBuffer] : []);
    return;
  } catch (err) {
    reply = err instanceof MemError
      ? { i, error: { message: err.message, where: err.where, hint: err.hint, exitCode: err.exitCode } }
      : { i, error: { message: `cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`, where: { file: path } } };
  }
  parentPort!.postMessage(reply);
});
