// Two mem processes extracting one transcript at once, as an agent's PreCompact and SessionEnd
// hooks (or its user- and project-level hooks) start them: the real Anthropic SDK against a
// loopback HTTP server (see test/e2e/providers.test.ts), the claim on the transcript between them.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer } from '../fake-llm.js';
import { LEARNINGS, NO_KEYS, SAMPLE, vault } from '../fixtures/providers.js';
import { cleanup, memAsync } from '../helpers.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

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
    // One extraction asks: for the learnings, then for the episodes' titles.
    expect(srv.seen.map((s) => s.body.tool_choice.name)).toEqual(['record_learnings', 'record_summaries']);
    const results = [a.json(), b.json()];
    expect(results.map((r) => r.up_to_date).sort()).toEqual([false, true]);
    expect(results.reduce((n, r) => n + r.written.length, 0)).toBe(2);
    expect(v.read('MEMORY.md').split('Procedural: Run the test migrations before the API tests').length).toBe(2);
    expect(fs.readdirSync(v.path('.mem/extracting'))).toEqual([]);
  });
});
