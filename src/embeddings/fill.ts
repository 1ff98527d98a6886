// Filling the vector table: embed the entries that have no vector of the configured model yet —
// only those, each distinct text once — and store each batch as it comes back, so an interrupted
// run keeps what it paid for.

import type { Db } from '../index/db.js';
import { apiKeyOf, modelKey, type EmbedSettings } from './query.js';
import { prepareVectors, putVectors, vectorCount, writeSnapshot } from './stored-vectors.js';

export interface EmbedReport {
  model: string;
  /** Texts sent to the endpoint by this run. */
  embedded: number;
  /** Vectors stored for the model after the run. */
  vectors: number;
  requests: number;
  ms: number;
}

export async function embedMissing(db: Db, settings: EmbedSettings, opts: { env: NodeJS.ProcessEnv; progressFor?: (total: number) => Promise<((done: number, total: number) => void) | undefined> }): Promise<EmbedReport> {
  const started = Date.now();
  const key = modelKey(settings);
  // No key for a remote endpoint: said before anything changes (a model change drops vectors).
  apiKeyOf(settings, opts.env);
  const missing = prepareVectors(db, key);
  const progress = missing.length > 0 ? await opts.progressFor?.(missing.length) : undefined;
  let requests = 0;
  // The SDK (~60 ms to load) only when there is something to send.
  const embedder = missing.length > 0 ? (await import('./client.js')).createEmbedder(settings, opts.env) : null;
  for (let i = 0; embedder && i < missing.length; i += settings.batchSize) {
    const batch = missing.slice(i, i + settings.batchSize);
    const vecs = await embedder.embed(batch.map((m) => m.text));
    requests++;
    putVectors(db, key, batch.map((m, j) => ({ hash: m.hash, vec: vecs[j] })));
    progress?.(i + batch.length, missing.length);
  }
  writeSnapshot(db, key);
  return { model: key, embedded: missing.length, vectors: vectorCount(db, key), requests, ms: Date.now() - started };
}
