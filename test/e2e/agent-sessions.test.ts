// Session discovery end to end: a temp HOME holding Claude Code, Codex and Gemini CLI session
// folders (this project's, other projects', old ones, a FIFO, a link loop), and `mem extract
// --recent` / `mem extract FOLDER` run against them. Other projects' sessions are real
// transcripts from test/fixtures/transcripts (see its SOURCES.md).

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cleanup, REPO, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run, testIo } from '../run.js';

afterEach(cleanup);

const POSIX = process.platform !== 'win32';
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'transcripts');
const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: undefined, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined, GEMINI_CLI_HOME: undefined };
const DAY = 86400e3;
const MEMORY_MD = fs.readFileSync(path.join(REPO, 'templates', 'MEMORY.md'), 'utf8');

const slug = (p: string) => p.replace(/[^a-zA-Z0-9]/g, '-');
const sha = (p: string) => createHash('sha256').update(p).digest('hex');

function put(file: string, text: string, ageMs = 3600e3): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  const t = (Date.now() - ageMs) / 1000;
  fs.utimesSync(file, t, t);
  return file;
}

const claudeSession = (cwd: string, id: string, say: string) =>
  `{"type":"summary","summary":"s","leafUuid":"u0"}\n${JSON.stringify({ type: 'user', cwd, sessionId: id, uuid: `${id}-1`, message: { role: 'user', content: say } })}\n${JSON.stringify({ type: 'assistant', cwd, sessionId: id, uuid: `${id}-2`, message: { id: `m-${id}`, role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] } })}\n`;

const codexRollout = (cwd: string, id: string, say: string) =>
  `${JSON.stringify({ timestamp: '2026-11-20T10:00:00Z', type: 'session_meta', payload: { id, cwd, originator: 'codex_cli_rs', base_instructions: { text: 'x'.repeat(100_000) } } })}\n${JSON.stringify({ timestamp: '2026-11-20T10:00:01Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: say }] } })}\n${JSON.stringify({ timestamp: '2026-11-20T10:00:02Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Noted.' }] } })}\n`;

const geminiSession = (root: string, id: string, say: string) =>
  JSON.stringify({ sessionId: id, projectHash: sha(root), startTime: '2026-11-20T10:00:00Z', lastUpdated: '2026-11-20T10:01:00Z', messages: [{ id: `${id}-1`, timestamp: '2026-11-20T10:00:00Z', type: 'user', content: say }, { id: `${id}-2`, timestamp: '2026-11-20T10:00:05Z', type: 'gemini', content: 'Noted.' }] }, null, 2);

interface Layout {
  v: TempVault;
  home: string;
  /** The transcripts of this project that --recent (7d) must extract, by agent. */
  mine: Record<'claude' | 'codex' | 'gemini', string[]>;
  old: { claude: string; codex: string };
}

/**
 * A project and a HOME with all three agents' sessions. The agents' folders go under `dirs`
 * (default: where each agent keeps them under HOME).
 */
function layout(dirs?: { claude: string; codex: string; gemini: string }): Layout {
  const v = tempVault();
  v.write('MEMORY.md', MEMORY_MD);
  const home = tempDir('mem-agent-home-');
  const claude = dirs?.claude ?? path.join(home, '.claude');
  const codex = dirs?.codex ?? path.join(home, '.codex');
  const gemini = dirs?.gemini ?? path.join(home, '.gemini');
  const root = v.root;
  const other = path.join(path.dirname(root), 'elsewhere');
  const sibling = `${root}-two`; // shares the project's slug as a prefix

  const projects = path.join(claude, 'projects');
  const mine = {
    claude: [
      put(path.join(projects, slug(root), 'c-main.jsonl'), claudeSession(root, 'c-main', 'Remember to run make lint-claude before pushing.'), 5 * 3600e3),
      // A session started in a subfolder of the project: its own folder, its cwd inside the project.
      put(path.join(projects, slug(path.join(root, 'web')), 'c-sub.jsonl'), claudeSession(path.join(root, 'web'), 'c-sub', 'Remember to restart vite-claude-sub after editing the proxy.'), 4 * 3600e3),
    ],
    codex: [
      // Nested YYYY/MM/DD, and a cwd inside the project.
      put(path.join(codex, 'sessions', '2026', '11', '20', 'rollout-2026-11-20T10-00-00-x-mine.jsonl'), codexRollout(path.join(root, 'api'), 'x-mine', 'Remember to bump codex-schema-version when adding a column.'), 3 * 3600e3),
      // A real rollout (Codex 0.135), moved to this project.
      put(path.join(codex, 'sessions', '2026', '11', '21', 'rollout-2026-11-21T09-00-00-x-real.jsonl'), fs.readFileSync(path.join(FIXTURES, 'codex', 'codex-modern-exec-0.135-redacted.kvsankar.jsonl'), 'utf8').split('/tmp/agent-history-real-agent/codex/workspace').join(root), 2 * 3600e3),
    ],
    gemini: [
      // Older Gemini CLI: tmp/<sha256 of the project path>/chats/.
      put(path.join(gemini, 'tmp', sha(root), 'chats', 'session-2026-11-20T10-00-aaaa.json'), geminiSession(root, 'g-hash', 'Remember to regenerate gemini-hash-types after editing the schema.'), 90 * 60e3),
      // Newer Gemini CLI: a short name, the project path in .project_root.
      put(path.join(gemini, 'tmp', 'project', 'chats', 'session-2026-11-21T10-00-bbbb.json'), geminiSession(root, 'g-short', 'Remember to clear gemini-short-cache before the release build.'), 60 * 60e3),
    ],
  };
  put(path.join(gemini, 'tmp', 'project', '.project_root'), root);
  // Claude Code's subagent transcript of c-main, and its metadata: never read as sessions.
  put(path.join(projects, slug(root), 'c-main', 'subagents', 'agent-a1.jsonl'), claudeSession(root, 'c-main', 'Remember to never pick SUBAGENT-claude.'));
  put(path.join(projects, slug(root), 'c-main', 'subagents', 'agent-a1.meta.json'), '{"agentType":"general-purpose"}');

  // Other projects: never picked.
  put(path.join(projects, slug('/Users/chip/dev/ai-music'), 'fed8ce56.jsonl'), fs.readFileSync(path.join(FIXTURES, 'claude', 'claude-v1.0.17-short-push-interrupt.sniffly.jsonl'), 'utf8'));
  put(path.join(projects, slug(sibling), 'c-sib.jsonl'), claudeSession(sibling, 'c-sib', 'Remember to never pick OTHER-sibling-claude.'));
  // Another project whose path has the same Claude folder name (a "_" where this one has a "/").
  const twin = `${path.dirname(root)}_${path.basename(root)}`;
  expect(slug(twin)).toBe(slug(root));
  put(path.join(projects, slug(root), 'c-twin.jsonl'), claudeSession(twin, 'c-twin', 'Remember to never pick OTHER-twin-claude.'));
  put(path.join(projects, slug(other), 'c-other.jsonl'), claudeSession(other, 'c-other', 'Remember to never pick OTHER-claude.'));
  put(path.join(codex, 'sessions', '2026', '11', '20', 'rollout-2026-11-20T11-00-00-x-other.jsonl'), codexRollout(other, 'x-other', 'Remember to never pick OTHER-codex.'), 10 * 3600e3);
  put(path.join(codex, 'sessions', '2026', '11', '20', 'rollout-2026-11-20T12-00-00-x-sib.jsonl'), codexRollout(sibling, 'x-sib', 'Remember to never pick OTHER-sibling-codex.'), 9 * 3600e3);
  const realGemini = fs.readFileSync(path.join(FIXTURES, 'gemini', 'gemini-cli-session.entire.json'), 'utf8');
  put(path.join(gemini, 'tmp', (JSON.parse(realGemini) as { projectHash: string }).projectHash, 'chats', 'session-2026-01-15T20-51-f7633853.json'), realGemini);
  put(path.join(gemini, 'tmp', 'elsewhere', '.project_root'), other);
  put(path.join(gemini, 'tmp', 'elsewhere', 'chats', 'session-2026-11-21T10-00-cccc.json'), geminiSession(other, 'g-other', 'Remember to never pick OTHER-gemini.'));

  // This project's, but older than 7 days.
  const old = {
    claude: put(path.join(projects, slug(root), 'c-old.jsonl'), claudeSession(root, 'c-old', 'Remember to archive old-claude-logs monthly.'), 30 * DAY),
    codex: put(path.join(codex, 'sessions', '2026', '10', '20', 'rollout-2026-10-20T10-00-00-x-old.jsonl'), codexRollout(root, 'x-old', 'Remember to rotate old-codex-keys quarterly.'), 30 * DAY),
  };

  if (POSIX) {
    // A FIFO with a session's name in each agent's folder, and a link loop in Codex's tree.
    expect(spawnSync('mkfifo', [path.join(projects, slug(root), 'pipe.jsonl')]).status).toBe(0);
    expect(spawnSync('mkfifo', [path.join(codex, 'sessions', '2026', '11', '20', 'rollout-pipe.jsonl')]).status).toBe(0);
    fs.symlinkSync('..', path.join(codex, 'sessions', '2026', '11', 'loop'));
    fs.symlinkSync(path.join(codex, 'sessions'), path.join(codex, 'sessions', '2026', 'up'));
  }
  return { v, home, mine, old };
}

function ledger(v: TempVault): string[] {
  const f = v.path('.mem/extracted.jsonl');
  if (!fs.existsSync(f)) return [];
  return fs.readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { transcript: string }).transcript);
}

const all = (m: Layout['mine']) => [...m.claude, ...m.codex, ...m.gemini];

describe('mem extract --recent', () => {
  it("extracts exactly this project's recent sessions of the three agents, oldest first", async () => {
    const L = layout();
    // The FIFOs and the link loop never block it: they are skipped (below) and walked once.
    const r = await run(['extract', '--recent'], { cwd: L.v.root, home: L.v.home, env: { ...OFFLINE, HOME: L.home } });
    expect(r.status, r.stderr).toBe(0);
    // Oldest first, every agent; nothing of the other projects, nothing older than 7 days.
    expect(ledger(L.v)).toEqual([L.mine.claude[0], L.mine.claude[1], L.mine.codex[0], L.mine.codex[1], L.mine.gemini[0], L.mine.gemini[1]]);
    const memory = L.v.read('MEMORY.md');
    for (const word of ['lint-claude', 'vite-claude-sub', 'codex-schema-version', 'gemini-hash-types', 'gemini-short-cache']) expect(memory).toContain(word);
    expect(memory).not.toMatch(/OTHER|old-claude-logs|old-codex-keys/);
    expect(r.stdout).toMatch(/added {2}MEMORY\.md .*Run make lint-claude before pushing/);
    expect(r.stderr).toMatch(/^6 sessions found \(claude 2, codex 2, gemini 2\): 6 extracted, 0 up to date, 0 failed; wrote 5 learnings$/m);
    if (POSIX) {
      expect(r.stderr).toMatch(/mem: warning: skipped .*pipe\.jsonl \(a FIFO\): not a regular file/);
      expect(r.stderr).toMatch(/mem: warning: skipped .*rollout-pipe\.jsonl \(a FIFO\): not a regular file/);
    }
  });

  it('a second run writes nothing and says every session is up to date', async () => {
    const L = layout();
    const env = { ...OFFLINE, HOME: L.home };
    expect((await run(['extract', '--recent', '-q'], { cwd: L.v.root, home: L.v.home, env })).status).toBe(0);
    const memory = L.v.read('MEMORY.md');
    const led = L.v.read('.mem/extracted.jsonl');
    const again = await run(['extract', '--recent'], { cwd: L.v.root, home: L.v.home, env });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^6 sessions found \(claude 2, codex 2, gemini 2\): 0 extracted, 6 up to date, 0 failed; wrote 0 learnings$/m);
    expect(again.stderr).not.toMatch(/nothing new in/); // up-to-date sessions are counted, not listed
    expect(L.v.read('MEMORY.md')).toBe(memory);
    expect(L.v.read('.mem/extracted.jsonl')).toBe(led);
  });

  it('sessions sharing one session id (a resumed copy) are each up to date on the second run', async () => {
    const L = layout();
    const env = { ...OFFLINE, HOME: L.home };
    const dir = path.join(L.home, '.claude', 'projects', slug(L.v.root));
    // The same session in two files: a longer one, and an older copy of its start.
    const longer = `${claudeSession(L.v.root, 'c-shared', 'Remember to pin shared-node-version in CI.')}${JSON.stringify({ type: 'user', cwd: L.v.root, sessionId: 'c-shared', uuid: 'c-shared-3', message: { role: 'user', content: 'Remember to cache shared-deps between jobs.' } })}\n`;
    put(path.join(dir, 'shared-a.jsonl'), longer, 20 * 60e3);
    put(path.join(dir, 'shared-b.jsonl'), claudeSession(L.v.root, 'c-shared', 'Remember to pin shared-node-version in CI.'), 10 * 60e3);
    expect((await run(['extract', '--recent', '-q'], { cwd: L.v.root, home: L.v.home, env })).status).toBe(0);
    const led = L.v.read('.mem/extracted.jsonl');
    const again = await run(['extract', '--recent'], { cwd: L.v.root, home: L.v.home, env });
    expect(again.stderr).toMatch(/^8 sessions found \(claude 4, codex 2, gemini 2\): 0 extracted, 8 up to date, 0 failed; wrote 0 learnings$/m);
    expect(L.v.read('.mem/extracted.jsonl')).toBe(led);
  });

  it("a rollout Codex archived (moved to archived_sessions/) is found, and is up to date when extracted before the move", async () => {
    const L = layout();
    const env = { ...OFFLINE, HOME: L.home };
    expect((await run(['extract', '--recent', '--agent', 'codex', '-q'], { cwd: L.v.root, home: L.v.home, env })).status).toBe(0);
    const led = L.v.read('.mem/extracted.jsonl');
    const archived = path.join(L.home, '.codex', 'archived_sessions', path.basename(L.mine.codex[0]));
    fs.mkdirSync(path.dirname(archived), { recursive: true });
    fs.renameSync(L.mine.codex[0], archived);
    const after = await run(['extract', '--recent', '--agent', 'codex', '--json'], { cwd: L.v.root, home: L.v.home, env });
    expect(after.status, after.stderr).toBe(0);
    expect(after.json().transcripts.map((t: { transcript: string; up_to_date: boolean }) => [t.transcript, t.up_to_date])).toEqual([[archived, true], [L.mine.codex[1], true]]);
    expect(L.v.read('.mem/extracted.jsonl')).toBe(led);
  });

  it('--agent picks agents, --since widens or narrows the window (an age or a date)', async () => {
    const L = layout();
    const env = { ...OFFLINE, HOME: L.home };
    const codex = await run(['extract', '--recent', '--agent', 'codex', '--since', '60d', '--json'], { cwd: L.v.root, home: L.v.home, env });
    expect(codex.status, codex.stderr).toBe(0);
    expect(codex.json().found).toEqual({ codex: 3 });
    expect(ledger(L.v)).toEqual([L.old.codex, L.mine.codex[0], L.mine.codex[1]]);
    const date = new Date(Date.now() - 2 * DAY).toISOString().slice(0, 10);
    const two = (await run(['extract', '--recent', '--agent', 'claude,gemini', '--since', date, '--json'], { cwd: L.v.root, home: L.v.home, env })).json();
    expect(two.found).toEqual({ claude: 2, gemini: 2 });
    const narrow = await run(['extract', '--recent', '--since', '150m', '--json'], { cwd: L.v.root, home: L.v.home, env });
    expect(narrow.status).toBe(2); // minutes are not an accepted unit
    // Files older than the cutoff by a hair (3 h before they were made) are out.
    const hours = (await run(['extract', '--recent', '--since', '3h', '--json', '--dry-run'], { cwd: L.v.root, home: L.v.home, env })).json();
    expect(hours.found).toEqual({ claude: 0, codex: 1, gemini: 2 });
  });

  it('--json: one object with what was searched, found, extracted and failed', async () => {
    const L = layout();
    // One of this project's sessions is broken: reported in `failed`, the rest extracted, exit 1.
    const broken = put(path.join(L.home, '.claude', 'projects', slug(L.v.root), 'broken.jsonl'), '\u0000\u0001binary', 30 * 60e3);
    const r = await run(['extract', '--recent', '--json'], { cwd: L.v.root, home: L.v.home, env: { ...OFFLINE, HOME: L.home } });
    expect(r.status, r.stderr).toBe(1);
    const out = r.json();
    expect(Object.keys(out)).toEqual(['recent', 'searched', 'found', 'transcripts', 'failed', 'not_regular', 'summary']);
    expect(out.recent).toEqual({ root: L.v.root, since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), agents: ['claude', 'codex', 'gemini'] });
    expect(out.searched.claude).toEqual(expect.arrayContaining([path.join(L.home, '.claude', 'projects', slug(L.v.root))]));
    expect(out.searched.codex).toEqual([path.join(L.home, '.codex', 'sessions'), path.join(L.home, '.codex', 'archived_sessions')]);
    expect(out.searched.gemini.sort()).toEqual([path.join(L.home, '.gemini', 'tmp', 'project', 'chats'), path.join(L.home, '.gemini', 'tmp', sha(L.v.root), 'chats')].sort());
    expect(out.found).toEqual({ claude: 3, codex: 2, gemini: 2 });
    expect(out.transcripts.map((t: { agent: string; transcript: string }) => [t.agent, t.transcript])).toEqual([
      ['claude', L.mine.claude[0]], ['claude', L.mine.claude[1]], ['codex', L.mine.codex[0]], ['codex', L.mine.codex[1]], ['gemini', L.mine.gemini[0]], ['gemini', L.mine.gemini[1]],
    ]);
    expect(out.transcripts[0].written[0]).toMatchObject({ file: 'MEMORY.md', title: 'Run make lint-claude before pushing.' });
    expect(out.failed).toEqual([{ transcript: broken, agent: 'claude', error: expect.stringMatching(/binary/) }]);
    if (POSIX) expect(out.not_regular.map((s: string) => path.basename(s)).sort()).toEqual(['pipe.jsonl (a FIFO)', 'rollout-pipe.jsonl (a FIFO)']);
    expect(out.summary).toEqual({
      transcripts: 7, extracted: 6, up_to_date: 0, failed: 1, written: 5,
      rejected: { 'tool-mechanics': 0, 'transcript-path': 0, 'instruction-text': 0, fragment: 0, 'no-subject': 0, duplicate: 0 },
    });
  });

  it('--dry-run reports what it would write and writes nothing', async () => {
    const L = layout();
    const before = L.v.read('MEMORY.md');
    const r = await run(['extract', '--recent', '--dry-run'], { cwd: L.v.root, home: L.v.home, env: { ...OFFLINE, HOME: L.home } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/would add {2}MEMORY\.md .*Bump codex-schema-version when adding a column/);
    expect(r.stderr).toMatch(/6 sessions found .* would write 5 learnings/);
    expect(L.v.read('MEMORY.md')).toBe(before);
    expect(fs.existsSync(L.v.path('.mem/extracted.jsonl'))).toBe(false);
  });

  it('CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME are where it looks when set', async () => {
    const elsewhere = tempDir('mem-agent-dirs-');
    const dirs = { claude: path.join(elsewhere, 'claude-config'), codex: path.join(elsewhere, 'codex-home'), gemini: path.join(elsewhere, 'gemini-home', '.gemini') };
    const L = layout(dirs);
    const env = { ...OFFLINE, HOME: L.home };
    // HOME holds nothing: without the variables, nothing is found.
    const none = await run(['extract', '--recent'], { cwd: L.v.root, home: L.v.home, env });
    expect(none.status).toBe(0);
    expect(none.stderr).toMatch(/^no claude, codex, gemini sessions of .* changed since .* \(--since 7d\); looked in claude: .*\.claude.*; codex: .*\.codex.*sessions, .*\.codex.*archived_sessions; gemini: .*\.gemini/m);
    const r = await run(['extract', '--recent', '--json'], { cwd: L.v.root, home: L.v.home, env: { ...env, CLAUDE_CONFIG_DIR: dirs.claude, CODEX_HOME: dirs.codex, GEMINI_CLI_HOME: path.dirname(dirs.gemini) } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().found).toEqual({ claude: 2, codex: 2, gemini: 2 });
    expect(r.json().searched.codex).toEqual([path.join(dirs.codex, 'sessions'), path.join(dirs.codex, 'archived_sessions')]);
    expect(ledger(L.v).sort()).toEqual(all(L.mine).sort());
  });

  it('no sessions: a clear line naming where it looked, exit 0; JSON says the same', async () => {
    const v = tempVault();
    v.write('MEMORY.md', MEMORY_MD);
    const home = tempDir('mem-agent-home-');
    const r = await run(['extract', '--recent', '--agent', 'claude'], { cwd: v.root, home: v.home, env: { ...OFFLINE, HOME: home } });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`no claude sessions of ${v.root} changed since ${r.stderr.match(/since (\S+ \S+) UTC/)![1]} UTC (--since 7d); looked in claude: ${path.join(home, '.claude', 'projects', slug(v.root))}`);
    const j = await run(['extract', '--recent', '--json'], { cwd: v.root, home: v.home, env: { ...OFFLINE, HOME: home } });
    expect(j.status).toBe(0);
    expect(j.json()).toMatchObject({ found: { claude: 0, codex: 0, gemini: 0 }, transcripts: [], failed: [], summary: { transcripts: 0, written: 0 } });
  });

  it('usage errors: --recent with a transcript, --agent/--since without --recent, bad values (exit 2, nothing written)', async () => {
    const L = layout();
    const env = { ...OFFLINE, HOME: L.home };
    const cases: [string[], RegExp][] = [
      [['extract', '--recent', L.mine.claude[0]], /^mem: --recent finds the sessions itself; it takes no transcript$/m],
      [['extract', L.mine.claude[0], '--agent', 'claude'], /^mem: --agent goes with --recent$/m],
      [['extract', L.mine.claude[0], '--since', '7d'], /^mem: --since goes with --recent$/m],
      [['extract', '--recent', '--agent', 'cursor'], /^mem: unknown agent "cursor"$/m],
      [['extract', '--recent', '--since', 'yesterday'], /^mem: --since must be an age such as 7d, 12h or 2w, or a date such as 2026-11-01 \(got "yesterday"\)$/m],
      [['extract', '--recent', '--max-depth', '2'], /^mem: --max-depth is for a folder/m],
      [['extract', '--recent', '--session', 's1'], /^mem: --session names one session; --recent finds many$/m],
      [['extract', path.join(L.home, '.codex', 'sessions'), '--max-depth', 'x'], /^mem: --max-depth must be an integer from 0 to/m],
      [['extract', L.mine.claude[0], '--max-depth', '1'], /^mem: --max-depth is for a folder of transcripts$/m],
    ];
    for (const [args, msg] of cases) {
      const r = await run(args, { cwd: L.v.root, home: L.v.home, env });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(msg);
    }
    expect(fs.existsSync(L.v.path('.mem/extracted.jsonl'))).toBe(false);
  });

  it('--help shows examples for --recent, --agent, --since and --max-depth', async () => {
    const v = tempVault();
    const r = await run(['extract', '--help'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    for (const ex of ['$ mem extract --recent ', '$ mem extract --recent --agent claude --since 2w', '--since 2026-11-01', '$ mem extract ~/.codex/sessions', '--max-depth 1']) expect(r.stdout).toContain(ex);
  });
});

describe('mem extract FOLDER (recursive)', () => {
  it('finds the rollouts in YYYY/MM/DD folders, oldest first, skipping FIFOs and never looping', async () => {
    const L = layout();
    const sessions = path.join(L.home, '.codex', 'sessions');
    const r = await run(['extract', sessions, '--json'], { cwd: L.v.root, home: L.v.home, env: { ...OFFLINE, HOME: L.home } });
    expect(r.status, r.stderr).toBe(0);
    const out = r.json();
    // A folder is read whole: every project's rollouts in it (5), each once despite the links.
    expect(out.transcripts.map((t: { transcript: string }) => path.basename(t.transcript))).toEqual([
      'rollout-2026-10-20T10-00-00-x-old.jsonl', 'rollout-2026-11-20T11-00-00-x-other.jsonl', 'rollout-2026-11-20T12-00-00-x-sib.jsonl',
      'rollout-2026-11-20T10-00-00-x-mine.jsonl', 'rollout-2026-11-21T09-00-00-x-real.jsonl',
    ]);
    if (POSIX) {
      expect(out.not_regular).toEqual([path.join('2026', '11', '20', 'rollout-pipe.jsonl (a FIFO)')]);
      expect(r.stderr).toMatch(/mem: warning: skipped 2026\/11\/20\/rollout-pipe\.jsonl \(a FIFO\): not a regular file/);
    }
    expect(out.summary).toMatchObject({ transcripts: 5, extracted: 5, failed: 0 });
  });

  it('--max-depth bounds the walk; 0 reads the folder itself only', async () => {
    const L = layout();
    const sessions = path.join(L.home, '.codex', 'sessions');
    const env = { ...OFFLINE, HOME: L.home };
    const shallow = await run(['extract', sessions, '--max-depth', '2', '--json'], { cwd: L.v.root, home: L.v.home, env });
    expect(shallow.status, shallow.stderr).toBe(0);
    expect(shallow.json().transcripts).toEqual([]);
    const month = (await run(['extract', path.join(sessions, '2026', '11'), '--max-depth', '1', '--json'], { cwd: L.v.root, home: L.v.home, env })).json();
    expect(month.transcripts).toHaveLength(4);
    const flat = await run(['extract', path.join(L.home, '.claude', 'projects', slug(L.v.root)), '--max-depth', '0'], { cwd: L.v.root, home: L.v.home, env });
    expect(flat.status, flat.stderr).toBe(0);
    // The old session counts here: a folder is read whatever the age of its files.
    // (A folder is read whole: the other project sharing the folder's name counts here too.)
    expect(flat.stderr).toMatch(/wrote 3 learnings from 3 transcripts in /);
    expect(ledger(L.v).filter((t) => t.includes(`${path.sep}.claude${path.sep}`)).map((t) => path.basename(t)).sort()).toEqual(['c-main.jsonl', 'c-old.jsonl', 'c-twin.jsonl']);
    // Walked whole, the same folder still leaves out the subagent transcript and its metadata.
    const deep = await run(['extract', path.join(L.home, '.claude', 'projects', slug(L.v.root)), '--json'], { cwd: L.v.root, home: L.v.home, env });
    expect(deep.status, deep.stderr).toBe(0);
    expect(deep.json().transcripts.map((t: { transcript: string }) => path.basename(t.transcript))).toEqual(['c-old.jsonl', 'c-main.jsonl', 'c-twin.jsonl']);
    expect(L.v.read('MEMORY.md')).not.toContain('SUBAGENT');
  });
});

describe('progress on a terminal', () => {
  it('a one-line counter on stderr when it is a TTY, none with --json or --quiet', async () => {
    const L = layout();
    /** What `mem extract --recent EXTRA` writes to stderr when stderr is a 100-column terminal. */
    const progress = async (...extra: string[]) => {
      const io = testIo({ cwd: L.v.root, home: L.v.home, env: { ...OFFLINE, MEM_PROVIDER: 'heuristic', HOME: L.home } });
      io.stderrTTY = true;
      io.stderrColumns = 100;
      const status = await main(['extract', '--recent', ...extra], io);
      return { status, stderr: io.err };
    };
    const dry = await progress('--dry-run');
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/\r\x1b\[Kextracting 1\/6 {2}claude {2}c-main\.jsonl/);
    expect(dry.stderr).toMatch(/extracting 6\/6 {2}gemini {2}session-2026-11-21T10-00-bbbb\.json/);
    expect(dry.stderr).toMatch(/6 sessions found/);
    expect((await progress('--dry-run', '--json')).stderr).not.toMatch(/extracting \d/);
    expect((await progress('--dry-run', '--quiet')).stderr).not.toMatch(/extracting \d/);
  });
});
