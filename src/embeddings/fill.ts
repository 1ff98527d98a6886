// Filling the vector table: embed the entries that have no vector of the configured model yet —
// only those, each distinct text once — and store each batch as it comes back, so an interrupted
// run keeps what it paid for.

import type { Db } from '../index/db.js';
import { createEmbedder, type EmbedSettings } from './client.js';
import { prepareVectors, putVectors, vectorCount, writeSnapshot } from './store.js';

export interface EmbedReport {
  model: string;
  /** Texts sent to the endpoint by this run. */
  embedded: number;
  /** Vectors stored for the model after the run. */
  vectors: number;
  requests: number;
  ms: number;
}

export async function embedMissing(db: Db, settings: EmbedSettings, opts: { env?: NodeJS.ProcessEnv; progressFor?: (total: number) => Promise<((done: number, total: number) => void) | undefined> } = {}): Promise<EmbedReport> {
  const started = Date.now();
  const embedder = createEmbedder(settings, opts.env);
  const missing = prepareVectors(db, embedder.key);
  const progress = missing.length > 0 ? await opts.progressFor?.(missing.length) : undefined;
  let requests = 0;
  for (let i = 0; i < missing.length; i += settings.batchSize) {
    const batch = missing.slice(i, i + settings.batchSize);
    const vecs = await embedder.embed(batch.map((m) => m.text));
    requests++;
    putVectors(db, embedder.key, batch.map((m, j) => ({ hash: m.hash, vec: vecs[j] })));
    progress?.(i + batch.length, missing.length);
  }
  writeSnapshot(db, embedder.key);
  return { model: embedder.key, embedded: missing.length, vectors: vectorCount(db, embedder.key), requests, ms: Date.now() - started };
}
