// The worker thread of `mem compact` on a big vault. In the first pass (editFilesInPasses'
// offload) it reads and checks the files it is sent as the main thread would (firstRead), and
// answers with the scan compaction keeps of each (scanFile), the word hashes moved rather than
// copied. In the near-duplicate search it sketches the sets it is given (sketch-sharing.ts).

import { parentPort } from 'node:worker_threads';
import { MemError } from '../errors.js';
import { firstRead, type OffloadReply } from '../vault/edit.js';
import { compactable, scanFile } from './compact-scan.js';
import { bandHashes } from './similarity.js';
import type { SketchJob, SketchReply } from './sketch-sharing.js';

function sketch(job: SketchJob): void {
  let reply: SketchReply;
  try {
    const sets = Array.from({ length: job.offsets.length - 1 }, (_, k) => job.data.subarray(job.offsets[k], job.offsets[k + 1]));
    reply = { bands: bandHashes(sets) };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  job.port.postMessage(reply, 'bands' in reply ? [reply.bands.buffer as ArrayBuffer] : []);
  Atomics.add(job.signal, 0, 1);
  Atomics.notify(job.signal, 0);
}

parentPort?.on('message', (msg: { i: number; abs: string; path: string; hint?: string } | SketchJob) => {
  if ('kind' in msg) return sketch(msg);
  const { i, abs, path, hint } = msg;
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
