// A loopback OpenAI-compatible /v1/embeddings server with deterministic vectors, for the real
// `openai` SDK to talk to: hashed bag-of-concepts vectors, where a few synonyms share a concept,
// so texts about the same thing are close even when they share no word.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { entry } from './helpers.js';

/**
 * Three entries for hybrid tests: the car entry shares no word with "automobile upkeep", so only
 * its vector (car ~ automobile, servicing ~ upkeep) can find it.
 */
export const CAR_GARDEN_DB = [
  entry('car-1', '# Car servicing schedule\nChange the engine oil every 10000 km and rotate the tyres.', { type: 'procedural' }),
  entry('upk-1', '# Garden upkeep\nMow the lawn on Saturdays; water the roses daily in summer.', { type: 'procedural' }),
  entry('db-1', '# Postgres migrations\nRun the migrations before the API tests.', { type: 'corrective' }),
];

/** Words that mean the same concept (the first word names it). */
const SYNONYMS: string[][] = [
  ['car', 'automobile', 'vehicle', 'cars'],
  ['maintenance', 'servicing', 'service', 'upkeep', 'repair'],
  ['database', 'postgres', 'sqlite', 'db'],
  ['deploy', 'release', 'ship', 'rollout'],
];
const CONCEPT = new Map(SYNONYMS.flatMap((g) => g.map((w) => [w, g[0]] as const)));

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function fakeVector(text: string, dims: number): number[] {
  const v: number[] = new Array<number>(dims).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const c = CONCEPT.get(w) ?? w;
    const h = hash(c);
    v[h % dims] += h & 0x80000000 ? -1 : 1;
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

export interface EmbedServer {
  url: string;
  /** Every request's inputs, in order. */
  requests: { model: string; input: string[]; encoding_format?: string }[];
  close(): Promise<void>;
}

/**
 * A misbehaving server's answer in place of the real one: status (200), content type (JSON),
 * body (a string, or bytes), and `dripMs`: the body is sent one byte every dripMs.
 * `honest` is the answer the server would have given (the parsed JSON), to corrupt.
 */
export type Hostile = (input: string[], honest: { data: { object: string; index: number; embedding: number[] }[] }) => {
  status?: number; type?: string; headers?: Record<string, string>; body: string | Buffer; dripMs?: number;
} | null;

/**
 * `rejectEmpty`: answer 400 to an empty or blank input, as OpenAI's API does. `hostile`: answer
 * what it returns instead (see Hostile), for the tests of a broken or hostile endpoint.
 */
export async function embedServer(opts: { dims?: number; rejectEmpty?: boolean; hostile?: Hostile } = {}): Promise<EmbedServer> {
  const dims = opts.dims ?? 64;
  const requests: EmbedServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const body = JSON.parse(data);
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      requests.push({ model: body.model, input, encoding_format: body.encoding_format });
      if (opts.rejectEmpty && input.some((t) => t.trim() === '')) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: "'$.input' is invalid", type: 'invalid_request_error' } }));
        return;
      }
      const d = body.dimensions ?? dims;
      const honest = {
        object: 'list', model: body.model,
        data: input.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(`${body.model === 'other-model' ? 'x ' : ''}${t}`, d) })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      };
      // null from `hostile`: this request is answered honestly.
      const h = opts.hostile?.(input, honest);
      if (h) {
        const bytes = Buffer.isBuffer(h.body) ? h.body : Buffer.from(h.body);
        res.writeHead(h.status ?? 200, { 'content-type': h.type ?? 'application/json', ...h.headers });
        if (!h.dripMs) {
          res.end(bytes);
          return;
        }
        let at = 0;
        const timer = setInterval(() => {
          if (at >= bytes.length || res.destroyed) {
            clearInterval(timer);
            res.end();
            return;
          }
          res.write(bytes.subarray(at, ++at));
        }, h.dripMs);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(honest));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
