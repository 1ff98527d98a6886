// Git conflict markers in memory files: which lines are markers, the two versions a conflict
// holds, and what the parser makes of synthetic conflict shapes (the real ones: e2e/git-conflicts).
import { describe, expect, it } from 'vitest';
import { parseMemoryFile, serializeFile } from '../../src/vault/format.js';
import { conflictSides, findConflictMarkers, firstMarkerLine } from '../../src/vault/gitmarkers.js';
import { lineStarts } from '../../src/vault/lines.js';
import { lintFiles } from '../../src/lint/entries.js';
import { renderNewEntry } from '../../src/vault/edit.js';

const header = (id: string, extra = '') => `---\nid: ${id}\ntype: procedural\ndomain: team\nimportance: 0.5${extra}\n---\n`;
const entry = (id: string, title: string, body: string) => `${header(id)}## ${title}\n\n${body}\n`;

const ids = (text: string) => parseMemoryFile(text, 'MEMORY.md').entries.map((e) => e.id);
const markerLines = (text: string) => findConflictMarkers(text).map((m) => `${m.kind}${m.line}`);

describe('findConflictMarkers', () => {
  it('finds the lines git writes, with or without a label, LF or CRLF', () => {
    const t = 'a\n<<<<<<< HEAD\nb\n||||||| base\nc\n=======\nd\n>>>>>>> theirs\ne\n';
    expect(markerLines(t)).toEqual(['<2', '|4', '=6', '>8']);
    expect(markerLines(t.replace(/\n/g, '\r\n'))).toEqual(['<2', '|4', '=6', '>8']);
    expect(markerLines('<<<<<<<\nx\n=======\ny\n>>>>>>>')).toEqual(['<1', '=3', '>5']);
    expect(markerLines('<<<<<<<\tHEAD\nx\n=======\r\ny\n>>>>>>> b\r\n')).toEqual(['<1', '=3', '>5']);
  });

  it('is not fooled by look-alikes', () => {
    // eight characters, a marker inside a line, an indented one, `=======` with text after it
    expect(markerLines('<<<<<<<< HEAD\nsee <<<<<<< HEAD\n <<<<<<< HEAD\n>>>>>>>>\n')).toEqual([]);
    expect(markerLines('<<<<<<< HEAD\n======= x\n>>>>>>> b\n')).toEqual(['<1', '>3']);
    expect(markerLines('<<<<<<<x\n>>>>>>>y\n')).toEqual([]);
  });

  it('takes `=======` and `|||||||` as markers only inside a hunk (alone they are markdown)', () => {
    expect(markerLines('Title\n=======\n\ntext\n|||||||\n')).toEqual([]);
    // A hunk whose opening line was deleted by hand: the rest still counts.
    expect(markerLines('a\n=======\nb\n>>>>>>> theirs\n')).toEqual(['=2', '>4']);
    // An opening line left alone (the rest deleted): it counts, the heading underline later too.
    expect(markerLines('<<<<<<< HEAD\nx\nTitle\n=======\n')).toEqual(['<1', '=4']);
    // A hunk closed, then a heading underline: not a marker.
    expect(markerLines('<<<<<<< HEAD\nx\n>>>>>>> b\nTitle\n=======\n')).toEqual(['<1', '>3']);
  });

  it('finds none in long text without any, and the first marker line where there is one', () => {
    expect(findConflictMarkers('x'.repeat(100000))).toEqual([]);
    expect(firstMarkerLine('a\nb\n')).toBeNull();
    expect(firstMarkerLine('a\n\n>>>>>>> b\n')).toBe(3);
  });
});

describe('conflictSides', () => {
  it('gives each version the lines outside hunks and its own section, never a marker or the base', () => {
    const t = 'top\n<<<<<<< HEAD\nours\n||||||| base\nbase\n=======\ntheirs\n>>>>>>> b\nend';
    const s = lineStarts(t);
    const { ours, theirs } = conflictSides(t, s, findConflictMarkers(t, s));
    expect(ours.text).toBe('top\nours\nend');
    expect(theirs.text).toBe('top\ntheirs\nend');
    expect(ours.fileLine).toEqual([0, 2, 8]);
    expect(theirs.fileLine).toEqual([0, 6, 8]);
  });

  it('runs a hunk left open to the end of the file', () => {
    const t = 'a\n<<<<<<< HEAD\nb\n=======\nc\n';
    const { ours, theirs } = conflictSides(t, lineStarts(t), findConflictMarkers(t));
    expect(ours.text).toBe('a\nb\n');
    expect(theirs.text).toBe('a\nc\n');
  });
});

describe('parseMemoryFile with conflict markers', () => {
  const base = `# Project memory\n\n${entry('a', 'Alpha', 'alpha body')}`;

  it('both sides appended: a hunk that starts inside the header (git moved the shared `---` out)', () => {
    const t = `${base}\n---\n<<<<<<< HEAD\nid: x\n=======\nid: y\n>>>>>>> theirs\ntype: procedural\ndomain: team\nimportance: 0.5\n---\n<<<<<<< HEAD\n## Ex\n\nours body\n=======\n## Why\n\ntheirs body\n>>>>>>> theirs\n`;
    const p = parseMemoryFile(t, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['a', 'x', 'y']);
    expect(p.conflict?.markers.map((m) => m.kind)).toEqual(['<', '=', '>', '<', '=', '>']);
    expect(p.diagnostics).toEqual([]);
    const x = p.entries[1];
    const y = p.entries[2];
    expect([x.title, x.body, y.title, y.body]).toEqual(['Ex', 'ours body', 'Why', 'theirs body']);
    // No marker line in any entry's text or header.
    for (const b of p.blocks) expect(b.raw).not.toMatch(/^(<{7}|={7}|>{7})/m);
    // Lines are the file's: both new entries start at the shared `---` line.
    const rule = t.split('\n').indexOf('<<<<<<< HEAD');
    expect([x.line, y.line]).toEqual([rule, rule]);
    expect(p.entries.map((e) => e.ordinal)).toEqual([0, 1, 2]);
  });

  it('both sides appended whole entries (one hunk with both blocks), diff3 with an empty base', () => {
    const t = `${base}<<<<<<< HEAD\n\n${entry('x', 'Ex', 'ours')}||||||| merged common ancestors\n=======\n\n${entry('y', 'Why', 'theirs')}>>>>>>> theirs\n`;
    expect(ids(t)).toEqual(['a', 'x', 'y']);
  });

  it('an entry edited on both sides is there twice, ours first; the same entry on both sides once', () => {
    const t = `# M\n\n${header('a')}## Alpha\n\n<<<<<<< HEAD\nuse pnpm\n||||||| base\nuse npm\n=======\nuse yarn\n>>>>>>> theirs\n\n${entry('b', 'Beta', 'same')}`;
    const p = parseMemoryFile(t, 'MEMORY.md');
    expect(p.entries.map((e) => `${e.id}:${e.body}`)).toEqual(['a:use pnpm', 'a:use yarn', 'b:same']);
    // the base version is neither
    expect(p.entries.some((e) => e.body.includes('npm') && !e.body.includes('pnpm'))).toBe(false);
  });

  it('the marker line that would close a header never becomes part of it; the entry after a hunk is kept', () => {
    // ours changed importance, theirs changed a body line right below the header
    const t = `# M\n\n---\nid: a\ntype: procedural\n<<<<<<< HEAD\nimportance: 0.9\n---\n## Alpha ours\n=======\nimportance: 0.5\n---\n## Alpha theirs\n>>>>>>> b\n\nbody\n\n${entry('b', 'Beta', 'after the hunk')}`;
    const p = parseMemoryFile(t, 'MEMORY.md');
    expect(p.entries.map((e) => `${e.id}:${e.title}:${e.importance}`)).toEqual(['a:Alpha ours:0.9', 'a:Alpha theirs:0.5', 'b:Beta:0.5']);
    expect(p.diagnostics).toEqual([]);
  });

  it('CRLF files and legacy `## [` files', () => {
    const t = `${base}<<<<<<< HEAD\n\n${entry('x', 'Ex', 'ours')}=======\n\n${entry('y', 'Why', 'theirs')}>>>>>>> theirs\n`.replace(/\n/g, '\r\n');
    const p = parseMemoryFile(t, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['a', 'x', 'y']);
    expect(p.entries[2].body).toBe('theirs');
    const legacy = '# M\n\n## [2026-01-01] First\nbody one\n\n<<<<<<< HEAD\n## [2026-01-02] Ours\nours\n=======\n## [2026-01-03] Theirs\ntheirs\n>>>>>>> b\n';
    const lp = parseMemoryFile(legacy, 'MEMORY.md');
    expect(lp.format).toBe('legacy');
    expect(lp.entries.map((e) => e.title)).toEqual(['First', 'Ours', 'Theirs']);
  });

  it('a broken header on one side is reported at its line in the file, the other side still read', () => {
    const t = `${base}<<<<<<< HEAD\n\n---\nid: x\ntype: [unclosed\n---\nbody\n=======\n\n${entry('y', 'Why', 'theirs')}>>>>>>> theirs\n`;
    const p = parseMemoryFile(t, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['a', 'y']);
    expect(p.diagnostics).toHaveLength(1);
    // The same place as in the ours version read alone (the header's lines, in the file).
    const lines = t.split('\n');
    const ours = parseMemoryFile(`${base}\n---\nid: x\ntype: [unclosed\n---\nbody\n`, 'MEMORY.md').diagnostics[0];
    const oursLines = `${base}\n---\nid: x\ntype: [unclosed\n---\nbody\n`.split('\n');
    expect(lines[p.diagnostics[0].line! - 1]).toBe(oursLines[ours.line! - 1]);
    expect(p.diagnostics[0].line! - 1).toBeGreaterThan(lines.indexOf('<<<<<<< HEAD'));
    expect(p.diagnostics[0].line! - 1).toBeLessThan(lines.indexOf('======='));
  });

  it('a plain note with markers keeps the sections of both sides', () => {
    const t = '# Notes\n\n<<<<<<< HEAD\n## Deploy\nuse the blue cluster\n=======\n## Deploy\nuse the green cluster\n>>>>>>> b\n';
    const p = parseMemoryFile(t, 'memory/notes.md');
    const text = p.entries.map((e) => e.body).join('\n');
    expect(text).toContain('blue');
    expect(text).toContain('green');
    expect(text).not.toContain('=======');
  });

  it('a file with markers is never serialized (a write would resolve it by accident)', () => {
    const t = `${base}<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n`;
    expect(() => serializeFile(parseMemoryFile(t, 'MEMORY.md'))).toThrow(/conflict markers/);
  });

  it('a file without markers parses as before', () => {
    const t = `${base}\nTitle\n=======\n\n${entry('b', 'Beta', 'b')}`;
    const p = parseMemoryFile(t, 'MEMORY.md');
    expect(p.conflict).toBeUndefined();
    expect(serializeFile(p)).toBe(t);
  });
});

describe('lint of a conflicted file', () => {
  it('names every marker line and the ids both sides changed', () => {
    const t = `# M\n\n${header('a')}## Alpha\n\n<<<<<<< HEAD\nuse pnpm\n=======\nuse yarn\n>>>>>>> theirs\n`;
    const findings = lintFiles([{ path: 'MEMORY.md', read: { text: t } }]);
    const lines = t.split('\n');
    const markers = findings.filter((f) => /conflict marker/.test(f.message));
    expect(markers.map((f) => lines[f.line! - 1].slice(0, 7))).toEqual(['<<<<<<<', '=======', '>>>>>>>']);
    expect(markers.every((f) => f.severity === 'error')).toBe(true);
    expect(findings.some((f) => /duplicate id "a"/.test(f.message))).toBe(true);
  });

  it('reports a key problem at its own line even when markers split the header', () => {
    const t = `# M\n\n---\nid: a\n<<<<<<< HEAD\nimportance: 0.9\n=======\nimportance: 7\n>>>>>>> b\ntype: procedural\n---\nbody\n`;
    const f = lintFiles([{ path: 'MEMORY.md', read: { text: t } }]).find((x) => /importance/.test(x.message));
    expect(t.split('\n')[f!.line! - 1]).toBe('importance: 7');
  });

  it('still reports duplicate ids across files and within one file (no markers)', () => {
    const one = `# M\n\n${entry('dup', 'One', 'one')}\n${entry('dup', 'Two', 'two')}`;
    const f1 = lintFiles([{ path: 'MEMORY.md', read: { text: one } }]);
    expect(f1.filter((f) => /duplicate id "dup"/.test(f.message))).toHaveLength(2);
    const f2 = lintFiles([
      { path: 'MEMORY.md', read: { text: `# M\n\n${entry('z', 'Z', 'z')}` } },
      { path: 'memory/other.md', read: { text: `${entry('z', 'Z2', 'z2')}` } },
    ]);
    expect(f2.filter((f) => /duplicate id "z" \(also at (memory\/other\.md|MEMORY\.md):\d+\)/.test(f.message))).toHaveLength(2);
  });
});

describe('new entries never carry a marker line', () => {
  it('indents a body line git would read as a marker', () => {
    const { text } = renderNewEntry({ title: 't', body: '<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n||||||| base\n<<<<<<<< eight', date: '2026-11-26' });
    expect(findConflictMarkers(text)).toEqual([]);
    expect(text).toContain('\n <<<<<<< HEAD\n');
    expect(text).toContain('\n<<<<<<<< eight');
  });
});
