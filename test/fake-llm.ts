// A small HTTP server on 127.0.0.1 that speaks the Anthropic and OpenAI wire formats with recorded
// answers, for the real SDKs to talk to (no SDK is mocked, so the wire format itself is tested),
// and the two answer shapes the extraction asks for.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * `dripMs`: the headers at once, then the body one byte every dripMs (a server that never quite
 * answers). `body` may be made from the request (a server that echoes what it was sent).
 */
export type Reply = { status?: number; headers?: Record<string, string>; body?: unknown | ((req: Seen) => unknown); hang?: boolean; delayMs?: number; dripMs?: number };

const servers: http.Server[] = [];

/** Close every server started by fakeServer (call it in afterEach). */
export async function closeServers(): Promise<void> {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}

/** A server answering each request with the next reply (the last one repeats), recording what it was sent. */
export async function fakeServer(replies: Reply[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body: data ? JSON.parse(data) : null });
      const r = replies[Math.min(seen.length - 1, replies.length - 1)];
      if (r.hang) return; // never answer: the client's timeout must fire
      setTimeout(() => {
        res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
        const body = typeof r.body === 'function' ? (r.body as (req: Seen) => unknown)(seen[seen.length - 1]) : r.body;
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        if (!r.dripMs) {
          res.end(text);
          return;
        }
        let at = 0;
        const timer = setInterval(() => {
          if (at >= text.length || res.destroyed) {
            clearInterval(timer);
            res.end();
            return;
          }
          res.write(text[at++]);
        }, r.dripMs);
        res.on('close', () => clearInterval(timer));
      }, r.delayMs ?? 0);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** An Anthropic Messages answer that is the forced `record_learnings` tool call with `input`. */
export function anthropicMessage(input: unknown, usage = { input_tokens: 1234, output_tokens: 210 }) {
  return {
    id: 'msg_test', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', stop_reason: 'tool_use', stop_sequence: null,
    content: [{ type: 'tool_use', id: 'toolu_test', name: 'record_learnings', input }],
    usage,
  };
}

/** An OpenAI chat completion whose message is `content`. */
export function openaiCompletion(content: string, usage = { prompt_tokens: 900, completion_tokens: 120, total_tokens: 1020 }) {
  return {
    id: 'chatcmpl-test', object: 'chat.completion', created: 1764000000, model: 'gpt-4o-mini',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
    usage,
  };
}
