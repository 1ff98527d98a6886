// Nothing secret is logged by an agent's extract hook: `mem extract --hook claude` run as the agent
// runs it (the payload on standard input) starts the extraction in the background; that run's
// log (.mem/logs/extract.log) never holds the key of a language model that echoes it in its
// error, nor the password of a base URL.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers, fakeServer, type Seen } from '../fake-llm.js';
import { cleanup, entry, memAsync, REPO, tempVault, type RunResult } from '../helpers.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

const SAMPLE = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');
// A key of no vendor's shape: only knowing it (from the environment) can redact it.
const KEY = 'qv7Rk2mZp9TxL4wB8nYc3HdJ6fGs1uEa';
const USER = 'deploybot';
const PASS = 'hunter2-Zq9xW7';

const CLEAN = {
  ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined,
  MEM_EMBED_MODEL: undefined, MEM_EMBED_BASE_URL: undefined, MEM_EMBED_PROVIDER: undefined, MEM_EMBED_DIMENSIONS: undefined, MEM_EMBED_API_KEY: undefined,
};

/** What the server was sent, echoed back: the two headers, bare and named, in a JSON error and in plain text. */
const echo = (req: Seen) => {
  const auth = String(req.headers.authorization ?? '');
  const apiKey = String(req.headers['x-api-key'] ?? '');
  return { error: { type: 'invalid_request_error', message: `bad request: got Authorization: ${auth} and x-api-key: ${apiKey}; the key ${auth.replace(/^Bearer /, '')}${apiKey} is not valid for this model` } };
};
const cred = (url: string) => url.replace('http://', `http://${USER}:${PASS}@`);

function vault() {
  const v = tempVault();
  // No retries: a 500 is answered at once (the SDKs' back-off is not what is tested here).
  v.write('.mem/config.yaml', 'llm:\n  max_retries: 0\nembeddings:\n  max_retries: 0\n');
  v.write('MEMORY.md', `# Memory\n\n${entry('migrations-first', 'Run the database migrations before the API tests')}`);
  return v;
}

function logs(root: string): string {
  const dir = path.join(root, '.mem', 'logs');
  if (!fs.existsSync(dir)) return '';
  return fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
}

function expectClean(r: RunResult, root: string, secrets: string[] = [KEY]): void {
  for (const s of secrets) {
    expect(r.stdout, `stdout holds ${s}`).not.toContain(s);
    expect(r.stderr, `stderr holds ${s}`).not.toContain(s);
    expect(logs(root), `a log holds ${s}`).not.toContain(s);
  }
}

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
