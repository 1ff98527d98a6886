import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { agentHomes, claudeProjectSlug, codexRolloutFor, cwdInside, discoverSessions, geminiProjectHash, parseAgents, parseSince, readHead, sessionCwd, transcriptsIn } from '../../src/extract/discover.js';

const POSIX = process.platform !== 'win32';
const dirs: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-discover-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('claudeProjectSlug', () => {
  it('turns every character but an ASCII letter or digit into "-", one for one', () => {
    expect(claudeProjectSlug('/Users/chip/dev/ai-music')).toBe('-Users-chip-dev-ai-music');
    expect(claudeProjectSlug('/home/me/my_app.v2')).toBe('-home-me-my-app-v2');
    expect(claudeProjectSlug('/home/me/.config/x y')).toBe('-home-me--config-x-y');
    expect(claudeProjectSlug('C:\\git\\cc-plus')).toBe('C--git-cc-plus');
    // Non-ASCII: one "-" per UTF-16 unit, as Claude Code's regex without the u flag does.
    expect(claudeProjectSlug('/p/café')).toBe('-p-caf-');
    expect(claudeProjectSlug('/p/😀')).toBe('-p---');
  });
});

describe('parseSince', () => {
  const now = Date.parse('2026-11-20T12:00:00Z');
  it('reads ages in hours, days and weeks', () => {
    expect(parseSince('12h', now)).toBe(now - 12 * 3600e3);
    expect(parseSince('7d', now)).toBe(now - 7 * 86400e3);
    expect(parseSince('2w', now)).toBe(now - 14 * 86400e3);
    expect(parseSince(' 3D ', now)).toBe(now - 3 * 86400e3);
  });
  it('reads a date (start of that day, UTC) or an ISO time', () => {
    expect(parseSince('2026-11-01', now)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(parseSince('2026-11-01T08:30:00Z', now)).toBe(Date.parse('2026-11-01T08:30:00Z'));
    expect(parseSince('2026-11-01T08:30:00+02:00', now)).toBe(Date.parse('2026-11-01T06:30:00Z'));
  });
  it('refuses anything else with a usage error', () => {
    for (const bad of ['', '7', 'd7', '7y', '-7d', 'yesterday', '2026-13-45', '2026/11/01', '7d; rm']) {
      let err: unknown;
      try {
        parseSince(bad, now);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(MemError);
      expect((err as MemError).exitCode, bad).toBe(2);
    }
  });
});

describe('parseAgents', () => {
  it('all three by default; a list, deduplicated; an unknown name is a usage error', () => {
    expect(parseAgents(undefined)).toEqual(['claude', 'codex', 'gemini']);
    expect(parseAgents('Codex, claude,codex')).toEqual(['codex', 'claude']);
    expect(() => parseAgents('cursor')).toThrow(/unknown agent "cursor"/);
    expect(() => parseAgents(' , ')).toThrow(/--agent is empty/);
  });
});

describe('sessionCwd (the codex cwd matcher)', () => {
  it("reads Codex's session_meta payload", () => {
    const head = `${JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'x', cwd: '/home/me/app', base_instructions: { text: 'long' } } })}\n{"type":"event_msg"}\n`;
    expect(sessionCwd(head)).toBe('/home/me/app');
  });
  it('reads the real Codex rollout fixture', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'transcripts', 'codex', 'codex-modern-exec-0.135-redacted.kvsankar.jsonl'), 'utf8');
    expect(sessionCwd(text)).toBe('/tmp/agent-history-real-agent/codex/workspace');
  });
  it("reads a Claude Code record's cwd past records without one", () => {
    const head = `{"type":"summary","summary":"x","leafUuid":"u"}\n${JSON.stringify({ type: 'user', cwd: '/Users/chip/dev/ai-music', message: { role: 'user', content: 'hi' } })}\n`;
    expect(sessionCwd(head)).toBe('/Users/chip/dev/ai-music');
  });
  it('finds the field in a first record cut off by the read limit, escapes decoded', () => {
    const cut = `{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"C:\\\\work\\\\app \\"q\\"","base_instructions":{"text":"aaaa`;
    expect(sessionCwd(cut)).toBe('C:\\work\\app "q"');
  });
  it('falls back to the <cwd> of an older rollout environment message', () => {
    const head = `{"id":"x","timestamp":"t","instructions":null}\n${JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/srv/app</cwd>\n</environment_context>' }] })}\n`;
    expect(sessionCwd(head)).toBe('/srv/app');
  });
  it('undefined when nothing names a folder; a cwd inside a nested JSON string is not taken', () => {
    expect(sessionCwd('{"type":"user","message":{"content":"the \\"cwd\\":\\"/etc\\" key"}}\n')).toBeUndefined();
    expect(sessionCwd('')).toBeUndefined();
    expect(sessionCwd('not json\n')).toBeUndefined();
  });
});

describe('cwdInside', () => {
  it('the project itself or a folder inside it; not a sibling sharing a prefix', () => {
    expect(cwdInside('/a/app', ['/a/app'])).toBe(true);
    expect(cwdInside('/a/app/', ['/a/app'])).toBe(true);
    expect(cwdInside('/a/app/src/x', ['/a/app'])).toBe(true);
    expect(cwdInside('/a/app-two', ['/a/app'])).toBe(false);
    expect(cwdInside('/a', ['/a/app'])).toBe(false);
    expect(cwdInside('/a/app/../other', ['/a/app'])).toBe(false);
    expect(cwdInside('/b/app', ['/a/app', '/b/app'])).toBe(true);
  });
  it.skipIf(!POSIX)('a session started through a link to the project counts', () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, 'real'));
    fs.symlinkSync(path.join(d, 'real'), path.join(d, 'link'));
    expect(cwdInside(path.join(d, 'link', 'sub'), [path.join(d, 'real')])).toBe(false); // sub does not exist: compared as written
    fs.mkdirSync(path.join(d, 'real', 'sub'));
    expect(cwdInside(path.join(d, 'link', 'sub'), [path.join(d, 'real')])).toBe(true);
  });
});

describe('agentHomes', () => {
  it('CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME replace the defaults under HOME', () => {
    expect(agentHomes({}, '/h')).toEqual({ claude: path.resolve('/h/.claude'), codex: path.resolve('/h/.codex'), gemini: path.resolve('/h/.gemini') });
    expect(agentHomes({ CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '/x', GEMINI_CLI_HOME: '/g' }, '/h')).toEqual({ claude: path.resolve('/c'), codex: path.resolve('/x'), gemini: path.resolve('/g/.gemini') });
  });
});

describe('readHead', () => {
  it('reads past a first line longer than one chunk, and stops after it', () => {
    const d = tmp();
    const f = path.join(d, 'r.jsonl');
    const first = JSON.stringify({ type: 'session_meta', payload: { cwd: '/p', base_instructions: { text: 'x'.repeat(200_000) } } });
    fs.writeFileSync(f, `${first}\n${'{"type":"event_msg"}\n'.repeat(100_000)}`);
    const head = readHead(f)!;
    expect(head.length).toBeGreaterThan(first.length);
    expect(head.length).toBeLessThan(first.length + 128 * 1024);
    expect(sessionCwd(head)).toBe('/p');
  });
  it.skipIf(!POSIX)('null for a FIFO, at once', () => {
    const d = tmp();
    expect(spawnSync('mkfifo', [path.join(d, 'p.jsonl')]).status).toBe(0);
    expect(readHead(path.join(d, 'p.jsonl'))).toBeNull();
  });
});

describe('transcriptsIn', () => {
  function tree(): string {
    const d = tmp();
    const put = (rel: string, ageDays: number) => {
      const f = path.join(d, rel);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, '{}\n');
      const t = Date.now() / 1000 - ageDays * 86400;
      fs.utimesSync(f, t, t);
    };
    put('top.jsonl', 1);
    put('2026/11/20/rollout-b.jsonl', 3);
    put('2026/11/19/rollout-a.jsonl', 5);
    put('2026/11/19/notes.txt', 0);
    put('a/b/c/d/e/f/g/deep.json', 2);
    return d;
  }
  it('walks subfolders, oldest first, transcript names only', () => {
    const d = tree();
    const l = transcriptsIn(d)!;
    expect(l.files.map((f) => path.relative(d, f))).toEqual(['2026/11/19/rollout-a.jsonl', '2026/11/20/rollout-b.jsonl', 'top.jsonl'].map((p) => p.split('/').join(path.sep)));
    expect(l.skipped).toEqual([]);
  });
  it('--max-depth bounds the walk: 0 is the folder only', () => {
    const d = tree();
    expect(transcriptsIn(d, 0)!.files.map((f) => path.basename(f))).toEqual(['top.jsonl']);
    expect(transcriptsIn(d, 2)!.files.map((f) => path.basename(f))).toEqual(['top.jsonl']);
    expect(transcriptsIn(d, 3)!.files.map((f) => path.basename(f))).toEqual(['rollout-a.jsonl', 'rollout-b.jsonl', 'top.jsonl']);
    expect(transcriptsIn(d, 7)!.files.map((f) => path.basename(f))).toContain('deep.json');
  });
  it("leaves out Claude Code's subagent transcripts and .meta.json sidecars", () => {
    const d = tmp();
    for (const rel of ['s1.jsonl', 's1/subagents/agent-a1.jsonl', 's1/subagents/agent-a1.meta.json', 's1/other/x.json', 'y.meta.json']) {
      fs.mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
      fs.writeFileSync(path.join(d, rel), '{}\n');
    }
    expect(transcriptsIn(d)!.files.map((f) => path.relative(d, f)).sort()).toEqual(['s1.jsonl', path.join('s1', 'other', 'x.json')]);
  });
  it('null for a file or a missing path', () => {
    const d = tree();
    expect(transcriptsIn(path.join(d, 'top.jsonl'))).toBeNull();
    expect(transcriptsIn(path.join(d, 'nope'))).toBeNull();
  });
  it.skipIf(!POSIX)('never loops through a link back up, lists a file reached twice once, skips FIFOs and links to them', () => {
    const d = tree();
    fs.symlinkSync('..', path.join(d, '2026', 'loop'));
    fs.symlinkSync(d, path.join(d, '2026', '11', 'again'));
    fs.symlinkSync(path.join(d, 'top.jsonl'), path.join(d, 'alias.jsonl'));
    expect(spawnSync('mkfifo', [path.join(d, '2026', 'pipe.jsonl')]).status).toBe(0);
    fs.symlinkSync(path.join(d, '2026', 'pipe.jsonl'), path.join(d, 'to-pipe.jsonl'));
    fs.symlinkSync(path.join(d, 'gone.jsonl'), path.join(d, 'dangling.jsonl'));
    const l = transcriptsIn(d, 50)!;
    // top.jsonl and its alias are one file: listed once, under either name.
    const names = l.files.map((f) => path.basename(f)).filter((n) => n !== 'alias.jsonl' && n !== 'top.jsonl').sort();
    expect(names).toEqual(['deep.json', 'rollout-a.jsonl', 'rollout-b.jsonl']);
    expect(l.files.filter((f) => /(top|alias)\.jsonl$/.test(f))).toHaveLength(1);
    expect(l.skipped.sort()).toEqual([`2026${path.sep}pipe.jsonl (a FIFO)`, 'to-pipe.jsonl (a FIFO)']);
  });
});

describe('discoverSessions', () => {
  const line = (cwd: string) => `${JSON.stringify({ type: 'user', cwd, sessionId: 's', message: { role: 'user', content: 'hi' } })}\n`;
  function write(file: string, text: string): string {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }

  it("Claude Code: a project path over 200 characters is found by its cut name and the sessions' cwd", () => {
    const d = tmp();
    const root = path.join(d, 'p'.repeat(80), 'q'.repeat(80), 'r'.repeat(80));
    fs.mkdirSync(root, { recursive: true });
    const twin = `${root}-twin`; // the same first 200 characters of name
    const home = path.join(d, 'home');
    const cut = claudeProjectSlug(root).slice(0, 200);
    expect(claudeProjectSlug(twin).slice(0, 200)).toBe(cut);
    const mine = write(path.join(home, '.claude', 'projects', `${cut}-1x2y3z`, 'a.jsonl'), line(root));
    write(path.join(home, '.claude', 'projects', `${cut}-9k8j7h`, 'b.jsonl'), line(twin));
    const found = discoverSessions(root, { agents: ['claude'], since: 0, env: {}, home });
    expect(found.sessions.map((s) => s.file)).toEqual([mine]);
  });

  it("Gemini CLI: the hash folder, projects.json's short name and a .project_root marker; nothing of another project", () => {
    const d = tmp();
    const root = path.join(d, 'app');
    fs.mkdirSync(root);
    const home = path.join(d, 'home');
    const g = path.join(home, '.gemini');
    const byHash = write(path.join(g, 'tmp', geminiProjectHash(root), 'chats', 'session-1.json'), '{}');
    const byRegistry = write(path.join(g, 'tmp', 'app', 'chats', 'session-2.json'), '{}');
    write(path.join(g, 'projects.json'), JSON.stringify({ projects: { [root]: 'app', [path.join(d, 'other')]: 'other', [path.join(root, 'pkg')]: 'app-pkg' } }));
    const bySubRegistry = write(path.join(g, 'tmp', 'app-pkg', 'chats', 'session-3.json'), '{}');
    const byMarker = write(path.join(g, 'tmp', 'app-1', 'chats', 'session-4.json'), '{}');
    write(path.join(g, 'tmp', 'app-1', '.project_root'), `${root}\n`);
    write(path.join(g, 'tmp', 'other', 'chats', 'session-5.json'), '{}');
    write(path.join(g, 'tmp', 'stray', '.project_root'), path.join(d, 'stray'));
    write(path.join(g, 'tmp', 'stray', 'chats', 'session-6.json'), '{}');
    write(path.join(g, 'tmp', 'app', 'chats', 'notes.json'), '{}'); // not a session's name
    const found = discoverSessions(root, { agents: ['gemini'], since: 0, env: {}, home });
    expect(found.sessions.map((s) => s.file).sort()).toEqual([byHash, byRegistry, bySubRegistry, byMarker].sort());
  });

  it('Codex: rollouts by cwd, in dated folders, flat or archived; other names and other projects left out', () => {
    const d = tmp();
    const root = path.join(d, 'app');
    fs.mkdirSync(root);
    const codex = path.join(d, 'codex-home');
    const meta = (cwd: string) => `${JSON.stringify({ type: 'session_meta', payload: { id: 'x', cwd } })}\n`;
    const nested = write(path.join(codex, 'sessions', '2026', '11', '20', 'rollout-a.jsonl'), meta(path.join(root, 'src')));
    const flat = write(path.join(codex, 'sessions', 'rollout-b.jsonl'), meta(root));
    const archived = write(path.join(codex, 'archived_sessions', 'rollout-e.jsonl'), meta(root));
    write(path.join(codex, 'sessions', '2026', '11', '20', 'rollout-c.jsonl'), meta(path.join(d, 'app2')));
    write(path.join(codex, 'sessions', '2026', '11', '20', 'notes-d.jsonl'), meta(root)); // not a rollout's name
    const found = discoverSessions(root, { agents: ['codex'], since: 0, env: { CODEX_HOME: codex }, home: path.join(d, 'nohome') });
    expect(found.sessions.map((s) => s.file).sort()).toEqual([nested, flat, archived].sort());
    expect(found.searched).toEqual({ codex: [path.join(codex, 'sessions'), path.join(codex, 'archived_sessions')] });
  });
});

describe('codexRolloutFor', () => {
  it("finds a thread's rollout in the dated folders; nothing for another id or an id that is not one", () => {
    const d = tmp();
    const id = '019e9625-802f-7e91-840a-cfe88d14117a';
    const f = path.join(d, 'sessions', '2026', '11', '20', `rollout-2026-11-20T10-00-00-${id}.jsonl`);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, '{}\n');
    expect(codexRolloutFor(id, { CODEX_HOME: d })).toBe(f);
    expect(codexRolloutFor('019e9625-0000-0000-0000-000000000000', { CODEX_HOME: d })).toBeUndefined();
    expect(codexRolloutFor('../x', { CODEX_HOME: d })).toBeUndefined();
    expect(codexRolloutFor(id, {}, path.join(d, 'nohome'))).toBeUndefined();
  });
});
