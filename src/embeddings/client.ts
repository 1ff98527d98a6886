// The embedding client: any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, LM Studio,
// llama.cpp server, vLLM) through the official `openai` SDK, in batches, with the SDK's retries
// and timeout. Loaded only when `embeddings:` is configured, so lexical search never parses the SDK.

import OpenAI from 'openai';
import type { EmbeddingsConfig } from '../vault/config.js';
import { ProviderError, providerError } from '../llm/provider.js';
import { normalize } from './vectors.js';

export type EmbedSettings = EmbeddingsConfig & { model: string };

export interface Embedder {
  /** The identity vectors are stored under: the model, and the dimensions when asked for. */
  readonly key: string;
  /** Unit-length vectors, one per text, in order. `onBatch` hears the count done after each batch. */
  embed(texts: string[], onBatch?: (done: number) => void): Promise<Float32Array[]>;
}

export function modelKey(s: EmbedSettings): string {
  return s.dimensions ? `${s.model}@${s.dimensions}` : s.model;
}

/** `retries`/`timeoutMs` override the config's (a search waits less than `mem index`). */
export function createEmbedder(s: EmbedSettings, env: NodeJS.ProcessEnv = process.env, over: { timeoutMs?: number; maxRetries?: number } = {}): Embedder {
  const apiKey = env.MEM_EMBED_API_KEY || env.OPENAI_API_KEY || (s.baseUrl ? 'not-needed' : undefined);
  if (!apiKey) {
    throw new ProviderError('the embeddings endpoint needs an API key (MEM_EMBED_API_KEY or OPENAI_API_KEY) or a base URL for a local server', 'auth',
      'set embeddings.base_url in .mem/config.yaml (e.g. http://localhost:11434/v1 for Ollama) or MEM_EMBED_BASE_URL');
  }
  const timeoutMs = over.timeoutMs ?? s.timeoutMs;
  const maxRetries = over.maxRetries ?? s.maxRetries;
  const client = new OpenAI({ apiKey, baseURL: s.baseUrl, timeout: timeoutMs, maxRetries });
  const who = { name: 'openai' as const, model: s.model, baseUrl: s.baseUrl, source: 'embeddings', apiKeyEnv: env.MEM_EMBED_API_KEY ? 'MEM_EMBED_API_KEY' : 'OPENAI_API_KEY' };
  return {
    key: modelKey(s),
    async embed(texts, onBatch) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += s.batchSize) {
        const batch = texts.slice(i, i + s.batchSize);
        let res: OpenAI.Embeddings.CreateEmbeddingResponse;
        try {
          // `float`, not the SDK's default base64: Ollama and other servers answer plain arrays.
          res = await client.embeddings.create({ model: s.model, input: batch, encoding_format: 'float', ...(s.dimensions ? { dimensions: s.dimensions } : {}) });
        } catch (err) {
          throw providerError(err, who, { timeoutMs, maxRetries });
        }
        const data = [...(res.data ?? [])].sort((a, b) => a.index - b.index);
        if (data.length !== batch.length || data.some((d) => !Array.isArray(d.embedding) || d.embedding.length === 0)) {
          throw new ProviderError(`embeddings endpoint (${s.model}) answered ${data.length} vectors for ${batch.length} texts`, 'invalid-answer');
        }
        const dims = data[0].embedding.length;
        if (data.some((d) => d.embedding.length !== dims) || (s.dimensions && dims !== s.dimensions)) {
          throw new ProviderError(`embeddings endpoint (${s.model}) answered vectors of ${dims} dimensions${s.dimensions ? `, not the ${s.dimensions} configured` : ' of mixed sizes'}`, 'invalid-answer');
        }
        for (const d of data) out.push(normalize(Float32Array.from(d.embedding)));
        onBatch?.(out.length);
      }
      return out;
    },
  };
}
