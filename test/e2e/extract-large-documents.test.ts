// `mem extract` on JSON documents longer than the head it picks the format from: a Gemini CLI
// session and a `[{role, content}]` array learn what the same document learns through stdin
// (read whole), and one over the size read whole stops with one line.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OFFLINE, vault } from '../fixtures/extract.js';
import { cleanup, tempDir } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const HEAD = 256 << 10;
const CORRECTION = "No, don't use npm here, always use pnpm.";

function gemini(n: number): string {
  const messages = [];
  for (let i = 0; i < n; i++) {
    messages.push({ id: `u-${i}`, timestamp: '2026-11-20T10:00:00.000Z', type: 'user', content: i === n - 1 ? 'Always run make lint before pushing.' : CORRECTION });
    messages.push({ id: `g-${i}`, timestamp: '2026-11-20T10:00:05.000Z', type: 'gemini', content: 'Understood.' });
  }
  return JSON.stringify({ sessionId: 'g-big', projectHash: 'a'.repeat(64), startTime: '2026-11-20T10:00:00.000Z', lastUpdated: '2026-11-20T11:00:00.000Z', messages }, null, 2);
}

function roleContent(n: number): string {
  const messages = [];
  for (let i = 0; i < n; i++) messages.push({ role: 'user', content: i === n - 1 ? 'Always run make lint before pushing.' : CORRECTION }, { role: 'assistant', content: 'ok' });
  return JSON.stringify(messages);
}

describe('mem extract on JSON documents over the 256 KiB head', () => {
  it('a Gemini session and a role/content array: their format, every message, the learnings stdin gives', async () => {
    const v = vault();
    const dir = tempDir();
    for (const [name, format, text] of [['session-g-big.json', 'gemini', gemini(2000)], ['chat.json', 'messages', roleContent(3000)]] as const) {
      expect(Buffer.byteLength(text)).toBeGreaterThan(HEAD);
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      const r = await run(['extract', file, '--provider', 'heuristic', '--dry-run', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(r.status, r.stderr).toBe(0);
      const j = r.json();
      expect(j.format, name).toBe(format);
      expect(j.messages.total, name).toBe(JSON.parse(text).messages?.length ?? JSON.parse(text).length);
      const titles = j.written.map((w: { title: string }) => w.title);
      expect(titles, name).toEqual(expect.arrayContaining(["Don't use npm here, always use pnpm.", 'Always run make lint before pushing.']));
      const whole = await run(['extract', '-', '--provider', 'heuristic', '--dry-run', '--json'], { cwd: v.root, home: v.home, env: OFFLINE, input: text });
      expect(whole.json().format, name).toBe(format);
      expect(titles, name).toEqual(whole.json().written.map((w: { title: string }) => w.title));
    }
  });

  it('a JSON document over 64 MB: one line, exit 1, nothing written', async () => {
    const v = vault();
    const before = v.read('MEMORY.md');
    const file = path.join(tempDir(), 'session-huge.json');
    fs.writeFileSync(file, gemini(2000));
    fs.truncateSync(file, 65 << 20);
    const r = await run(['extract', file, '--provider', 'heuristic'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: the transcript is 65 MB; JSON documents over 64 MB are not read \(.*session-huge\.json\)$/m);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(v.read('MEMORY.md')).toBe(before);
  });
});
