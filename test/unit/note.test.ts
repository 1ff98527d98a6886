import { describe, expect, it } from 'vitest';
import { findSection, listItems, parseNote, replaceSection, sectionBody, setNoteFields, wikiLinks, noteType } from '../../src/notes/note.js';

const NOTE = `---
title: EPISODE-s1
type: episode # a typed note
tags: [episodic]
outcome: success
---

# EPISODE-s1

## Context
Fixing the build.

## Decisions
### d001: Use pnpm
- **Effects**: [[d002]], [[e001]]

\`\`\`
## not a section [[not-a-link]]
\`\`\`

## Relations
- relates_to [[PATTERN-x]] and \`[[code]]\`
`;

describe('parseNote', () => {
  it('splits frontmatter, title and level-2 sections, ignoring fenced headings', () => {
    const n = parseNote(NOTE);
    expect(n.frontmatter?.data.type).toBe('episode');
    expect(noteType(n.frontmatter?.data)).toBe('episode');
    expect(n.title).toEqual({ text: 'EPISODE-s1', line: 8 });
    expect(n.sections.map((s) => [s.name, s.line])).toEqual([['Context', 10], ['Decisions', 13], ['Relations', 21]]);
    expect(sectionBody(n, 'context')).toBe('Fixing the build.\n\n');
    expect(findSection(n, 'events timeline')).toBeNull();
  });

  it('reports a broken header with its line and never throws', () => {
    const n = parseNote('---\ntitle: [oops\n---\n# T\n');
    expect(n.frontmatter).toBeNull();
    expect(n.frontmatterError?.line).toBeGreaterThan(1);
    expect(parseNote('---\ntitle: x\n').frontmatterError?.message).toMatch(/closing/);
  });

  it('finds wiki links outside code, with lines', () => {
    expect(wikiLinks(NOTE)).toEqual([
      { target: 'd002', line: 15 },
      { target: 'e001', line: 15 },
      { target: 'PATTERN-x', line: 22 },
    ]);
    expect(wikiLinks('see [[A b|label]]')).toEqual([{ target: 'A b', line: 1 }]);
  });

  it('lists items with their continuation lines', () => {
    expect(listItems('- a\n  more\n* b\n1. c\ntext\n').map((i) => i.text)).toEqual(['a more', 'b', 'c']);
  });
});

describe('byte-stable changes', () => {
  it('replaces one section and one key, every other byte kept (CRLF and BOM too)', () => {
    const crlf = '\ufeff' + NOTE.replace(/\n/g, '\r\n');
    const n = parseNote(crlf);
    const out = replaceSection(n, 'Context', 'Fixing the CI build.\n\n');
    expect(out).toBe(crlf.replace('Fixing the build.', 'Fixing the CI build.'));
    const out2 = setNoteFields(parseNote(out), { outcome: 'failure' });
    expect(out2).toBe(out.replace('outcome: success', 'outcome: failure'));
    expect(out2.includes('type: episode # a typed note')).toBe(true);
  });

  it('appends a missing section at the end', () => {
    const n = parseNote('# T\n\n## A\nx\n');
    expect(replaceSection(n, 'Lessons Learned', '- y\n')).toBe('# T\n\n## A\nx\n\n## Lessons Learned\n- y\n');
  });
});
