// Typed notes merged by field and section: pattern notes as `mem pattern add` writes and updates
// them (the real upsert on copies of one note), episode notes as the real formatter writes them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeCoveredFile, mergeTypedNote } from '../../src/integrations/note-merge.js';
import { driverCovers, GITATTRIBUTES_LINES, mergeKind } from '../../src/integrations/merge-coverage.js';
import { addPattern, parsePatternNote, validatePatternNote } from '../../src/notes/pattern-note.js';
import { formatEpisodeNote, parseEpisodeNote, sanitizeEpisode, type EpisodeData } from '../../src/notes/episode-note.js';
import { parseNote } from '../../src/notes/note.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

/** A vault holding `text` as the pattern note; `addPattern` then runs on it as on a branch. */
function branch(text: string | null, file = 'PATTERN-run-migrations-first.md') {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-nm-'));
  roots.push(root);
  const dir = path.join(root, '.mem', 'patterns');
  fs.mkdirSync(dir, { recursive: true });
  if (text !== null) fs.writeFileSync(path.join(dir, file), text);
  const add = (input: Parameters<typeof addPattern>[1], today = '2026-11-20') => addPattern(root, input, { today });
  const read = () => fs.readFileSync(path.join(dir, file), 'utf8');
  return { add, read };
}

const PAT = { name: 'run-migrations-first', trigger: 'API tests fail on a fresh database', action: 'Run the migrations first.' };

async function basePattern(): Promise<string> {
  const b = branch(null);
  await b.add({ ...PAT, success_rate: 1, evidence_episode: 'ep-1' }, '2026-11-01');
  return b.read();
}

const P = '.mem/patterns/PATTERN-run-migrations-first.md';

describe('pattern notes merged by field', () => {
  it('mem pattern add on two branches: occurrences add up from the base, the success rate recomputed, evidence and relations unioned', async () => {
    const base = await basePattern();
    const o = branch(base);
    await o.add({ ...PAT, success_rate: 0, evidence_episode: 'ep-ours', causal_relationships: [{ type: 'prevents', target: 'flaky-tests' }] }, '2026-11-10');
    const t = branch(base);
    await t.add({ ...PAT, success_rate: 1, evidence_episode: 'ep-theirs' }, '2026-11-12');
    await t.add({ ...PAT, success_rate: 1, causal_relationships: [{ type: 'enables', target: 'fast-ci' }] }, '2026-11-13');
    const r = mergeCoveredFile(base, o.read(), t.read(), P);
    expect(r.conflicts).toBe(0);
    expect(r.fallback).toBeUndefined();
    const d = parsePatternNote(r.text, 'PATTERN-run-migrations-first.md');
    // Base 1 success in 1; ours 0 in 1 more; theirs 2 in 2 more: 3 successes in 4.
    expect(d.occurrences).toBe(4);
    expect(d.success_rate).toBe(0.75);
    expect(d.last_validated).toBe('2026-11-13');
    expect(d.evidence).toEqual(['EPISODE-ep-1', 'EPISODE-ep-ours', 'EPISODE-ep-theirs']);
    expect(d.causal).toEqual([{ type: 'prevents', target: 'flaky-tests' }, { type: 'enables', target: 'fast-ci' }]);
    expect(validatePatternNote(parseNote(r.text), P)).toEqual([]);
    // Each way round: the same data.
    const back = parsePatternNote(mergeCoveredFile(base, t.read(), o.read(), P).text, 'PATTERN-run-migrations-first.md');
    expect({ ...back, evidence: [...back.evidence].sort(), causal: [] }).toEqual({ ...d, evidence: [...d.evidence].sort(), causal: [] });
  });

  it('the same update on both branches still counts twice (both wrote occurrences: 2)', async () => {
    const base = await basePattern();
    const o = branch(base);
    await o.add({ ...PAT });
    const t = branch(base);
    await t.add({ ...PAT, evidence_episode: 'ep-2' });
    expect(o.read()).toMatch(/occurrences: 2/);
    expect(t.read()).toMatch(/occurrences: 2/);
    const d = parsePatternNote(mergeCoveredFile(base, o.read(), t.read(), P).text);
    expect(d.occurrences).toBe(3);
    expect(d.success_rate).toBe(1);
  });

  it('created on both branches (no base): occurrences are the sum, the rate their weighted mean', async () => {
    const o = branch(null);
    await o.add({ ...PAT, success_rate: 1, evidence_episode: 'a' });
    const t = branch(null);
    await t.add({ ...PAT, success_rate: 0.5, evidence_episode: 'b' });
    const r = mergeCoveredFile('', o.read(), t.read(), P);
    expect(r.conflicts).toBe(0);
    const d = parsePatternNote(r.text);
    expect(d.occurrences).toBe(2);
    expect(d.success_rate).toBe(0.75);
    expect(d.evidence).toEqual(['EPISODE-a', 'EPISODE-b']);
  });

  it('parts changed on one side keep their bytes (a hand-edited Context with CRLF and a BOM on ours)', async () => {
    const base = await basePattern();
    const crlf = (s: string) => '\ufeff' + s.replace(/\n/g, '\r\n');
    const oursText = crlf(base.replace('## Context\n', '## Context\nWritten   by hand,\n  with odd   spacing.\n'));
    const t = branch(base);
    await t.add({ ...PAT, evidence_episode: 'ep-t' });
    const r = mergeCoveredFile(base, oursText, t.read(), P);
    expect(r.conflicts).toBe(0);
    expect(r.text.startsWith('\ufeff---\r\n')).toBe(true);
    expect(r.text).toContain('## Context\r\nWritten   by hand,\r\n  with odd   spacing.\r\n');
    expect(r.text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(r.text).toContain('- [[EPISODE-ep-t]]\r\n');
    expect(parsePatternNote(r.text).occurrences).toBe(2);
  });

  it('the Action rewritten differently on both sides: markers around that section alone, the counters merged', async () => {
    const base = await basePattern();
    const o = base.replace('Run the migrations first.', 'Run npm run db:migrate.');
    const t = branch(base.replace('Run the migrations first.', 'Run make migrate.'));
    await t.add({ ...PAT, evidence_episode: 'ep-t' });
    const r = mergeCoveredFile(base, o, t.read(), P);
    expect(r.conflicts).toBe(1);
    expect(r.conflictParts).toEqual(['section Action']);
    const lines = r.text.split('\n');
    const open = lines.indexOf('<<<<<<< ours');
    expect(lines[open - 1]).toBe('## Action');
    expect(lines.slice(open, open + 5)).toEqual(['<<<<<<< ours', 'Run npm run db:migrate.', '=======', 'Run make migrate.', '>>>>>>> theirs']);
    expect(r.text).toMatch(/^occurrences: 2$/m);
    expect(r.text).toContain('- [[EPISODE-ep-t]]');
  });

  it('a side that is not a readable note goes to the text merge', async () => {
    const base = await basePattern();
    const calls: string[] = [];
    const textMerge = (b: string, o: string, t: string) => {
      calls.push(b);
      return { text: o + t, conflicts: 1 };
    };
    const r = mergeTypedNote('pattern', base, base.replace('---\n', '---\nbad: [unclosed\n'), base + 'x\n', { textMerge });
    expect(r.fallback).toMatch(/frontmatter/);
    expect(calls).toHaveLength(1);
  });
});

function episode(): EpisodeData {
  return {
    session_id: 's1', task: 'Fix the login test', outcome: 'partial', created_at: '2026-01-21T10:00:00Z', duration_minutes: 30,
    metrics: { tool_calls: 10, errors: 1 }, tags: ['memory'], context: 'The login test is flaky.',
    observations: [{ category: 'fact', text: 'It fails one run in five', tags: [] }],
    decisions: [{ id: 'd001', title: 'Retry', timestamp: '2026-01-21T10:05:00Z', type: 'implementation', context: 'Timeouts', options: [], chosen: 'retry', outcome: 'success', effects: ['e002'] }],
    events: [
      { id: 'e001', timestamp: '2026-01-21T10:01:00Z', type: 'error', content: 'npm test failed', caused_by: [], leads_to: [] },
      { id: 'e002', timestamp: '2026-01-21T10:10:00Z', type: 'test', content: 'npm test passed', caused_by: ['d001'], leads_to: [] },
    ],
    lessons: ['Retry network calls'], relations: [], extra: {},
  };
}

const note = (d: EpisodeData) => formatEpisodeNote(sanitizeEpisode(d));
const E = '.mem/episodes/EPISODE-s1.md';

describe('episode notes merged by section', () => {
  it('events added on both sides: one timeline in time order, numbered again, links renamed; lessons unioned; metrics the larger', async () => {
    const b = episode();
    const o = episode();
    o.events.splice(1, 0, { id: 'e002', timestamp: '2026-01-21T10:03:00Z', type: 'milestone', content: 'found the race', caused_by: ['e001'], leads_to: [] });
    o.events[2] = { ...o.events[2], id: 'e003' };
    o.decisions[0].effects = ['e003'];
    o.lessons.push('Ours lesson');
    o.metrics = { tool_calls: 14, errors: 1 };
    const t = episode();
    t.events.push({ id: 'e003', timestamp: '2026-01-21T10:20:00Z', type: 'commit', content: 'committed the fix', caused_by: ['e002'], leads_to: [] });
    t.decisions.push({ id: 'd002', title: 'Commit', timestamp: '2026-01-21T10:19:00Z', type: 'implementation', context: 'done', options: [], chosen: 'commit', outcome: 'success', effects: ['e003'] });
    t.lessons.push('Theirs lesson');
    t.metrics = { tool_calls: 12, errors: 1, commits: 1 };
    const r = mergeCoveredFile(note(b), note(o), note(t), E);
    expect(r.conflicts).toBe(0);
    const p = parseEpisodeNote(parseNote(r.text), E);
    expect(p.diagnostics).toEqual([]);
    expect(p.data.events.map((e) => e.content)).toEqual(['npm test failed', 'found the race', 'npm test passed', 'committed the fix']);
    expect(p.data.events[1].caused_by).toEqual(['e001']);
    // Theirs' commit was caused by its e002 (npm test passed), now e003.
    expect(p.data.events[3].caused_by).toEqual(['e003']);
    expect(p.data.decisions.map((d) => [d.id, d.effects])).toEqual([['d001', ['e003']], ['d002', ['e004']]]);
    expect(p.data.lessons).toEqual(['Retry network calls', 'Ours lesson', 'Theirs lesson']);
    expect(p.data.metrics).toEqual({ tool_calls: 14, errors: 1, commits: 1 });
    // Laid out as mem writes a note: the merged data formats to the same bytes.
    expect(formatEpisodeNote(p.data)).toBe(r.text);
  });

  it('the outcome set differently on both sides: markers around the header', async () => {
    const b = episode();
    const r = mergeCoveredFile(note(b), note({ ...b, outcome: 'success', lessons: ['x'] }), note({ ...b, outcome: 'failure' }), E);
    expect(r.conflicts).toBe(1);
    expect(r.conflictParts).toEqual(['field outcome']);
    expect(r.text).toMatch(/^<<<<<<< ours\ntitle: EPISODE-s1\n/m);
  });
});

describe('what the driver covers', () => {
  it('one list: the .gitattributes lines and the matcher agree', async () => {
    expect(GITATTRIBUTES_LINES).toEqual(expect.arrayContaining(['memory/**/*.md merge=mem', '.mem/patterns/*.md merge=mem', '.mem/episodes/*.md merge=mem']));
    for (const p of ['MEMORY.md', 'sub/MEMORY.md', 'institutional.md', 'proxy-alice.md', 'memory/x.md', 'memory/a/b/c.md', '.mem/patterns/PATTERN-x.md', '.mem/episodes/EPISODE-s.md']) expect(driverCovers(p), p).toBe(true);
    for (const p of ['README.md', 'docs/memory/x.md', 'memory/x.txt', '.mem/patterns/sub/x.md', 'src/memory.ts']) expect(driverCovers(p), p).toBe(false);
    expect(mergeKind('vault/.mem/patterns/PATTERN-x.md')).toBe('pattern');
    expect(mergeKind('.mem/episodes/EPISODE-s.md')).toBe('episode');
    expect(mergeKind('memory/x.md')).toBe('entries');
  });
});
