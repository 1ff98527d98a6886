// `mem extract` where the process is the point: a 200 MB transcript under a small heap limit of
// the process itself, and the agent hooks as agents run them (the payload on stdin or, for Codex
// notify, as the last argument), the extraction going on in a detached child.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OFFLINE, SAMPLE, vault } from '../fixtures/extract.js';
import { cleanup, mem, tempDir } from '../helpers.js';

afterEach(cleanup);

describe('mem extract (offline heuristics)', () => {
  it('streams a 200 MB transcript in bounded memory', () => {
    const v = vault();
    const big = path.join(tempDir(), 'big.jsonl');
    const fd = fs.openSync(big, 'w');
    const filler = 'x'.repeat(100_000);
    fs.writeSync(fd, `${JSON.stringify({ type: 'user', sessionId: 'big', message: { role: 'user', content: 'Remember to keep the fixtures under 1 MB each.' } })}\n`);
    for (let i = 0; i < 2000; i++) {
      fs.writeSync(fd, `${JSON.stringify({ type: 'user', sessionId: 'big', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: filler }] } })}\n`);
    }
    fs.closeSync(fd);
    expect(fs.statSync(big).size).toBeGreaterThan(200_000_000);
    // 96 MB of heap: holding the file (or its messages untrimmed) would not fit.
    const r = mem(['extract', big, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: { ...OFFLINE, NODE_OPTIONS: '--max-old-space-size=96' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().messages.total).toBe(2001);
    expect(r.json().written.map((w: { title: string }) => w.title)).toEqual(['Keep the fixtures under 1 MB each.']);
  }, 120_000);
});

describe('mem extract --hook', () => {
  /** Poll until `check` holds: a generous deadline, since success ends the wait at once. */
  async function waitFor(check: () => boolean, ms = 90_000): Promise<void> {
    const t0 = Date.now();
    while (!check()) {
      if (Date.now() - t0 > ms) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('claude: answers at once, extracts in the background, logs to .mem/logs', async () => {
    const v = vault();
    const payload = JSON.stringify({ session_id: 'hook-1', transcript_path: SAMPLE, cwd: v.root, hook_event_name: 'SessionEnd' });
    const r = mem(['extract', '--hook', 'claude'], { cwd: tempDir(), home: v.home, env: OFFLINE, input: payload });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    await waitFor(() => fs.existsSync(v.path('.mem/extracted.jsonl')));
    expect(v.read('MEMORY.md')).toContain('session_id: hook-1');
    await waitFor(() => /wrote \d+ learnings/.test(v.read('.mem/logs/extract.log')));
    expect(v.read('.mem/logs/extract.log')).toMatch(/claude hook \(SessionEnd\): extracting .*fix-checkout-tests\.jsonl/);
  });

  it('reads only a transcript in the agent\'s own format: a payload naming another file gets nothing of it written', async () => {
    const v = vault();
    const other = path.join(tempDir(), 'notes.txt');
    fs.writeFileSync(other, 'user: the root password is Tr0ub4dor-and-more\nassistant: noted, never use npm here\n');
    const payload = JSON.stringify({ session_id: 'hook-x', transcript_path: other, cwd: v.root, hook_event_name: 'SessionEnd' });
    expect(mem(['extract', '--hook', 'claude'], { cwd: v.root, home: v.home, env: OFFLINE, input: payload }).status).toBe(0);
    await waitFor(() => fs.existsSync(v.path('.mem/logs/extract.log')) && /no messages found in the transcript \(read as claude/.test(v.read('.mem/logs/extract.log')));
    const written = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String) : []);
    expect(written(v.path('.mem/episodes'))).toEqual([]);
    expect(written(v.path('.mem/local'))).toEqual([]);
    expect(v.read('MEMORY.md')).not.toContain('hook-x');
    expect(v.read('.mem/logs/extract.log')).not.toContain('Tr0ub4dor');
  });

  it('never fails the agent: bad payloads are logged, exit 0', () => {
    const v = vault();
    for (const input of ['not json', '{"session_id": "x", "cwd": "' + v.root + '"}', '']) {
      const r = mem(['extract', '--hook', 'claude'], { cwd: v.root, home: v.home, env: OFFLINE, input });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
    }
    const log = v.read('.mem/logs/extract.log');
    expect(log).toMatch(/claude hook: the hook payload is not JSON/);
    expect(log).toMatch(/claude hook: the claude hook payload names no transcript \(session x\)/);
    expect(log).toMatch(/claude hook: no hook payload on stdin/);
  });

  it('codex: the notify payload comes as an argument; the rollout is found by thread id', async () => {
    const v = vault();
    const codexHome = tempDir();
    const day = path.join(codexHome, 'sessions', '2026', '11', '20');
    fs.mkdirSync(day, { recursive: true });
    const thread = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const lines = [
      { timestamp: '2026-11-20T10:00:00Z', type: 'session_meta', payload: { id: thread, cwd: v.root } },
      { timestamp: '2026-11-20T10:00:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Never push to main directly; open a pull request.' }] } },
      { timestamp: '2026-11-20T10:00:02Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Understood.' }] } },
    ];
    fs.writeFileSync(path.join(day, `rollout-2026-11-20T10-00-00-${thread}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const payload = JSON.stringify({ type: 'agent-turn-complete', 'thread-id': thread, 'turn-id': '1', cwd: v.root, 'input-messages': ['hi'], 'last-assistant-message': 'Understood.' });
    const r = mem(['extract', '--hook', 'codex', payload], { cwd: v.root, home: v.home, env: { ...OFFLINE, CODEX_HOME: codexHome } });
    expect(r.status).toBe(0);
    await waitFor(() => fs.existsSync(v.path('.mem/extracted.jsonl')));
    expect(v.read('MEMORY.md')).toContain('Never push to main directly; open a pull request.');
  });
});

