import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { checkLabels, labelMatches, noiseIn, scoreTranscript, totals, type LabelFile } from '../../src/eval/extract.js';
import { labelFilesIn, readLabelFile, resolveTranscript } from '../../src/eval/extract-run.js';
import { cleanup, REPO, tempDir } from '../helpers.js';

afterEach(cleanup);

const labels = (over: Partial<LabelFile> = {}): LabelFile => checkLabels({
  transcript: 'session.jsonl',
  keep: [
    { id: 'npm', match: ['npm', 'yarn|always'], offline: true },
    { id: 'migrate', match: 'db:migrate', offline: true },
    { id: 'design', match: ['merge-base'], offline: false },
  ],
  noise: ['Request interrupted', 'String to replace not found'],
  ...over,
}, 'labels.yaml');

describe('labelMatches: every phrase, any alternative, case and white space folded', () => {
  const [npm] = labels().keep;
  it('needs every element; "a|b" takes either', () => {
    expect(labelMatches(npm, { title: 'Use NPM, not yarn', body: '' })).toBe(true);
    expect(labelMatches(npm, { title: 'npm here', body: 'we ALWAYS use it' })).toBe(true);
    expect(labelMatches(npm, { title: 'npm test failed', body: 'exit code 1' })).toBe(false);
    expect(labelMatches(npm, { title: 'yarn is banned', body: '' })).toBe(false);
  });
  it('matches across the title and body and across line breaks', () => {
    const [, , design] = labels().keep;
    expect(labelMatches(design, { title: 'Compare against the merge-', body: 'base' })).toBe(false);
    const spaced = checkLabels({ transcript: 't', keep: [{ id: 'x', match: ['fresh database'], offline: true }] }, 'l').keep[0];
    expect(labelMatches(spaced, { title: 'Migrations', body: 'needed on a fresh\n  database' })).toBe(true);
  });
});

describe('scoreTranscript: precision, recall and misses', () => {
  it('counts matched learnings, found labels and the two recalls separately', () => {
    const s = scoreTranscript(labels(), [
      { title: "Don't use yarn: we always use npm", body: '' },
      { title: 'Run npm run db:migrate -- --env test on a fresh database', body: '' },
      { title: '`ls` failed: Exit code 1', body: '' },
      { title: 'Use npm, never yarn', body: 'again' },
    ]);
    expect(s.written).toBe(4);
    expect(s.matched).toBe(3);
    expect(s.precision).toBe(0.75);
    expect(s.labels).toEqual({ offline: 2, all: 3 });
    expect(s.found).toEqual({ offline: 2, all: 2 });
    expect(s.recall).toEqual({ offline: 1, all: 2 / 3 });
    expect(s.misses).toEqual([{ id: 'design', offline: false, match: 'merge-base' }]);
    expect(s.unmatched).toEqual(['`ls` failed: Exit code 1']);
    expect(s.matches[0]).toEqual({ learning: "Don't use yarn: we always use npm", labels: ['npm'] });
  });

  it('nothing written: precision null (not 0 or 1), recall 0; no labels: recall null', () => {
    const s = scoreTranscript(labels(), []);
    expect(s.precision).toBeNull();
    expect(s.recall).toEqual({ offline: 0, all: 0 });
    const none = scoreTranscript(labels({ keep: [] }), [{ title: 'anything', body: '' }]);
    expect(none.precision).toBe(0);
    expect(none.recall).toEqual({ offline: null, all: null });
  });

  it('totals are micro-averaged: every learning and label weighs the same', () => {
    const a = scoreTranscript(labels(), [{ title: 'npm always', body: '' }]);
    const b = scoreTranscript(labels({ keep: [] }), [{ title: 'x', body: '' }, { title: 'y', body: '' }, { title: 'z', body: '' }]);
    const t = totals([a, b]);
    expect(t).toMatchObject({ transcripts: 2, written: 4, matched: 1, precision: 0.25, labels: { offline: 2, all: 3 }, found: { offline: 1, all: 1 }, noise: 0 });
    expect(t.recall.offline).toBe(0.5);
    expect(totals([]).precision).toBeNull();
  });
});

describe('noise', () => {
  it('label phrases, NUL, tool-call JSON and the transcript file name', () => {
    expect(noiseIn({ title: '[request interrupted by user]', body: '' }, ['Request interrupted'])).toEqual(['Request interrupted']);
    expect(noiseIn({ title: 'a\u0000b', body: '' }, [])).toEqual(['a NUL character']);
    expect(noiseIn({ title: 'Edit', body: '{"type":"tool_use","name":"Edit","input":{}}' }, [])).toEqual(['raw tool-call JSON']);
    expect(noiseIn({ title: 'Read abc-123.jsonl first', body: '' }, [], '/home/u/.claude/projects/p/abc-123.jsonl')).toEqual(["the transcript's file name (abc-123.jsonl)"]);
    expect(noiseIn({ title: 'Use npm', body: 'json is fine: {a: 1}' }, ['yarn'], '/x/abc.jsonl')).toEqual([]);
  });
  it('every hit is listed with its learning', () => {
    const s = scoreTranscript(labels(), [{ title: 'npm always', body: 'String to replace not found' }]);
    expect(s.noise).toEqual([{ learning: 'npm always', phrase: 'String to replace not found' }]);
    expect(s.matched).toBe(1); // noise is reported separately from whether the point is there
  });
});

describe('checkLabels: a wrong label is an error naming the file and the field', () => {
  const bad = (data: unknown) => {
    try {
      checkLabels(data, 'x.yaml');
    } catch (err) {
      expect(err).toBeInstanceOf(MemError);
      expect((err as MemError).exitCode).toBe(1);
      return (err as MemError).message;
    }
    throw new Error('accepted');
  };
  it('rejects each malformed shape', () => {
    expect(bad(null)).toMatch(/mapping/);
    expect(bad({ keep: [] })).toMatch(/transcript/);
    expect(bad({ transcript: 't', keep: {} })).toMatch(/"keep" must be a list/);
    expect(bad({ transcript: 't', keep: [{ id: 'a', match: [], offline: true }] })).toMatch(/keep\[0\] \(a\): "match"/);
    expect(bad({ transcript: 't', keep: [{ id: 'a', match: ['x'] }] })).toMatch(/"offline" must be true or false/);
    expect(bad({ transcript: 't', keep: [{ id: 'a', match: ['x|'], offline: true }, { id: 'a', match: ['y'], offline: false }] })).toMatch(/used twice/);
    expect(bad({ transcript: 't', keep: [{ id: 'a', match: ['|'], offline: true }] })).toMatch(/empty phrase/);
    expect(bad({ transcript: 't', noise: 'x' })).toMatch(/noise/);
  });
  it('defaults: no keep, no noise, ids by position', () => {
    expect(checkLabels({ transcript: 't' }, 'f')).toEqual({ file: 'f', transcript: 't', keep: [], noise: [] });
    expect(checkLabels({ transcript: 't', keep: [{ match: 'a | b', offline: false }] }, 'f').keep[0]).toEqual({ id: 'keep-1', match: [['a', 'b']], offline: false });
  });
});

describe('label files on disk', () => {
  it('the bundled labels all parse, and name transcripts that resolve from the repo', async () => {
    const dir = path.join(REPO, 'test', 'fixtures', 'extract-labels');
    const files = labelFilesIn(dir);
    expect(files.length).toBeGreaterThanOrEqual(15);
    for (const f of files) {
      const l = await readLabelFile(f);
      expect(l.transcript).not.toMatch(/^\//);
      if (l.transcript.startsWith('examples/')) expect(resolveTranscript(f, l.transcript)).toBe(path.join(REPO, l.transcript));
    }
  });
  it('a relative transcript is looked up from the label folder, then each folder above', () => {
    const d = tempDir();
    fs.mkdirSync(path.join(d, 'a', 'labels'), { recursive: true });
    fs.writeFileSync(path.join(d, 'a', 'labels', 'here.jsonl'), '{}');
    fs.mkdirSync(path.join(d, 'shared'));
    fs.writeFileSync(path.join(d, 'shared', 't.jsonl'), '{}');
    const lf = path.join(d, 'a', 'labels', 'x.yaml');
    expect(resolveTranscript(lf, 'here.jsonl')).toBe(path.join(d, 'a', 'labels', 'here.jsonl'));
    expect(resolveTranscript(lf, '../shared/t.jsonl')).toBe(path.join(d, 'shared', 't.jsonl'));
    expect(resolveTranscript(lf, 'missing.jsonl')).toBeNull();
  });
  it('invalid YAML and an empty folder are one MemError each', async () => {
    const d = tempDir();
    expect(() => labelFilesIn(d)).toThrow(/no label files/);
    fs.writeFileSync(path.join(d, 'bad.yaml'), 'transcript: [unclosed\n');
    await expect(readLabelFile(path.join(d, 'bad.yaml'))).rejects.toThrow(/invalid YAML/);
    fs.writeFileSync(path.join(d, 'bad.json'), '{"transcript":');
    await expect(readLabelFile(path.join(d, 'bad.json'))).rejects.toThrow(/invalid JSON/);
  });
});
