// The index's worker thread: reads and parses batches of memory files (prepare.ts) while the
// main thread writes the index. Messages: {id, files, known} in, {id, results} out, in order;
// a file whose bytes still hash to its `known` hash is not parsed (its result has no prep).

import { parentPort } from 'node:worker_threads';
import type { VaultFile } from '../vault/vault.js';
import { prepareFile } from './prepare.js';

parentPort?.on('message', ({ id, files, known }: { id: number; files: VaultFile[]; known: (string | null)[] }) => {
  parentPort!.postMessage({ id, results: files.map((f, i) => prepareFile(f, known[i])) });
});
