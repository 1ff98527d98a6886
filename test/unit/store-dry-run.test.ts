// editFilesTogether's dry run (used by `mem compact --check` / `--dry-run`): the same reading,
// checks and plan as a real edit, with no lock taken and nothing written.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inRun, settingsFrom } from '../../src/run.js';
import { editFilesTogether } from '../../src/vault/edit.js';
import { acquireLock } from '../../src/vault/write.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const block = (id: string, body: string) => `---\nid: ${id}\n---\n## ${id}\n\n${body}\n`;

function files(): { d: string; targets: { abs: string; path: string }[] } {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-dry-'));
  dirs.push(d);
  fs.writeFileSync(path.join(d, 'a.md'), block('a', 'first'));
  fs.writeFileSync(path.join(d, 'b.md'), `\ufeff${block('b', 'second').replace(/\n/g, '\r\n')}`);
  return { d, targets: ['a.md', 'b.md'].map((n) => ({ abs: path.join(d, n), path: n })) };
}

describe('editFilesTogether dryRun', () => {
  it('returns the paths that would change, takes no lock, writes nothing', async () => {
    const { d, targets } = files();
    const before = targets.map((t) => [fs.readFileSync(t.abs), fs.statSync(t.abs).mtimeMs]);
    const dirMtime = fs.statSync(d).mtimeMs;
    let listing: string[] = [];
    const would = await editFilesTogether(targets, (parsed) => {
      listing = fs.readdirSync(d).sort();
      // a.md loses its entry, b.md is planned but unchanged.
      return [{ ...parsed[0], blocks: [] }, parsed[1]];
    }, { dryRun: true });
    expect(would).toEqual(['a.md']);
    expect(listing).toEqual(['a.md', 'b.md']); // no .a.md.lock while planning
    expect(targets.map((t) => [fs.readFileSync(t.abs), fs.statSync(t.abs).mtimeMs])).toEqual(before);
    expect(fs.statSync(d).mtimeMs).toBe(dirMtime);
  });

  it('is not held up by a writer holding a lock, and still refuses a malformed file', async () => {
    const { d, targets } = files();
    const held = acquireLock(targets[0].abs, 'a.md');
    try {
      await inRun(settingsFrom({ MEM_LOCK_TIMEOUT_MS: '0' }), async () => {
        await expect(editFilesTogether(targets, (p) => p.map(() => null))).rejects.toThrow(/locked/);
        expect(await editFilesTogether(targets, (p) => p.map(() => null), { dryRun: true })).toEqual([]);
      });
    } finally {
      held.release();
    }
    fs.writeFileSync(path.join(d, 'b.md'), '---\nid: [broken\n---\n## b\n\nbody\n');
    await expect(editFilesTogether(targets, (p) => p, { dryRun: true })).rejects.toMatchObject({ where: { file: 'b.md' } });
  });
});
