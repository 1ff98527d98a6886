import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import {
  findMemVault, firstPrompt, hookLog, hookMode, hookOutput, isMemVault, MAX_PAYLOAD_BYTES, parseHookAgent, parseHookPayload, readTranscriptHead,
} from '../../src/integrations/agent-hook.js';
import { cleanup, REPO, tempDir } from '../helpers.js';

afterEach(cleanup);

const POSIX = process.platform !== 'win32';
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'transcripts');

describe('parseHookPayload: the three agents', () => {
  it('Claude Code SessionStart and UserPromptSubmit', () => {
    const start = parseHookPayload(JSON.stringify({
      session_id: 'abc123', transcript_path: '/home/u/.claude/projects/-home-u-app/abc123.jsonl', cwd: '/home/u/app',
      hook_event_name: 'SessionStart', source: 'resume', model: 'claude-sonnet-4-6',
    }));
    expect(start).toEqual({ event: 'SessionStart', sessionId: 'abc123', transcript: '/home/u/.claude/projects/-home-u-app/abc123.jsonl', cwd: '/home/u/app', prompt: undefined, source: 'resume' });
    const prompt = parseHookPayload(JSON.stringify({ session_id: 'abc123', transcript_path: '/t.jsonl', cwd: '/home/u/app', permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt: 'fix the login redirect' }));
    expect(prompt.event).toBe('UserPromptSubmit');
    expect(prompt.prompt).toBe('fix the login redirect');
  });

  it('Codex hooks (transcript_path may be null) and its notify payload', () => {
    const start = parseHookPayload(JSON.stringify({ session_id: '0199a1b2', transcript_path: null, cwd: '/w/app', hook_event_name: 'SessionStart', model: 'gpt-5', permission_mode: 'default', source: 'startup' }));
    expect(start).toMatchObject({ event: 'SessionStart', sessionId: '0199a1b2', transcript: undefined, cwd: '/w/app', source: 'startup' });
    const prompt = parseHookPayload(JSON.stringify({ session_id: 's', turn_id: 't', transcript_path: '/r.jsonl', cwd: '/w/app', hook_event_name: 'UserPromptSubmit', model: 'gpt-5', permission_mode: 'default', prompt: 'add pagination' }));
    expect(prompt).toMatchObject({ event: 'UserPromptSubmit', prompt: 'add pagination' });
    const notify = parseHookPayload(JSON.stringify({ type: 'agent-turn-complete', 'thread-id': '0199a1b2-c3d4', 'turn-id': '1', cwd: '/w/app', 'input-messages': ['hi'], 'last-assistant-message': 'ok' }));
    expect(notify).toMatchObject({ event: 'agent-turn-complete', sessionId: '0199a1b2-c3d4', cwd: '/w/app' });
  });

  it('Gemini CLI SessionStart, BeforeAgent, SessionEnd and PreCompress', () => {
    const common = { session_id: 'g1', transcript_path: '/home/u/.gemini/tmp/h/chats/session-1.json', cwd: '/home/u/app', timestamp: '2026-11-26T10:00:00Z' };
    expect(parseHookPayload(JSON.stringify({ ...common, hook_event_name: 'SessionStart', source: 'startup' }))).toMatchObject({ event: 'SessionStart', source: 'startup', transcript: common.transcript_path });
    expect(parseHookPayload(JSON.stringify({ ...common, hook_event_name: 'BeforeAgent', prompt: 'why is CI red?' }))).toMatchObject({ event: 'BeforeAgent', prompt: 'why is CI red?' });
    expect(parseHookPayload(JSON.stringify({ ...common, hook_event_name: 'SessionEnd', reason: 'exit' }))).toMatchObject({ event: 'SessionEnd', transcript: common.transcript_path });
    expect(parseHookPayload(JSON.stringify({ ...common, hook_event_name: 'PreCompress', trigger: 'auto' }))).toMatchObject({ event: 'PreCompress', source: 'auto' });
  });

  it('hostile payloads: not JSON, not an object, empty, huge', () => {
    const msg = (text: string) => {
      try {
        parseHookPayload(text);
        return 'parsed';
      } catch (err) {
        expect(err).toBeInstanceOf(MemError);
        return (err as Error).message;
      }
    };
    expect(msg('not json')).toBe('the hook payload is not JSON');
    expect(msg('{"a": 1')).toBe('the hook payload is not JSON');
    expect(msg('[1, 2]')).toBe('the hook payload is not a JSON object');
    expect(msg('null')).toBe('the hook payload is not a JSON object');
    expect(msg('"SessionStart"')).toBe('the hook payload is not a JSON object');
    expect(msg('   ')).toBe('no hook payload on stdin');
    expect(msg(JSON.stringify({ prompt: 'x'.repeat(MAX_PAYLOAD_BYTES) }))).toMatch(/over 4 MB/);
  });

  it('wrong types, relative or NUL-bearing paths and oversized ids are dropped, not trusted', () => {
    const p = parseHookPayload(JSON.stringify({
      session_id: 42, transcript_path: 'relative/t.jsonl', cwd: '../../etc', hook_event_name: ['SessionStart'], prompt: { text: 'x' }, source: null,
    }));
    expect(p).toEqual({ event: undefined, sessionId: undefined, transcript: undefined, cwd: undefined, prompt: undefined, source: undefined });
    const q = parseHookPayload(JSON.stringify({ session_id: 'x'.repeat(5000), cwd: '/tmp/a\0b', transcript_path: '/t\0.jsonl', hook_event_name: 'E'.repeat(200) }));
    expect(q).toMatchObject({ sessionId: undefined, cwd: undefined, transcript: undefined, event: undefined });
  });

  it('agents: only the three', () => {
    expect(parseHookAgent('gemini')).toBe('gemini');
    expect(() => parseHookAgent('cursor')).toThrow(/unknown hook agent "cursor"/);
  });
});

describe('hookMode and hookOutput', () => {
  it('the event decides; Gemini asks per prompt with BeforeAgent', () => {
    expect(hookMode('claude', { event: 'SessionStart' })).toEqual({ mode: 'session', event: 'SessionStart' });
    expect(hookMode('claude', { event: 'UserPromptSubmit', prompt: 'x' })).toEqual({ mode: 'prompt', event: 'UserPromptSubmit' });
    expect(hookMode('codex', { event: 'UserPromptSubmit', prompt: 'x' })).toEqual({ mode: 'prompt', event: 'UserPromptSubmit' });
    expect(hookMode('gemini', { event: 'BeforeAgent', prompt: 'x' })).toEqual({ mode: 'prompt', event: 'BeforeAgent' });
    expect(hookMode('gemini', { event: 'UserPromptSubmit', prompt: 'x' })).toBeNull();
    expect(hookMode('claude', { event: 'PreToolUse' })).toBeNull();
    // No event name: a prompt means the agent's prompt event, else a session start.
    expect(hookMode('gemini', { prompt: 'x' })).toEqual({ mode: 'prompt', event: 'BeforeAgent' });
    expect(hookMode('codex', {})).toEqual({ mode: 'session', event: 'SessionStart' });
  });

  it('prints hookSpecificOutput with the event and the context, one line of JSON', () => {
    const out = hookOutput('SessionStart', 'line 1\n"quoted" \u001b[31m');
    expect(out).not.toContain('\n');
    expect(out).not.toContain('\u001b');
    expect(JSON.parse(out)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'line 1\n"quoted" \u001b[31m' } });
  });
});

describe('findMemVault: what counts as a mem vault', () => {
  it('.mem/ or MEMORY.md up from cwd; a bare git repository is not one', () => {
    const base = tempDir();
    const home = path.join(base, 'home');
    fs.mkdirSync(home);
    const gitOnly = path.join(base, 'repo', 'sub');
    fs.mkdirSync(path.join(base, 'repo', '.git'), { recursive: true });
    fs.mkdirSync(gitOnly, { recursive: true });
    expect(findMemVault({ cwd: gitOnly, home })).toBeNull();
    const withMem = path.join(base, 'proj');
    fs.mkdirSync(path.join(withMem, '.mem'), { recursive: true });
    fs.mkdirSync(path.join(withMem, 'pkg', '.git'), { recursive: true });
    // A nested git repository (a submodule) does not hide the vault above it.
    expect(findMemVault({ cwd: path.join(withMem, 'pkg'), home })).toBe(withMem);
    const withMemory = path.join(base, 'notes');
    fs.mkdirSync(withMemory);
    fs.writeFileSync(path.join(withMemory, 'MEMORY.md'), '# Memory\n');
    expect(findMemVault({ cwd: withMemory, home })).toBe(withMemory);
  });

  it('the home folder\'s MEMORY.md (global memory) does not make every project under it a vault', () => {
    const home = tempDir();
    fs.writeFileSync(path.join(home, 'MEMORY.md'), '# Global\n');
    const proj = path.join(home, 'code', 'app');
    fs.mkdirSync(proj, { recursive: true });
    expect(isMemVault(home, home)).toBe(false);
    expect(findMemVault({ cwd: proj, home })).toBeNull();
    fs.mkdirSync(path.join(home, '.mem'));
    expect(findMemVault({ cwd: proj, home })).toBe(home);
  });

  it('a cwd that is missing, relative or a file is outside; an explicit root must be a vault too', () => {
    const base = tempDir();
    const file = path.join(base, 'f.txt');
    fs.writeFileSync(file, 'x');
    expect(findMemVault({ cwd: path.join(base, 'gone'), home: base })).toBeNull();
    expect(findMemVault({ cwd: 'relative/dir', home: base })).toBeNull();
    expect(findMemVault({ cwd: file, home: base })).toBeNull();
    const plain = path.join(base, 'plain');
    fs.mkdirSync(plain);
    expect(findMemVault({ cwd: base, root: plain, home: base })).toBeNull();
    fs.mkdirSync(path.join(plain, '.mem'));
    expect(findMemVault({ cwd: base, root: plain, home: base })).toBe(plain);
  });
});

describe('reading the transcript for the first prompt', () => {
  it('the first prompt of real Claude, Codex and Gemini transcripts', async () => {
    expect(await firstPrompt(path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl'))).toBe('The checkout API tests fail on my machine, can you fix them?');
    expect(await firstPrompt(path.join(FIXTURES, 'claude', 'claude-v1.0.17-short-push-interrupt.sniffly.jsonl'))).toBe('push to github');
    expect(await firstPrompt(path.join(FIXTURES, 'gemini', 'gemini-cli-session.entire.json'))).toBe('run an agent that creates a color file inside docs, choose your color');
    expect(await firstPrompt(path.join(FIXTURES, 'synthetic', 'codex-schema-coverage-v0.146.agent-sessions.jsonl'))).toBe('List the files');
  });

  it('skips what the agent wrote into the user turn (command tags, environment context)', async () => {
    const dir = tempDir();
    const f = path.join(dir, 'rollout.jsonl');
    const line = (text: string) => JSON.stringify({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    fs.writeFileSync(f, [JSON.stringify({ type: 'session_meta', payload: { id: 't', cwd: dir } }), line('<environment_context>cwd</environment_context>'), line('# AGENTS.md instructions for /x'), line('Add retries to the webhook sender')].join('\n') + '\n');
    expect(await firstPrompt(f)).toBe('Add retries to the webhook sender');
  });

  it('a new session (missing or empty transcript) has none', async () => {
    const dir = tempDir();
    expect(await firstPrompt(path.join(dir, 'none.jsonl'))).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
    expect(await firstPrompt(path.join(dir, 'empty.jsonl'))).toBeUndefined();
  });

  it('only a regular file: never a directory, a symlink or a FIFO (which must not block)', async () => {
    const dir = tempDir();
    expect(readTranscriptHead(dir)).toBeNull();
    const real = path.join(dir, 'real.jsonl');
    fs.copyFileSync(path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl'), real);
    expect(readTranscriptHead(real)).toContain('checkout');
    if (!POSIX) return;
    const link = path.join(dir, 'link.jsonl');
    fs.symlinkSync(real, link);
    expect(readTranscriptHead(link)).toBeNull();
    expect(await firstPrompt(link)).toBeUndefined();
    const fifo = path.join(dir, 'fifo.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(readTranscriptHead(fifo)).toBeNull(); // an open that blocked would hang the test
  });

  it('reads only the head of a huge transcript', () => {
    const dir = tempDir();
    const f = path.join(dir, 'big.jsonl');
    fs.writeFileSync(f, 'x'.repeat(3 * 1024 * 1024));
    expect(readTranscriptHead(f, 1000)?.length).toBe(1000);
    expect(readTranscriptHead(f)!.length).toBe(512 * 1024);
  });
});

describe('hookLog', () => {
  it('appends one sanitised line under .mem/logs, and never through a link out of the vault', () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, '.mem'));
    hookLog(root, 'hooks.log', 'first\nsecond \u001b[31m');
    const text = fs.readFileSync(path.join(root, '.mem', 'logs', 'hooks.log'), 'utf8');
    expect(text.split('\n').filter(Boolean)).toHaveLength(1);
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT.* first second +\[31m\n$/);
    if (!POSIX) return;
    const other = tempDir();
    const outside = tempDir();
    fs.mkdirSync(path.join(other, '.mem'));
    fs.symlinkSync(outside, path.join(other, '.mem', 'logs'));
    expect(() => hookLog(other, 'hooks.log', 'x')).not.toThrow();
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});

describe('bounded reading of prompts and entries', () => {
  it('a prompt is read up to MAX_PROMPT_CHARS, never cut inside a surrogate pair', async () => {
    const { MAX_PROMPT_CHARS } = await import('../../src/integrations/agent-hook.js');
    const long = `fix the login redirect ${'x'.repeat(MAX_PROMPT_CHARS * 3)}`;
    const p = parseHookPayload(JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: long }));
    expect(p.prompt).toBe(long.slice(0, MAX_PROMPT_CHARS));
    const emoji = `${'a'.repeat(MAX_PROMPT_CHARS - 1)}😀tail`;
    const q = parseHookPayload(JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: emoji }));
    expect(q.prompt).toBe('a'.repeat(MAX_PROMPT_CHARS - 1));
  });

  it('ranking and snippets read the opening of a huge body only', async () => {
    const { ANALYSED_CHARS, analysedBody, analysedText } = await import('../../src/retrieve/search.js');
    const { snippet } = await import('../../src/render/snippet.js');
    const body = `opening words ${'filler '.repeat(ANALYSED_CHARS)} needle at the far end`;
    expect(analysedBody(body)).toHaveLength(ANALYSED_CHARS);
    expect(analysedText({ title: 'T', body })).toBe(`T\n${body.slice(0, ANALYSED_CHARS)}`);
    expect(analysedBody('short')).toBe('short');
    expect(analysedBody(`${'a'.repeat(ANALYSED_CHARS - 1)}😀`)).toBe('a'.repeat(ANALYSED_CHARS - 1));
    expect(snippet(body, ['needle']).text).not.toContain('needle');
    expect(snippet(body, ['opening']).text).toContain('opening');
  });
});
