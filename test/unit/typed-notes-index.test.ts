import { describe, expect, it } from 'vitest';
import { indexKind } from '../../src/index/prepare.js';
import { parseMemoryFile } from '../../src/vault/format.js';

const EPISODE = `---
title: EPISODE-s1
type: episode
tags: [episodic]
outcome: failure
task: upgrade node
created_at: '2026-01-24T09:00:00Z'
---

# EPISODE-s1

## Context
Task: upgrade node

## Decisions

## Lessons Learned
- pin npm

## Relations
`;

describe('typed notes in the index', () => {
  it('an episode note is one entry (found once by a search), kind episode, with the frontmatter as metadata', () => {
    const f = parseMemoryFile(EPISODE, '.mem/episodes/EPISODE-s1.md');
    expect(f.format).toBe('notes');
    expect(f.entries.map((e) => e.title)).toEqual(['EPISODE-s1 — upgrade node']);
    const [e] = f.entries;
    expect(e.meta.outcome).toBe('failure');
    expect(indexKind(e)).toBe('episode');
    expect(e.created_at).toBe('2026-01-24T09:00:00Z');
    expect(e.line).toBe(10);
    // The body is the note under its title: every section, headings included.
    expect(e.body).toBe('## Context\nTask: upgrade node\n\n## Decisions\n\n## Lessons Learned\n- pin npm\n\n## Relations');
  });

  it('a pattern note is one entry of kind pattern; a plain note is unchanged (no metadata, every heading a chunk, the last line\'s too)', () => {
    const p = parseMemoryFile('---\ntitle: PATTERN-x\ntype: pattern\n---\n\n# PATTERN-x\n\n## Trigger\nA test times out.\n', '.mem/patterns/PATTERN-x.md');
    expect(p.entries.map((e) => [e.title, indexKind(e), e.body])).toEqual([['PATTERN-x', 'pattern', '## Trigger\nA test times out.']]);
    const n = parseMemoryFile('---\ntitle: Notes\ntype: guide\n---\n# Notes\n\n## A\ntext\n\n## Empty last\n', 'docs/notes.md');
    expect(n.entries.map((e) => [e.title, indexKind(e), JSON.stringify(e.meta)])).toEqual([['Notes', 'note', '{}'], ['A', 'note', '{}'], ['Empty last', 'note', '{}']]);
  });
});
