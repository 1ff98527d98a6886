import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unreadableNotes } from '../../src/notes/unreadable.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

function root(files: Record<string, string>): string {
  const r = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-unr-'));
  dirs.push(r);
  fs.mkdirSync(path.join(r, '.mem', 'episodes'), { recursive: true });
  for (const [f, t] of Object.entries(files)) fs.writeFileSync(path.join(r, '.mem', 'episodes', f), t);
  return r;
}

describe('unreadableNotes', () => {
  it('names notes whose frontmatter opens but does not parse (BOM, CRLF too); skips good notes and files without one', () => {
    const r = root({
      'A.md': '\ufeff---\r\ntitle: [unclosed\r\n---\r\n',
      'B.md': '---\ntitle: ok\ntype: episode\n---\n',
      'C.md': '# no frontmatter\n',
      'D.md': '---\ntitle: never closed\n',
      'E.txt': '---\n: : :\n',
    });
    const got = unreadableNotes(r, '.mem/episodes');
    expect(got.map((u) => u.path)).toEqual(['.mem/episodes/A.md', '.mem/episodes/D.md']);
    expect(got[1].reason).toMatch(/closing/);
  });
  it('a folder that leads out of the vault is not read', () => {
    const out = root({ 'X.md': '---\ntitle: [bad\n---\n' });
    const r = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-unr-'));
    dirs.push(r);
    fs.mkdirSync(path.join(r, '.mem'));
    fs.symlinkSync(path.join(out, '.mem', 'episodes'), path.join(r, '.mem', 'episodes'));
    expect(unreadableNotes(r, '.mem/episodes')).toEqual([]);
  });
});
