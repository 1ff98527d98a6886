// Two mem processes extracting one transcript at once, as an agent's PreCompact and SessionEnd
// hooks (or its user- and project-level hooks) start them: the real Anthropic SDK against a
// loopback HTTP server (see test/e2e/providers.test.ts), the claim on the transcript between them.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer } from '../fake-llm.js';
import { cleanup, memAsync, REPO, tempVault } from '../helpers.js';

const SAMPLE = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');

afterEach(async () => {
  await closeServers();
  cleanup();
});

const LEARNINGS = {
  learnings: [
    { scope: 'project', type: 'procedural', title: 'Run the test migrations before the API tests', body: 'On a fresh test database the API tests fail with relation "orders" does not exist; run `npm run db:migrate -- --env test` first. CI does this in its setup step.', importance: 0.8, phase: 'implementation' },
    { scope: 'corrective', type: 'corrective', title: 'Use npm, never yarn, in shopfront', body: 'The human stopped `yarn db:setup`: this repository uses npm scripts from package.json only.', importance: 0.7, phase: 'implementation' },
    { scope: 'nonsense', type: 'procedural', title: 'x', body: '', importance: 2, phase: 'unknown' },
  ],
};

/** A vault with the MEMORY.md `mem init` writes. */
function vault() {
  const v = tempVault();
  v.write('MEMORY.md', fs.readFileSync(path.join(REPO, 'templates', 'MEMORY.md'), 'utf8'));
  return v;
}

const NO_KEYS = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined };

describe('mem extract with a language model', () => {
  it('two extractions of one transcript at once (PreCompact and SessionEnd, user and project hooks): the model is asked once', async () => {
    const srv = await fakeServer([{ body: anthropicMessage(LEARNINGS), delayMs: 1500 }]);
    const v = vault();
    const env = { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url };
    const [a, b] = await Promise.all([
      memAsync(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env }),
      memAsync(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env }),
    ]);
    expect(a.status, a.stderr).toBe(0);
    expect(b.status, b.stderr).toBe(0);
    expect(srv.seen).toHaveLength(1);
    const results = [a.json(), b.json()];
    expect(results.map((r) => r.up_to_date).sort()).toEqual([false, true]);
    expect(results.reduce((n, r) => n + r.written.length, 0)).toBe(2);
    expect(v.read('MEMORY.md').split('Procedural: Run the test migrations before the API tests').length).toBe(2);
    expect(fs.readdirSync(v.path('.mem/extracting'))).toEqual([]);
  });
});
