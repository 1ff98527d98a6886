// Nothing secret is printed or logged: a language model or embeddings endpoint that answers
// 400/500 with a body echoing the request's Authorization / x-api-key header, run through the
// real SDKs against a loopback server, never gets the key onto stdout, stderr (plain, --json,
// --debug) or into .mem/logs; a base URL with a user and password in it is never shown whole.
// The background run of an agent's extract hook is in test/process/secrets-output.test.ts.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers, fakeServer, type Seen } from '../fake-llm.js';
import { embedServer } from '../fake-embeddings.js';
import { CLEAN, cred, echo, expectClean, KEY, PASS, SAMPLE, USER, vault } from '../fixtures/secrets-output.js';
import { cleanup, entry } from '../helpers.js';
import { run } from '../run.js';

const embedServers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await closeServers();
  for (const s of embedServers.splice(0)) await s.close();
  cleanup();
});

const echoText = (req: Seen) => `Internal error for ${String(req.headers.authorization ?? req.headers['x-api-key'])}`;

const MODES = [[], ['--json'], ['--debug']];

describe('a server that echoes the key in its error', () => {
  for (const [provider, status, body] of [['openai', 400, echo], ['openai', 500, echoText], ['anthropic', 400, echo], ['anthropic', 500, echoText]] as const) {
    it(`mem extract (${provider}, ${status}): the key is never printed`, async () => {
      const srv = await fakeServer([{ status, body }]);
      const v = vault();
      const env = provider === 'openai'
        ? { ...CLEAN, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${srv.url}/v1`, MEM_PROVIDER: 'openai' }
        : { ...CLEAN, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: srv.url };
      for (const mode of MODES) {
        // Falling back to the heuristics (a warning), and failing (the error printer).
        for (const fallback of [[], ['--no-fallback']]) {
          const asked = srv.seen.length;
          const r = await run([...mode, 'extract', SAMPLE, '--force', ...fallback], { cwd: v.root, home: v.home, env });
          expect(srv.seen.length).toBeGreaterThan(asked);
          expect(r.status).toBe(fallback.length > 0 ? 1 : 0);
          if (mode[0] !== '--json' || fallback.length > 0) expect(r.stderr).toMatch(new RegExp(`${provider} \\(.*\\) answered with an error \\(${status}\\)`));
          expectClean(r, v.root);
        }
      }
      // The server did get the key, and said it back.
      expect(JSON.stringify(srv.seen[0].headers)).toContain(KEY);
    });
  }

  it('mem search with embeddings (a warning) and mem index --embed (an error): the key is never printed', async () => {
    const srv = await fakeServer([{ status: 400, body: echo }, { status: 500, body: echoText }]);
    const good = await embedServer();
    embedServers.push(good);
    const v = vault();
    // Vectors stored first (a working endpoint), so that search asks the endpoint for the query's.
    const ok = await run(['index', '--embed'], { cwd: v.root, home: v.home, env: { ...CLEAN, MEM_EMBED_MODEL: 'fake-embed', MEM_EMBED_BASE_URL: good.url } });
    expect(ok.status, ok.stderr).toBe(0);
    fs.appendFileSync(v.path('MEMORY.md'), entry('embed-later', 'Another learning to embed later'));
    const env = { ...CLEAN, MEM_EMBED_MODEL: 'fake-embed', MEM_EMBED_BASE_URL: `${srv.url}/v1`, MEM_EMBED_API_KEY: KEY };
    for (const mode of MODES) {
      const s = await run([...mode, 'search', 'migrations'], { cwd: v.root, home: v.home, env });
      expect(s.status, s.stderr).toBe(0);
      expect(s.stderr).toMatch(/embeddings unavailable: the embeddings endpoint \(fake-embed\) answered with an error/);
      expectClean(s, v.root);
      const i = await run([...mode, 'index', '--embed'], { cwd: v.root, home: v.home, env });
      expect(i.status).toBe(1);
      expect(i.stderr).toMatch(/^mem: the embeddings endpoint \(fake-embed\) answered with an error \((400|500)\)/m);
      expectClean(i, v.root);
    }
    expect(JSON.stringify(srv.seen.map((x) => x.headers))).toContain(KEY);
  });

  it('mem segment with a topic model and embeddings: the channels\' warnings do not carry the key', async () => {
    const srv = await fakeServer([{ status: 400, body: echo }]);
    const v = vault();
    const env = { ...CLEAN, OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${srv.url}/v1`, MEM_PROVIDER: 'openai', MEM_EMBED_MODEL: 'fake-embed', MEM_EMBED_BASE_URL: `${srv.url}/v1`, MEM_EMBED_API_KEY: KEY };
    for (const mode of MODES) {
      const r = await run([...mode, 'segment', SAMPLE], { cwd: v.root, home: v.home, env });
      expect(r.status, r.stderr).toBe(0);
      expectClean(r, v.root);
    }
  });
});

describe('a base URL with a user and password', () => {
  it('mem doctor (plain and --json) shows it without them', async () => {
    const srv = await fakeServer([{ body: {} }]);
    const v = vault();
    for (const mode of [[], ['--json']]) {
      const r = await run([...mode, 'doctor'], { cwd: v.root, home: v.home, env: { ...CLEAN, OPENAI_BASE_URL: `${cred(srv.url)}/v1` } });
      expect(r.stdout).toContain(`openai gpt-4o-mini at http://***@127.0.0.1:`);
      expectClean(r, v.root, [PASS, `${USER}:`]);
    }
    v.write('.mem/config.yaml', `llm:\n  provider: openai\n  base_url: ${cred(srv.url)}/v1\n`);
    const r = await run(['doctor', '--json'], { cwd: v.root, home: v.home, env: CLEAN });
    expect(r.stdout).toContain('at http://***@127.0.0.1:');
    expectClean(r, v.root, [PASS, `${USER}:`]);
  });

  it('mem extract, mem search and mem index --embed: errors and warnings never show the credentials', async () => {
    const srv = await fakeServer([{ status: 500, body: echo }]);
    const v = vault();
    const env = { ...CLEAN, OPENAI_BASE_URL: `${cred(srv.url)}/v1`, MEM_PROVIDER: 'openai', MEM_EMBED_MODEL: 'fake-embed', MEM_EMBED_BASE_URL: `${cred(srv.url)}/v1` };
    for (const mode of MODES) {
      for (const args of [['extract', SAMPLE, '--session', `c-${mode.join('')}`], ['search', 'migrations'], ['index', '--embed']]) {
        const r = await run([...mode, ...args], { cwd: v.root, home: v.home, env });
        expect(r.stdout + r.stderr).not.toBe('');
        expectClean(r, v.root, [PASS, `${USER}:`]);
      }
    }
    // Where a URL is shown, it is shown without them.
    const r = await run(['index', '--embed'], { cwd: v.root, home: v.home, env: { ...env, MEM_EMBED_BASE_URL: `http://${USER}:${PASS}@127.0.0.1:1/v1` } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot reach the embeddings endpoint \(fake-embed\) at http:\/\/\*\*\*@127\.0\.0\.1:1\/v1/);
    expectClean(r, v.root, [PASS, `${USER}:`]);
  });
});
