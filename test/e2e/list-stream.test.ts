// `mem list` writes its listing as it reads it (pieces of 64k characters), so a vault of a million
// entries is never held whole: the text and the JSON are what one write of the whole listing gave.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const N = 1500;

function vault(withEntries = true) {
  const v = tempVault();
  if (withEntries) {
    const uuid = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const body = Array.from({ length: N }, (_, i) => entry(uuid(i), `Learning number ${i}: run the step ${i} before the API tests.`)).join('');
    // One id that is not a UUID and is printed whole: it sets the id column's width for every line.
    v.write('MEMORY.md', `# Memory\n\n${body}${entry('a-hand-written-id', 'The last one, added by hand.')}`);
  }
  const cli = (args: string[]) => run(args, { cwd: v.root, home: v.home });
  return { v, cli };
}

describe('mem list streams', () => {
  it('prints every entry once, in file order, with one id column width across pieces', async () => {
    const { cli } = vault();
    const r = await cli(['list']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(2 * 65536);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(N + 1);
    lines.slice(0, N).forEach((line, i) => {
      expect(line.startsWith(`${i.toString(16).padStart(8, '0')}${' '.repeat('a-hand-written-id'.length - 8)}  project`)).toBe(true);
      expect(line).toContain(`Learning number ${i}:`);
    });
    expect(lines[N].startsWith('a-hand-written-id  project')).toBe(true);
  });

  it('--json is byte for byte JSON.stringify of the whole listing, without bodies', async () => {
    const { cli } = vault();
    const r = await cli(['list', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout) as { entries: Record<string, unknown>[] };
    expect(r.stdout).toBe(`${JSON.stringify(parsed, null, 2)}\n`);
    expect(parsed.entries).toHaveLength(N + 1);
    expect(parsed.entries[7].title).toMatch(/^Learning number 7:/);
    expect(parsed.entries.every((e) => !('body' in e))).toBe(true);
    const few = await cli(['list', '--json', '--limit', '2']);
    expect(few.stdout).toBe(`${JSON.stringify({ entries: parsed.entries.slice(0, 2) }, null, 2)}\n`);
  });

  it('an empty listing: "no entries" on stderr, an empty array in --json', async () => {
    const { cli } = vault(false);
    const t = await cli(['list']);
    expect(t.status).toBe(0);
    expect(t.stdout).toBe('');
    expect(t.stderr).toMatch(/no entries/);
    const j = await cli(['list', '--json']);
    expect(j.stdout).toBe('{\n  "entries": []\n}\n');
  });
});
