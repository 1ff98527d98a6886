import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assistantText, detectFormat, readTranscript, splitConcatenated } from '../../src/extract/transcript.js';
import { REPO } from '../helpers.js';

// Real transcripts copied from public repositories (see test/fixtures/transcripts/SOURCES.md).
const FIX = path.join(REPO, 'test', 'fixtures', 'transcripts');
const read = (rel: string) => readTranscript(fs.readFileSync(path.join(FIX, rel), 'utf8'));

describe('transcript readers on real samples', () => {
  it('Claude Code 1.0.17: summary record, tool use and an error result', () => {
    const t = read('claude/claude-v1.0.17-short-push-interrupt.sniffly.jsonl');
    expect(t.format).toBe('claude');
    expect(t.broken).toBe(0);
    expect(t.messages.some((m) => m.kind === 'summary')).toBe(true);
    expect(t.messages.some((m) => m.kind === 'tool_use')).toBe(true);
    expect(t.messages.some((m) => m.kind === 'tool_result' && m.isError)).toBe(true);
    expect(t.messages.some((m) => m.role === 'user' && /push to github/i.test(m.text))).toBe(true);
  });
  it('Claude Code 2.x: blocks of one response share message.id; compact summary; skipped non-messages', () => {
    const t = read('claude/claude-v2.1.5-compact-boundary.entire.jsonl');
    expect(t.messages.some((m) => m.kind === 'summary')).toBe(true);
    const ids = t.messages.filter((m) => m.role === 'assistant' && m.id).map((m) => m.id);
    expect(new Set(ids).size).toBeLessThan(ids.length);
    expect(t.skipped).toBeGreaterThan(0);
    expect(t.sessionId).toBeTruthy();
  });
  it('a line holding two JSON objects is split, not lost', () => {
    const t = read('claude/claude-v2.1.7-MALFORMED-concatenated-line.entire.jsonl');
    expect(t.broken).toBe(0);
    expect(t.messages.length).toBeGreaterThan(100);
    expect(splitConcatenated('{"a":1}{"b":"}{"}')).toEqual([{ a: 1 }, { b: '}{' }]);
  });
  it('Codex rollout: response_item messages, event_msg duplicates skipped', () => {
    const t = read('codex/codex-modern-exec-0.135-redacted.kvsankar.jsonl');
    expect(t.format).toBe('codex');
    expect(t.messages.filter((m) => m.role === 'assistant')).toHaveLength(1);
    expect(t.sessionId).toBeTruthy();
  });
  it('Gemini CLI session JSON', () => {
    const t = read('gemini/gemini-cli-session.entire.json');
    expect(t.format).toBe('gemini');
    expect(t.messages.some((m) => m.role === 'user' && /color file/.test(m.text))).toBe(true);
    expect(t.messages.some((m) => m.role === 'assistant')).toBe(true);
  });
  it('synthetic schema coverage: unknown record types are skipped, never fatal', () => {
    const c = read('synthetic/claude-schema-coverage-v2.1.80-2.1.220.agent-sessions.jsonl');
    expect(c.skipped).toBeGreaterThan(20);
    expect(c.messages.length).toBeGreaterThan(5);
    const x = read('synthetic/codex-schema-coverage-v0.146.agent-sessions.jsonl');
    expect(x.format).toBe('codex');
    expect(x.messages.some((m) => m.kind === 'summary')).toBe(true);
  });
});

describe('other formats', () => {
  it('Codex command output: exit codes become errors, the wrapper is taken off', () => {
    const item = (output: unknown) => JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'function_call_output', call_id: 'c', output } });
    const t = readTranscript([
      JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 's1' } }),
      item(JSON.stringify({ output: 'npm ERR! missing script: migrate\n', metadata: { exit_code: 1, duration_seconds: 0.4 } })),
      item('Exit code: 0\nWall time: 1.2 seconds\nOutput:\nBatch 1 run: 3 migrations\n'),
      item({ type: 'input_text', text: 'a.txt\n' }),
      item('plain output'),
    ].join('\n'));
    expect(t.format).toBe('codex');
    expect(t.messages.map((m) => [m.text, m.isError])).toEqual([
      ['npm ERR! missing script: migrate', true],
      ['Batch 1 run: 3 migrations', false],
      ['a.txt', undefined],
      ['plain output', undefined],
    ]);
  });
  it("Codex's older rollouts: a header line, then bare response items (no payload envelope)", () => {
    const lines = [
      { id: 'a1b2', timestamp: '2025-05-01T10:00:00Z', instructions: '' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Never force-push to main.' }] },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Checking the branch.' }] },
      { type: 'function_call', name: 'shell', arguments: '{"command":["git","push"]}', call_id: 'c1' },
      { type: 'function_call_output', call_id: 'c1', output: '{"output":"Everything up-to-date","metadata":{"exit_code":0}}' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Pushed.' }] },
    ];
    const t = readTranscript(lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(t.messages.map((m) => [m.role, m.kind])).toEqual([['user', 'text'], ['assistant', 'thinking'], ['assistant', 'tool_use'], ['tool', 'tool_result'], ['assistant', 'text']]);
    expect(t.messages[0].text).toBe('Never force-push to main.');
    expect(t.skipped).toBe(1);
  });
  it('a JSON array of {role, content}', () => {
    const t = readTranscript(JSON.stringify([{ role: 'user', content: 'fix it' }, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }]));
    expect(t.format).toBe('messages');
    expect(t.messages.map((m) => [m.role, m.text])).toEqual([['user', 'fix it'], ['assistant', 'done']]);
  });
  it('plain text with speaker labels, and without', () => {
    const t = readTranscript('User: run the tests\nAssistant: they pass\nnow\n');
    expect(t.messages.map((m) => [m.role, m.text])).toEqual([['user', 'run the tests'], ['assistant', 'they pass\nnow']]);
    expect(assistantText(readTranscript('just some notes'))).toBe('just some notes');
    expect(detectFormat('{not json')).toBe('text');
  });
});
