// The agent hooks as the agents run them: the built CLI, a real hook payload on stdin (or, for
// Codex notify, as the last argument), a temp project vault and a temp HOME.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, git, holdBackground, mem, memAsync, REPO, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };

const MIGRATE = 'Run the database migrations before the API tests, or the users table is missing.';
const VPN = 'The staging deploy needs the VPN connection; without it the Helm upgrade times out.';
const CENTS = 'The billing service stores amounts as integer cents; never use floats for money.';
const NORM = 'Never push to main directly; open a pull request.';

function project(): TempVault & { run: (args: string[], input: string, env?: Record<string, string | undefined>) => ReturnType<typeof mem> } {
  const v = tempVault();
  v.write('MEMORY.md', entry('migrate-1', MIGRATE, { importance: 0.6, last_reinforced: '2026-11-18' })
    + entry('vpn-1', VPN, { importance: 0.5, last_reinforced: '2026-11-18' })
    + entry('cents-1', CENTS, { importance: 0.9, last_reinforced: '2026-11-18' }));
  v.write('institutional.md', entry('norm-1', NORM, { type: 'directive', importance: 0.8 }));
  // The agent runs the hook from its own folder; the payload's cwd says where the project is.
  const elsewhere = tempDir();
  return Object.assign(v, {
    run: (args: string[], input: string, env: Record<string, string | undefined> = {}) => mem(args, { cwd: elsewhere, home: v.home, input, env: { HOME: v.home, MEM_NOW: '2026-11-20', ...env } }),
  });
}

function context(stdout: string, event: string): string {
  const out = JSON.parse(stdout);
  expect(Object.keys(out)).toEqual(['hookSpecificOutput']);
  expect(out.hookSpecificOutput.hookEventName).toBe(event);
  expect(typeof out.hookSpecificOutput.additionalContext).toBe('string');
  return out.hookSpecificOutput.additionalContext;
}

function retrieved(v: TempVault, session: string): string[] {
  const file = v.path(`.mem/sessions/${session}/retrieved.jsonl`);
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split('\n').flatMap((l) => JSON.parse(l).ids as string[]);
}

function listing(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

/** Poll until `check` holds: a generous deadline, since success ends the wait at once. */
async function waitFor(check: () => boolean, ms = 90_000): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('mem context --hook claude', () => {
  it('SessionStart (startup): valid JSON with the norms and the most prominent learnings, ids logged for the session', () => {
    const v = project();
    const payload = { session_id: 'sess-a', transcript_path: path.join(v.home, '.claude', 'projects', 'x', 'sess-a.jsonl'), cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' };
    const r = v.run(['context', '--hook', 'claude'], JSON.stringify(payload));
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const md = context(r.stdout, 'SessionStart');
    expect(md).toContain('### Norms (always loaded)');
    expect(md).toContain(NORM);
    expect(md).toContain(CENTS);
    expect(md).toContain('no prompt yet');
    expect(md.length).toBeLessThan(9000);
    expect(retrieved(v, 'sess-a')).toEqual(expect.arrayContaining(['cents-1', 'migrate-1', 'vpn-1']));
  });

  it('SessionStart with one norm longer than the hook\'s budget: says it was left out and where to read it', () => {
    const v = tempVault();
    v.write('institutional.md', entry('long-norm', `## Release rules\n${'Every release is tagged, signed and announced before it ships. '.repeat(80)}`, { type: 'directive' }));
    const r = mem(['context', '--hook', 'claude'], { cwd: tempDir(), home: v.home, input: JSON.stringify({ session_id: 's1', cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' }), env: { HOME: v.home, MEM_NOW: '2026-11-20' } });
    expect(r.status).toBe(0);
    const md = context(r.stdout, 'SessionStart');
    expect(md).toContain('1 more omitted for the budget; see `mem list --learning-type institutional`');
    expect(md).toContain('mem list --learning-type institutional');
    expect(md).not.toContain('Every release is tagged');
  });

  it('SessionStart (resume): the task is the transcript\'s first user message', () => {
    const v = project();
    const transcript = v.write('.claude-session.jsonl', [
      JSON.stringify({ type: 'user', message: { role: 'user', content: '<command-name>/clear</command-name>' }, sessionId: 'sess-r' }),
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'Why does the Helm upgrade time out on the staging deploy?' }, sessionId: 'sess-r' }),
      JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }] }, sessionId: 'sess-r' }),
    ].join('\n') + '\n');
    const r = v.run(['context', '--hook', 'claude'], JSON.stringify({ session_id: 'sess-r', transcript_path: transcript, cwd: v.root, hook_event_name: 'SessionStart', source: 'resume' }));
    const md = context(r.stdout, 'SessionStart');
    expect(md).toContain('From mem, for: "Why does the Helm upgrade time out on the staging deploy?"');
    expect(md).toContain(NORM);
    // The learnings for that task come first (the budget is mem context's, capped for hooks).
    const learnings = md.slice(md.indexOf('### Learnings'));
    expect(learnings.indexOf(VPN)).toBeGreaterThan(0);
    expect(learnings.indexOf(VPN)).toBeLessThan(Math.min(...[CENTS, MIGRATE].map((t) => learnings.indexOf(t)).filter((i) => i >= 0), Infinity));
  });

  it('UserPromptSubmit: a relevant prompt gets its learning, an unrelated one nothing; nothing is repeated in a session', () => {
    const v = project();
    const ask = (prompt: string, session = 'sess-p') => v.run(['context', '--hook', 'claude'], JSON.stringify({
      session_id: session, transcript_path: '/nonexistent/t.jsonl', cwd: v.root, permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt,
    }));
    const hit = ask('The API tests fail: the users table is missing. Did the migrations run?');
    expect(hit.status).toBe(0);
    const md = context(hit.stdout, 'UserPromptSubmit');
    expect(md).toContain(MIGRATE);
    expect(md).not.toContain(NORM);
    expect(md).not.toContain(VPN);
    expect(retrieved(v, 'sess-p')).toEqual(['migrate-1']);
    for (const prompt of ['write a haiku about autumn leaves', 'ok', 'rename the tests folder to spec', '/compact']) {
      const r = ask(prompt);
      expect(r.status, prompt).toBe(0);
      expect(r.stdout, prompt).toBe('');
    }
    // Given once in this session: not again; another session does get it.
    expect(ask('The API tests fail: the users table is missing. Did the migrations run?').stdout).toBe('');
    expect(context(ask('the API tests fail because the users table is missing', 'sess-q').stdout, 'UserPromptSubmit')).toContain(MIGRATE);
  });

  it('the ids it logs feed mem reinforce --session', () => {
    const v = project();
    v.run(['context', '--hook', 'claude'], JSON.stringify({ session_id: 'sess-f', cwd: v.root, hook_event_name: 'UserPromptSubmit', prompt: 'why does the staging deploy time out in the Helm upgrade?' }));
    expect(retrieved(v, 'sess-f')).toEqual(['vpn-1']);
    const r = mem(['reinforce', '--session', 'sess-f', '--json'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.stringify(r.json())).toContain('vpn-1');
  });

  it('keeps well under Claude Code\'s inline limit, whatever the vault holds', () => {
    const v = project();
    const long = (i: number, what: string) => `${what} ${i}: ${'keep the release checklist and the deploy runbook in sync with the pipeline; '.repeat(6)}`;
    v.write('institutional.md', Array.from({ length: 30 }, (_, i) => entry(`n${i}`, long(i, 'Norm'), { type: 'directive' })).join(''));
    v.write('MEMORY.md', Array.from({ length: 60 }, (_, i) => entry(`l${i}`, long(i, 'Learning'), { importance: 0.9 })).join('')
      + Array.from({ length: 10 }, (_, i) => entry(`k${i}`, `Kafka consumer lag ${i}: ${'reset the offsets of the consumer group before replaying the topic. '.repeat(6)}`)).join(''));
    v.write('proxy.md', Array.from({ length: 20 }, (_, i) => entry(`p${i}`, long(i, 'The human said'))).join(''));
    const transcript = v.write('t.jsonl', JSON.stringify({ type: 'user', message: { role: 'user', content: 'update the release checklist and the deploy runbook' } }) + '\n');
    for (const extra of [{ source: 'startup' }, { source: 'resume', transcript_path: transcript }]) {
      const r = v.run(['context', '--hook', 'claude'], JSON.stringify({ session_id: 'big-1', cwd: v.root, hook_event_name: 'SessionStart', ...extra }));
      const md = context(r.stdout, 'SessionStart');
      expect(md.length).toBeLessThanOrEqual(9000);
      expect(md).toMatch(/more omitted for the budget/);
      expect(md).toContain('Learning ');
    }
    const p = v.run(['context', '--hook', 'claude'], JSON.stringify({ session_id: 'big-2', cwd: v.root, hook_event_name: 'UserPromptSubmit', prompt: 'the kafka consumer lag alert fired again' }));
    const pm = context(p.stdout, 'UserPromptSubmit');
    expect(pm.length).toBeLessThan(2200);
    expect((pm.match(/^#### /gm) ?? []).length).toBeLessThanOrEqual(3);
  });

  it('stdout is only the JSON, even with colours forced', () => {
    const v = project();
    const r = v.run(['context', '--hook', 'claude'], JSON.stringify({ session_id: 's', cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' }), { FORCE_COLOR: '1', NO_COLOR: undefined });
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    context(r.stdout, 'SessionStart');
  });
});

describe('mem context --hook codex and gemini', () => {
  it('codex: SessionStart (transcript_path null) and UserPromptSubmit', () => {
    const v = project();
    const start = v.run(['context', '--hook', 'codex'], JSON.stringify({ session_id: '0199a1b2-c3d4', transcript_path: null, cwd: v.root, hook_event_name: 'SessionStart', model: 'gpt-5-codex', permission_mode: 'default', source: 'startup' }));
    expect(start.status).toBe(0);
    expect(context(start.stdout, 'SessionStart')).toContain(NORM);
    const base = { session_id: '0199a1b2-c3d5', turn_id: 't1', transcript_path: null, cwd: v.root, hook_event_name: 'UserPromptSubmit', model: 'gpt-5-codex', permission_mode: 'default' };
    const hit = v.run(['context', '--hook', 'codex'], JSON.stringify({ ...base, prompt: 'add a refund endpoint to the billing service, amounts in cents' }));
    expect(context(hit.stdout, 'UserPromptSubmit')).toContain(CENTS);
    const miss = v.run(['context', '--hook', 'codex'], JSON.stringify({ ...base, prompt: 'translate the README into French please' }));
    expect(miss.status).toBe(0);
    expect(miss.stdout).toBe('');
  });

  it('gemini: SessionStart and BeforeAgent, only JSON on stdout', () => {
    const v = project();
    const common = { session_id: 'g-1', transcript_path: path.join(v.home, '.gemini', 'tmp', 'h', 'chats', 'session-g-1.json'), cwd: v.root, timestamp: '2026-11-20T10:00:00Z' };
    const start = v.run(['context', '--hook', 'gemini'], JSON.stringify({ ...common, hook_event_name: 'SessionStart', source: 'startup' }));
    expect(start.status).toBe(0);
    expect(context(start.stdout, 'SessionStart')).toContain(CENTS);
    const hit = v.run(['context', '--hook', 'gemini'], JSON.stringify({ ...common, session_id: 'g-2', hook_event_name: 'BeforeAgent', prompt: 'the staging deploy hangs on the Helm upgrade again' }));
    expect(context(hit.stdout, 'BeforeAgent')).toContain(VPN);
    const miss = v.run(['context', '--hook', 'gemini'], JSON.stringify({ ...common, hook_event_name: 'BeforeAgent', prompt: 'what is the capital of Australia?' }));
    expect(miss.stdout).toBe('');
    // Events mem does not answer: nothing.
    const other = v.run(['context', '--hook', 'gemini'], JSON.stringify({ ...common, hook_event_name: 'AfterTool', tool_name: 'read_file' }));
    expect(other.status).toBe(0);
    expect(other.stdout).toBe('');
  });
});

describe('never hurts the host', () => {
  it('inside a call mem makes to an agent CLI as its model (MEM_IN_MODEL_CALL): every hook exits 0 at once and does nothing', () => {
    const v = project();
    const transcript = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');
    const before = listing(v.root);
    for (const [args, event] of [[['context', '--hook', 'claude'], 'SessionStart'], [['context', '--hook', 'codex'], 'UserPromptSubmit'], [['extract', '--hook', 'claude'], 'SessionEnd'], [['extract', '--hook', 'gemini'], 'SessionEnd']] as const) {
      const payload = JSON.stringify({ session_id: 'm-1', transcript_path: transcript, cwd: v.root, hook_event_name: event, source: 'startup', prompt: 'run the migrations before the API tests' });
      const r = v.run([...args], payload, { MEM_IN_MODEL_CALL: '1' });
      expect(r.status).toBe(0);
      expect(r.stdout + r.stderr).toBe('');
    }
    // No log, no detached extraction (its log's header is written before the hook exits), no index.
    expect(listing(v.root)).toEqual(before);
    // The same SessionStart without the guard answers.
    const plain = v.run(['context', '--hook', 'claude'], JSON.stringify({ session_id: 'm-2', cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' }));
    expect(context(plain.stdout, 'SessionStart')).toContain(NORM);
  });

  it('outside a mem vault (a bare git repository, a plain folder): exit 0, empty stdout, nothing created', () => {
    const home = tempDir();
    const repo = tempDir();
    git(repo, ['init', '-q']);
    fs.writeFileSync(path.join(repo, 'README.md'), '# app\n');
    const plain = tempDir();
    for (const dir of [repo, plain]) {
      const before = listing(dir);
      for (const [args, event] of [[['context', '--hook', 'claude'], 'SessionStart'], [['context', '--hook', 'claude'], 'UserPromptSubmit'], [['context', '--hook', 'gemini'], 'BeforeAgent'], [['extract', '--hook', 'claude'], 'SessionEnd'], [['extract', '--hook', 'gemini'], 'SessionEnd']] as const) {
        const payload = JSON.stringify({ session_id: 'o-1', transcript_path: path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl'), cwd: dir, hook_event_name: event, prompt: 'run the migrations before the API tests' });
        const r = mem([...args], { cwd: dir, home, input: payload, env: { HOME: home, ...OFFLINE } });
        expect(r.status).toBe(0);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe('');
        // Broken payloads too.
        const b = mem([...args], { cwd: dir, home, input: 'not json {', env: { HOME: home } });
        expect(b.status).toBe(0);
        expect(b.stdout + b.stderr).toBe('');
      }
      expect(listing(dir)).toEqual(before);
    }
    expect(listing(home)).toEqual([]);
  });

  it('a broken payload in a vault: exit 0, empty stdout, the error in .mem/logs/hooks.log', () => {
    const v = project();
    const inputs = ['not json', '[1,2,3]', '', JSON.stringify({ hook_event_name: 'SessionStart', cwd: 42 }).slice(0, 20), 'x'.repeat(5 * 1024 * 1024)];
    for (const input of inputs) {
      const r = mem(['context', '--hook', 'claude'], { cwd: v.root, home: v.home, input });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
    }
    const bad = mem(['context', '--hook', 'cursor'], { cwd: v.root, home: v.home, input: '{}' });
    expect(bad.status).toBe(0);
    expect(bad.stdout).toBe('');
    const log = v.read('.mem/logs/hooks.log');
    expect(log).toMatch(/claude context hook: the hook payload is not JSON/);
    expect(log).toMatch(/claude context hook: the hook payload is not a JSON object/);
    expect(log).toMatch(/claude context hook: no hook payload on stdin/);
    expect(log).toMatch(/claude context hook: the hook payload is over 4 MB/);
    expect(log).toMatch(/cursor context hook: unknown hook agent "cursor"/);
  });

  it('a big unindexed vault: answers at once from what is there and indexes in the background', async () => {
    const v = project();
    for (let i = 0; i < 40; i++) v.write(`.mem/jobs/job-${i}/MEMORY.md`, entry(`bulk-${i}`, `Bulk learning ${i} about the kafka consumer group offsets.`));
    const payload = JSON.stringify({ session_id: 'big', cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' });
    // The background index is held back until the hook has answered: its answer comes from the
    // new, empty index however the two processes are scheduled.
    const hold = holdBackground('index');
    const r = v.run(['context', '--hook', 'claude'], payload, hold.env);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(''); // a new, empty index: nothing yet
    await waitFor(() => hold.held() === 1);
    hold.release();
    await waitFor(() => fs.existsSync(v.path('.mem/logs/index.log')) && mem(['list', '--json'], { cwd: v.root, home: v.home, env: { MEM_BUSY_TIMEOUT_MS: '0' } }).stdout.includes('bulk-39'));
    expect(v.read('.mem/logs/hooks.log')).toMatch(/SessionStart: the index was missing \(\d+ files to index\); started mem index in the background/);
    const again = v.run(['context', '--hook', 'claude'], payload);
    expect(context(again.stdout, 'SessionStart')).toContain(NORM);
  });

  it('an index locked by another writer: answers at once from the index as it is, never waits for the lock', async () => {
    const v = project();
    const payload = JSON.stringify({ session_id: 'lk', cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' });
    context(v.run(['context', '--hook', 'claude'], payload).stdout, 'SessionStart'); // builds the index
    fs.appendFileSync(v.path('institutional.md'), entry('norm-2', 'Every migration gets a down migration.', { type: 'directive' }));
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(v.path('.memory.db'));
    db.exec('BEGIN IMMEDIATE');
    try {
      // Told to wait for a lock far longer than this test may run, and the lock is held until the
      // hook is done: an answer at all means the hook did not wait for it. Run without blocking
      // this process, so that a hook that waited ends the test by its timeout.
      const r = await memAsync(['context', '--hook', 'claude'], { cwd: tempDir(), home: v.home, input: payload, env: { HOME: v.home, MEM_NOW: '2026-11-20', MEM_BUSY_TIMEOUT_MS: '3600000' } });
      expect(r.status).toBe(0);
      const md = context(r.stdout, 'SessionStart');
      expect(md).toContain(NORM);
      expect(md).not.toContain('down migration');
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
    expect(v.read('.mem/logs/hooks.log')).toMatch(/SessionStart: the index is being written by another process; answered from it as it is/);
    expect(context(v.run(['context', '--hook', 'claude'], payload).stdout, 'SessionStart')).toContain('down migration');
  });

  it('SessionStart and a prompt answer every time on an indexed vault (their speed: npm run bench)', () => {
    const v = project();
    const start = (session: string) => JSON.stringify({ session_id: session, cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' });
    const prompt = (session: string) => JSON.stringify({ session_id: session, cwd: v.root, hook_event_name: 'UserPromptSubmit', prompt: 'the staging deploy hangs on the Helm upgrade' });
    v.run(['context', '--hook', 'claude'], start('t')); // builds the index
    for (let i = 0; i < 3; i++) {
      expect(context(v.run(['context', '--hook', 'claude'], start(`s${i}`)).stdout, 'SessionStart')).toContain(NORM);
      expect(context(v.run(['context', '--hook', 'claude'], prompt(`p${i}`)).stdout, 'UserPromptSubmit')).toContain(VPN);
    }
  });
});

describe('mem extract --hook gemini', () => {
  it('SessionEnd: answers without waiting for the extraction of the Gemini session, which runs in the background', async () => {
    const v = project();
    const chat = {
      sessionId: 'g-end-1', projectHash: 'h', startTime: '2026-11-20T10:00:00Z', lastUpdated: '2026-11-20T10:05:00Z',
      messages: [
        { id: '1', timestamp: '2026-11-20T10:00:00Z', type: 'user', content: 'Always run the linter before committing; never commit generated files in dist/.' },
        { id: '2', timestamp: '2026-11-20T10:00:05Z', type: 'gemini', content: 'Understood, I will run the linter first.' },
      ],
    };
    const transcript = path.join(tempDir(), 'session-g-end-1.json');
    fs.writeFileSync(transcript, JSON.stringify(chat, null, 2));
    const payload = JSON.stringify({ session_id: 'g-end-1', transcript_path: transcript, cwd: v.root, hook_event_name: 'SessionEnd', timestamp: '2026-11-20T10:05:00Z', reason: 'exit' });
    const hold = holdBackground('extract');
    // Not waited for synchronously: a hook that waited for its held child would end the test by its timeout.
    const r = await memAsync(['extract', '--hook', 'gemini'], { cwd: tempDir(), home: v.home, input: payload, env: { HOME: v.home, ...OFFLINE, ...hold.env } });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    // The hook is done while its extraction is held back, not yet started: it did not wait for it.
    await waitFor(() => hold.held() === 1);
    expect(v.read('MEMORY.md')).not.toContain('never commit generated files');
    hold.release();
    await waitFor(() => v.read('MEMORY.md').includes('never commit generated files'));
    expect(v.read('MEMORY.md')).toContain('session_id: g-end-1');
    expect(v.read('.mem/logs/extract.log')).toMatch(/gemini hook \(SessionEnd\): extracting .*session-g-end-1\.json/);
  });

  it('PreCompress with a transcript that is a folder: exit 0 at once, the failure logged', async () => {
    const v = project();
    const dir = tempDir();
    const r = v.run(['extract', '--hook', 'gemini'], JSON.stringify({ session_id: 'g-2', transcript_path: dir, cwd: v.root, hook_event_name: 'PreCompress', trigger: 'auto' }), OFFLINE);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    await waitFor(() => fs.existsSync(v.path('.mem/logs/extract.log')) && /mem: /.test(v.read('.mem/logs/extract.log')));
  });
});
