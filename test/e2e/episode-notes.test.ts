import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer } from '../fake-llm.js';
import { cleanup, entry, REPO, type TempVault } from '../helpers.js';
import { LOGIN, NOTE, runIn, vault } from '../fixtures/episode-notes.js';
import { run as runMem } from '../run.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

const run = runIn(runMem);

describe('mem episode add', () => {
  it('writes the episode note from store_episode JSON on stdin, and again changes nothing', async () => {
    const v = vault();
    const r = await run(v, ['episode', 'add', '--json'], JSON.stringify(LOGIN));
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ path: NOTE, title: 'EPISODE-2026-01-21-session-42', permalink: 'episodes/episode-2026-01-21-session-42', created: true, changed: true });
    const md = fs.readFileSync(path.join(v.root, NOTE), 'utf8');
    expect(md).toMatch(/^---\ntitle: EPISODE-2026-01-21-session-42\ntype: episode\ntags: \[episodic\]\npermalink: episodes\/episode-2026-01-21-session-42\n/);
    expect(md).toContain("created_at: '2026-01-21T10:01:00Z'\noutcome: partial\n");
    expect(md).toContain('duration_minutes: 35\nmetrics: {tool_calls: 12, errors: 2, recoveries: 1, commits: 1, files_changed: 3}\n');
    expect(md).toContain('### d001: retry with backoff\n- **Timestamp**: 2026-01-21T10:05:00Z\n- **Type**: implementation\n');
    expect(md).toContain('- **Effects**: [[d002]], [[e002]]\n');
    expect(md).toContain('## Events Timeline\n1. [2026-01-21T10:01:00Z] npm test failed: TimeoutError in login.spec.ts #error\n2. [2026-01-21T10:10:00Z] npm test passed ← [[d001]] #test\n');
    expect(md).toContain('## Lessons Learned\n- Retry network calls in tests with backoff instead of sleeping\n');
    const again = await run(v, ['episode', 'add'], JSON.stringify(LOGIN));
    expect(again.stdout).toMatch(/^unchanged: /);
    expect(fs.readFileSync(path.join(v.root, NOTE), 'utf8')).toBe(md);
  });

  it('takes flags, and a re-add replaces mem\'s sections but keeps a section and a key a person added', async () => {
    const v = vault();
    const d = JSON.stringify({ id: 'd001', timestamp: '2026-01-21T10:05:00Z', type: 'test', context: 'dates drift', chosen: 'fake timers', outcome: 'success' });
    const r = await run(v, ['episode', 'add', '--session', 's42', '--task', 'fix the login test', '--outcome', 'success', '--lesson', 'a fake clock', '--lesson', 'second lesson', '--decision', d, '--metrics', '{"tool_calls":3}']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('created .mem/episodes/EPISODE-s42.md (episodes/episode-s42)\n');
    const file = path.join(v.root, '.mem/episodes/EPISODE-s42.md');
    const md = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, md.replace('type: episode\n', 'type: episode\nreviewed_by: ana # by hand\n').replace('## Relations\n', '## My notes\nKeep this.\n\n## Relations\n'));
    const r2 = await run(v, ['episode', 'add', '--session', 's42', '--task', 'fix the login test', '--outcome', 'failure', '--lesson', 'only this lesson now']);
    expect(r2.stdout).toMatch(/^updated /);
    const after = fs.readFileSync(file, 'utf8');
    expect(after).toContain('reviewed_by: ana # by hand\n');
    expect(after).toContain('## My notes\nKeep this.\n');
    expect(after).toContain('outcome: failure\n');
    expect(after).toContain('## Lessons Learned\n- only this lesson now\n');
    expect(after).not.toContain('second lesson');
    expect(after).not.toContain('### d001');
    expect(after).not.toContain('metrics:');
    // The start time stays: the second input gave none.
    expect(after).toContain("created_at: '2026-01-21T10:05:00Z'");
  });

  it('rejects bad input with one line naming the field, exit 1, nothing written', async () => {
    const v = vault();
    const cases: [unknown, RegExp][] = [
      [{ ...LOGIN, outcome: 'won' }, /^mem: invalid episode: outcome: must be one of success, partial, failure$/m],
      [{ ...LOGIN, decisions: [{ ...LOGIN.decisions[0], timestamp: 'yesterday' }] }, /^mem: invalid episode: decisions\[0\]\.timestamp: must be an ISO 8601 time/m],
      [{ ...LOGIN, events: [{ ...LOGIN.events[0], type: 'party' }] }, /^mem: invalid episode: events\[0\]\.type: must be one of tool_call/m],
      [{ ...LOGIN, metrics: { tool_calls: -1 } }, /^mem: invalid episode: metrics\.tool_calls: must be >= 0$/m],
      [{ ...LOGIN, mood: 'happy' }, /^mem: invalid episode: input: unknown field "mood"$/m],
      [{ ...LOGIN, task: '' }, /^mem: invalid episode: task: task must not be empty$/m],
      [{ ...LOGIN, decisions: [{ ...LOGIN.decisions[1], effects: ['d404'] }] }, /^mem: invalid episode: decisions\[0\]\.effects\[0\]: "d404" is not the id/m],
      ['[1,2]', /^mem: invalid episode: the input must be a JSON object$/m],
      ['{not json', /^mem: invalid episode: stdin is not valid JSON/m],
    ];
    for (const [input, want] of cases) {
      const r = await run(v, ['episode', 'add'], typeof input === 'string' ? input : JSON.stringify(input));
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(want);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    expect(fs.existsSync(path.join(v.root, '.mem/episodes'))).toBe(false);
    const usage = await run(v, ['episode', 'add', '--session', 'x', '--task', 't']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^mem: missing --outcome/);
    expect((await run(v, ['episode', 'add', '--session', 'x', '--task', 't', '--outcome', 'ok', '--decision', '{'])).stderr).toMatch(/^mem: --decision is not valid JSON/);
  });

  it('--dry-run writes nothing', async () => {
    const v = vault();
    const r = await run(v, ['episode', 'add', '--dry-run', '--json'], JSON.stringify(LOGIN));
    expect(JSON.parse(r.stdout)).toMatchObject({ dry_run: true, created: true, changed: true });
    expect(fs.existsSync(path.join(v.root, NOTE))).toBe(false);
  });
});

describe('mem episode list / decisions', () => {
  async function three(v: TempVault) {
    await run(v, ['episode', 'add'], JSON.stringify(LOGIN));
    await run(v, ['episode', 'add'], JSON.stringify({ session_id: 'old-one', task: 'Upgrade Node to 22', outcome: 'failure', created_at: '2025-12-01T09:00:00Z', lessons: ['pin npm'] }));
    await run(v, ['episode', 'add'], JSON.stringify({ session_id: 'new-one', task: 'Add pagination to the users API', outcome: 'success', created_at: '2026-01-24T09:00:00Z' }));
  }

  it('lists newest first with --outcome, --task, --since and --limit', async () => {
    const v = vault();
    await three(v);
    const all = JSON.parse((await run(v, ['episode', 'list', '--json'])).stdout).episodes;
    expect(all.map((e: { session_id: string }) => e.session_id)).toEqual(['new-one', '2026-01-21-session-42', 'old-one']);
    expect(all[1]).toMatchObject({ outcome: 'partial', task: 'Fix the flaky login test', decisions: 2, events: 2, duration_minutes: 35, path: NOTE, metrics: { tool_calls: 12 } });
    const ids = async (args: string[]) => JSON.parse((await run(v, ['episode', 'list', '--json', ...args])).stdout).episodes.map((e: { session_id: string }) => e.session_id);
    expect(await ids(['--outcome', 'failure'])).toEqual(['old-one']);
    expect(await ids(['--task', 'LOGIN'])).toEqual(['2026-01-21-session-42']);
    expect(await ids(['--since', '2026-01-01'])).toEqual(['new-one', '2026-01-21-session-42']);
    expect(await ids(['--limit', '1'])).toEqual(['new-one']);
    const human = (await run(v, ['episode', 'list'])).stdout.split('\n');
    expect(human[0]).toMatch(/^2026-01-24T09:00 {2}success {2}Add pagination to the users API {2}EPISODE-new-one$/);
    expect((await run(v, ['episode', 'list', '--limit', '101'])).status).toBe(2);
    expect((await run(v, ['episode', 'list', '--outcome', 'meh'])).status).toBe(2);
    expect((await run(v, ['episode', 'list', '--since', 'last week'])).stderr).toMatch(/^mem: --since must be an ISO 8601 date/);
  });

  it('prints an episode\'s decisions sorted by time, found by session id, note name or permalink', async () => {
    const v = vault();
    await three(v);
    for (const id of ['2026-01-21-session-42', 'EPISODE-2026-01-21-session-42', 'episodes/episode-2026-01-21-session-42', 'EPISODE-2026-01-21-session-42.md']) {
      const r = await run(v, ['episode', 'decisions', id, '--json']);
      expect(r.status, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.decisions.map((d: { id: string }) => d.id)).toEqual(['d001', 'd002']);
      expect(j.decisions[0]).toEqual({ id: 'd001', title: 'retry with backoff', timestamp: '2026-01-21T10:05:00Z', type: 'implementation', context: 'Timeout under load', options: ['sleep 2s', 'retry with backoff'], chosen: 'retry with backoff', rationale: 'sleeping hides the race', outcome: 'success', effects: ['d002', 'e002'] });
    }
    const human = (await run(v, ['episode', 'decisions', 'EPISODE-2026-01-21-session-42'])).stdout;
    expect(human.indexOf('d001')).toBeLessThan(human.indexOf('d002'));
    const missing = await run(v, ['episode', 'decisions', 'nope']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^mem: no episode note "nope"\nhint: /);
  });
});

describe('episode and pattern notes in the index', () => {
  const PATTERN = `---
title: PATTERN-retry-network-calls
type: pattern
tags: [causal, pattern]
permalink: patterns/pattern-retry-network-calls
trigger: a test times out under load
success_rate: 0.9
occurrences: 4
last_validated: '2026-01-20'
---

# PATTERN-retry-network-calls

## Context
Flaky network tests in CI.

## Action
Retry the call with exponential backoff.
`;

  async function seeded() {
    const v = vault();
    await run(v, ['episode', 'add'], JSON.stringify(LOGIN));
    await run(v, ['episode', 'add'], JSON.stringify({ session_id: 'node-up', task: 'Upgrade Node to 22', outcome: 'failure', created_at: '2026-01-24T09:00:00Z', lessons: ['Pin the npm version before upgrading Node'] }));
    fs.mkdirSync(path.join(v.root, '.mem/patterns'), { recursive: true });
    fs.writeFileSync(path.join(v.root, '.mem/patterns/PATTERN-retry-network-calls.md'), PATTERN);
    v.write('MEMORY.md', entry('7c3e9a10-2f4b-4d8e-a1c6-9b0d5e7f3a21', '## Backoff settings live in config/retry.yaml', { type: 'declarative' }));
    return v;
  }

  it('search finds them; --kind episode|pattern|learning and --outcome filter', async () => {
    const v = await seeded();
    const hits = async (args: string[]) => {
      const r = await run(v, ['search', ...args, '--json']);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout).results as { id: string; path: string; title: string }[];
    };
    const all = await hits(['retry backoff']);
    expect(all.some((h) => h.path === NOTE)).toBe(true);
    expect(all.some((h) => h.path === '.mem/patterns/PATTERN-retry-network-calls.md')).toBe(true);
    expect(all.some((h) => h.path === 'MEMORY.md')).toBe(true);
    expect(new Set((await hits(['retry backoff', '--kind', 'episode'])).map((h) => h.path))).toEqual(new Set([NOTE]));
    expect(new Set((await hits(['retry backoff', '--kind', 'pattern'])).map((h) => h.path))).toEqual(new Set(['.mem/patterns/PATTERN-retry-network-calls.md']));
    expect(new Set((await hits(['retry backoff', '--kind', 'learning'])).map((h) => h.path))).toEqual(new Set(['MEMORY.md']));
    // A note is one result, not one per section.
    // Titled with the task / the trigger, so their words find it too.
    expect((await hits(['retry backoff', '--kind', 'episode'])).map((h) => h.title)).toEqual([expect.stringMatching(/^EPISODE-2026-01-21-session-42 — \S/)]);
    expect((await hits(['retry backoff', '--kind', 'pattern'])).map((h) => h.title)).toEqual([expect.stringMatching(/^PATTERN-retry-network-calls — \S/)]);
    expect((await hits(['npm', '--outcome', 'failure'])).map((h) => h.path)).toEqual(['.mem/episodes/EPISODE-node-up.md']);
    expect(await hits(['npm', '--outcome', 'success'])).toEqual([]);
    expect((await hits(['retry', '--outcome', 'partial', '--kind', 'episode'])).every((h) => h.path === NOTE)).toBe(true);
    expect((await run(v, ['search', 'x', '--outcome', 'won'])).status).toBe(2);
    expect((await run(v, ['search', 'x', '--kind', 'patterns'])).status).toBe(2);
  });

  it('list leaves episodes out by default but keeps patterns; --kind episode --outcome lists them; recent shows only segments', async () => {
    const v = await seeded();
    const paths = async (args: string[]) => new Set((JSON.parse((await run(v, ['list', '--json', ...args])).stdout).entries as { path: string }[]).map((e) => e.path));
    expect(await paths([])).toEqual(new Set(['MEMORY.md', '.mem/patterns/PATTERN-retry-network-calls.md']));
    expect(await paths(['--kind', 'episode'])).toEqual(new Set([NOTE, '.mem/episodes/EPISODE-node-up.md']));
    expect(await paths(['--kind', 'episode', '--outcome', 'failure'])).toEqual(new Set(['.mem/episodes/EPISODE-node-up.md']));
    const recent = await run(v, ['recent', '--json']);
    expect(JSON.parse(recent.stdout).episodes).toEqual([]);
  });
});

describe('mem extract writes the episode note', () => {
  const SNIFFLY = path.join(REPO, 'test', 'fixtures', 'transcripts', 'claude', 'claude-v1.0.17-short-push-interrupt.sniffly.jsonl');
  const NO_KEYS = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined };

  it('offline: task, metrics counted from the transcript, outcome, linked to its segments; again: same bytes', async () => {
    const v = vault();
    const dry = JSON.parse((await runMem(['extract', SNIFFLY, '--session', 'push-1', '--json', '--dry-run'], { cwd: v.root, home: v.home, env: NO_KEYS })).stdout);
    expect(dry.episode_note).toMatchObject({ path: '.mem/episodes/EPISODE-push-1.md', outcome: 'success', written: false });
    expect(fs.existsSync(path.join(v.root, '.mem/episodes'))).toBe(false);
    const r = await runMem(['extract', SNIFFLY, '--session', 'push-1', '--json'], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    // Hand-counted: 7 Bash calls; the commit and the push were rejected once each, then ran.
    expect(j.episode_note).toEqual({ path: '.mem/episodes/EPISODE-push-1.md', outcome: 'success', metrics: { tool_calls: 7, errors: 2, recoveries: 2, commits: 1, files_changed: 0, duration_minutes: 1 }, decisions: 0, written: true });
    const md = v.read('.mem/episodes/EPISODE-push-1.md');
    expect(md).toContain('metrics: {tool_calls: 7, errors: 2, recoveries: 2, commits: 1, files_changed: 0}');
    expect(md).toMatch(/^task: /m);
    expect(md).toMatch(/^\d+\. \[2025-06-10T12:3\d:[\d.]+Z\] Bash:git commit failed: .* #error$/m);
    expect(md).toMatch(/^\d+\. \[2025-06-10T12:3\d:[\d.]+Z\] git commit .* #commit$/m);
    expect(md).toContain('- has_segment [[ep-push-1-001]]');
    expect(v.read('.mem/episodes/push-1.md')).toContain('episode_note: EPISODE-push-1');
    const again = await runMem(['extract', SNIFFLY, '--session', 'push-1', '--force', '--json'], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(JSON.parse(again.stdout).episode_note.written).toBe(false);
    expect(v.read('.mem/episodes/EPISODE-push-1.md')).toBe(md);
    // Both listings point at each other.
    const list = JSON.parse((await runMem(['episode', 'list', '--json'], { cwd: v.root, home: v.home })).stdout).episodes;
    expect(list[0]).toMatchObject({ session_id: 'push-1', segments: ['ep-push-1-001'] });
    const recent = JSON.parse((await runMem(['recent', '--json'], { cwd: v.root, home: v.home })).stdout).episodes;
    expect(recent.map((e: { id: string; episode_note?: string }) => [e.id, e.episode_note])).toEqual([['ep-push-1-001', 'EPISODE-push-1']]);
    expect((await runMem(['episode', 'decisions', 'ep-push-1-001', '--json'], { cwd: v.root, home: v.home })).status).toBe(0);
  });

  it('extract.episode_note: false writes none', async () => {
    const v = vault();
    v.write('.mem/config.yaml', 'extract:\n  episode_note: false\n');
    const r = await runMem(['extract', SNIFFLY, '--session', 'push-2', '--json'], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).episode_note).toBeUndefined();
    expect(fs.existsSync(path.join(v.root, '.mem/episodes/EPISODE-push-2.md'))).toBe(false);
    v.write('.mem/config.yaml', 'extract:\n  episode_note: maybe\n');
    expect((await runMem(['extract', SNIFFLY, '--force'], { cwd: v.root, home: v.home, env: NO_KEYS })).stderr).toMatch(/^mem: extract\.episode_note must be true or false/m);
  });

  it('with a model: the same request asks for the outcome and decisions; complete ones are written, timed from their evidence', async () => {
    const answer = {
      learnings: [{ scope: 'project', type: 'procedural', title: 'Push to origin main after committing', body: 'The human asked to push the commit to GitHub; the remote is origin.', evidence: 'push to github', importance: 0.5, phase: 'implementation' }],
      episode: {
        outcome: 'partial',
        decisions: [
          { title: 'Commit everything in one commit', type: 'implementation', context: 'Several new files were untracked', options: ['one commit', 'several commits'], chosen: 'one commit', rationale: 'one feature', outcome: 'success', evidence: 'continue' },
          { title: '', type: 'design', context: 'x', options: [], chosen: 'y', rationale: '', outcome: 'success', evidence: '' },
        ],
      },
    };
    const srv = await fakeServer([{ body: anthropicMessage(answer) }]);
    const v = vault();
    const r = await runMem(['extract', SNIFFLY, '--session', 'push-3', '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url } });
    expect(r.status, r.stderr).toBe(0);
    // The learnings (with the note's outcome and decisions), then the episodes' titles.
    expect(srv.seen.map((s) => s.body.tool_choice.name)).toEqual(['record_learnings', 'record_summaries']);
    const schema = srv.seen[0].body.tools[0].input_schema;
    expect(schema.required).toEqual(['learnings', 'episode']);
    expect(schema.properties.episode.properties.decisions.items.required).toContain('evidence');
    expect(srv.seen[0].body.messages[0].content).toContain('Also fill "episode"');
    const j = JSON.parse(r.stdout);
    expect(j.episode_note).toMatchObject({ outcome: 'partial', decisions: 1, written: true });
    expect(j.episode_note_warning).toMatch(/1 decision\(s\) from the model were incomplete/);
    const dec = JSON.parse((await runMem(['episode', 'decisions', 'push-3', '--json'], { cwd: v.root, home: v.home })).stdout).decisions;
    expect(dec).toHaveLength(1);
    expect(dec[0]).toMatchObject({ id: 'd001', title: 'Commit everything in one commit', chosen: 'one commit', options: ['one commit', 'several commits'], type: 'implementation' });
    expect(dec[0].timestamp).toMatch(/^2025-06-10T12:3\d/);
    expect(v.read('.mem/episodes/EPISODE-push-3.md')).toContain('## Lessons Learned\n- Push to origin main after committing\n');
  });
});

describe('mem import ai-agents (episodes)', () => {
  const FIX = path.join(REPO, 'test', 'fixtures', 'ai-agents');
  const S07 = '.mem/episodes/EPISODE-2026-01-20-session-07.md';
  const S08 = '.mem/episodes/EPISODE-2026-01-21-session-08.md';

  it('turns episode-*.json into notes (decisions and events also as observations), quirks tolerated; again: same bytes', async () => {
    const v = vault();
    const r = await run(v, ['import', 'ai-agents', FIX, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.episodes.map((e: { file: string; action: string; path: string }) => [e.file, e.action, e.path])).toEqual([
      ['episodes/episode-2026-01-20-session-07.json', 'created', S07],
      ['episodes/episode-2026-01-21-session-08.json', 'created', S08],
    ]);
    expect(j.episodes[1].notes).toContain("decisions[0] is plain text: kept as d001's title and choice");
    const a = v.read(S07);
    expect(a).toContain('tags: [episodic, memory, session-07]\npermalink: episodes/episode-2026-01-20-session-07\n');
    expect(a).toContain('duration_minutes: 39\nmetrics: {tool_calls: 27, errors: 1, recoveries: 1, commits: 1, files_changed: 3}\n');
    expect(a).toContain('## Context\nMigrated from ai-agents episodic memory.\n');
    expect(a).toContain('- [decision:d001] retry only when Retry-After is present #design\n');
    expect(a).toContain('- [event:e003] feat: retry secondary rate limits #commit\n');
    expect(a).toContain('- **Effects**: [[d002]], [[e002]]\n');
    expect(a).toContain('1. [2026-01-20T14:03:00Z] Read src/github/client.ts → [[d001]] #tool_call\n');
    expect(a.endsWith('## Relations\n- migrated_from [[ai-agents episodic memory]]\n')).toBe(true);
    const b = v.read(S08);
    // BOM stripped, 7-digit fractions kept, a plain-string decision, nulls dropped.
    expect(b).toContain("created_at: '2026-01-21T09:15:42.1234567+00:00'\noutcome: failure\n");
    expect(b).toContain('metrics: {tool_calls: 14, errors: 3, commits: 0}\n');
    expect(b).toContain('### d001: Use ConvertFrom-Json -AsHashtable instead of custom parsing\n');
    expect(b).toContain('- **Timestamp**: 2026-01-21T09:40:03.9876543Z\n');
    expect(b).toContain('## Lessons Learned\n- Log files may start with a BOM\n\n');
    expect(b).not.toContain('null');
    const dec = JSON.parse((await run(v, ['episode', 'decisions', '2026-01-21-session-08', '--json'])).stdout).decisions;
    expect(dec.map((d: { id: string }) => d.id)).toEqual(['d001', 'd002']);
    const again = await run(v, ['import', 'ai-agents', FIX]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/2 episode files: 0 created, 0 updated, 2 unchanged, 0 failed/);
    expect(v.read(S07)).toBe(a);
    expect(v.read(S08)).toBe(b);
    expect(JSON.parse((await run(v, ['episode', 'list', '--outcome', 'failure', '--json'])).stdout).episodes[0].session_id).toBe('2026-01-21-session-08');
  });

  it('--dry-run lists and writes nothing; a broken file is reported, the rest imported, exit 1', async () => {
    const v = vault();
    const dry = await run(v, ['import', 'ai-agents', FIX, '--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would create ${S07}  (from episodes/episode-2026-01-20-session-07.json)`);
    expect(fs.existsSync(path.join(v.root, '.mem/episodes'))).toBe(false);
    const dir = path.join(v.root, 'export');
    fs.mkdirSync(dir);
    fs.copyFileSync(path.join(FIX, 'episodes', 'episode-2026-01-20-session-07.json'), path.join(dir, 'episode-a.json'));
    fs.writeFileSync(path.join(dir, 'episode-b.json'), '{"session": "x", "outcome": "won"}');
    fs.writeFileSync(path.join(dir, 'episode-c.json'), '{not json');
    const r = await run(v, ['import', 'ai-agents', 'export']);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`created ${S07}`);
    expect(r.stderr).toMatch(/^mem: warning: episode-b\.json: "outcome" must be success, partial or failure \(got "won"\); skipped$/m);
    expect(r.stderr).toMatch(/^mem: warning: episode-c\.json: not valid JSON/m);
    expect((await run(v, ['import', 'ai-agents', 'nowhere'])).stderr).toMatch(/^mem: .*nowhere: no such folder/);
  });
});

describe('episode notes: hostile input', () => {
  it('keeps a note\'s BOM and CRLF on a re-add, only the changed line differs', async () => {
    const v = vault();
    await run(v, ['episode', 'add'], JSON.stringify(LOGIN));
    const file = path.join(v.root, NOTE);
    const crlf = `\ufeff${fs.readFileSync(file, 'utf8').replace(/\n/g, '\r\n')}`;
    fs.writeFileSync(file, crlf);
    expect((await run(v, ['episode', 'add'], JSON.stringify(LOGIN))).stdout).toMatch(/^unchanged: /);
    expect(fs.readFileSync(file, 'utf8')).toBe(crlf);
    await run(v, ['episode', 'add'], JSON.stringify({ ...LOGIN, outcome: 'success' }));
    expect(fs.readFileSync(file, 'utf8')).toBe(crlf.replace('outcome: partial\r\n', 'outcome: success\r\n'));
  });

  it('text fields cannot add sections, links or control characters; the note stays valid', async () => {
    const v = vault();
    const evil = 'x\n## Decisions\n### d999: injected\n- **Effects**: [[PATTERN-evil]]\n```\n\u0000\u001b[31m';
    const r = await run(v, ['episode', 'add'], JSON.stringify({ ...LOGIN, task: evil, lessons: [evil], context: evil, decisions: [{ ...LOGIN.decisions[1], context: evil, chosen: evil, effects: [] }], events: [{ ...LOGIN.events[0], content: evil }] }));
    expect(r.status, r.stderr).toBe(0);
    const md = v.read(NOTE);
    expect(md.match(/^## /gm)).toHaveLength(6);
    expect(md).not.toMatch(/^### d999/m);
    expect(md).not.toContain('[[PATTERN-evil]]');
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    const dec = JSON.parse((await run(v, ['episode', 'decisions', '2026-01-21-session-42', '--json'])).stdout).decisions;
    expect(dec.map((d: { id: string }) => d.id)).toEqual(['d001']);
  });

  it('never writes through a link out of the vault, nor lists notes there; two sessions never share a note', async () => {
    const v = vault();
    const outside = fs.mkdtempSync(path.join(path.dirname(v.root), 'outside-'));
    fs.mkdirSync(path.join(v.root, '.mem'), { recursive: true });
    fs.symlinkSync(outside, path.join(v.root, '.mem/episodes'));
    const r = await run(v, ['episode', 'add'], JSON.stringify(LOGIN));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: refusing to write .*EPISODE-2026-01-21-session-42\.md: it leads out of the vault through a symlink/m);
    expect(fs.readdirSync(outside)).toEqual([]);
    fs.writeFileSync(path.join(outside, 'EPISODE-x.md'), '---\ntitle: EPISODE-x\ntype: episode\ntags: [episodic]\noutcome: failure\ntask: secret\n---\n');
    expect(JSON.parse((await run(v, ['episode', 'list', '--json'])).stdout).episodes).toEqual([]);
    fs.rmSync(path.join(v.root, '.mem/episodes'));
    await run(v, ['episode', 'add'], JSON.stringify({ session_id: 'a-b', task: 't', outcome: 'success' }));
    const clash = await run(v, ['episode', 'add'], JSON.stringify({ session_id: 'a/b', task: 't', outcome: 'failure' }));
    expect(clash.status).toBe(1);
    expect(clash.stderr).toMatch(/^mem: \.mem\/episodes\/EPISODE-a-b\.md is the episode note of session "a-b", not "a\/b"; not rewriting it/);
  });
});
