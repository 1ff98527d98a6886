import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unreadableNotes } from '../../src/notes/unreadable.js';
import { validateTypedNotes } from '../../src/notes/validate.js';
import { parseNote } from '../../src/notes/note.js';

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

  it('a note with git conflict markers is named as an unresolved merge conflict at the marker line, not as a parse error', () => {
    const head = '---\ntitle: EPISODE-s\ntype: episode\ntags: [episodic]\n';
    const r = root({
      // Markers in the header: the note cannot be listed.
      'EPISODE-a.md': `${head}<<<<<<< ours\noutcome: success\n=======\noutcome: failure\n>>>>>>> theirs\ntask: t\n---\n\n# EPISODE-s\n`,
      // Markers in a section: the header reads, the note is listed, and still named.
      'EPISODE-b.md': `${head}outcome: success\ntask: t\n---\n\n# EPISODE-s\n\n## Context\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> other\n`,
      // Markers before the header.
      'EPISODE-c.md': `<<<<<<< HEAD\n${head}---\n=======\n>>>>>>> other\n`,
    });
    const got = unreadableNotes(r, '.mem/episodes');
    expect(got).toEqual([
      { path: '.mem/episodes/EPISODE-a.md', line: 5, reason: 'unresolved merge conflict', conflict: { listed: false } },
      { path: '.mem/episodes/EPISODE-b.md', line: 12, reason: 'unresolved merge conflict', conflict: { listed: true } },
      { path: '.mem/episodes/EPISODE-c.md', line: 1, reason: 'unresolved merge conflict', conflict: { listed: false } },
    ]);
    const diags = validateTypedNotes(r).diagnostics;
    expect(diags.map((d) => [d.file, d.line])).toEqual([['.mem/episodes/EPISODE-a.md', 5], ['.mem/episodes/EPISODE-b.md', 12], ['.mem/episodes/EPISODE-c.md', 1]]);
    for (const d of diags) expect(d.message).toMatch(/^unresolved merge conflict/);
    expect(parseNote(fs.readFileSync(path.join(r, '.mem', 'episodes', 'EPISODE-a.md'), 'utf8')).frontmatterError).toEqual({ message: 'unresolved merge conflict', line: 5 });
  });
});
