// mem lint checks the episodic fields: an entry's `fsrs:` map (stability, difficulty, last review,
// reps, lapses, state) and an episode's `surprise`, each reported with its file and line.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, tempVault } from '../helpers.js';
import { run as runMem } from '../run.js';
import { DB_TURNS } from '../topics.js';

afterEach(cleanup);

const TEXTS = DB_TURNS.slice(0, 6);

describe('mem lint: FSRS state and surprise', () => {
  it('what mem segment and mem review write passes; a bad value fails with file:line; nothing is written', async () => {
    const v = tempVault();
    const run = (args: string[], env: Record<string, string> = {}) => runMem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: '2026-11-20T12:00:00Z', ...env } });
    const t0 = Date.parse('2026-11-02T09:00:00Z');
    fs.writeFileSync(path.join(v.root, 's1.jsonl'), `${TEXTS.map((text, i) => JSON.stringify(i % 2 === 0
      ? { type: 'user', sessionId: 's1', timestamp: new Date(t0 + i * 60_000).toISOString(), uuid: `u${i}`, message: { role: 'user', content: text } }
      : { type: 'assistant', sessionId: 's1', timestamp: new Date(t0 + i * 60_000).toISOString(), uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text }] } })).join('\n')}\n`);
    expect((await run(['segment', 's1.jsonl'])).status).toBe(0);
    const id = (await run(['add', 'Run migrations before the API tests', '--type', 'procedural', '--json'])).json().id;
    expect((await run(['review', id, '--rating', 'good'])).status).toBe(0);
    expect((await run(['review', 'ep-s1-001', '--rating', 'hard'])).status).toBe(0);
    const clean = await run(['lint']);
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);

    const file = '.mem/episodes/s1.md';
    const good = v.read(file);
    const lines = good.split('\n');
    const fsrsLine = lines.findIndex((l) => l.startsWith('fsrs: ')) + 1;
    const surpriseLine = lines.findIndex((l) => l.startsWith('surprise: ')) + 1;
    const bad = good
      .replace(/^fsrs: \{stability: [\d.]+, difficulty: [\d.]+/m, 'fsrs: {stability: 0, difficulty: 11')
      .replace(/^surprise: [\d.]+$/m, 'surprise: 1.4');
    v.write(file, bad);
    const memory = v.read('MEMORY.md');
    v.write('MEMORY.md', memory.replace(/last_review: '?[0-9T:.Z-]+'?/, "last_review: '2027-03-01T00:00:00Z'").replace(/state: \w+/, 'state: Forgotten'));
    const r = await run(['lint']);
    expect(r.status).toBe(1);
    const out = r.stdout.trim().split('\n');
    expect(out).toContain(`${file}:${fsrsLine}: fsrs.stability must be a number of days > 0 (got 0)`);
    expect(out).toContain(`${file}:${fsrsLine}: fsrs.difficulty must be a number from 1 to 10 (got 11)`);
    expect(out).toContain(`${file}:${surpriseLine}: surprise must be a number from 0 to 1 (got 1.4)`);
    expect(out.some((l) => /^MEMORY\.md:\d+: fsrs\.last_review must be a date that is not in the future \(got "2027-03-01T00:00:00Z"\)$/.test(l))).toBe(true);
    expect(out.some((l) => /^MEMORY\.md:\d+: fsrs\.state must be one of New, Learning, Review, Relearning \(got "Forgotten"\)$/.test(l))).toBe(true);
    expect(v.read(file)).toBe(bad);
    const json = (await run(['lint', '--json'])).json();
    expect(json.problems.filter((p: any) => /^(fsrs\.|surprise)/.test(p.message))).toHaveLength(5);
    // The future is relative to the clock: a year on, that review date is in the past.
    const later = await run(['lint', 'MEMORY.md'], { MEM_NOW: '2027-06-01T00:00:00Z' });
    expect(later.stdout).not.toMatch(/last_review/);
    expect(later.stdout).toMatch(/fsrs\.state/);
  });
});
