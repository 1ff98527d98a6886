// mem segment's optional channels end to end: the surprise channel over embeddings (the real
// openai SDK against a loopback /v1/embeddings server) and the topic channel (the real SDK
// against the loopback chat server), each falling back to the offline result with one warning.

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer, openaiCompletion } from '../fake-llm.js';
import { cleanup, tempVault } from '../helpers.js';
import { run } from '../run.js';
import { CSS_TURNS, DB_TURNS } from '../topics.js';

const NO_KEYS = {
  ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined,
  MEM_EMBED_MODEL: undefined, MEM_EMBED_BASE_URL: undefined, MEM_EMBED_PROVIDER: undefined, MEM_EMBED_API_KEY: undefined,
};

const DB = DB_TURNS;
const CSS = CSS_TURNS;

const servers: http.Server[] = [];
afterEach(async () => {
  cleanup();
  await closeServers();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * A loopback /v1/embeddings server with deterministic 8-d vectors: a text about the front end
 * (navbar, dropdown, Safari) points along axis 1, anything else along axis 0, plus a small
 * per-text wobble on the other axes; `flat` answers the same vector for every text.
 */
async function embeddings(mode: 'topics' | 'flat' = 'topics') {
  const requests: string[][] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const body = JSON.parse(data);
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      requests.push(input);
      const vec = (t: string) => {
        const v = [0, 0, 0, 0, 0, 0, 0, 0];
        if (mode === 'flat') return [1, 0, 0, 0, 0, 0, 0, 0];
        v[/navbar|dropdown|safari/i.test(t) ? 1 : 0] = 1;
        const h = hash(t);
        for (let k = 2; k < 8; k++) v[k] = (((h >>> (k * 4)) & 15) / 15) * 0.15;
        return v;
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', model: body.model, data: input.map((t, index) => ({ object: 'embedding', index, embedding: vec(t) })), usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

/** A Claude Code transcript of alternating user/assistant messages, one minute apart. */
function transcript(dir: string, name: string, texts: string[]): string {
  const p = path.join(dir, name);
  const t0 = Date.parse('2026-03-02T09:00:00Z');
  fs.writeFileSync(p, `${texts.map((text, i) => JSON.stringify(i % 2 === 0
    ? { type: 'user', sessionId: name.replace(/\.jsonl$/, ''), timestamp: new Date(t0 + i * 60_000).toISOString(), uuid: `u${i}`, message: { role: 'user', content: text } }
    : { type: 'assistant', sessionId: name.replace(/\.jsonl$/, ''), timestamp: new Date(t0 + i * 60_000).toISOString(), uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text }] } })).join('\n')}\n`);
  return p;
}

function vault() {
  return tempVault();
}

const starts = (r: { json(): any }) => r.json().episodes.map((e: any) => [e.message_start, e.boundary]);

describe('surprise channel over embeddings', () => {
  it('one request for the whole transcript; a switch of subject is a low cosine, a boundary and a key moment', async () => {
    const v = vault();
    const srv = await embeddings();
    const file = transcript(v.root, 'switch.jsonl', [...DB, ...CSS]);
    const env = { ...NO_KEYS, MEM_EMBED_MODEL: 'nomic-embed-text', MEM_EMBED_BASE_URL: srv.url };
    const r = await run(['segment', file, '--json'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.channels).toEqual({ surprise: 'embeddings', topic: false });
    expect(srv.requests).toEqual([[...DB, ...CSS]]);
    expect(out.episodes.map((e: any) => [e.message_start, e.boundary])).toEqual([[1, 'start'], [DB.length + 1, 'surprise']]);
    expect(out.episodes[1].key_moment).toBe(true);
    expect(out.episodes[0].surprise).toBeLessThan(0.3);
    const human = await run(['segment', file, '--dry-run'], { cwd: v.root, home: v.home, env });
    expect(human.stdout).toMatch(/^★ 2026-03-02 09:08–09:11 {2}[01]\.\d\d {2}Now something else/m);
    expect(human.stderr).toMatch(/2 episodes from 12 messages \(surprise over embeddings\); dry run/);
  });

  it('the vectors decide, not the words: an endpoint that sees one subject keeps one episode', async () => {
    const v = vault();
    const srv = await embeddings('flat');
    const file = transcript(v.root, 'switch.jsonl', [...DB, ...CSS]);
    const offline = await run(['segment', file, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(starts(offline)).toEqual([[1, 'start'], [DB.length + 1, 'surprise']]);
    const r = await run(['segment', file, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, MEM_EMBED_MODEL: 'm', MEM_EMBED_BASE_URL: srv.url } });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).episodes.map((e: any) => e.boundary)).toEqual(['start']);
    // episodes.embeddings: false keeps the word channel though embeddings are configured.
    v.write('.mem/config.yaml', 'episodes:\n  embeddings: false\n');
    const off = await run(['segment', file, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, MEM_EMBED_MODEL: 'm', MEM_EMBED_BASE_URL: srv.url } });
    expect(JSON.parse(off.stdout).channels.surprise).toBe('lexical');
    expect(srv.requests).toHaveLength(1);
  });

  it('an endpoint that is down: one warning, then the word channel\'s episodes, written', async () => {
    const v = vault();
    const srv = await embeddings();
    const dead = srv.url.replace(/:\d+\//, ':9/');
    const file = transcript(v.root, 'switch.jsonl', [...DB, ...CSS]);
    const offline = (await run(['segment', file, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: NO_KEYS })).json();
    const r = await run(['segment', file, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, MEM_EMBED_MODEL: 'm', MEM_EMBED_BASE_URL: dead } });
    expect(r.status, r.stderr).toBe(0);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^mem: (warning: )?embeddings endpoint failed \(.*\); surprise measured on words instead$/);
    const out = JSON.parse(r.stdout);
    expect(out.channels.surprise).toBe('lexical');
    expect(out.episodes).toEqual(offline.episodes);
    expect(out.written).toBe(true);
  });
});

describe('topic channel through the language model', () => {
  it('one request; the model\'s boundary among the candidates cuts a session the other channels keep whole', async () => {
    const v = vault();
    const file = transcript(v.root, 'mono.jsonl', [...DB, ...DB.slice(0, 4)]);
    const offline = await run(['segment', file, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(starts(offline)).toEqual([[1, 'start']]);
    const srv = await fakeServer([{ body: openaiCompletion(JSON.stringify({ boundaries: [6] })) }]);
    const r = await run(['segment', file, '--json', '--provider', 'openai', '--base-url', `${srv.url}/v1`, '--model', 'llama3.1'], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.channels).toEqual({ surprise: 'lexical', topic: true });
    expect(out.episodes.map((e: any) => [e.message_start, e.boundary])).toEqual([[1, 'start'], [7, 'topic']]);
    expect(srv.seen).toHaveLength(1);
    const prompt = srv.seen[0].body.messages[1].content as string;
    expect(prompt).toContain('Candidates (messages that may begin a new subject): 2, 4, 6, 8, 10');
    expect(prompt).toContain(`[0] user: ${DB[0]}`);
    expect(srv.seen[0].body.model).toBe('llama3.1');
  });

  for (const [what, body] of [
    ['an index that is not a candidate (an agent\'s message)', JSON.stringify({ boundaries: [5] })],
    ['an index out of range', JSON.stringify({ boundaries: [40] })],
    ['repeated indexes', JSON.stringify({ boundaries: [6, 6] })],
    ['indexes out of order', JSON.stringify({ boundaries: [8, 4] })],
    ['a fraction', JSON.stringify({ boundaries: [4.5] })],
    ['no list', JSON.stringify({ cuts: [4] })],
    ['text that is not JSON', 'message 6 starts a new topic'],
  ] as const) {
    it(`an answer with ${what}: one warning, the offline episodes`, async () => {
      const v = vault();
      const file = transcript(v.root, 'mono.jsonl', [...DB, ...DB.slice(0, 4)]);
      const offline = (await run(['segment', file, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: NO_KEYS })).json();
      const srv = await fakeServer([{ body: openaiCompletion(body) }]);
      const r = await run(['segment', file, '--json', '--provider', 'openai', '--base-url', `${srv.url}/v1`], { cwd: v.root, home: v.home, env: NO_KEYS });
      expect(r.status, r.stderr).toBe(0);
      const warnings = r.stderr.trim().split('\n');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/topic channel failed \(.+\); episodes cut by the rules and surprise only$/);
      const out = JSON.parse(r.stdout);
      expect(out.channels.topic).toBe(false);
      expect(out.episodes).toEqual(offline.episodes);
    });
  }

  it('anthropic (an API key in the environment picks it, as for mem extract): the forced tool call, the boundary applied', async () => {
    const v = vault();
    const file = transcript(v.root, 'mono.jsonl', [...DB, ...DB.slice(0, 4)]);
    const srv = await fakeServer([{ body: anthropicMessage({ boundaries: [8] }) }]);
    const r = await run(['segment', file, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url } });
    expect(r.status, r.stderr).toBe(0);
    expect(srv.seen).toHaveLength(1);
    expect(srv.seen[0].path).toBe('/v1/messages');
    expect(srv.seen[0].body.tool_choice).toEqual({ type: 'tool', name: 'record_boundaries' });
    expect(srv.seen[0].body.messages[0].content).toContain('Candidates (messages that may begin a new subject): 2, 4, 6, 8, 10');
    expect(JSON.parse(r.stdout).episodes.map((e: any) => [e.message_start, e.boundary])).toEqual([[1, 'start'], [9, 'topic']]);
  });

  it('a conversation too short to split asks the model nothing', async () => {
    const v = vault();
    const srv = await fakeServer([{ body: openaiCompletion(JSON.stringify({ boundaries: [2] })) }]);
    const file = transcript(v.root, 'short.jsonl', [DB[0], DB[1], CSS[0], CSS[1]]);
    const r = await run(['segment', file, '--json', '--provider', 'openai', '--base-url', `${srv.url}/v1`], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).episodes).toHaveLength(1);
    expect(JSON.parse(r.stdout).channels.topic).toBe(false);
    expect(srv.seen).toHaveLength(0);
  });

  it('a server that answers 500: one warning (after the SDK\'s retries), the offline episodes; episodes.topic: false asks nothing', async () => {
    const v = vault();
    v.write('.mem/config.yaml', 'llm:\n  max_retries: 0\n');
    const file = transcript(v.root, 'mono.jsonl', [...DB, ...DB.slice(0, 4)]);
    const srv = await fakeServer([{ status: 500, body: { error: { message: 'boom' } } }]);
    const r = await run(['segment', file, '--json', '--provider', 'openai', '--base-url', `${srv.url}/v1`], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/topic channel failed .*500/);
    expect(JSON.parse(r.stdout).episodes.map((e: any) => e.boundary)).toEqual(['start']);
    const asked = srv.seen.length;
    v.write('.mem/config.yaml', 'episodes:\n  topic: false\n');
    const off = await run(['segment', file, '--json', '--provider', 'openai', '--base-url', `${srv.url}/v1`], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(off.stderr).toBe('');
    expect(JSON.parse(off.stdout).channels.topic).toBe(false);
    expect(srv.seen.length).toBe(asked);
    v.write('.mem/config.yaml', 'episodes:\n  topic: sometimes\n');
    const bad = await run(['segment', file], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/episodes\.topic must be true or false/);
  });

  it('both channels at once: embeddings for surprise, the model for topics', async () => {
    const v = vault();
    const emb = await embeddings();
    const llm = await fakeServer([{ body: openaiCompletion(JSON.stringify({ boundaries: [4, 8] })) }]);
    const file = transcript(v.root, 'both.jsonl', [...DB, ...CSS, ...DB.slice(0, 4)]);
    const r = await run(['segment', file, '--json', '--provider', 'openai', '--base-url', `${llm.url}/v1`], { cwd: v.root, home: v.home, env: { ...NO_KEYS, MEM_EMBED_MODEL: 'm', MEM_EMBED_BASE_URL: emb.url } });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.channels).toEqual({ surprise: 'embeddings', topic: true });
    // 4 is a topic boundary; 8 the surprise (and topic) one. The return to the database at 12 is
    // no surprise: the event model still holds the database messages of a moment ago.
    expect(out.episodes.map((e: any) => [e.message_start, e.boundary])).toEqual([[1, 'start'], [5, 'topic'], [9, 'surprise']]);
    expect(emb.requests).toHaveLength(1);
    expect(llm.seen).toHaveLength(1);
  });
});

describe('mem extract segments with the channels', () => {
  const LEARNING = { learnings: [{ scope: 'project', type: 'procedural', title: 'Create the orders column before its postgres index', body: 'The orders migration failed with a missing column until the column came first; the down migration drops the index first.', importance: 0.7, phase: 'implementation' }] };

  it('embeddings by default; the topic channel only with extract.episodes_topic (one more request, after the learnings)', async () => {
    const v = vault();
    const emb = await embeddings();
    const file = transcript(v.root, 'ex.jsonl', [...DB, ...DB.slice(0, 4)]);
    const env = { ...NO_KEYS, MEM_EMBED_MODEL: 'm', MEM_EMBED_BASE_URL: emb.url, MEM_NOW: '2026-03-03' };
    const once = await fakeServer([{ body: openaiCompletion(JSON.stringify(LEARNING)) }]);
    const r = await run(['extract', file, '--json', '--provider', 'openai', '--base-url', `${once.url}/v1`], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    // The learnings, then the episodes' titles (the topic channel is off).
    expect(once.seen).toHaveLength(2);
    expect(emb.requests).toHaveLength(1);
    expect(JSON.parse(r.stdout).episodes).toMatchObject({ count: 1, written: true });

    const w = vault();
    w.write('.mem/config.yaml', 'extract:\n  episodes_topic: true\n');
    const file2 = transcript(w.root, 'ex.jsonl', [...DB, ...DB.slice(0, 4)]);
    const titles = { session: { title: 'Database work', summary: 'Two database subjects.' }, episodes: [1, 2].map((n) => ({ n, title: `Database subject ${n}`, summary: `The ${n === 1 ? 'first' : 'second'} subject.` })) };
    const twice = await fakeServer([{ body: openaiCompletion(JSON.stringify(LEARNING)) }, { body: openaiCompletion(JSON.stringify({ boundaries: [6] })) }, { body: openaiCompletion(JSON.stringify(titles)) }]);
    const r2 = await run(['extract', file2, '--json', '--provider', 'openai', '--base-url', `${twice.url}/v1`], { cwd: w.root, home: w.home, env });
    expect(r2.status, r2.stderr).toBe(0);
    expect(twice.seen).toHaveLength(3);
    expect(twice.seen[1].body.messages[1].content).toContain('Candidates (messages that may begin a new subject)');
    const out = JSON.parse(r2.stdout);
    expect(out.episodes).toMatchObject({ count: 2, written: true });
    expect(out.episodes_warning ?? null).toBeNull();
    expect(w.read('.mem/episodes/ex.md')).toMatch(/^message_start: 7$/m);
    w.write('.mem/config.yaml', 'extract:\n  episodes_topic: often\n');
    const bad = await run(['extract', file2, '--provider', 'heuristic'], { cwd: w.root, home: w.home, env });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/extract\.episodes_topic must be true or false/);
  });
});

