// Episodes and the agent's prompt hook: `mem context --hook claude` run as Claude Code runs it (the
// hook payload on a real standard input) never hands the agent an episode.

import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, mem, REPO, tempVault } from '../helpers.js';

afterEach(cleanup);

const FIX = path.join(REPO, 'test', 'fixtures', 'transcripts');
const DESIGN = path.join(FIX, 'claude-more', 'entire-54-bb2ec87cc8-0-v2.1.22.jsonl');

/**
 * The design session is one drifting discussion: the calibrated surprise channel rightly finds no
 * outlier in it, so these tests cut it by size (12 messages) to get several episodes from it.
 */
function vault() {
  const v = tempVault();
  v.write('.mem/config.yaml', 'episodes:\n  max_messages: 12\n');
  return v;
}

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
