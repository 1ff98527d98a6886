// A search's query vectors: one POST to the same OpenAI-compatible /v1/embeddings endpoint, over
// node:http(s) instead of the `openai` SDK. Loading the SDK (and the fetch machinery it uses)
// cost ~70 ms of a ~100 ms budget (measured: SDK round trip 75–93 ms, node:http 8–13 ms, on a
// loopback server); batch embedding (`mem index`, src/embeddings/client.ts) keeps the SDK.

import type { EmbeddingsConfig } from '../vault/config.js';
import { EMBED_CONNECTION_HINT, ProviderError, providerError } from '../llm/provider.js';
import { urlForDisplay } from '../secrets/rules.js';
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

/** Longer vectors are no embedding (the largest models answer a few thousand dimensions). */
export const MAX_DIMS = 16_384;

/**
 * The most bytes an answer for `count` texts may take: every vector at MAX_DIMS dimensions, 24
 * characters a number, and a megabyte besides. A larger body is refused while it arrives, so a
 * broken server cannot fill the memory.
 */
export function answerCap(count: number): number {
  return 1_048_576 + count * MAX_DIMS * 24;
}

/**
 * An answer's vectors, checked and made unit length: one per text, placed by its `index` (0 to
 * count − 1, each once; an answer with no indexes at all keeps its order), of one size (the size
 * asked for), at most MAX_DIMS long, of finite numbers, not all zero. Anything else is an
 * 'invalid-answer' error: a NaN or a zero vector stored would score every search as nothing.
 */
export function checkedVectors(s: EmbedSettings, data: unknown, count: number): Float32Array[] {
  const bad = (what: string) => new ProviderError(`embeddings endpoint (${s.model}) answered ${what}`, 'invalid-answer');
  const list: unknown[] = Array.isArray(data) ? data : [];
  const items = list.map((d) => (d !== null && typeof d === 'object' ? (d as { index?: unknown; embedding?: unknown }) : {}));
  if (items.length !== count || items.some((d) => !Array.isArray(d.embedding) || d.embedding.length === 0)) {
    throw bad(`${items.length} vectors for ${count} texts`);
  }
  const indexed = items.some((d) => d.index !== undefined);
  const rows: unknown[][] = new Array(count);
  items.forEach((d, k) => {
    const at = indexed ? d.index : k;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= count || rows[at] !== undefined) {
      throw bad(`vector indexes that are not 0 to ${count - 1} once each`);
    }
    rows[at] = d.embedding as unknown[];
  });
  const dims = rows[0].length;
  if (rows.some((v) => v.length !== dims) || (s.dimensions && dims !== s.dimensions)) {
    throw bad(`vectors of ${dims} dimensions${s.dimensions ? `, not the ${s.dimensions} configured` : ' of mixed sizes'}`);
  }
  if (dims > MAX_DIMS) throw bad(`vectors of ${dims} dimensions (at most ${MAX_DIMS})`);
  return rows.map((v, r) => {
    const f = new Float32Array(dims);
    let sum = 0;
    for (let i = 0; i < dims; i++) {
      const x = v[i];
      // As float32: 1e39 is finite in JSON but Infinity once stored.
      if (typeof x === 'number') f[i] = x;
      if (typeof x !== 'number' || !Number.isFinite(f[i])) throw bad(`a vector with ${typeof x === 'number' ? String(x) : (JSON.stringify(x) ?? String(x)).slice(0, 40)} in it (text ${r + 1}), not a finite number`);
      sum += f[i] * f[i];
    }
    if (sum === 0) throw bad(`a vector of zeros (text ${r + 1})`);
    return normalize(f);
  });
}

/** Unit vectors for `texts` (one request, no retry), or a ProviderError worded as the SDK path's. */
export async function embedQueries(s: EmbedSettings, texts: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Float32Array[]> {
  const apiKey = apiKeyOf(s, env);
  const who = whoOf(s, env);
  const url = new URL(`${baseUrlOf(s, env).replace(/\/+$/, '')}/embeddings`);
  const body = JSON.stringify(embedBody(s, texts));
  const http = url.protocol === 'https:' ? await import('node:https') : url.protocol === 'http:' ? await import('node:http') : null;
  if (!http) throw new ProviderError(`the embeddings base URL must be http or https (got ${url.protocol})`, 'connection');
  const cap = answerCap(texts.length);
  let answer: { status: number; text: string };
  try {
    answer = await new Promise((resolve, reject) => {
      // The first reason the exchange was cut wins (the response then also reports an abort).
      let failure: unknown;
      const fail = (err: unknown) => {
        failure ??= err;
        reject(failure);
      };
      const stop = (err: Error) => {
        failure ??= err;
        req.destroy(err);
      };
      const req = http.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey}`, 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > cap) stop(new ProviderError(`embeddings endpoint (${s.model}) answered more than ${Math.round(cap / 1_048_576)} MB for ${texts.length} texts`, 'invalid-answer'));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', fail);
      });
      // The whole exchange, body included, within timeoutMs: a socket timeout alone restarts
      // with every byte, and a server dripping one byte a second would hold the search forever.
      const deadline = setTimeout(() => stop(new Error('request timed out')), timeoutMs);
      req.on('close', () => clearTimeout(deadline));
      req.on('error', fail);
      req.end(body);
    });
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    if (/timed out/.test(msg)) throw providerError(err, who, { timeoutMs, maxRetries: 0 });
    // Worded as providerError words the SDK's connection errors (and made as safe to show).
    throw providerError(new ProviderError(`cannot reach the embeddings endpoint (${s.model})${s.baseUrl ? ` at ${urlForDisplay(s.baseUrl)}` : ''}: ${msg || 'connection failed'}`, 'connection',
      EMBED_CONNECTION_HINT), who, { timeoutMs, maxRetries: 0, secrets: [apiKey] });
  }
  let json: { data?: { index: number; embedding: unknown }[]; error?: { message?: string } } | undefined;
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  if (answer.status < 200 || answer.status >= 300) {
    // The whole message goes in: providerError redacts it before cutting it short.
    throw providerError({ status: answer.status, message: json?.error?.message ?? answer.text }, who, { timeoutMs, maxRetries: 0, secrets: [apiKey] });
  }
  if (!json) throw new ProviderError(`embeddings endpoint (${s.model}) answered something other than JSON`, 'invalid-answer');
  return checkedVectors(s, json.data, texts.length);
}
