import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OFFLINE, SAMPLE, vault } from '../fixtures/extract.js';
import { cleanup, entry, REPO, tempDir } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'transcripts');
const ALL_HEURISTIC = 'project,corrective,interventions,observations';

describe('mem extract (offline heuristics)', () => {
  it('writes learnings with session fields to the scope files and tells what it wrote', async () => {
    const v = vault();
    const r = await run(['extract', SAMPLE, '--scopes', ALL_HEURISTIC, '--session', 's-1'], { cwd: v.root, home: v.home, env: OFFLINE });
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
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);
    const s = (await run(['search', 'relation orders does not exist', '--json'], { cwd: v.root, home: v.home })).json();
    expect(s.results[0].title).toMatch(/npm test -- checkout/);
  });

  it('is idempotent: a re-run writes nothing; a resumed transcript yields only the new part', async () => {
    const v = vault();
    const copy = path.join(tempDir(), 'session.jsonl');
    fs.copyFileSync(SAMPLE, copy);
    const first = (await run(['extract', copy, '--json'], { cwd: v.root, home: v.home, env: OFFLINE })).json();
    expect(first.written.length).toBeGreaterThan(0);
    const before = v.read('MEMORY.md');
    const again = (await run(['extract', copy, '--json'], { cwd: v.root, home: v.home, env: OFFLINE })).json();
    expect(again.up_to_date).toBe(true);
    expect(again.written).toEqual([]);
    expect(v.read('MEMORY.md')).toBe(before);
    const more = { type: 'user', sessionId: '7d1c5a90-3b2e-4f61-9a0d-2c4e8b6f1a37', uuid: 'u-99', message: { role: 'user', content: 'Remember to restart the queue worker after changing the payment settings.' } };
    fs.appendFileSync(copy, `${JSON.stringify(more)}\n`);
    const resumed = (await run(['extract', copy, '--json'], { cwd: v.root, home: v.home, env: OFFLINE })).json();
    expect(resumed.messages.from).toBe(first.messages.total);
    expect(resumed.written.map((w: { title: string }) => w.title)).toEqual(['Restart the queue worker after changing the payment settings.']);
    expect(v.read('MEMORY.md').startsWith(before)).toBe(true);
    const ledger = v.read('.mem/extracted.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    expect(ledger).toHaveLength(2);
  });

  it('--dry-run writes nothing and reports what it would write', async () => {
    const v = vault();
    const before = v.read('MEMORY.md');
    const r = await run(['extract', SAMPLE, '--dry-run', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(0);
    expect(r.json().dry_run).toBe(true);
    expect(r.json().written.length).toBeGreaterThan(0);
    expect(v.read('MEMORY.md')).toBe(before);
    expect(fs.existsSync(v.path('.mem/extracted.jsonl'))).toBe(false);
  });

  it('skips what the file already says, and LLM-only scopes with a reason', async () => {
    const v = vault(entry('ci-migrations', 'The API tests need the migrations on a fresh database; CI runs them in its setup step.'));
    const r = (await run(['extract', SAMPLE, '--scopes', 'project,escalation', '--json'], { cwd: v.root, home: v.home, env: OFFLINE })).json();
    expect(r.duplicates.map((d: { title: string }) => d.title)).toContain('The API tests need the migrations on a fresh database; CI runs them in its setup step.');
    expect(r.skipped_scopes).toEqual([{ scope: 'escalation', reason: expect.stringMatching(/needs a language model/) }]);
  });

  it('reads stdin and every supported format, real transcripts included', async () => {
    const v = vault();
    const text = 'user: The deploy script needs the VPN.\nassistant: I ran it and it failed.\nuser: Always connect the VPN before running deploy.sh.\n';
    const r = await run(['extract', '-', '--format', 'text', '--json'], { cwd: v.root, home: v.home, env: OFFLINE, input: text });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().written.map((w: { title: string }) => w.title)).toContain('Always connect the VPN before running deploy.sh.');
    const files = fs.readdirSync(FIXTURES, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && /\.(jsonl|json)$/.test(d.name));
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const d of files) {
      const file = path.join(d.parentPath, d.name);
      const res = await run(['extract', file, '--dry-run', '--json', '--scopes', ALL_HEURISTIC], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(res.status, `${d.name}: ${res.stderr}`).toBe(0);
      const j = res.json();
      expect(j.messages.total, d.name).toBeGreaterThan(0);
      // No tool output, line-numbered file dumps or refusals dressed up as learnings.
      for (const w of j.written) expect(w.title, d.name).not.toMatch(/→|tool_use_error|doesn't want to/);
    }
  });

  it('bad input: one clear line, the right exit code, nothing written', async () => {
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
      const r = await run(args, { cwd: v.root, home: v.home, env: OFFLINE });
      expect(r.status, args.join(' ')).toBe(code);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    }
    // A truncated JSONL (the last line cut off) is read up to the cut.
    const cut = path.join(dir, 'cut.jsonl');
    const raw = fs.readFileSync(SAMPLE, 'utf8');
    fs.writeFileSync(cut, raw.slice(0, raw.length - 40));
    const r = await run(['extract', cut, '--json', '--dry-run'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(0);
    expect(r.json().broken_lines).toBe(1);
    // A file of unknown shape reads as text: nothing to learn, no error.
    const odd = path.join(dir, 'odd.jsonl');
    fs.writeFileSync(odd, '{"hello": "world"}\n{"foo": 1}\n');
    const o = await run(['extract', odd], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(o.status).toBe(1);
    expect(o.stderr).toMatch(/^mem: no messages found in the transcript \(read as claude; 2 records skipped, 0 broken lines\)/m);
    expect(v.read('MEMORY.md')).toBe(before);
  });

  it('refuses to add to a malformed memory file and leaves every file as it was', async () => {
    const v = vault();
    v.write('MEMORY.md', '# Memory\n\n---\nid: x\ntype: [unclosed\n---\nbody\n');
    const before = v.read('MEMORY.md');
    const r = await run(['extract', SAMPLE, '--scopes', ALL_HEURISTIC], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: .*fix it before mem adds to this file \(MEMORY\.md:\d+\)/m);
    expect(v.read('MEMORY.md')).toBe(before);
    expect(fs.existsSync(v.path('proxy.md'))).toBe(false);
  });
});

describe('mem extract reinforces what the session used', () => {
  it('entries retrieved with --session and used in the transcript gain a reinforcement', async () => {
    const used = 'stripe-keys';
    const unused = 'gh-pages';
    const v = vault(
      entry(used, 'Refresh the Stripe sandbox keys with scripts/rotate-stripe.sh before running the payment tests.'),
      entry(unused, 'The marketing site deploys from the gh-pages branch on every merge.'),
    );
    const s = await run(['search', 'payment tests stripe keys deploys', '--session', 'sess-r', '--json'], { cwd: v.root, home: v.home });
    expect(s.json().results.map((h: { id: string }) => h.id)).toEqual(expect.arrayContaining([used, unused]));
    const transcript = [
      'user: The payment tests fail with an authentication error.',
      'assistant: I will refresh the Stripe sandbox keys with scripts/rotate-stripe.sh and rerun the payment tests.',
      'assistant: The payment tests pass now.',
    ].join('\n');
    const r = await run(['extract', '-', '--format', 'text', '--session', 'sess-r', '--json'], { cwd: v.root, home: v.home, env: OFFLINE, input: transcript });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().reinforced).toBe(1);
    const show = async (id: string) => (await run(['show', id, '--json'], { cwd: v.root, home: v.home })).json();
    expect((await show(used)).reinforcement_count).toBe(1);
    expect((await show(unused)).reinforcement_count).toBe(0);
  });
});

describe('mem extract FOLDER', () => {
  it('extracts every transcript of a folder, skips what it cannot read, and is a no-op the second time', async () => {
    const v = vault();
    const dir = tempDir();
    fs.copyFileSync(SAMPLE, path.join(dir, 'a.jsonl'));
    fs.writeFileSync(path.join(dir, 'b.jsonl'), `${JSON.stringify({ type: 'user', sessionId: 'b', message: { role: 'user', content: 'Never commit the .env file.' } })}\n`);
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a transcript');
    const r = await run(['extract', dir, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    const j = r.json();
    expect(j.transcripts.map((t: { transcript: string }) => path.basename(t.transcript)).sort()).toEqual(['a.jsonl', 'b.jsonl']);
    expect(j.failed).toEqual([{ transcript: path.join(dir, 'empty.jsonl'), error: 'the transcript is empty' }]);
    expect(v.read('MEMORY.md')).toContain('Never commit the .env file.');
    fs.rmSync(path.join(dir, 'empty.jsonl'));
    const again = await run(['extract', dir], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/wrote 0 learnings from 2 transcripts/);
  });
});
