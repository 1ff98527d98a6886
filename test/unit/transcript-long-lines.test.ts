import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/extract/source.js';
import { JsonlLines, LINE_CAP, LINE_HARD_CAP, MESSAGE_CAP, readTranscript } from '../../src/extract/transcript.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-long-lines-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const rec = (type: 'user' | 'assistant', content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type, sessionId: 's-long', timestamp: '2026-01-02T03:04:05Z', message: { role: type, content }, ...extra });

/** Lines as JsonlLines passes them on, the input pushed in chunks of `size` bytes. */
function split(text: string, size: number): { line: string | null; cut: boolean }[] {
  const out: { line: string | null; cut: boolean }[] = [];
  const lines = new JsonlLines((line, cut) => out.push({ line, cut }));
  const buf = Buffer.from(text, 'utf8');
  for (let i = 0; i < buf.length; i += size) lines.push(buf.subarray(i, i + size));
  lines.end();
  return out;
}

describe('JSONL lines longer than the line cap', () => {
  // Escapes, quotes and multi-byte characters straddle every cut point and chunk edge.
  const huge = `start ${'ab\\"cd\n é€😀 \u0001 '.repeat(150_000)} end`;
  const lines = [
    rec('user', 'run the migrations first'),
    rec('user', [{ type: 'tool_result', tool_use_id: 'call-1', content: huge }, { type: 'text', text: 'and after the log' }], { uuid: 'u-2' }),
    rec('assistant', [{ type: 'text', text: 'The migrations must run before the API tests.' }, { type: 'tool_use', id: 'call-2', name: 'Bash', input: { command: huge } }]),
    rec('assistant', [{ type: 'text', text: 'Done.' }]),
  ];
  const text = `${lines.join('\n')}\n`;

  it('keeps every record and block of the long line, each long string cut, the rest read as before', () => {
    expect(Buffer.byteLength(lines[1])).toBeGreaterThan(LINE_CAP);
    const file = path.join(dir, 'long.jsonl');
    fs.writeFileSync(file, text);
    const streamed = loadTranscript(file, { cwd: dir }).transcript;
    const whole = readTranscript(text);
    expect(streamed.cut).toBe(2);
    expect(streamed.broken).toBe(0);
    // The same messages, text for text: a message keeps its first MESSAGE_CAP characters either way.
    expect(streamed.messages).toEqual(whole.messages);
    const result = streamed.messages.find((m) => m.kind === 'tool_result')!;
    expect(result.text.length).toBe(MESSAGE_CAP + 1);
    expect(result.text.startsWith(huge.slice(0, 100))).toBe(true);
    expect(streamed.messages.map((m) => m.text)).toContain('and after the log');
    expect(streamed.messages.at(-1)!.text).toBe('Done.');
  });

  it('cuts the same whatever the chunk size, and never inside an escape or a character', () => {
    const a = split(text, 4 << 20);
    const b = split(text, 4093);
    expect(a).toEqual(b);
    expect(a.map((l) => l.cut)).toEqual([false, true, true, false]);
    for (const { line } of a) expect(() => JSON.parse(line!)).not.toThrow();
    const long = JSON.parse(a[1].line!);
    const kept = long.message.content[0].content as string;
    expect(kept.endsWith('…')).toBe(true);
    expect(huge.startsWith(kept.slice(0, -1))).toBe(true);
    expect(kept.includes('\uFFFD')).toBe(false);
    expect(long.uuid).toBe('u-2');
    expect(a[0].line).toBe(lines[0]);
    expect(a[3].line).toBe(lines[3]);
  });

  it('skips a line still too long once its strings are cut, as a broken line', () => {
    const many = rec('user', Array.from({ length: LINE_HARD_CAP / 4 }, () => 'x'));
    const file = path.join(dir, 'many.jsonl');
    fs.writeFileSync(file, `${rec('user', 'first')}\n${many}\n${rec('assistant', 'last')}\n`);
    const t = loadTranscript(file, { cwd: dir }).transcript;
    expect(t.broken).toBe(1);
    expect(t.messages.map((m) => m.text)).toEqual(['first', 'last']);
  });
});
