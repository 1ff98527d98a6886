// Episodes and the agent's prompt hook: `mem context --hook claude` run as Claude Code runs it (the
// hook payload on a real standard input) never hands the agent an episode.

import { afterEach, describe, expect, it } from 'vitest';
import { DESIGN, vault } from '../fixtures/episodes.js';
import { cleanup, mem } from '../helpers.js';

afterEach(cleanup);

describe('prompt context keeps to learnings', () => {
  it('the Claude prompt hook never hands the agent an episode, even when only an episode matches', () => {
    const v = vault();
    expect(mem(['segment', DESIGN], { cwd: v.root, home: v.home }).status).toBe(0);
    const prompt = 'how do suffixed shadow branches isolate concurrent sessions on the same base commit?';
    expect(mem(['search', prompt, '--kind', 'episode', '--json'], { cwd: v.root, home: v.home }).json().results.length).toBeGreaterThan(0);
    const r = mem(['context', '--hook', 'claude'], {
      cwd: v.root, home: v.home,
      input: JSON.stringify({ session_id: 'sess-ep', cwd: v.root, hook_event_name: 'UserPromptSubmit', prompt }),
    });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('ep-');
    expect(r.stdout).not.toMatch(/shadow/i);
  });
});
