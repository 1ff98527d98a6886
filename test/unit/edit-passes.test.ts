// editFilesInPasses (mem compact over a whole vault): files read again pass by pass under their
// locks, each changed file staged as it comes, files that lose entries renamed last.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { editFilesInPasses } from '../../src/vault/edit.js';
import type { ParsedFile } from '../../src/vault/format.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const block = (id: string, body: string) => `---\nid: ${id}\n---\n## ${id}\n\n${body}\n`;

function vault(texts: Record<string, string>): { d: string; targets: { abs: string; path: string }[] } {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-passes-'));
  dirs.push(d);
  for (const [n, t] of Object.entries(texts)) fs.writeFileSync(path.join(d, n), t);
  // Targets deliberately not in path order.
  return { d, targets: Object.keys(texts).map((n) => ({ abs: path.join(d, n), path: n })) };
}

const dropFirst = (p: ParsedFile): ParsedFile => ({ ...p, blocks: p.blocks.slice(1), entries: p.entries.slice(1) });

describe('editFilesInPasses', () => {
  it('scans in target order, writes what changed (files that lose entries last), keeps BOM and line breaks, leaves no lock', async () => {
    const { d, targets } = vault({
      'c.md': block('c1', 'one') + '\n' + block('c2', 'two'),
      'a.md': `\ufeff${(block('a1', 'x') + '\n' + block('a2', 'y')).replace(/\n/g, '\r\n')}`,
      'b.md': block('b1', 'same'),
    });
    const scanned: number[] = [];
    const written = await editFilesInPasses(targets, (i) => scanned.push(i), function* (read) {
      yield { fileIdx: 0, parsed: dropFirst(read(0)) };
      yield { fileIdx: 1, parsed: { ...read(1), blocks: read(1).blocks.map((b, k) => (k === 0 ? { ...b, raw: b.raw.replace('x', 'xx') } : b)) } };
      yield { fileIdx: 2, parsed: read(2) };
    });
    expect(scanned).toEqual([0, 1, 2]);
    expect(written).toEqual(['a.md', 'c.md']);
    expect(fs.readFileSync(path.join(d, 'c.md'), 'utf8')).toBe(block('c2', 'two'));
    expect(fs.readFileSync(path.join(d, 'a.md'), 'utf8')).toBe(`\ufeff${(block('a1', 'xx') + '\n' + block('a2', 'y')).replace(/\n/g, '\r\n')}`);
    expect(fs.readdirSync(d).sort()).toEqual(['a.md', 'b.md', 'c.md']);
  });

  it('stops with nothing written when a file changes between its reads', async () => {
    const { d, targets } = vault({ 'a.md': block('a1', 'x') + '\n' + block('a2', 'y'), 'b.md': block('b1', 'z') + '\n' + block('b2', 'w') });
    const run = editFilesInPasses(targets, () => undefined, function* (read) {
      yield { fileIdx: 0, parsed: dropFirst(read(0)) };
      fs.appendFileSync(path.join(d, 'b.md'), '\nedited by hand\n');
      yield { fileIdx: 1, parsed: dropFirst(read(1)) };
    });
    await expect(run).rejects.toThrow(/b\.md changed while mem was rewriting it/);
    expect(fs.readFileSync(path.join(d, 'a.md'), 'utf8')).toBe(block('a1', 'x') + '\n' + block('a2', 'y'));
    expect(fs.readdirSync(d).sort()).toEqual(['a.md', 'b.md']);
  });

  it('of two malformed files reports the first in path order, and scans nothing after it', async () => {
    const broken = '---\nid: [broken\n---\n## b\n\nbody\n';
    const { targets } = vault({ 'z.md': broken, 'ok.md': block('o', 'fine'), 'm.md': broken });
    const scanned: number[] = [];
    await expect(editFilesInPasses(targets, (i) => scanned.push(i), () => [])).rejects.toMatchObject({ where: { file: 'm.md' } });
    expect(scanned).toEqual([]);
  });
});
