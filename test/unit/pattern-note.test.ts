import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNote } from '../../src/notes/note.js';
import {
  addPattern, addSectionLine, episodeLink, formatPatternNote, kebab, parsePatternNote, patternName, runningAverage, validatePatternNote, type PatternData,
} from '../../src/notes/pattern-note.js';

const BASE: PatternData = {
  name: 'run-migrations-first', antipattern: false, title: 'PATTERN-run-migrations-first', permalink: 'patterns/pattern-run-migrations-first',
  tags: ['causal', 'pattern'], trigger: 'API tests fail on a fresh database', success_rate: 0.85, occurrences: 3, last_validated: '2026-11-02',
  context: 'The test database starts empty.\nMigrations create the tables.', action: 'Run `npm run db:migrate` before the API tests.',
  observations: ['[evidence] seen in three sessions #metrics'], causal: [{ type: 'prevents', target: 'PATTERN-flaky-api-tests' }, { type: 'enables', target: 'fast CI' }],
  evidence: ['EPISODE-2026-11-02-session-1'], warning: '', relations: [{ relation: 'relates_to', target: 'PATTERN-seed-data' }],
};

function tmpRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mem-pat-'));
}

describe('pattern note format and parse', () => {
  it('round-trips note → data → note byte for byte', () => {
    const text = formatPatternNote(BASE);
    const data = parsePatternNote(text, 'PATTERN-run-migrations-first.md');
    expect(data).toEqual(BASE);
    expect(formatPatternNote(data)).toBe(text);
    expect(validatePatternNote(parseNote(text), 'p.md')).toEqual([]);
  });

  it('keeps hostile text from breaking the structure, and still round-trips', () => {
    const hostile: PatternData = {
      ...BASE, antipattern: true, title: 'ANTIPATTERN-x', name: 'x', tags: ['causal', 'pattern', 'antipattern'],
      trigger: 'a: b # c\n- [d]\n"quoted" \'single\' {x} &anchor *alias ---',
      context: '## Relations\n# Title\n```\n\\## already escaped\n---\nline with [[link]] and \u0007 bell',
      action: '~~~\n## Causal Relationships\n- causes [[Evil]]',
      observations: ['two\nlines ## x'], causal: [{ type: 'causes', target: 'a]] [[b|c\nd' }],
      evidence: ['EPISODE-[[x]]'], warning: '## Evidence Episodes\n- [[EPISODE-fake]]',
    };
    const text = formatPatternNote(hostile);
    const note = parseNote(text);
    expect(note.sections.map((s) => s.name)).toEqual(['Context', 'Trigger', 'Action', 'Observations', 'Causal Relationships', 'Evidence Episodes', 'Anti-Pattern Warning', 'Relations']);
    expect(note.frontmatter?.data.trigger).toBe('a: b # c - [d] "quoted" \'single\' {x} &anchor *alias ---');
    const data = parsePatternNote(text, 'ANTIPATTERN-x.md');
    expect(data.context).toBe('## Relations\n# Title\n```\n\\## already escaped\n---\nline with [[link]] and \u2407 bell');
    expect(data.action).toBe(hostile.action);
    expect(data.causal).toEqual([{ type: 'causes', target: 'a b c d' }]);
    expect(data.evidence).toEqual(['EPISODE- x']);
    expect(formatPatternNote(data)).toBe(text);
    expect(validatePatternNote(note, 'p.md')).toEqual([]);
  });

  it('names: kebab case, prefixes, episode links', () => {
    expect(kebab('Run Migrations First!')).toBe('run-migrations-first');
    expect(kebab('runMigrationsFirst')).toBe('run-migrations-first');
    expect(kebab('../../etc/passwd')).toBe('etc-passwd');
    expect(patternName('ANTIPATTERN-skip-tests')).toEqual({ name: 'skip-tests', antipattern: true });
    expect(patternName('PATTERN-x')).toEqual({ name: 'x', antipattern: false });
    expect(() => patternName('!!!')).toThrow(/no letters or digits/);
    expect(episodeLink('2026-01-04-session-305')).toBe('EPISODE-2026-01-04-session-305');
    expect(episodeLink('episode-2026-01-04-session-305')).toBe('EPISODE-2026-01-04-session-305');
    expect(episodeLink('EPISODE-s1')).toBe('EPISODE-s1');
  });
});

describe('validatePatternNote', () => {
  it('reports each schema problem at its line', () => {
    const text = '---\ntitle: PATTERN-x\ntype: pattern\ntags: [causal]\npermalink: patterns/pattern-x\ntrigger: t\nsuccess_rate: 1.5\noccurrences: 0.5\nlast_validated: soon\n---\n\n# PATTERN-x\n\n## Context\nc\n\n## Causal Relationships\n- causes [[A]]\n- leads to [[B]]\nnot a list line\n';
    const d = validatePatternNote(parseNote(text), 'p.md');
    const got = d.map((x) => `${x.line}: ${x.message}`);
    expect(got).toEqual([
      '4: tags must include "pattern"',
      '7: success_rate must be a number from 0 to 1 (got 1.5)',
      '8: occurrences must be a whole number >= 1 (got 0.5)',
      '9: last_validated must be a date YYYY-MM-DD (got "soon")',
      '12: missing section "## Trigger"',
      '12: missing section "## Action"',
      '12: missing section "## Relations"',
      expect.stringMatching(/^19: causal relationship not understood: "leads to \[\[B\]\]"/),
      expect.stringMatching(/^20: causal relationship not understood: "not a list line"/),
    ]);
  });

  it('reports a broken frontmatter', () => {
    const d = validatePatternNote(parseNote('---\ntitle: [x\n---\n# x\n'), 'p.md');
    expect(d[0].message).toMatch(/^frontmatter:/);
  });
});

describe('running average and upsert', () => {
  it('averages ((old × n + new) / (n + 1))', () => {
    expect(runningAverage(1, 1, 0)).toBe(0.5);
    expect(runningAverage(0.5, 2, 1)).toBeCloseTo(2 / 3, 6);
    expect(runningAverage(0.8, 4, 0.3)).toBe(0.7);
    let r = 1;
    for (let n = 1; n < 10; n++) r = runningAverage(r, n, 0);
    expect(r).toBe(0.1);
  });

  it('creates, then updates byte-stably: counts, average, date, links added once', async () => {
    const root = tmpRoot();
    const a = await addPattern(root, { name: 'Run migrations first', trigger: 'fresh DB', action: 'migrate', success_rate: 1, evidence_episode: 's1' }, { today: '2026-11-01' });
    expect(a.action).toBe('created');
    const file = path.join(root, '.mem/patterns/PATTERN-run-migrations-first.md');
    // A hand edit somewhere else in the note, CRLF line endings and a BOM: all must survive.
    const hand = `\ufeff${fs.readFileSync(file, 'utf8').replace('## Action\nmigrate\n', '## Action\nmigrate   \n\nA hand-written paragraph. [[EPISODE-s1]]\n')}`.replace(/\n/g, '\r\n');
    fs.writeFileSync(file, hand);
    const b = await addPattern(root, { name: 'run-migrations-first', success_rate: 0, evidence_episode: 'EPISODE-s1', causal_relationships: [{ type: 'prevents', target: 'flaky tests' }] }, { today: '2026-11-05' });
    expect(b).toMatchObject({ action: 'updated', occurrences: 2, success_rate: 0.5, last_validated: '2026-11-05', added_evidence: [], added_relations: [{ type: 'prevents', target: 'flaky tests' }] });
    const c = await addPattern(root, { name: 'PATTERN-run-migrations-first', success_rate: 1, evidence_episode: 's2', causal_relationships: [{ type: 'prevents', target: 'Flaky Tests' }] }, { today: '2026-11-06' });
    expect(c).toMatchObject({ occurrences: 3, added_evidence: ['EPISODE-s2'], added_relations: [] });
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith('\ufeff---\r\n')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expect(after).toContain('## Action\r\nmigrate   \r\n\r\nA hand-written paragraph. [[EPISODE-s1]]\r\n');
    const data = parsePatternNote(after, 'PATTERN-run-migrations-first.md');
    expect(data.evidence).toEqual(['EPISODE-s1', 'EPISODE-s2']);
    expect(data.causal).toEqual([{ type: 'prevents', target: 'flaky tests' }]);
    expect(data.occurrences).toBe(3);
    expect(data.success_rate).toBeCloseTo(2 / 3, 5);
    // Only the changed lines differ from the hand-edited text.
    const before = hand.split('\r\n');
    const now = after.split('\r\n');
    const changed = now.filter((l) => !before.includes(l));
    expect(changed).toEqual(['success_rate: 0.666667', 'occurrences: 3', "last_validated: '2026-11-06'", '- prevents [[flaky tests]]', '- [[EPISODE-s2]]']);
  });

  it('finds an existing note by title when its file is named otherwise', async () => {
    const root = tmpRoot();
    fs.mkdirSync(path.join(root, '.mem/patterns'), { recursive: true });
    const d = { ...BASE, occurrences: 1, success_rate: 1, evidence: [], causal: [] };
    fs.writeFileSync(path.join(root, '.mem/patterns/my-own-name.md'), formatPatternNote(d));
    const r = await addPattern(root, { name: 'run migrations first', success_rate: 0 }, { today: '2026-11-03' });
    expect(r).toMatchObject({ action: 'updated', path: '.mem/patterns/my-own-name.md', occurrences: 2, success_rate: 0.5 });
    expect(fs.readdirSync(path.join(root, '.mem/patterns'))).toEqual(['my-own-name.md']);
  });

  it('refuses bad input and writes nothing', async () => {
    const root = tmpRoot();
    await expect(addPattern(root, { name: 'x', trigger: 't', action: 'a', success_rate: 2 }, { today: '2026-11-01' })).rejects.toThrow(/success_rate/);
    await expect(addPattern(root, { name: 'x', action: 'a' }, { today: '2026-11-01' })).rejects.toThrow(/needs a trigger/);
    await expect(addPattern(root, { name: 'x', trigger: 't', action: 'a', causal_relationships: [{ type: 'breaks' as 'causes', target: 'y' }] }, { today: '2026-11-01' })).rejects.toThrow(/unknown causal/);
    expect(fs.existsSync(path.join(root, '.mem/patterns/PATTERN-x.md'))).toBe(false);
  });

  it('addSectionLine adds a missing section before Relations', () => {
    const n = parseNote('# T\n\n## Context\nc\n\n## Relations\n- a [[b]]\n');
    expect(addSectionLine(n, 'Evidence Episodes', '- [[E]]')).toBe('# T\n\n## Context\nc\n\n## Evidence Episodes\n- [[E]]\n\n## Relations\n- a [[b]]\n');
    const m = parseNote('## Evidence Episodes\n- [[A]]');
    expect(addSectionLine(m, 'Evidence Episodes', '- [[B]]')).toBe('## Evidence Episodes\n- [[A]]\n- [[B]]\n');
  });
});
