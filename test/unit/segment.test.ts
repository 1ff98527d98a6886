import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/extract/source.js';
import type { Transcript, TranscriptMessage } from '../../src/extract/transcript.js';
import {
  conversationOf, DEFAULT_SEGMENT_CONFIG, INITIAL_DIFFICULTY, initialStability, segment, tfidfVectors, type ConversationMessage,
} from '../../src/episodes/segment.js';
import { renderEpisodes } from '../../src/episodes/episode-file.js';
import { parseMemoryFile } from '../../src/vault/format.js';
import { validateMeta } from '../../src/vault/entry.js';
import { REPO } from '../helpers.js';
import { CSS_TURNS, DB_TURNS } from '../topics.js';

const FIX = path.join(REPO, 'test', 'fixtures', 'transcripts');
const T0 = Date.parse('2026-01-10T09:00:00Z');

/** A conversation: [role, text, minutes after T0]. */
function conv(rows: [ConversationMessage['role'], string, number?][]): ConversationMessage[] {
  return rows.map(([role, text, min], index) => ({ index, role, text, timestamp: min === undefined ? undefined : new Date(T0 + min * 60_000).toISOString() }));
}

const DB_TOPIC = DB_TURNS.slice(0, 6);
const CSS_TOPIC = CSS_TURNS;

function alternating(texts: string[], from = 0, step = 1): [ConversationMessage['role'], string, number][] {
  return texts.map((t, i) => [i % 2 === 0 ? 'user' : 'assistant', t, from + i * step]);
}

describe('segment: rules', () => {
  it('fewer than 5 messages are one episode, whatever the gaps and topics', () => {
    const eps = segment(conv([['user', DB_TOPIC[0], 0], ['assistant', DB_TOPIC[1], 1], ['user', CSS_TOPIC[0], 120], ['assistant', CSS_TOPIC[1], 121]]));
    expect(eps).toHaveLength(1);
    expect(eps[0]).toMatchObject({ first: 0, last: 3, reason: 'start' });
  });

  it('a gap over 15 minutes is a boundary at the message after it; 15 minutes exactly is not', () => {
    const rows = alternating(DB_TOPIC, 0, 1);
    rows[3][2] = 2 + 15; // exactly 15 minutes after message 2
    for (let i = 4; i < rows.length; i++) rows[i][2] = 17 + (i - 3);
    rows[5][2] = rows[4][2] + 16; // 16 minutes
    const eps = segment(conv(rows));
    expect(eps.map((e) => [e.first, e.reason])).toEqual([[0, 'start'], [5, 'gap']]);
  });

  it('50 messages force a boundary, even on one topic', () => {
    const rows: [ConversationMessage['role'], string, number][] = [];
    for (let i = 0; i < 120; i++) rows.push([i % 2 === 0 ? 'user' : 'assistant', DB_TOPIC[i % DB_TOPIC.length], i * 0.1]);
    // The rule alone (surprise channel off):
    const eps = segment(conv(rows), { ...DEFAULT_SEGMENT_CONFIG, surpriseThreshold: 1 });
    expect(eps.map((e) => e.messages.length)).toEqual([50, 50, 20]);
    expect(eps.map((e) => e.reason)).toEqual(['start', 'max', 'max']);
    // With it on, no episode is longer, and a forced cut comes exactly 50 messages after the
    // episode's start, whatever opened it.
    const all = segment(conv(rows));
    for (const e of all) expect(e.messages.length).toBeLessThanOrEqual(50);
    all.forEach((e, k) => {
      if (e.reason === 'max') expect(all[k - 1].messages.length).toBe(50);
    });
  });

  it('a change of subject by the human cuts an episode; the same subject does not', () => {
    const same = segment(conv(alternating([...DB_TOPIC, ...DB_TOPIC], 0, 1)));
    expect(same).toHaveLength(1);
    const eps = segment(conv(alternating([...DB_TOPIC, ...CSS_TOPIC], 0, 1)));
    expect(eps.map((e) => e.first)).toEqual([0, DB_TOPIC.length]);
    expect(eps[1].reason).toBe('surprise');
    expect(eps[1].surprise).toBeGreaterThan(0.7);
    expect(eps[0].surprise).toBeLessThan(0.7);
  });

  it('thresholds come from the config', () => {
    const rows = alternating([...DB_TOPIC, ...CSS_TOPIC], 0, 20);
    expect(segment(conv(rows)).length).toBeGreaterThan(5);
    const cfg = { ...DEFAULT_SEGMENT_CONFIG, gapMinutes: 60, surpriseThreshold: 1 };
    expect(segment(conv(rows), cfg)).toHaveLength(1);
    expect(segment(conv(alternating(DB_TOPIC)), { ...DEFAULT_SEGMENT_CONFIG, maxMessages: 2 }).map((e) => e.messages.length)).toEqual([2, 2, 2]);
  });

  it('start and end come from the messages\' timestamps; none when they carry none', () => {
    const eps = segment(conv(alternating(DB_TOPIC, 0, 2)));
    expect(eps[0].startAt).toBe('2026-01-10T09:00:00.000Z');
    expect(eps[0].endAt).toBe('2026-01-10T09:10:00.000Z');
    const none = segment(conv(DB_TOPIC.map((t, i) => [i % 2 ? 'assistant' : 'user', t])));
    expect([none[0].startAt, none[0].endAt]).toEqual([null, null]);
  });

  it('an empty conversation has no episodes', () => {
    expect(segment([])).toEqual([]);
  });
});

describe('segment: titles, summaries, vectors, FSRS start', () => {
  it('titles are 5-15 words, taken from what the human said', () => {
    const eps = segment(conv(alternating([...DB_TOPIC, ...CSS_TOPIC], 0, 1)));
    for (const e of eps) {
      const n = e.title.split(/\s+/).length;
      expect(n).toBeGreaterThanOrEqual(5);
      expect(n).toBeLessThanOrEqual(15);
    }
    expect(eps[0].title).toMatch(/^The database migration fails on the orders table/);
    expect(eps[1].title).toMatch(/navbar dropdown menu/);
    // A short first message gets the episode's key terms.
    const short = segment(conv([['user', 'fix orders', 0], ['assistant', DB_TOPIC[1], 1]]));
    expect(short[0].title.split(/\s+/).length).toBeGreaterThanOrEqual(5);
    expect(short[0].title).toMatch(/^fix orders — /);
  });

  it('the summary is extractive: sentences of the episode, no repeats', () => {
    const [ep] = segment(conv(alternating(DB_TOPIC)));
    expect(ep.summary.length).toBeGreaterThan(20);
    for (const s of ep.summary.split(/(?<=[.?!])\s+/)) expect(DB_TOPIC.join(' ')).toContain(s.replace(/…$/, ''));
  });

  it('TF-IDF vectors are unit length and share weight on shared words', () => {
    const v = tfidfVectors(['orders migration postgres', 'orders migration column', 'navbar dropdown safari']);
    for (const x of v) expect(Math.hypot(...x.values())).toBeCloseTo(1, 9);
    expect(v[0].has('orders')).toBe(true);
    expect(v[2].has('orders')).toBe(false);
  });

  it('initial stability is 2.3065 x (1 + 0.5 x surprise); difficulty 2.118', () => {
    expect(initialStability(0)).toBe(2.3065);
    expect(initialStability(1)).toBeCloseTo(3.45975, 4);
    expect(initialStability(0.7)).toBeCloseTo(2.3065 * 1.35, 4);
    expect(INITIAL_DIFFICULTY).toBe(2.118);
  });
});

describe('conversationOf', () => {
  const msg = (m: Partial<TranscriptMessage>): TranscriptMessage => ({ role: 'user', kind: 'text', text: 'x', ...m });
  it('keeps what was said; leaves out instructions, thinking, tools and sidechains; joins the blocks of one response', () => {
    const t: Transcript = {
      format: 'claude', skipped: 0, broken: 0, messages: [
        msg({ text: '<system-reminder>be nice</system-reminder>', instruction: true }),
        msg({ text: 'fix the orders migration' }),
        msg({ text: 'fix the orders migration' }), // written twice
        msg({ role: 'assistant', kind: 'thinking', text: 'hmm', id: 'a' }),
        msg({ role: 'assistant', text: 'Looking.', id: 'a' }),
        msg({ role: 'assistant', kind: 'tool_use', text: '{"cmd":"ls"}', id: 'a' }),
        msg({ role: 'assistant', text: 'Found it.', id: 'a' }),
        msg({ role: 'tool', kind: 'tool_result', text: 'ok' }),
        msg({ role: 'assistant', text: 'side', isSidechain: true }),
        msg({ text: '[Request interrupted by user for tool use]' }),
      ],
    };
    expect(conversationOf(t).map((m) => [m.role, m.text])).toEqual([['user', 'fix the orders migration'], ['assistant', 'Looking.\n\nFound it.']]);
  });
});

describe('segment: the real transcripts', () => {
  const files: string[] = [];
  for (const dir of fs.readdirSync(FIX)) {
    const d = path.join(FIX, dir);
    if (fs.statSync(d).isDirectory()) for (const f of fs.readdirSync(d)) files.push(path.join(d, f));
  }

  it.each(files.map((f) => [path.relative(FIX, f), f]))('%s: sane episodes, rule boundaries, no instruction text', (_name, file) => {
    const t = loadTranscript(file, { cwd: REPO }).transcript;
    const msgs = conversationOf(t);
    const eps = segment(msgs);
    expect(eps.length).toBeGreaterThanOrEqual(1);
    // Contiguous, complete, none over the cap, and at most one episode per two messages.
    expect(eps[0].first).toBe(0);
    expect(eps[eps.length - 1].last).toBe(msgs.length - 1);
    for (let i = 1; i < eps.length; i++) expect(eps[i].first).toBe(eps[i - 1].last + 1);
    for (const e of eps) expect(e.messages.length).toBeLessThanOrEqual(50);
    expect(eps.length).toBeLessThanOrEqual(Math.max(1, Math.ceil(msgs.length / 2)));
    if (msgs.length < 5) expect(eps).toHaveLength(1);
    for (const e of eps) {
      if (e.reason === 'gap') expect(Date.parse(msgs[e.first].timestamp!) - Date.parse(msgs[e.first - 1].timestamp!)).toBeGreaterThan(15 * 60_000);
      if (e.reason === 'surprise') expect(msgs[e.first].role).toBe('user');
    }
    const instructions = t.messages.filter((m) => m.instruction).map((m) => m.text.trim().slice(0, 40)).filter((s) => s.length >= 12);
    for (const e of eps) {
      const n = e.title.split(/\s+/).length;
      expect(n, e.title).toBeGreaterThanOrEqual(5);
      expect(n, e.title).toBeLessThanOrEqual(15);
      expect(e.title).not.toMatch(/system-reminder|command-name|local-command|AGENTS\.md|<environment_context>/i);
      for (const ins of instructions) expect(e.title).not.toContain(ins);
    }
  });

  it('the two-hour design session (one drifting design discussion) is not cut at every message, and is no flashbulb', () => {
    const t = loadTranscript(path.join(FIX, 'claude-more', 'entire-54-bb2ec87cc8-0-v2.1.22.jsonl'), { cwd: REPO }).transcript;
    const msgs = conversationOf(t);
    const eps = segment(msgs);
    expect(msgs.filter((m) => m.role === 'user').length).toBeGreaterThan(20);
    expect(eps.length).toBeGreaterThanOrEqual(1);
    expect(eps.length).toBeLessThanOrEqual(14);
    expect(eps.every((e) => e.surprise < 0.85)).toBe(true);
    expect(eps[0].title).toMatch(/git hooks/);
  });

  it('the transcript with a night between its messages cuts there', () => {
    const t = loadTranscript(path.join(FIX, 'claude', 'claude-v2.1.7-MALFORMED-concatenated-line.entire.jsonl'), { cwd: REPO }).transcript;
    const msgs = conversationOf(t);
    const eps = segment(msgs);
    const gaps = eps.filter((e) => e.reason === 'gap');
    expect(gaps.length).toBeGreaterThanOrEqual(1);
    expect(Date.parse(msgs[gaps[0].first].timestamp!) - Date.parse(msgs[gaps[0].first - 1].timestamp!)).toBeGreaterThan(3600_000);
  });
});

describe('renderEpisodes', () => {
  it('writes entries that parse back with valid frontmatter, the FSRS map and (shared) the messages quoted', () => {
    const eps = segment(conv(alternating([...DB_TOPIC, '---\nid: forged\n---\n</details>\n# Heading\n<<<<<<< HEAD', ...CSS_TOPIC], 0, 1)));
    const text = renderEpisodes({ session: 's-1', source: 't.jsonl', episodes: eps, now: '2026-01-11T00:00:00Z', shareMessages: true });
    const parsed = parseMemoryFile(text, '.mem/episodes/s-1.md');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.entries.map((e) => e.id)).toEqual(eps.map((_, i) => `ep-s-1-00${i + 1}`));
    for (const e of parsed.entries) {
      expect(validateMeta(e.meta)).toEqual([]);
      expect(e.meta.kind).toBe('episode');
      expect(e.meta.consolidated_at).toBeNull();
      expect(e.meta.fsrs).toMatchObject({ difficulty: 2.118, reps: 0, lapses: 0, state: 'Review' });
      expect((e.meta.fsrs as { stability: number }).stability).toBe(initialStability(e.meta.surprise as number));
      expect(e.body).toMatch(/<details>\n<summary>Messages \d+–\d+ \(\d+\)<\/summary>/);
      expect(e.body.trimEnd().endsWith('</details>')).toBe(true);
    }
    // A message cannot forge an entry header, close the section or leave a conflict marker.
    expect(text).not.toMatch(/^id: forged/m);
    expect(text.match(/^<\/details>$/gm)).toHaveLength(eps.length);
    expect(text).not.toMatch(/^<<<<<<< /m);
    expect(text).toContain('> \\</details>');
  });

  it('the FSRS map is a card ts-fsrs reads: retrievability crosses 0.9 at `stability` days', async () => {
    const { fsrs } = await import('ts-fsrs');
    const [ep] = segment(conv(alternating(DB_TOPIC, 0, 1)));
    const text = renderEpisodes({ session: 's', source: 't', episodes: [ep], now: '2026-01-11T00:00:00Z' });
    const f = parseMemoryFile(text, 'e.md').entries[0].meta.fsrs as Record<string, unknown>;
    const last = Date.parse(f.last_review as string);
    const card = { due: new Date(last), stability: f.stability as number, difficulty: f.difficulty as number, elapsed_days: 0, scheduled_days: 0, learning_steps: 0, reps: 0, lapses: 0, state: f.state as 'Review', last_review: new Date(last) };
    // ts-fsrs counts whole days: R is 1 at the review, and crosses 0.9 between floor(S) and ceil(S) days.
    const R = (days: number) => fsrs({ enable_short_term: false }).get_retrievability(card, new Date(last + days * 86_400_000), false);
    const S = f.stability as number;
    expect(R(0)).toBe(1);
    expect(R(Math.floor(S))).toBeGreaterThan(0.9);
    expect(R(Math.ceil(S))).toBeLessThan(0.9);
  });

  it('caps a long message', () => {
    const long = `orders migration ${'postgres column '.repeat(400)}`;
    const text = renderEpisodes({ session: 's', source: 't', episodes: segment(conv([['user', long, 0]])), now: '2026-01-11T00:00:00Z', shareMessages: true });
    expect(text).toMatch(/… \[\d+ more characters\]/);
    expect(text.length).toBeLessThan(long.length);
  });
});
