// Hostile input against the seed-002 typed notes (episodes, patterns): what a cloned repository's
// vault files, an import folder or stdin can hold, run through the built CLI.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, mem, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(() => cleanup());

function vault(): TempVault {
  const v = tempVault();
  mem(['init', '-q'], { cwd: v.root, home: v.home });
  return v;
}

function run(v: TempVault, args: string[], input?: string) {
  return mem(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: '2026-11-26T12:00:00Z' } });
}

const T = '2026-11-25T10:00:00Z';

describe('decision ids mem accepts are ids mem validate resolves', () => {
  it('an episode whose decisions are named pick-db / setup.db (store_episode allows them) validates clean', () => {
    const v = vault();
    const ep = {
      session_id: 's1', task: 'choose a database', outcome: 'success',
      decisions: [
        { id: 'pick-db', timestamp: T, type: 'design', context: 'need storage', chosen: 'postgres', outcome: 'success', effects: ['setup.db', 'e1'] },
        { id: 'setup.db', timestamp: T, type: 'implementation', context: 'set it up', chosen: 'docker compose', outcome: 'success' },
      ],
      events: [{ id: 'e1', timestamp: T, type: 'milestone', content: 'db up' }],
    };
    expect(run(v, ['episode', 'add'], JSON.stringify(ep)).status).toBe(0);
    const r = run(v, ['validate']);
    expect(r.stdout + r.stderr).not.toMatch(/broken link/);
    expect(r.status).toBe(0);
    // A link to a decision that does not exist is still reported.
    const note = v.read('.mem/episodes/EPISODE-s1.md');
    v.write('.mem/episodes/EPISODE-s1.md', note.replace('[[setup.db]]', '[[setup.dbx]]'));
    const bad = run(v, ['validate']);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/\[\[setup\.dbx\]\] is not a decision or event/);
  });

  it('an imported ai-agents episode with its own decision ids (even __proto__) validates clean', () => {
    const v = vault();
    const dir = tempDir();
    const json = {
      session: 'imp', timestamp: T, outcome: 'failure', task: 't',
      decisions: [{ id: '__proto__', chosen: 'a', effects: ['constructor'] }, { id: 'constructor', chosen: 'b' }],
    };
    fs.writeFileSync(`${dir}/episode-imp.json`, JSON.stringify(json));
    expect(run(v, ['import', 'ai-agents', dir]).status).toBe(0);
    const r = run(v, ['validate']);
    expect(r.stdout).not.toMatch(/broken link/);
    expect(r.status).toBe(0);
  });
});
