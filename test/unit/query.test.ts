// A search's query vectors over plain node:http (src/embeddings/query.ts), against loopback
// servers: the same request body as the SDK path, unit vectors back, and each failure worded as
// the SDK path words it (the caller turns it into one warning and lexical results).

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { embedQueries, type EmbedSettings } from '../../src/embeddings/query.js';
import { DEFAULT_CONFIG } from '../../src/vault/config.js';
import { embedServer, fakeVector, type EmbedServer } from '../fake-embeddings.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/**
 * The timeout where the server answers: generous, since a busy machine may take long over an
 * answer that must come. Only a server that never answers meets a short one.
 */
const ANSWERS_WITHIN = 30_000;

const settings = (baseUrl: string, over: Partial<EmbedSettings> = {}): EmbedSettings => ({ ...DEFAULT_CONFIG.embeddings, model: 'fake-embed', baseUrl, ...over });

async function fake(): Promise<EmbedServer> {
  const s = await embedServer({ dims: 32 });
  closers.push(() => s.close());
  return s;
}

/** A server that answers every request with `status` and `body`, or never when status is 0. */
async function answering(status: number, body: string): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    if (status === 0) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('embedQueries', () => {
  it('sends one request with the SDK path\'s body and returns unit vectors in order', async () => {
    const s = await fake();
    const vecs = await embedQueries(settings(s.url), ['automobile upkeep', 'release database'], {}, ANSWERS_WITHIN);
    expect(s.requests).toEqual([{ model: 'fake-embed', input: ['automobile upkeep', 'release database'], encoding_format: 'float' }]);
    expect(vecs).toHaveLength(2);
    const want = fakeVector('automobile upkeep', 32);
    const n = Math.hypot(...want);
    expect(Array.from(vecs[0]).map((x) => Number(x.toFixed(6)))).toEqual(want.map((x) => Number(Math.fround(x / n).toFixed(6))));
    expect(Math.hypot(...vecs[1])).toBeCloseTo(1, 6);
  });

  it('asks for the configured dimensions, and refuses an answer of another size', async () => {
    const s = await fake();
    const [v] = await embedQueries(settings(s.url, { dimensions: 16 }), ['x'], {}, ANSWERS_WITHIN);
    expect(v).toHaveLength(16);
    const url = await answering(200, JSON.stringify({ data: [{ index: 0, embedding: [1, 0, 0] }] }));
    await expect(embedQueries(settings(url, { dimensions: 16 }), ['x'], {}, ANSWERS_WITHIN)).rejects.toThrow(/answered vectors of 3 dimensions, not the 16 configured/);
  });

  it('words failures as the SDK path does: unreachable, HTTP error, wrong count, not JSON, timeout', async () => {
    const down = await answering(200, '{}');
    await closers.pop()!();
    await expect(embedQueries(settings(down), ['x'], {}, ANSWERS_WITHIN)).rejects.toThrow(/^cannot reach the embeddings endpoint \(fake-embed\) at http:\/\/127\.0\.0\.1:\d+\/v1: .*ECONNREFUSED/);
    const err = await answering(500, JSON.stringify({ error: { message: 'model not loaded' } }));
    await expect(embedQueries(settings(err), ['x'], {}, ANSWERS_WITHIN)).rejects.toThrow('the embeddings endpoint (fake-embed) answered with an error (500): model not loaded');
    const auth = await answering(401, '{}');
    await expect(embedQueries(settings(auth), ['x'], {}, ANSWERS_WITHIN)).rejects.toThrow(/rejected the API key \(401\)/);
    const short = await answering(200, JSON.stringify({ data: [] }));
    await expect(embedQueries(settings(short), ['x', 'y'], {}, ANSWERS_WITHIN)).rejects.toThrow('answered 0 vectors for 2 texts');
    const html = await answering(200, '<html>');
    await expect(embedQueries(settings(html), ['x'], {}, ANSWERS_WITHIN)).rejects.toThrow('answered something other than JSON');
    const silent = await answering(0, '');
    await expect(embedQueries(settings(silent), ['x'], {}, 300)).rejects.toThrow('the embeddings endpoint (fake-embed) did not answer within 300 ms');
  });

  it('needs a key for a remote endpoint, and sends it as a bearer token', async () => {
    await expect(embedQueries(settings(undefined as unknown as string, { baseUrl: undefined }), ['x'], {}, ANSWERS_WITHIN)).rejects.toThrow(/needs an API key/);
    let auth = '';
    const server = http.createServer((req, res) => {
      auth = req.headers.authorization ?? '';
      req.resume();
      res.end(JSON.stringify({ data: [{ index: 0, embedding: [0, 2] }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(r)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    // OPENAI_BASE_URL stands in for an unset base URL, as it does for the SDK.
    const [v] = await embedQueries(settings(url, { baseUrl: undefined }), ['x'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url }, ANSWERS_WITHIN);
    expect(auth).toBe('Bearer sk-test');
    expect(Array.from(v)).toEqual([0, 1]);
  });
});
