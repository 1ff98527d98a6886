// The embedding client: any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, LM Studio,
// llama.cpp server, vLLM) through the official `openai` SDK, in batches, with the SDK's retries
// and timeout. Loaded only when `embeddings:` is configured, so lexical search never parses the SDK.

import OpenAI from 'openai';
import { boundedFetch } from '../llm/bounded-fetch.js';
import { ProviderError, providerError } from '../llm/provider.js';
import { answerCap, apiKeyOf, checkedVectors, embedBody, modelKey, whoOf, type EmbedSettings } from './query.js';

export { modelKey, type EmbedSettings };

export interface Embedder {
  /** The identity vectors are stored under: the model, and the dimensions when asked for. */
  readonly key: string;
  /** Unit-length vectors, one per text, in order. `onBatch` hears the count done after each batch. */
  embed(texts: string[], onBatch?: (done: number) => void): Promise<Float32Array[]>;
}

/** `retries`/`timeoutMs` override the config's (a search waits less than `mem index`). */
export function createEmbedder(s: EmbedSettings, env: NodeJS.ProcessEnv, over: { timeoutMs?: number; maxRetries?: number } = {}): Embedder {
  const apiKey = apiKeyOf(s, env);
  const timeoutMs = over.timeoutMs ?? s.timeoutMs;
  const maxRetries = over.maxRetries ?? s.maxRetries;
  const client = new OpenAI({ apiKey, baseURL: s.baseUrl, timeout: timeoutMs, maxRetries, fetch: boundedFetch({
    timeoutMs,
    cap: answerCap(s.batchSize),
    tooLarge: () => new ProviderError(`embeddings endpoint (${s.model}) answered more than ${Math.round(answerCap(s.batchSize) / 1_048_576)} MB for one batch`, 'invalid-answer'),
    // As on the query path: a 3xx is an error, and the texts are not sent on elsewhere.
    redirect: 'manual',
  }) });
  const who = whoOf(s, env);
  return {
    key: modelKey(s),
    async embed(texts, onBatch) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += s.batchSize) {
        const batch = texts.slice(i, i + s.batchSize);
        let res: OpenAI.Embeddings.CreateEmbeddingResponse;
        try {
          res = await client.embeddings.create(embedBody(s, batch));
        } catch (err) {
          // An answer boundedFetch refused reaches here as the SDK's connection error around it.
          const cause = (err as { cause?: unknown })?.cause;
          throw providerError(cause instanceof ProviderError ? cause : err, who, { timeoutMs, maxRetries, secrets: [apiKey] });
        }
        out.push(...checkedVectors(s, res.data, batch.length));
        onBatch?.(out.length);
      }
      return out;
    },
  };
}

