// The learning lifecycle where another process is the point: a lock file held by another writer
// (MEM_LOCK_TIMEOUT_MS, read from the process environment, makes the wait short) and several
// processes adding to one file at once.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, mem, memAsync, tempVault } from '../helpers.js';

afterEach(cleanup);

const TODAY = '2026-11-25';

function vault() {
  const v = tempVault({ git: true });
  const run = (args: string[], env: Record<string, string> = {}, input?: string) => mem(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: TODAY, ...env } });
  return { v, run };
}

describe('mem reinforce', () => {
  it('a file locked by another writer, or with a malformed entry, stops it and changes nothing', () => {
    const { v, run } = vault();
    const text = entry('a', 'First.') + entry('b', 'Second.');
    v.write('MEMORY.md', text);
    v.write('memory/bad.md', `${entry('c', 'Third.')}---\nid: x\nbad: [\n---\nbody\n`);
    fs.writeFileSync(v.path('.MEMORY.md.lock'), `${process.pid}\n`);
    const locked = run(['reinforce', 'a'], { MEM_LOCK_TIMEOUT_MS: '200' });
    expect(locked.status).toBe(1);
    expect(locked.stderr).toMatch(/^mem: MEMORY\.md is locked by another writer/m);
    fs.rmSync(v.path('.MEMORY.md.lock'));
    const bad = run(['reinforce', 'a', 'c']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/memory\/bad\.md:\d+\)/);
    expect(v.read('MEMORY.md')).toBe(text);
  });
});

describe('concurrent writers', () => {
  it('adds from several processes at once all land, in a file that parses, with no lock left behind', async () => {
    const v = tempVault();
    v.write('MEMORY.md', `# Memory\n\n${entry('seed', 'The first learning.')}`);
    const writers = Array.from({ length: 6 }, async (_, w) => {
      const out: string[] = [];
      for (let i = 0; i < 4; i++) {
        // Each waits for the others' locks as long as it takes: what is checked is that all land.
        const r = await memAsync(['add', `Writer ${w} learning ${i}: keep the queue ${w}-${i} drained.`, '--json'], { cwd: v.root, home: v.home, env: { MEM_LOCK_TIMEOUT_MS: '600000' } });
        expect(r.status, r.stderr).toBe(0);
        out.push(r.json().id);
      }
      return out;
    });
    const ids = (await Promise.all(writers)).flat();
    expect(new Set(ids).size).toBe(24);
    const text = v.read('MEMORY.md');
    for (const id of ids) expect(text).toContain(`id: ${id}`);
    expect(text.startsWith('# Memory\n\n---\nid: seed')).toBe(true);
    expect(fs.readdirSync(v.root).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual([]);
    const lint = mem(['lint', '--json'], { cwd: v.root, home: v.home });
    expect(lint.status).toBe(0);
    const list = mem(['list', '--limit', '100', '--json'], { cwd: v.root, home: v.home });
    expect(list.json().entries).toHaveLength(25);
  });
});
