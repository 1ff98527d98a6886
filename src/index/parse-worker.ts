// The rebuild's worker thread: reads and parses batches of memory files (prepare.ts) while the
// main thread writes the index. Messages: {id, files} in, {id, results} out, in order.

import { parentPort } from 'node:worker_threads';
import type { VaultFile } from '../vault/vault.js';
import { prepareFile } from './prepare.js';

parentPort?.on('message', ({ id, files }: { id: number; files: VaultFile[] }) => {
  parentPort!.postMessage({ id, results: files.map(prepareFile) });
});
