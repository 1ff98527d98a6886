// Telling a transcript's format when the file is longer than the head mem first reads of it: a
// JSON document (a Gemini CLI session, a `[{role, content}]` array) by its structure, not by
// whether a cut-off head parses; JSON lines by their first line, however long; anything else as
// text, as before.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/extract/source.js';
import { detectHead, MESSAGE_CAP, readTranscript } from '../../src/extract/transcript.js';
import { REPO } from '../helpers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-large-docs-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What loadTranscript reads before it picks a format. */
const HEAD = 256 << 10;
const bytes = (s: string) => Buffer.byteLength(s);
const CORRECTION = "No, don't use npm here, always use pnpm.";

let files = 0;
function load(text: string, name = 'session.json') {
  const file = path.join(dir, `${files++}-${name}`);
  fs.writeFileSync(file, text);
  return loadTranscript(file, { cwd: dir }).transcript;
}

/** A Gemini CLI session of `n` exchanges, laid out as the CLI writes it (two-space indents) unless `indent` is 0. */
function gemini(n: number, indent = 2): string {
  const messages = [];
  for (let i = 0; i < n; i++) {
    messages.push({ id: `u-${i}`, timestamp: '2026-11-20T10:00:00.000Z', type: 'user', content: CORRECTION });
    messages.push({ id: `g-${i}`, timestamp: '2026-11-20T10:00:05.000Z', type: 'gemini', content: 'Understood, pnpm from now on.', tokens: { input: 120, output: 9 }, model: 'gemini-2.5-flash' });
  }
  return JSON.stringify({ sessionId: 'g-big', projectHash: 'a'.repeat(64), startTime: '2026-11-20T10:00:00.000Z', lastUpdated: '2026-11-20T11:00:00.000Z', messages }, null, indent || undefined);
}

/** A `[{role, content}]` array of `n` exchanges, as Python's json.dumps writes it unless `indent` is given. */
function roleContent(n: number, indent = 0): string {
  const messages = [];
  for (let i = 0; i < n; i++) messages.push({ role: 'user', content: CORRECTION }, { role: 'assistant', content: 'ok' });
  return indent ? JSON.stringify(messages, null, indent) : JSON.stringify(messages).replace(/","/g, '", "').replace(/":"/g, '": "').replace(/},\{/g, '}, {');
}

/** The exchanges of `build` that fit in `max` bytes at most: the largest n, and its text. */
function atMost(build: (n: number) => string, max: number): { n: number; text: string } {
  const one = bytes(build(1));
  let n = Math.max(1, Math.floor((max - one) / (bytes(build(2)) - one)) + 1);
  while (n > 1 && bytes(build(n)) > max) n--;
  while (bytes(build(n + 1)) <= max) n++;
  return { n, text: build(n) };
}

/** Just under the head (the whole file in it), just over it, and well over it. */
function sizes(build: (n: number) => string): { n: number; text: string; what: string }[] {
  const under = atMost(build, HEAD);
  const over = { n: under.n + 1, text: build(under.n + 1) };
  const far = atMost(build, 4 * HEAD);
  expect(bytes(under.text)).toBeGreaterThan(HEAD - 1024);
  expect(bytes(under.text)).toBeLessThanOrEqual(HEAD);
  expect(bytes(over.text)).toBeGreaterThan(HEAD);
  return [
    { ...under, what: `just under the head (${bytes(under.text)} bytes)` },
    { ...over, what: `just over the head (${bytes(over.text)} bytes)` },
    { ...far, what: `well over the head (${bytes(far.text)} bytes)` },
  ];
}

describe('detectHead', () => {
  it('tells JSON lines by their first line, reading no further when the head holds it; a JSON document is left to the whole of it', () => {
    const noMore = () => {
      throw new Error('read past the head');
    };
    expect(detectHead('{"type":"user","message":{"content":"hi"}}\n{"type":"assi', noMore)).toBe('claude');
    expect(detectHead('\uFEFF{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}\n{"tim', noMore)).toBe('codex');
    expect(detectHead('{\n  "sessionId": "g",\n  "messages": [\n    {\n      "id": "u-1",\n      "content": "No, don', noMore)).toBeUndefined();
    expect(detectHead('[{"role": "user", "content": "No, don', noMore)).toBeUndefined();
    expect(detectHead('user: hi\nassistant: hello\n', noMore)).toBe('text');
    // A first line longer than the head comes from the file.
    expect(detectHead('{"type":"user","message":{"content":"xxxx', () => '{"type":"user","message":{"content":"xxxx…"}}')).toBe('claude');
    expect(detectHead('{"sessionId":"g","messages":[{"type":"user","content":"xx', () => null)).toBeUndefined();
  });
});

describe('JSON documents longer than the head', () => {
  it('a Gemini CLI session is read as gemini, every message, under and over the head, indented or on one line', () => {
    for (const indent of [2, 0]) {
      for (const { n, text, what } of sizes((k) => gemini(k, indent))) {
        const t = load(text);
        expect(t.format, `indent ${indent}, ${what}`).toBe('gemini');
        expect(t.sessionId, what).toBe('g-big');
        expect(t.messages, what).toHaveLength(2 * n);
        expect(t.messages.filter((m) => m.role === 'user' && m.text === CORRECTION), what).toHaveLength(n);
        expect(t.messages, what).toEqual(readTranscript(text).messages);
      }
    }
  });

  it('a Gemini session written on one line is gemini, not a Claude record', () => {
    const small = gemini(2, 0);
    expect(small).not.toContain('\n');
    expect(readTranscript(small).format).toBe('gemini');
    expect(load(small).messages.map((m) => m.text)).toEqual([CORRECTION, 'Understood, pnpm from now on.', CORRECTION, 'Understood, pnpm from now on.']);
  });

  it('a real Gemini CLI session padded past the head reads as the sum of its copies', () => {
    const sample = fs.readFileSync(path.join(REPO, 'test', 'fixtures', 'transcripts', 'gemini', 'gemini-cli-session.entire.json'), 'utf8');
    const doc = JSON.parse(sample) as { messages: unknown[] };
    const once = readTranscript(sample).messages.length;
    const copies = Math.ceil((2 * HEAD) / bytes(sample));
    const padded = JSON.stringify({ ...doc, messages: Array.from({ length: copies }, () => doc.messages).flat() }, null, 2);
    expect(bytes(padded)).toBeGreaterThan(HEAD);
    const t = load(padded);
    expect(t.format).toBe('gemini');
    expect(t.messages).toHaveLength(copies * once);
    expect(t.broken).toBe(0);
  });

  it('a [{role, content}] array is read as messages, every message, under and over the head, on one line or indented', () => {
    for (const indent of [0, 2]) {
      for (const { n, text, what } of sizes((k) => roleContent(k, indent))) {
        const t = load(text);
        expect(t.format, `indent ${indent}, ${what}`).toBe('messages');
        expect(t.messages, what).toHaveLength(2 * n);
        expect(t.messages.filter((m) => m.role === 'user' && m.text === CORRECTION), what).toHaveLength(n);
      }
    }
    // The file the bug was found with (json.dumps of 2,500 exchanges), once read as one text message.
    const found = roleContent(2500);
    expect(bytes(found)).toBe(282_500);
    expect(load(found).messages).toHaveLength(5000);
  });

  it('a document over the size read whole: one clear error, not text', () => {
    // Sparse: the head is the document's, the rest reads as zeros the size check never gets to.
    for (const [name, head] of [['gemini.json', gemini(3000)], ['array.json', roleContent(6000)]] as const) {
      expect(bytes(head)).toBeGreaterThan(HEAD);
      const file = path.join(dir, `huge-${name}`);
      fs.writeFileSync(file, head);
      fs.truncateSync(file, (64 << 20) + (1 << 20));
      expect(() => loadTranscript(file, { cwd: dir }), name).toThrow(/^the transcript is 65 MB; JSON documents over 64 MB are not read$/);
    }
  });
});

describe('JSON lines whose first line is longer than the head', () => {
  const long = 'x'.repeat(HEAD + 4096);

  it('Claude Code: still streamed as claude, every message', () => {
    const lines = [
      { type: 'user', sessionId: 's-long', message: { role: 'user', content: `${CORRECTION}\n${long}` } },
      { type: 'assistant', sessionId: 's-long', message: { id: 'm-1', role: 'assistant', content: [{ type: 'text', text: 'Switching to pnpm.' }] } },
      { type: 'user', sessionId: 's-long', message: { role: 'user', content: 'Thanks.' } },
    ].map((l) => JSON.stringify(l));
    const t = load(`${lines.join('\n')}\n`, 'session.jsonl');
    expect(t.format).toBe('claude');
    expect(t.sessionId).toBe('s-long');
    expect(t.messages.map((m) => m.text.length)).toEqual([MESSAGE_CAP + 1, 'Switching to pnpm.'.length, 'Thanks.'.length]);
  });

  it('Codex: a session_meta line longer than the head, still streamed as codex', () => {
    const lines = [
      { timestamp: '2026-11-20T10:00:00Z', type: 'session_meta', payload: { id: 'x-long', base_instructions: { text: long } } },
      { timestamp: '2026-11-20T10:00:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: CORRECTION }] } },
      { timestamp: '2026-11-20T10:00:02Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Noted.' }] } },
    ].map((l) => JSON.stringify(l));
    const t = load(`${lines.join('\n')}\n`, 'rollout.jsonl');
    expect(t.format).toBe('codex');
    expect(t.sessionId).toBe('x-long');
    expect(t.messages.map((m) => m.text)).toEqual([CORRECTION, 'Noted.']);
  });
});

describe('text that opens like JSON, longer than the head', () => {
  it('is read as text, as before', () => {
    const log = '[10:00:01] user: run the tests\n[10:00:02] assistant: they pass\n'.repeat(5000);
    const braces = `{draft}\n${'User: keep the changelog short\nAssistant: done\n'.repeat(8000)}`;
    const oneLine = `{"unterminated ${'y'.repeat(HEAD)}`;
    for (const text of [log, braces, oneLine]) {
      expect(bytes(text)).toBeGreaterThan(HEAD);
      const t = load(text, 'notes.md');
      expect(t.format, text.slice(0, 20)).toBe('text');
      expect(t.messages, text.slice(0, 20)).toEqual(readTranscript(text).messages);
    }
  });
});
