// Nothing secret is logged by an agent's extract hook: `mem extract --hook claude` run as the agent
// runs it (the payload on standard input) starts the extraction in the background; that run's
// log (.mem/logs/extract.log) never holds the key of a language model that echoes it in its
// error, nor the password of a base URL.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers, fakeServer } from '../fake-llm.js';
import { CLEAN, cred, echo, expectClean, KEY, PASS, SAMPLE, USER, vault } from '../fixtures/secrets-output.js';
import { cleanup, memAsync } from '../helpers.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

describe('a server that echoes the key in its error', () => {
  it('mem extract --hook: the background run\'s log (.mem/logs/extract.log) never holds the key or a URL password', async () => {
    const srv = await fakeServer([{ status: 400, body: echo }]);
    const v = vault();
    const log = () => (fs.existsSync(v.path('.mem/logs/extract.log')) ? v.read('.mem/logs/extract.log') : '');
    const hook = async (session: string, baseUrl: string) => {
      const env = { ...CLEAN, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseUrl, MEM_PROVIDER: 'openai' };
      // A transcript of its own for each run: the ledger would call a second run of one up to date.
      const transcript = path.join(v.root, '..', `${session}.jsonl`);
      fs.copyFileSync(SAMPLE, transcript);
      const payload = JSON.stringify({ session_id: session, transcript_path: transcript, cwd: v.root, hook_event_name: 'SessionEnd' });
      const r = await memAsync(['extract', '--hook', 'claude'], { cwd: v.root, home: v.home, env, input: payload });
      expect(r.status).toBe(0);
      const done = new RegExp(`wrote \\d+ learnings from \\d+ messages of .*${session}\\.jsonl`);
      const t0 = Date.now();
      while (!done.test(log())) {
        if (Date.now() - t0 > 60_000) throw new Error(`timed out waiting for the background extract: ${log()}`);
        await new Promise((res) => setTimeout(res, 100));
      }
      expectClean(r, v.root, [KEY, PASS, `${USER}:`]);
    };
    await hook('hook-key', `${srv.url}/v1`);
    expect(srv.seen.length).toBeGreaterThan(0);
    expect(log()).toMatch(/openai \(gpt-4o-mini\) answered with an error \(400\)/);
    await hook('hook-url', `${cred(srv.url)}/v1`);
    expect(log()).toMatch(/cannot reach openai \(gpt-4o-mini\) at http:\/\/\*\*\*@127\.0\.0\.1:/);
  }, 150_000);
});
