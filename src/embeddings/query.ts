// A search's query vectors: one POST to the same OpenAI-compatible /v1/embeddings endpoint, over
// node:http(s) instead of the `openai` SDK. Loading the SDK (and the fetch machinery it uses)
// cost ~70 ms of a ~100 ms budget (measured: SDK round trip 75–93 ms, node:http 8–13 ms, on a
// loopback server); batch embedding (`mem index`, src/embeddings/client.ts) keeps the SDK.

import type { EmbeddingsConfig } from '../vault/config.js';
import { EMBED_CONNECTION_HINT, ProviderError, providerError } from '../llm/provider.js';
import { normalize } from './vectors.js';

export type EmbedSettings = EmbeddingsConfig & { model: string };

/** The identity vectors are stored under: the model, and the dimensions when asked for. */
export function modelKey(s: EmbedSettings): string {
  return s.dimensions ? `${s.model}@${s.dimensions}` : s.model;
}

/** The same default as the SDK's: the base URL configured, else OPENAI_BASE_URL, else OpenAI's. */
export function baseUrlOf(s: EmbedSettings, env: NodeJS.ProcessEnv): string {
  return s.baseUrl ?? (env.OPENAI_BASE_URL?.trim() || 'https://api.openai.com/v1');
}

export function apiKeyOf(s: EmbedSettings, env: NodeJS.ProcessEnv): string {
  const apiKey = env.MEM_EMBED_API_KEY || env.OPENAI_API_KEY || (s.baseUrl ? 'not-needed' : undefined);
  if (!apiKey) {
    throw new ProviderError('the embeddings endpoint needs an API key (MEM_EMBED_API_KEY or OPENAI_API_KEY) or a base URL for a local server', 'auth',
      'set embeddings.base_url in .mem/config.yaml (e.g. http://localhost:11434/v1 for Ollama) or MEM_EMBED_BASE_URL');
  }
  return apiKey;
}

export function whoOf(s: EmbedSettings, env: NodeJS.ProcessEnv) {
  return { name: 'openai' as const, model: s.model, baseUrl: s.baseUrl, source: 'embeddings', apiKeyEnv: env.MEM_EMBED_API_KEY ? 'MEM_EMBED_API_KEY' : 'OPENAI_API_KEY' };
}

/** The request body, the same for the SDK and the plain client. */
export function embedBody(s: EmbedSettings, input: string[]) {
  // `float`, not the SDK's default base64: Ollama and other servers answer plain arrays.
  return { model: s.model, input, encoding_format: 'float' as const, ...(s.dimensions ? { dimensions: s.dimensions } : {}) };
}

/** An answer's vectors, checked (one per text, one size, the size asked for) and made unit length. */
export function checkedVectors(s: EmbedSettings, data: { index: number; embedding: unknown }[] | undefined, count: number): Float32Array[] {
  const rows = [...(data ?? [])].sort((a, b) => a.index - b.index);
  if (rows.length !== count || rows.some((d) => !Array.isArray(d.embedding) || d.embedding.length === 0)) {
    throw new ProviderError(`embeddings endpoint (${s.model}) answered ${rows.length} vectors for ${count} texts`, 'invalid-answer');
  }
  const vecs = rows.map((d) => d.embedding as number[]);
  const dims = vecs[0].length;
  if (vecs.some((v) => v.length !== dims) || (s.dimensions && dims !== s.dimensions)) {
    throw new ProviderError(`embeddings endpoint (${s.model}) answered vectors of ${dims} dimensions${s.dimensions ? `, not the ${s.dimensions} configured` : ' of mixed sizes'}`, 'invalid-answer');
  }
  return vecs.map((v) => normalize(Float32Array.from(v)));
}

/** Unit vectors for `texts` (one request, no retry), or a ProviderError worded as the SDK path's. */
export async function embedQueries(s: EmbedSettings, texts: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Float32Array[]> {
  const apiKey = apiKeyOf(s, env);
  const who = whoOf(s, env);
  const url = new URL(`${baseUrlOf(s, env).replace(/\/+$/, '')}/embeddings`);
  const body = JSON.stringify(embedBody(s, texts));
  const http = url.protocol === 'https:' ? await import('node:https') : url.protocol === 'http:' ? await import('node:http') : null;
  if (!http) throw new ProviderError(`the embeddings base URL must be http or https (got ${url.protocol})`, 'connection');
  let answer: { status: number; text: string };
  try {
    answer = await new Promise((resolve, reject) => {
      const req = http.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey}`, 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end(body);
    });
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (/timed out/.test(msg)) throw providerError(err, who, { timeoutMs, maxRetries: 0 });
    // Worded as providerError words the SDK's connection errors.
    throw new ProviderError(`cannot reach the embeddings endpoint (${s.model})${s.baseUrl ? ` at ${s.baseUrl}` : ''}: ${msg || 'connection failed'}`, 'connection',
      EMBED_CONNECTION_HINT, err);
  }
  let json: { data?: { index: number; embedding: unknown }[]; error?: { message?: string } } | undefined;
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  if (answer.status < 200 || answer.status >= 300) {
    throw providerError({ status: answer.status, message: json?.error?.message ?? answer.text.slice(0, 200) }, who, { timeoutMs, maxRetries: 0 });
  }
  if (!json) throw new ProviderError(`embeddings endpoint (${s.model}) answered something other than JSON`, 'invalid-answer');
  return checkedVectors(s, json.data, texts.length);
}
