// The embedding client: any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, LM Studio,
// llama.cpp server, vLLM) through the official `openai` SDK, in batches, with the SDK's retries
// and timeout. Loaded only when `embeddings:` is configured, so lexical search never parses the SDK.

import OpenAI from 'openai';
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
export function createEmbedder(s: EmbedSettings, env: NodeJS.ProcessEnv = process.env, over: { timeoutMs?: number; maxRetries?: number } = {}): Embedder {
  const apiKey = apiKeyOf(s, env);
  const timeoutMs = over.timeoutMs ?? s.timeoutMs;
  const maxRetries = over.maxRetries ?? s.maxRetries;
  const client = new OpenAI({ apiKey, baseURL: s.baseUrl, timeout: timeoutMs, maxRetries, fetch: boundedFetch(timeoutMs, answerCap(s.batchSize), s.model) });
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
          throw providerError(cause instanceof ProviderError ? cause : err, who, { timeoutMs, maxRetries });
        }
        out.push(...checkedVectors(s, res.data, batch.length));
        onBatch?.(out.length);
      }
      return out;
    },
  };
}

/**
 * The SDK's fetch, bounded as the query path is (src/embeddings/query.ts): the whole exchange, body
 * included, within `timeoutMs` (the SDK's own timeout stops at the headers, so a server dripping
 * its body would hold `mem index --embed` forever), at most `cap` bytes of answer, and redirects
 * not followed (a 3xx is an error, as on the query path: the texts are not sent on elsewhere).
 */
function boundedFetch(timeoutMs: number, cap: number, model: string): typeof fetch {
  return async (input, init = {}) => {
    const ac = new AbortController();
    const outer = init.signal;
    const onAbort = () => ac.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort);
    // "timed out" in the reason: the SDK reports it as its timeout error.
    const timer = setTimeout(() => ac.abort(new Error('request timed out')), timeoutMs);
    try {
      const res = await fetch(input, { ...init, signal: ac.signal, redirect: 'manual' });
      const chunks: Uint8Array[] = [];
      let size = 0;
      if (res.body) {
        for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
          size += c.byteLength;
          if (size > cap) {
            ac.abort(new Error('answer too large'));
            throw new ProviderError(`embeddings endpoint (${model}) answered more than ${Math.round(cap / 1_048_576)} MB for one batch`, 'invalid-answer');
          }
          chunks.push(c);
        }
      }
      // Statuses that may not carry a body (204, 304…) get none.
      const body = size === 0 || [101, 204, 205, 304].includes(res.status) ? null : Buffer.concat(chunks);
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  };
}
