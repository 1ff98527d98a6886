import { describe, expect, it } from 'vitest';
import { formatEpisodeNote, parseEpisodeNote, sanitizeEpisode, validateEpisodeNote, type EpisodeData } from '../../src/notes/episode-note.js';
import { parseNote, wikiLinks } from '../../src/notes/note.js';

function sample(): EpisodeData {
  return {
    session_id: '2026-01-21-session-42',
    task: 'Fix the flaky login test',
    outcome: 'partial',
    created_at: '2026-01-21T10:00:00Z',
    duration_minutes: 35,
    metrics: { tool_calls: 12, errors: 2, recoveries: 1, commits: 1, files_changed: 3 },
    tags: ['memory'],
    context: 'The login test failed one run in five.\n\nCI only.',
    observations: [{ category: 'decision:d001', text: 'Retry the network call', tags: ['implementation'] }],
    decisions: [
      { id: 'd001', title: 'Retry instead of sleeping', timestamp: '2026-01-21T10:05:00Z', type: 'implementation', context: 'Timeout under load', options: ['sleep 2s', 'retry with backoff'], chosen: 'retry with backoff', rationale: 'Sleeping only hides the race', outcome: 'success', effects: ['d002', 'e002'] },
      { id: 'd002', title: 'Pin the clock', timestamp: '2026-01-21T10:20:00.1234567Z', type: 'test', context: 'Dates drift', options: [], chosen: 'fake timers', outcome: 'partial', effects: [] },
    ],
    events: [
      { id: 'e001', timestamp: '2026-01-21T10:01:00Z', type: 'error', content: 'npm test failed: TimeoutError', caused_by: [], leads_to: [] },
      { id: 'e002', timestamp: '2026-01-21T10:10:00Z', type: 'test', content: 'npm test passed', caused_by: ['d001'], leads_to: [] },
    ],
    lessons: ['Retry network calls in tests with backoff'],
    relations: [{ type: 'has_segment', target: 'ep-2026-01-21-session-42-001' }],
    extra: {},
  };
}

describe('episode notes', () => {
  it('formats the episode note layout', () => {
    const md = formatEpisodeNote(sanitizeEpisode(sample()));
    expect(md).toContain('---\ntitle: EPISODE-2026-01-21-session-42\ntype: episode\ntags: [episodic, memory]\npermalink: episodes/episode-2026-01-21-session-42\n');
    expect(md).toContain('metrics: {tool_calls: 12, errors: 2, recoveries: 1, commits: 1, files_changed: 3}\n');
    expect(md).toContain('### d001: Retry instead of sleeping\n- **Timestamp**: 2026-01-21T10:05:00Z\n- **Type**: implementation\n- **Context**: Timeout under load\n- **Options**:\n  - sleep 2s\n  - retry with backoff\n- **Chosen**: retry with backoff\n- **Rationale**: Sleeping only hides the race\n- **Outcome**: success\n- **Effects**: [[d002]], [[e002]]\n');
    expect(md).toContain('## Events Timeline\n1. [2026-01-21T10:01:00Z] npm test failed: TimeoutError #error\n2. [2026-01-21T10:10:00Z] npm test passed ← [[d001]] #test\n');
    expect(md).toContain('## Observations\n- [decision:d001] Retry the network call #implementation\n');
    expect(md.endsWith('## Relations\n- has_segment [[ep-2026-01-21-session-42-001]]\n')).toBe(true);
    expect(validateEpisodeNote(parseNote(md), 'x.md')).toEqual([]);
  });

  it('round-trips note → data → note byte for byte, and data → note → data', () => {
    const data = sanitizeEpisode(sample());
    const md = formatEpisodeNote(data);
    const back = parseEpisodeNote(parseNote(md), 'x.md');
    expect(back.diagnostics).toEqual([]);
    expect(back.data).toEqual(data);
    expect(formatEpisodeNote(back.data)).toBe(md);
    expect(sanitizeEpisode(data)).toEqual(data);
  });

  it('keeps hostile text inside its field: newlines, [[links]], #tags, headings, fences, control characters', () => {
    const d = sample();
    const evil = 'a\nb\r\n## Decisions\n### d009: fake\n[[PATTERN-evil]] [[[x]]] #error \u0000\u001b\u2028 `code` ```';
    d.task = evil;
    d.context = `${evil}\n\`\`\`\n## Relations\n---\n`;
    d.lessons = [evil];
    d.observations = [{ category: 'x]y [z', text: `${evil} #tag`, tags: ['ok', 'bad tag'] }];
    d.decisions[0] = { ...d.decisions[0], title: evil, context: evil, options: [evil, ''], chosen: evil, rationale: evil };
    d.events[0] = { ...d.events[0], content: `${evil} → [[d001]]` };
    d.relations = [{ type: 'rel ates', target: 'T]] [[U|x' }];
    const data = sanitizeEpisode(d);
    const md = formatEpisodeNote(data);
    const note = parseNote(md);
    expect(note.sections.map((s) => s.name)).toEqual(['Context', 'Observations', 'Decisions', 'Events Timeline', 'Lessons Learned', 'Relations']);
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u2028]/);
    // The only links are the ones mem wrote.
    expect(wikiLinks(md).map((l) => l.target).sort()).toEqual(['T Ux', 'd001', 'd002', 'e002']);
    const back = parseEpisodeNote(note, 'x.md');
    expect(back.data).toEqual(data);
    expect(back.data.decisions.map((x) => x.id)).toEqual(['d001', 'd002']);
    expect(formatEpisodeNote(back.data)).toBe(md);
    expect(back.diagnostics).toEqual([]);
  });

  it('numbers events by their place and renames links to the ids given', () => {
    const d = sample();
    d.events = [
      { id: 'e7', timestamp: '2026-01-21T10:01:00Z', type: 'error', content: 'x', caused_by: [], leads_to: ['e9'] },
      { id: 'e9', timestamp: '2026-01-21T10:02:00Z', type: 'test', content: 'y', caused_by: ['e7'], leads_to: [] },
    ];
    d.decisions[0].effects = ['e9'];
    const data = sanitizeEpisode(d);
    expect(data.events.map((e) => [e.id, e.caused_by, e.leads_to])).toEqual([['e001', [], ['e002']], ['e002', ['e001'], []]]);
    expect(data.decisions[0].effects).toEqual(['e002']);
  });

  it('reports schema problems with file:line', () => {
    const md = `---
title: EPISODE-x
type: episod
tags: [memory]
outcome: won
task: t
created_at: yesterday
---

# EPISODE-x

## Context
x

## Decisions
### d001: a
- **Timestamp**: not a time
- **Type**: guess
- **Context**: c
- **Chosen**: y
- **Outcome**: success
- **Effects**: [[d009]], [[e001]]
### bad heading
- **Mood**: happy
- not a field

## Events Timeline
1. [2026-01-21T10:00:00Z] ran tests #test
2. [yesterday] something #party
3. no brackets

## Lessons Learned
- l
`;
    const diags = validateEpisodeNote(parseNote(md), '.mem/episodes/EPISODE-x.md');
    const lines = diags.map((d) => `${d.line}: ${d.message}`);
    expect(lines).toContain('3: type must be "episode" (got "episod")');
    expect(lines).toContain('4: tags must include "episodic"');
    expect(lines).toContain('5: outcome must be one of success, partial, failure (got "won")');
    expect(lines).toContain('7: created_at must be an ISO 8601 date or time (got "yesterday")');
    expect(lines).toContain('17: decision d001: Timestamp is not an ISO 8601 time (got "not a time")');
    expect(lines.some((l) => l.startsWith('18: decision d001: Type must be one of'))).toBe(true);
    expect(lines).toContain('16: decision d001: effect [[d009]] is not a decision or event of this note');
    expect(lines).not.toContain('16: decision d001: effect [[e001]] is not a decision or event of this note');
    expect(lines).toContain('23: decision heading must read "### d001: title"');
    expect(lines).toContain('25: decision d001: line must read "- **Field**: value"');
    expect(lines.some((l) => l.startsWith('29: event time is not'))).toBe(true);
    expect(lines.some((l) => l.startsWith('29: event type must be one of'))).toBe(true);
    expect(lines).toContain('30: event must read "1. [ISO time] text #event_type"');
    expect(diags.every((d) => d.file === '.mem/episodes/EPISODE-x.md')).toBe(true);
    const missing = validateEpisodeNote(parseNote('# no frontmatter\n'), 'y.md');
    expect(missing[0]).toMatchObject({ severity: 'error', line: 1 });
  });
});
