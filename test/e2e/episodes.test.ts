import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DESIGN, FIX, vault } from '../fixtures/episodes.js';
import { cleanup, entry, tempDir } from '../helpers.js';
import { run } from '../run.js';
import { CSS_TURNS, DB_TURNS } from '../topics.js';

afterEach(cleanup);

const DESIGN_SESSION = '63784323-7042-4ab8-82b1-3c0b79467bf9';
const NIGHT = path.join(FIX, 'claude', 'claude-v2.1.7-MALFORMED-concatenated-line.entire.jsonl');
const EPISODE_FILE = `.mem/episodes/${DESIGN_SESSION}.md`;

const DB_TOPIC = DB_TURNS.slice(0, 6);
const CSS_TOPIC = CSS_TURNS;

/** A session that switches topic (a key moment), one minute between messages, from 2026-02-03 10:00. */
function switchTranscript(dir: string): string {
  return claudeTranscript(dir, 'switch.jsonl', [...DB_TOPIC, ...CSS_TOPIC].map((t, i) =>
    [i % 2 ? 'assistant' : 'user', t, new Date(Date.parse('2026-02-03T10:00:00Z') + i * 60_000).toISOString()]));
}

/** A Claude Code JSONL transcript of [role, text, timestamp] messages. */
function claudeTranscript(dir: string, name: string, rows: [string, string, string][]): string {
  const p = path.join(dir, name);
  const lines = rows.map(([role, text, timestamp], i) => JSON.stringify(role === 'user'
    ? { type: 'user', sessionId: 'chat-1', timestamp, uuid: `u${i}`, message: { role: 'user', content: text } }
    : { type: 'assistant', sessionId: 'chat-1', timestamp, uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text }] } }));
  fs.writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

describe('mem segment', () => {
  it('writes the session\'s episodes: valid entries, found by search, filtered by --kind', async () => {
    const v = vault();
    v.write('MEMORY.md', entry('0b6f2a52-4c1d-4e8a-9d3e-5a7c1e2f9b10', '## Shadow branches need a numeric suffix per session', { type: 'directive' }));
    const r = await run(['segment', DESIGN], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    // Time range, surprise, title, message range; key moments marked.
    expect(lines[0]).toMatch(/^[★ ] 2026-01-29 15:12–\d\d:\d\d {2}0\.\d\d {2}Are there git hooks .* \(messages 1–\d+, start\)$/);
    expect(r.stderr).toMatch(new RegExp(`\\d+ episodes from \\d+ messages → ${EPISODE_FILE.replace(/\./g, '\\.')}`));
    const text = v.read(EPISODE_FILE);
    expect(text).toMatch(/^kind: episode$/m);
    expect(text).toMatch(/^fsrs: \{stability: [\d.]+, difficulty: 2\.118, state: Review, last_review: '2026-01-29T[^']+', reps: 0, lapses: 0\}$/m);
    expect(text).toMatch(/^consolidated_at: null$/m);
    // The messages are kept in the git-ignored local store, not in the committed file.
    expect(text).not.toMatch(/^<details>$/m);
    expect(v.read(EPISODE_FILE.replace('.mem/episodes/', '.mem/local/episodes/'))).toMatch(/^<details>$/m);
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);

    const hits = (await run(['search', 'shadow branch suffix', '--json'], { cwd: v.root, home: v.home })).json();
    expect(hits.results.some((h: any) => h.path === EPISODE_FILE)).toBe(true);
    expect(hits.results.some((h: any) => h.path === 'MEMORY.md')).toBe(true);
    const eps = (await run(['search', 'shadow branch suffix', '--kind', 'episode', '--json'], { cwd: v.root, home: v.home })).json();
    expect(eps.results.length).toBeGreaterThan(0);
    expect(eps.results.every((h: any) => h.path === EPISODE_FILE)).toBe(true);
    const learnings = (await run(['search', 'shadow branch suffix', '--kind', 'learning', '--json'], { cwd: v.root, home: v.home })).json();
    expect(learnings.results.map((h: any) => h.path)).toEqual(['MEMORY.md']);
    const listed = (await run(['list', '--kind', 'episode', '--json'], { cwd: v.root, home: v.home })).json();
    expect(listed.entries.length).toBe(lines.length);
    expect(listed.entries[0].id).toBe(`ep-${DESIGN_SESSION}-001`);
    // A prompt's context holds learnings, not episodes, unless asked.
    const ctx = await run(['context', 'shadow branch suffix'], { cwd: v.root, home: v.home });
    expect(ctx.stdout).toContain('numeric suffix');
    expect(ctx.stdout).not.toContain('ep-');
    expect((await run(['context', 'shadow branch suffix', '--kind', 'episode', '--json'], { cwd: v.root, home: v.home })).stdout).toContain(`ep-${DESIGN_SESSION}`);
    const stats = (await run(['stats', '--json'], { cwd: v.root, home: v.home })).json();
    expect(stats.by_kind.episode).toBe(lines.length);
  });

  it('re-segmenting the same session rewrites nothing; a reviewed episode keeps its FSRS state; CRLF and BOM are kept', async () => {
    const v = vault();
    expect((await run(['segment', DESIGN], { cwd: v.root, home: v.home })).status).toBe(0);
    const first = fs.readFileSync(v.path(EPISODE_FILE));
    const again = await run(['segment', DESIGN], { cwd: v.root, home: v.home });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/already up to date/);
    expect(fs.readFileSync(v.path(EPISODE_FILE)).equals(first)).toBe(true);
    // A review (by mem review, here by hand) and a consolidation survive a re-segment.
    const reviewed = first.toString('utf8')
      .replace(/^fsrs: \{stability: [\d.]+,/m, 'fsrs: {stability: 9.5,')
      .replace(/^consolidated_at: null$/m, "consolidated_at: '2026-02-01'");
    const crlf = `\ufeff${reviewed.replace(/\n/g, '\r\n')}`;
    fs.writeFileSync(v.path(EPISODE_FILE), crlf);
    const third = await run(['segment', DESIGN], { cwd: v.root, home: v.home });
    expect(third.status, third.stderr).toBe(0);
    expect(third.stderr).toMatch(/already up to date/);
    expect(fs.readFileSync(v.path(EPISODE_FILE), 'utf8')).toBe(crlf);
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);
  });

  it('--dry-run writes nothing; --json gives every episode', async () => {
    const v = vault();
    const r = await run(['segment', NIGHT, '--dry-run', '--json'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const out = r.json();
    expect(out).toMatchObject({ format: 'claude', dry_run: true, written: false });
    expect(out.path).toMatch(/^\.mem\/episodes\/[\w.-]+\.md$/);
    expect(out.episodes.length).toBeGreaterThanOrEqual(2);
    expect(out.episodes.some((e: any) => e.boundary === 'gap')).toBe(true);
    for (const e of out.episodes) {
      expect(Object.keys(e).sort()).toEqual(['boundary', 'end_at', 'id', 'key_moment', 'message_end', 'message_start', 'messages', 'start_at', 'summary', 'surprise', 'title']);
      expect(e.key_moment).toBe(e.surprise >= 0.7);
    }
    expect(fs.existsSync(v.path('.mem/episodes'))).toBe(false);
    const human = await run(['segment', NIGHT, '--dry-run'], { cwd: v.root, home: v.home });
    expect(human.stderr).toMatch(/dry run, nothing written/);
  });

  it('reads any format extract reads, and follows the episodes: config', async () => {
    const v = vault();
    const dir = tempDir();
    const rows: [string, string, string][] = [
      ['user', 'The orders migration fails on postgres with a missing column error.', '2026-03-01T10:00:00Z'],
      ['assistant', 'The orders migration adds the postgres index before the column exists.', '2026-03-01T10:01:00Z'],
      ['user', 'Reorder the orders migration so the column comes before the index.', '2026-03-01T10:02:00Z'],
      ['assistant', 'Done: the orders migration creates the column first, postgres is happy.', '2026-03-01T10:03:00Z'],
      ['user', 'Run the orders migration on the test postgres database please.', '2026-03-01T10:30:00Z'],
      ['assistant', 'The orders migration ran cleanly on the test postgres database.', '2026-03-01T10:31:00Z'],
    ];
    const file = claudeTranscript(dir, 'chat.jsonl', rows);
    const r = await run(['segment', file, '--json'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().episodes.map((e: any) => [e.message_start, e.boundary])).toEqual([[1, 'start'], [5, 'gap']]);
    expect(fs.existsSync(v.path('.mem/episodes/chat-1.md'))).toBe(true);
    v.write('.mem/config.yaml', 'episodes:\n  gap_minutes: 60\n  surprise_threshold: 1\n');
    const wide = (await run(['segment', file, '--json'], { cwd: v.root, home: v.home })).json();
    expect(wide.episodes).toHaveLength(1);
    // The file now holds the one episode: the session's file is replaced, not appended to.
    expect((await run(['list', '--kind', 'episode', '--json'], { cwd: v.root, home: v.home })).json().entries).toHaveLength(1);
    // A JSON array of {role, content} (no times), with a session named on the command line.
    const arr = path.join(dir, 'chat.json');
    fs.writeFileSync(arr, JSON.stringify(rows.map(([role, content]) => ({ role, content }))));
    const plain = await run(['segment', arr, '--session', 'arr-1', '--json'], { cwd: v.root, home: v.home });
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.json()).toMatchObject({ format: 'messages', session_id: 'arr-1', path: '.mem/episodes/arr-1.md' });
    expect(plain.json().episodes[0]).toMatchObject({ start_at: null, end_at: null });
  });

  it('says what went wrong: a missing transcript, a bad --kind, a bad session id', async () => {
    const v = vault();
    const missing = await run(['segment', 'nope.jsonl'], { cwd: v.root, home: v.home });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^mem: transcript not found \(nope\.jsonl\)/);
    const kind = await run(['search', 'x', '--kind', 'facts'], { cwd: v.root, home: v.home });
    expect(kind.status).toBe(2);
    expect(kind.stderr).toMatch(/unknown kind "facts"/);
    expect((await run(['segment', DESIGN, '--session', '../x'], { cwd: v.root, home: v.home })).status).not.toBe(0);
    expect(fs.existsSync(v.path('.mem/episodes'))).toBe(false);
  });

  it('never writes through a link out of the vault', async () => {
    const v = vault();
    const outside = path.join(tempDir(), 'elsewhere.md');
    fs.writeFileSync(outside, 'mine\n');
    fs.mkdirSync(v.path('.mem/episodes'), { recursive: true });
    fs.symlinkSync(outside, v.path(EPISODE_FILE));
    const r = await run(['segment', DESIGN], { cwd: v.root, home: v.home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: /);
    expect(fs.readFileSync(outside, 'utf8')).toBe('mine\n');
  });
});

describe('mem extract segments as it extracts', () => {
  const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };

  it('leaves both learnings and the session\'s episodes; not on a dry run; not with extract.episodes: false', async () => {
    const v = vault();
    const dry = await run(['extract', DESIGN, '--dry-run', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(dry.status, dry.stderr).toBe(0);
    expect(fs.existsSync(v.path('.mem/episodes'))).toBe(false);
    const r = await run(['extract', DESIGN, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    const out = r.json();
    expect(out.episodes).toMatchObject({ path: EPISODE_FILE, written: true });
    expect(out.episodes.count).toBeGreaterThanOrEqual(4);
    // The same episodes as mem segment writes: segmenting again changes nothing.
    const again = await run(['segment', DESIGN], { cwd: v.root, home: v.home });
    expect(again.stderr).toMatch(/already up to date/);
    // Indexed right away: recent lists them, list keeps to learnings.
    expect((await run(['recent', '--no-refresh', '--json', '--limit', '100'], { cwd: v.root, home: v.home })).json().episodes).toHaveLength(out.episodes.count);
    const listed = (await run(['list', '--json'], { cwd: v.root, home: v.home })).json().entries;
    expect(listed.every((e: any) => !String(e.id).startsWith('ep-'))).toBe(true);
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);

    const off = vault();
    off.write('.mem/config.yaml', 'extract:\n  episodes: false\n');
    const r2 = await run(['extract', DESIGN, '--json'], { cwd: off.root, home: off.home, env: OFFLINE });
    expect(r2.status, r2.stderr).toBe(0);
    expect(r2.json().episodes).toBeUndefined();
    // No segment file; the session's episode note (extract.episode_note) is a separate setting.
    expect(fs.readdirSync(off.path('.mem/episodes')).filter((n) => !n.startsWith('EPISODE-'))).toEqual([]);
    off.write('.mem/config.yaml', 'extract:\n  episodes: maybe\n');
    const bad = await run(['extract', DESIGN], { cwd: off.root, home: off.home, env: OFFLINE });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/extract\.episodes must be true or false/);
  });
});

describe('mem recent', () => {
  it('lists episodes newest first, by session, by days, with a limit', async () => {
    const v = vault();
    expect((await run(['segment', NIGHT], { cwd: v.root, home: v.home })).status).toBe(0);
    expect((await run(['segment', DESIGN], { cwd: v.root, home: v.home })).status).toBe(0);
    const all = (await run(['recent', '--limit', '100', '--json'], { cwd: v.root, home: v.home })).json().episodes;
    expect(all.length).toBeGreaterThan(5);
    const ends = all.map((e: any) => Date.parse(e.end_at));
    expect([...ends].sort((a, b) => b - a)).toEqual(ends);
    // The design session (2026-01-29) is newer than the other (2026-01-20/21).
    expect(all[0].session_id).toBe(DESIGN_SESSION);
    expect(all[all.length - 1].session_id).not.toBe(DESIGN_SESSION);
    expect(Object.keys(all[0]).sort()).toEqual(['end_at', 'id', 'key_moment', 'line', 'path', 'session_id', 'start_at', 'summary', 'surprise', 'title']);

    expect((await run(['recent', '--json'], { cwd: v.root, home: v.home })).json().episodes).toHaveLength(Math.min(10, all.length));
    expect((await run(['recent', '--limit', '2', '--json'], { cwd: v.root, home: v.home })).json().episodes.map((e: any) => e.id)).toEqual(all.slice(0, 2).map((e: any) => e.id));
    const other = all[all.length - 1].session_id;
    const bySession = (await run(['recent', '--session', other, '--json'], { cwd: v.root, home: v.home })).json().episodes;
    expect(bySession.length).toBeGreaterThan(0);
    expect(bySession.every((e: any) => e.session_id === other)).toBe(true);
    // Two days after the design session: only its episodes are that recent.
    const recentDays = (await run(['recent', '--days', '2', '--limit', '100', '--json'], { cwd: v.root, home: v.home, env: { MEM_NOW: '2026-01-30T12:00:00Z' } })).json().episodes;
    expect(recentDays.length).toBeGreaterThan(0);
    expect(recentDays.every((e: any) => e.session_id === DESIGN_SESSION)).toBe(true);

    const human = await run(['recent', '--limit', '3'], { cwd: v.root, home: v.home });
    expect(human.status).toBe(0);
    expect(human.stdout.trim().split('\n')).toHaveLength(3);
    expect(human.stdout).toMatch(/^[★ ] 2026-01-29 \d\d:\d\d–\d\d:\d\d {2}0\.\d\d {2}.+ {2}ep-63784323-/m);
  });

  it('--detail: auto shows the messages of key moments ranked 1-2, full of every episode, none of none', async () => {
    const v = vault();
    expect((await run(['segment', DESIGN], { cwd: v.root, home: v.home })).status).toBe(0);
    const seg = await run(['segment', switchTranscript(v.root)], { cwd: v.root, home: v.home });
    expect(seg.stdout).toMatch(/^★ 2026-02-03 10:06/m);
    const recent = async (detail: string) => (await run(['recent', '--detail', detail, '--limit', '5', '--json'], { cwd: v.root, home: v.home })).json().episodes;
    const none = await recent('none');
    expect(none.every((e: any) => e.messages === undefined)).toBe(true);
    const auto = await recent('auto');
    auto.forEach((e: any, i: number) => expect(e.messages !== undefined, `rank ${i + 1}`).toBe(i < 2 && e.key_moment));
    expect(auto.filter((e: any) => e.messages).length).toBeGreaterThan(0);
    const full = await recent('full');
    for (const e of full) {
      expect(e.messages).toMatch(/^\*\*(user|assistant)\*\* · 2026-0[12]-\d\dT/);
      expect(e.messages).toMatch(/^> /m);
      expect(e.messages).not.toMatch(/<\/?details>|<summary>/);
    }
    const human = await run(['recent', '--detail', 'full', '--limit', '1'], { cwd: v.root, home: v.home });
    expect(human.stdout).toMatch(/\n {4}\*\*user\*\* · /);
    expect(human.stdout).toMatch(/\n {4}> /);
    const bad = await run(['recent', '--detail', 'some'], { cwd: v.root, home: v.home });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown --detail "some"/);
  });

  it('says so when there are no episodes; rejects a bad --limit', async () => {
    const v = vault();
    const r = await run(['recent'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no episodes/);
    expect((await run(['recent', '--limit', '0'], { cwd: v.root, home: v.home })).status).toBe(2);
  });
});
