// With a model configured, mem extract has the model write the episodes' titles and summaries
// (and the session's, into its episode note): one request, only for episodes it has not titled
// yet; offline and on failure the extractive ones stand. Real SDKs, loopback server.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer, openaiCompletion, type Seen } from '../fake-llm.js';
import { NO_KEYS, vault } from '../fixtures/providers.js';
import { cleanup, tempDir } from '../helpers.js';
import { run } from '../run.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

const SESSION = 'titled';
// Two subjects an hour apart (the gap rule cuts there), two turns each, then a third turn on the second.
const TURNS: [string, string, string][] = [
  ['10:00', 'The login form rejects valid passwords since yesterday.', 'The bcrypt cost changed in config/auth.yml; I restored it to 12 and login works.'],
  ['10:03', 'Add a test for that.', 'Added spec/auth/password_spec.rb covering the cost setting.'],
  ['11:10', 'Now the nightly export job times out.', 'The export query scans the whole orders table; I added an index on orders.created_at.'],
  ['11:14', 'Run it again please.', 'The export finished in 40 seconds.'],
  ['11:20', 'Also archive old exports.', 'Exports older than 30 days now move to cold storage in the cleanup task.'],
];

function transcript(n: number): string {
  return TURNS.slice(0, n).flatMap(([at, user, assistant], i) => [
    { type: 'user', message: { role: 'user', content: user }, sessionId: SESSION, uuid: `u-${i}`, timestamp: `2026-11-20T${at}:00.000Z` },
    { type: 'assistant', message: { id: `m-${i}`, role: 'assistant', content: [{ type: 'text', text: assistant }] }, sessionId: SESSION, uuid: `a-${i}`, timestamp: `2026-11-20T${at}:30.000Z` },
  ]).map((l) => JSON.stringify(l)).join('\n') + '\n';
}

const tool = (req: Seen) => req.body.tool_choice?.name as string;
/** The episode numbers a summaries request asks to title. */
const asked = (req: Seen) => [...(req.body.messages[0].content as string).matchAll(/^Episode (\d+) \([^)]*\): write its title/gm)].map((m) => Number(m[1]));

/** A server answering the learnings request with none and the summaries request with a title for each episode asked (naming the request's number). */
async function titlingServer() {
  let k = 0;
  return fakeServer([{
    body: (req: Seen) => {
      if (tool(req) !== 'record_summaries') return anthropicMessage({ learnings: [] });
      k++;
      return anthropicMessage({
        session: { title: `Auth and export fixes (${k})`, summary: 'Restored the bcrypt cost, then sped up the nightly export.' },
        episodes: asked(req).map((n) => ({ n, title: `Model title ${n} of request ${k}`, summary: `Model summary ${n} of request ${k}.` })),
      });
    },
  }]);
}

describe('mem extract: episode titles and summaries by the model', () => {
  it('titles each episode once; an unchanged episode keeps its title, a grown one is titled again; the note says the session\'s summary', async () => {
    const srv = await titlingServer();
    const v = vault();
    const file = path.join(tempDir(), `${SESSION}.jsonl`);
    const env = { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url };
    const extract = async (n: number) => {
      fs.writeFileSync(file, transcript(n));
      const r = await run(['extract', file, '--session', SESSION, '--json'], { cwd: v.root, home: v.home, env });
      expect(r.status, r.stderr).toBe(0);
      return r.json();
    };
    const summaries = () => srv.seen.filter((s) => tool(s) === 'record_summaries');

    const first = await extract(2);
    expect(first.episodes).toMatchObject({ count: 1, written: true, summarized: 1 });
    expect(summaries().map(asked)).toEqual([[1]]);
    const prompt = summaries()[0].body.messages[0].content as string;
    expect(prompt).toContain('user: The login form rejects valid passwords since yesterday.');
    expect(summaries()[0].body.tools[0].input_schema.required).toEqual(['session', 'episodes']);
    let file1 = v.read(`.mem/episodes/${SESSION}.md`);
    expect(file1).toMatch(/^## \[2026-11-20\] Model title 1 of request 1\n\nModel summary 1 of request 1\.$/m);
    expect(file1).toMatch(/^summary_by: '?anthropic:claude-haiku-4-5'?$/m);
    expect(v.read(`.mem/episodes/EPISODE-${SESSION}.md`)).toContain('Summary: Auth and export fixes (1) — Restored the bcrypt cost, then sped up the nightly export.');

    // Two subjects now: the first episode (same messages) keeps its title; only the second is asked about.
    const second = await extract(4);
    expect(second.episodes).toMatchObject({ count: 2, summarized: 1 });
    expect(summaries().map(asked)).toEqual([[1], [2]]);
    expect(summaries()[1].body.messages[0].content).toContain('Episode 1 (messages 1–4), already titled: Model title 1 of request 1');
    file1 = v.read(`.mem/episodes/${SESSION}.md`);
    expect(file1).toContain('Model title 1 of request 1');
    expect(file1).toContain('Model title 2 of request 2');
    expect(v.read(`.mem/episodes/EPISODE-${SESSION}.md`)).toContain('Summary: Auth and export fixes (2)');

    // The second subject grows: titled again; the first is still not asked about.
    await extract(5);
    expect(summaries().map(asked)).toEqual([[1], [2], [2]]);
    expect(v.read(`.mem/episodes/${SESSION}.md`)).toContain('Model title 2 of request 3');

    // Offline, the same transcript re-segmented keeps what the model wrote.
    const offline = await run(['segment', file, '--session', SESSION, '--json'], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(offline.status, offline.stderr).toBe(0);
    expect(offline.json().episodes.map((e: { title: string }) => e.title)).toEqual(['Model title 1 of request 1', 'Model title 2 of request 3']);
  });

  it('a failed or unusable answer: the extractive titles stand, with one warning; offline nothing is asked', async () => {
    const srv = await fakeServer([{
      body: (req: Seen) => req.body.response_format?.json_schema?.name === 'record_summaries'
        ? openaiCompletion(JSON.stringify({ session: { title: 't', summary: 's' }, episodes: [{ n: 9, title: 'not asked', summary: 'x' }] }))
        : openaiCompletion(JSON.stringify({ learnings: [] })),
    }]);
    const v = vault();
    const file = path.join(tempDir(), `${SESSION}.jsonl`);
    fs.writeFileSync(file, transcript(2));
    const r = await run(['extract', file, '--session', SESSION, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${srv.url}/v1` } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: episode titles not written by the model \(the answer titles none of the episodes asked about\); the extractive ones stand$/m);
    const text = v.read(`.mem/episodes/${SESSION}.md`);
    expect(text).not.toContain('summary_by');
    expect(text).toMatch(/^## \[2026-11-20\] The login form rejects valid passwords since yesterday/m);
    expect(v.read(`.mem/episodes/EPISODE-${SESSION}.md`)).not.toContain('Summary:');

    const w = vault();
    const off = await run(['extract', file, '--session', SESSION, '--json'], { cwd: w.root, home: w.home, env: NO_KEYS });
    expect(off.status, off.stderr).toBe(0);
    expect(off.json().episodes.summarized).toBeUndefined();
    expect(w.read(`.mem/episodes/${SESSION}.md`)).toBe(text);
  });
});
