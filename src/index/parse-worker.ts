// The index's worker thread: reads and parses batches of memory files (prepare.ts) while the
// main thread writes the index. Messages: {id, files, known} in, {id, results} out on the port
// given as workerData.port (else to the parent), in order; a file whose bytes still hash to its
// `known` hash is not parsed (its result has no prep).

import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Entry } from '../vault/entry.js';
import type { VaultFile } from '../vault/vault.js';
import { prepareFile, type IndexEntry } from './prepare.js';

const reply: MessagePort | null = (workerData as { port?: MessagePort } | null)?.port ?? parentPort;

parentPort?.on('message', ({ id, files, known }: { id: number; files: VaultFile[]; known: (string | null)[] }) => {
  const results = files.map((f, i) => prepareFile(f, known[i]));
  // The frontmatter objects stay here: the index has them as JSON (rows), and copying them to the
  // main thread would cost it more than the rest of a message. Cleared in place, not copied
  // without them: a million entry objects copied cost the rebuild's parsing a second or so.
  for (const r of results) if (r.prep) for (const e of r.prep.entries as (IndexEntry & Partial<Pick<Entry, 'meta'>>)[]) e.meta = undefined;
  reply!.postMessage({ id, results });
});
