import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, holdBackground, mem, memAsync, REPO, tempDir, tempVault } from '../helpers.js';

afterEach(cleanup);

const SAMPLE = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'transcripts');
const ALL_HEURISTIC = 'project,corrective,interventions,observations';
const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };

function vault() {
  const v = tempVault();
  mem(['init', '-q'], { cwd: v.root, home: v.home });
  return v;
}

describe('mem extract (offline heuristics)', () => {
  it('writes learnings with session fields to the scope files and tells what it wrote', () => {
    const v = vault();
    const r = mem(['extract', SAMPLE, '--scopes', ALL_HEURISTIC, '--session', 's-1'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/added {2}MEMORY\.md {2}\S+ {2}directive: The API tests need the migrations on a fresh database/);
    // The failed test run is kept as its cause and fix, not as "X failed".
    expect(r.stdout).toMatch(/added {2}MEMORY\.md .*Run `npm run db:migrate -- --env test` before `npm test -- checkout`/);
    expect(r.stdout).toMatch(/added {2}proxy\.md .*don't use yarn/i);
    // No entry holds a tool-call JSON blob (the quality gate turns such a learning away).
    expect(fs.existsSync(v.path('proxy.md')) ? v.read('proxy.md') : '').not.toMatch(/\{"command"/);
    expect(r.stderr).toMatch(/a language model finds much more/);
    const memory = v.read('MEMORY.md');
    expect(memory).toContain('session_id: s-1');
    expect(memory).toContain("session_task: 'The checkout API tests fail on my machine, can you fix them?'");
    expect(memory).toContain('source: heuristic');
    expect(memory).toContain('What fixed it: `npm run db:migrate -- --env test`, then `npm test -- checkout` worked.');
    expect(v.read('proxy.md')).toMatch(/^# Proxy memory/);
    // The new entries are valid and searchable.
    expect(mem(['lint'], { cwd: v.root, home: v.home }).status).toBe(0);
    const s = mem(['search', 'relation orders does not exist', '--json'], { cwd: v.root, home: v.home }).json();
    expect(s.results[0].title).toMatch(/npm test -- checkout/);
  });

  it('is idempotent: a re-run writes nothing; a resumed transcript yields only the new part', () => {
    const v = vault();
    const copy = path.join(tempDir(), 'session.jsonl');
    fs.copyFileSync(SAMPLE, copy);
    const first = mem(['extract', copy, '--json'], { cwd: v.root, home: v.home, env: OFFLINE }).json();
    expect(first.written.length).toBeGreaterThan(0);
    const before = v.read('MEMORY.md');
    const again = mem(['extract', copy, '--json'], { cwd: v.root, home: v.home, env: OFFLINE }).json();
    expect(again.up_to_date).toBe(true);
    expect(again.written).toEqual([]);
    expect(v.read('MEMORY.md')).toBe(before);
    const more = { type: 'user', sessionId: '7d1c5a90-3b2e-4f61-9a0d-2c4e8b6f1a37', uuid: 'u-99', message: { role: 'user', content: 'Remember to restart the queue worker after changing the payment settings.' } };
    fs.appendFileSync(copy, `${JSON.stringify(more)}\n`);
    const resumed = mem(['extract', copy, '--json'], { cwd: v.root, home: v.home, env: OFFLINE }).json();
    expect(resumed.messages.from).toBe(first.messages.total);
    expect(resumed.written.map((w: { title: string }) => w.title)).toEqual(['Restart the queue worker after changing the payment settings.']);
    expect(v.read('MEMORY.md').startsWith(before)).toBe(true);
    const ledger = v.read('.mem/extracted.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    expect(ledger).toHaveLength(2);
  });

  it('--dry-run writes nothing and reports what it would write', () => {
    const v = vault();
    const before = v.read('MEMORY.md');
    const r = mem(['extract', SAMPLE, '--dry-run', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(0);
    expect(r.json().dry_run).toBe(true);
    expect(r.json().written.length).toBeGreaterThan(0);
    expect(v.read('MEMORY.md')).toBe(before);
    expect(fs.existsSync(v.path('.mem/extracted.jsonl'))).toBe(false);
  });

  it('skips what the file already says, and LLM-only scopes with a reason', () => {
    const v = vault();
    mem(['add', 'The API tests need the migrations on a fresh database; CI runs them in its setup step.'], { cwd: v.root, home: v.home });
    const r = mem(['extract', SAMPLE, '--scopes', 'project,escalation', '--json'], { cwd: v.root, home: v.home, env: OFFLINE }).json();
    expect(r.duplicates.map((d: { title: string }) => d.title)).toContain('The API tests need the migrations on a fresh database; CI runs them in its setup step.');
    expect(r.skipped_scopes).toEqual([{ scope: 'escalation', reason: expect.stringMatching(/needs a language model/) }]);
  });

  it('reads stdin and every supported format, real transcripts included', () => {
    const v = vault();
    const text = 'user: The deploy script needs the VPN.\nassistant: I ran it and it failed.\nuser: Always connect the VPN before running deploy.sh.\n';
    const r = mem(['extract', '-', '--format', 'text', '--json'], { cwd: v.root, home: v.home, env: OFFLINE, input: text });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().written.map((w: { title: string }) => w.title)).toContain('Always connect the VPN before running deploy.sh.');
    const files = fs.readdirSync(FIXTURES, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && /\.(jsonl|json)$/.test(d.name));
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const d of files) {
      const file = path.join(d.parentPath, d.name);
      const res = mem(['extract', file, '--dry-run', '--json', '--scopes', ALL_HEURISTIC], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(res.status, `${d.name}: ${res.stderr}`).toBe(0);
      const j = res.json();
      expect(j.messages.total, d.name).toBeGreaterThan(0);
      // No tool output, line-numbered file dumps or refusals dressed up as learnings.
      for (const w of j.written) expect(w.title, d.name).not.toMatch(/→|tool_use_error|doesn't want to/);
    }
  });

  it('bad input: one clear line, the right exit code, nothing written', () => {
    const v = vault();
    const dir = tempDir();
    const before = v.read('MEMORY.md');
    const empty = path.join(dir, 'empty.jsonl');
    fs.writeFileSync(empty, '');
    const bin = path.join(dir, 'blob.jsonl');
    fs.writeFileSync(bin, Buffer.from([0x7b, 0, 1, 2, 0xff]));
    const cases: [string[], number, RegExp][] = [
      [['extract', empty], 1, /^mem: the transcript is empty \(.*empty\.jsonl\)$/m],
      [['extract', bin], 1, /^mem: the transcript is a binary file/m],
      [['extract', path.join(dir, 'missing.jsonl')], 1, /^mem: transcript not found/m],
      [['extract', SAMPLE, '--format', 'yaml'], 2, /^mem: unknown transcript format "yaml"/m],
      [['extract', SAMPLE, '--scopes', 'everything'], 2, /^mem: unknown extraction scope "everything"/m],
      [['extract'], 2, /^mem: which transcript\?/m],
    ];
    for (const [args, code, msg] of cases) {
      const r = mem(args, { cwd: v.root, home: v.home, env: OFFLINE });
      expect(r.status, args.join(' ')).toBe(code);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    // A truncated JSONL (the last line cut off) is read up to the cut.
    const cut = path.join(dir, 'cut.jsonl');
    const raw = fs.readFileSync(SAMPLE, 'utf8');
    fs.writeFileSync(cut, raw.slice(0, raw.length - 40));
    const r = mem(['extract', cut, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(0);
    expect(r.json().broken_lines).toBe(1);
    // A file of unknown shape reads as text: nothing to learn, no error.
    const odd = path.join(dir, 'odd.jsonl');
    fs.writeFileSync(odd, '{"hello": "world"}\n{"foo": 1}\n');
    const o = mem(['extract', odd], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(o.status).toBe(1);
    expect(o.stderr).toMatch(/^mem: no messages found in the transcript \(read as claude; 2 records skipped, 0 broken lines\)/m);
    expect(v.read('MEMORY.md')).toBe(before);
  });

  it('refuses to add to a malformed memory file and leaves every file as it was', () => {
    const v = vault();
    v.write('MEMORY.md', '# Memory\n\n---\nid: x\ntype: [unclosed\n---\nbody\n');
    const before = v.read('MEMORY.md');
    const r = mem(['extract', SAMPLE, '--scopes', ALL_HEURISTIC], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: .*fix it before mem adds to this file \(MEMORY\.md:\d+\)/m);
    expect(v.read('MEMORY.md')).toBe(before);
    expect(fs.existsSync(v.path('proxy.md'))).toBe(false);
  });

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
  async function waitFor(check: () => boolean, ms = 15_000): Promise<void> {
    const t0 = Date.now();
    while (!check()) {
      if (Date.now() - t0 > ms) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('claude: answers without waiting for the extraction, which runs in the background and logs to .mem/logs', async () => {
    const v = vault();
    const payload = JSON.stringify({ session_id: 'hook-1', transcript_path: SAMPLE, cwd: v.root, hook_event_name: 'SessionEnd' });
    const hold = holdBackground('extract');
    // Not waited for synchronously: a hook that waited for its held child would end the test by its timeout.
    const r = await memAsync(['extract', '--hook', 'claude'], { cwd: tempDir(), home: v.home, env: { ...OFFLINE, ...hold.env }, input: payload });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    // The hook is done while its extraction is held back, not yet started: it did not wait for it.
    await waitFor(() => hold.held() === 1);
    expect(fs.existsSync(v.path('.mem/extracted.jsonl'))).toBe(false);
    hold.release();
    await waitFor(() => fs.existsSync(v.path('.mem/extracted.jsonl')));
    expect(v.read('MEMORY.md')).toContain('session_id: hook-1');
    await waitFor(() => /wrote \d+ learnings/.test(v.read('.mem/logs/extract.log')));
    expect(v.read('.mem/logs/extract.log')).toMatch(/claude hook \(SessionEnd\): extracting .*fix-checkout-tests\.jsonl/);
  }, 30_000);

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
  }, 30_000);
});

describe('mem extract reinforces what the session used', () => {
  it('entries retrieved with --session and used in the transcript gain a reinforcement', () => {
    const v = vault();
    const add = (text: string) => mem(['add', text, '--json'], { cwd: v.root, home: v.home }).json().id as string;
    const used = add('Refresh the Stripe sandbox keys with scripts/rotate-stripe.sh before running the payment tests.');
    const unused = add('The marketing site deploys from the gh-pages branch on every merge.');
    const s = mem(['search', 'payment tests stripe keys deploys', '--session', 'sess-r', '--json'], { cwd: v.root, home: v.home });
    expect(s.json().results.map((h: { id: string }) => h.id)).toEqual(expect.arrayContaining([used, unused]));
    const transcript = [
      'user: The payment tests fail with an authentication error.',
      'assistant: I will refresh the Stripe sandbox keys with scripts/rotate-stripe.sh and rerun the payment tests.',
      'assistant: The payment tests pass now.',
    ].join('\n');
    const r = mem(['extract', '-', '--format', 'text', '--session', 'sess-r', '--json'], { cwd: v.root, home: v.home, env: OFFLINE, input: transcript });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().reinforced).toBe(1);
    const show = (id: string) => mem(['show', id, '--json'], { cwd: v.root, home: v.home }).json();
    expect(show(used).reinforcement_count).toBe(1);
    expect(show(unused).reinforcement_count).toBe(0);
  });
});

describe('mem extract FOLDER', () => {
  it('extracts every transcript of a folder, skips what it cannot read, and is a no-op the second time', () => {
    const v = vault();
    const dir = tempDir();
    fs.copyFileSync(SAMPLE, path.join(dir, 'a.jsonl'));
    fs.writeFileSync(path.join(dir, 'b.jsonl'), `${JSON.stringify({ type: 'user', sessionId: 'b', message: { role: 'user', content: 'Never commit the .env file.' } })}\n`);
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a transcript');
    const r = mem(['extract', dir, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    const j = r.json();
    expect(j.transcripts.map((t: { transcript: string }) => path.basename(t.transcript)).sort()).toEqual(['a.jsonl', 'b.jsonl']);
    expect(j.failed).toEqual([{ transcript: path.join(dir, 'empty.jsonl'), error: 'the transcript is empty' }]);
    expect(v.read('MEMORY.md')).toContain('Never commit the .env file.');
    fs.rmSync(path.join(dir, 'empty.jsonl'));
    const again = mem(['extract', dir], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/wrote 0 learnings from 2 transcripts/);
  });
});
