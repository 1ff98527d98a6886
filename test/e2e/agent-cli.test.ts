// The coding agents' CLIs as the language model: fake `claude`, `codex` and `gemini` on PATH that
// speak each CLI's documented output format, with mem extract and mem doctor run in-process.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentBin } from '../fake-agent-cli.js';
import { LEARNINGS, NO_KEYS, SAMPLE, vault } from '../fixtures/providers.js';
import { cleanup, entryMetas } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const TITLES = ['Run the test migrations before the API tests', 'Use npm, never yarn, in shopfront'];

/** Whether process `pid` is gone (a killed process may take a moment to be reaped). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('mem extract with an agent CLI as the model', () => {
  it('claude on PATH and no key: claude -p runs headless with the prompt on stdin, its JSON answer becomes learnings', async () => {
    const fake = fakeAgentBin(LEARNINGS);
    const v = vault();
    const r = await run(['extract', SAMPLE, '--session', 'sess-c'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('ok', { CLAUDECODE: '1' }) } });
    expect(r.status, r.stderr).toBe(0);
    const calls = fake.calls();
    // The learnings, then the episodes' titles: every call headless, guarded, on stdin.
    expect(calls).toHaveLength(2);
    for (const other of calls.slice(1)) {
      expect(other.args.slice(0, 5)).toEqual(['-p', '--output-format', 'json', '--model', 'haiku']);
      expect(other.guard).toBe('1');
      expect(other.tty).toBe(false);
    }
    const c = calls[0];
    expect(c.name).toBe('claude');
    expect(c.args.slice(0, 5)).toEqual(['-p', '--output-format', 'json', '--model', 'haiku']);
    expect(c.args[c.args.indexOf('--tools') + 1]).toBe('');
    expect(c.args).toEqual(expect.arrayContaining(['--strict-mcp-config', '--no-session-persistence']));
    expect(JSON.parse(c.args[c.args.indexOf('--settings') + 1])).toEqual({ disableAllHooks: true });
    expect(c.args[c.args.indexOf('--system-prompt') + 1]).toMatch(/learnings/i);
    // The transcript goes on stdin, never in the arguments.
    expect(c.input).toContain('relation "orders" does not exist');
    expect(c.input).toMatch(/Answer with one JSON object .* JSON schema \(record_learnings\)/);
    expect(c.args.join(' ')).not.toContain('relation "orders"');
    // The recursion guard is set; the nested-session marker of a hook's environment is not passed on.
    expect(c.guard).toBe('1');
    expect(c.claudecode).toBeNull();
    expect(c.tty).toBe(false);
    expect(path.resolve(c.cwd).startsWith(path.resolve(v.root))).toBe(false);
    expect(fs.existsSync(c.cwd)).toBe(false);
    const memory = v.read('MEMORY.md');
    for (const t of TITLES) expect(memory).toContain(t);
    expect(entryMetas(memory).map((m) => m.source)).toContain('claude-cli:haiku');
    expect(r.stderr).toMatch(/wrote 2 learnings .* with claude-cli \(haiku\); 1234 input \+ 210 output tokens/);
  });

  it('codex (MEM_PROVIDER=codex-cli): codex exec --json in a read-only sandbox, the answer read from its events, a fenced JSON accepted', async () => {
    const fake = fakeAgentBin(LEARNINGS);
    const v = vault();
    const r = await run(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('fenced', { MEM_PROVIDER: 'codex-cli' }) } });
    expect(r.status, r.stderr).toBe(0);
    const [c] = fake.calls();
    expect(c.name).toBe('codex');
    expect(c.args[0]).toBe('exec');
    expect(c.args).toEqual(expect.arrayContaining(['--json', '--skip-git-repo-check', '--ephemeral']));
    expect(c.args[c.args.indexOf('--sandbox') + 1]).toBe('read-only');
    expect(c.args.at(-1)).toBe('-');
    expect(c.args).not.toContain('--model');
    // No system-prompt flag in codex exec: the system text leads the prompt.
    expect(c.input.indexOf('learnings')).toBeLessThan(c.input.indexOf('relation "orders"'));
    expect(c.guard).toBe('1');
    const j = r.json();
    expect(j.provider).toMatchObject({ name: 'codex-cli', model: 'default', source: 'MEM_PROVIDER' });
    expect(j.usage).toEqual({ input_tokens: 800, output_tokens: 150 });
    expect(j.written.map((w: { title: string }) => w.title)).toEqual(TITLES);
  });

  it('gemini (llm.provider: gemini-cli, llm.model): gemini -p --output-format json, usage from its stats', async () => {
    const fake = fakeAgentBin(LEARNINGS);
    const v = vault('llm:\n  provider: gemini-cli\n  model: flash-lite\n');
    const r = await run(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('ok') } });
    expect(r.status, r.stderr).toBe(0);
    const [c] = fake.calls();
    expect(c.name).toBe('gemini');
    expect(c.args).toContain('-p');
    expect(c.args.slice(c.args.indexOf('--output-format'), c.args.indexOf('--output-format') + 2)).toEqual(['--output-format', 'json']);
    expect(c.args[c.args.indexOf('--model') + 1]).toBe('flash-lite');
    expect(c.args[c.args.indexOf('--extensions') + 1]).toBe('none');
    expect(c.input).toContain("No, don't use yarn here");
    const j = r.json();
    expect(j.provider).toMatchObject({ name: 'gemini-cli', model: 'flash-lite', source: '.mem/config.yaml' });
    expect(j.usage).toEqual({ input_tokens: 700, output_tokens: 90 });
    expect(j.written).toHaveLength(2);
  });

  const failures: [string, string, Record<string, string>, string, RegExp][] = [
    ['claude reports not logged in (is_error)', 'claude-cli', {}, 'error-envelope', /^mem: claude-cli \(haiku\): claude is not logged in \(Not logged in · Please run \/login\)$/],
    ['codex turn.failed with a 401', 'codex-cli', {}, 'error-envelope', /^mem: codex-cli \(default\): codex is not logged in \(401 Unauthorized: not logged in\)$/],
    ['gemini error object, exit 41', 'gemini-cli', {}, 'error-envelope', /^mem: gemini-cli \(flash\): gemini is not logged in \(Please set an Auth method\)$/],
    ['output that is not the JSON format', 'claude-cli', {}, 'garbage', /^mem: claude-cli \(haiku\): claude answered with output that is not its JSON format: Welcome! Something went sideways\.$/],
    ['a non-zero exit, stderr redacted', 'claude-cli', {}, 'exit', /^mem: claude-cli \(haiku\): claude exited with code 3: fatal: upstream said no \(token \[redacted[^\]]*\]\)$/],
    ['more output than the cap', 'gemini-cli', {}, 'big', /^mem: gemini-cli \(flash\) wrote more than 8 MB on stdout; stopped it$/],
  ];
  for (const [what, provider, more, mode, line] of failures) {
    it(`${what}: one clear line with --no-fallback, the heuristics otherwise`, async () => {
      const fake = fakeAgentBin(LEARNINGS);
      const v = vault();
      const env = { ...NO_KEYS, ...fake.env(mode as never, { MEM_PROVIDER: provider, ...more }) };
      const strict = await run(['extract', SAMPLE, '--no-fallback'], { cwd: v.root, home: v.home, env });
      expect(strict.status).toBe(1);
      const first = strict.stderr.split('\n')[0];
      expect(first).toMatch(line);
      expect(strict.stderr).not.toContain('A'.repeat(40));
      const soft = await run(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env });
      expect(soft.status, soft.stderr).toBe(0);
      expect(soft.json().fallback).toBe(first.replace(/^mem: /, ''));
      expect(soft.json().written.length).toBeGreaterThan(0);
      expect(entryMetas(v.read('MEMORY.md')).map((m) => m.source)).toContain('heuristic');
    });
  }

  it('a CLI that hangs is stopped at llm.timeout_ms, with what it started', async () => {
    const fake = fakeAgentBin(LEARNINGS);
    const v = vault('llm:\n  timeout_ms: 4000\n');
    const r = await run(['extract', SAMPLE, '--no-fallback'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('hang') } });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('mem: claude-cli (haiku) did not answer within 4000 ms; stopped it');
    expect(r.stderr).toMatch(/hint: raise llm\.timeout_ms/);
    const [c] = fake.calls();
    expect(c.grandchild).toBeGreaterThan(0);
    expect(await gone(c.grandchild!)).toBe(true);
  });
});

describe('choosing an agent CLI', () => {
  it('an API key comes first; MEM_AGENT_CLI=0 and llm.agent_cli: false keep mem offline; MEM_AGENT_CLI=1 lifts the config', async () => {
    const fake = fakeAgentBin(LEARNINGS);
    const v = vault();
    const llm = async (env: Record<string, string | undefined>, at = v) => {
      const r = await run(['doctor', '--json'], { cwd: at.root, home: at.home, env: { ...NO_KEYS, ...fake.env('ok', env) } });
      return (r.json().checks as { name: string }[]).find((c) => c.name === 'llm') as Record<string, string>;
    };
    expect(await llm({})).toMatchObject({ status: 'ok', provider: 'claude-cli', model: 'haiku', source: 'no API key; claude on PATH', command: path.join(fake.dir, 'claude') });
    expect(await llm({ ANTHROPIC_API_KEY: 'sk-test' })).toMatchObject({ provider: 'anthropic', source: 'ANTHROPIC_API_KEY is set' });
    expect(await llm({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toMatchObject({ provider: 'openai' });
    expect(await llm({ MEM_AGENT_CLI: '0' })).toMatchObject({ provider: 'heuristic', source: expect.stringMatching(/MEM_AGENT_CLI=0/) });
    expect(await llm({ MEM_IN_MODEL_CALL: '1' })).toMatchObject({ provider: 'heuristic' });
    const off = vault('llm:\n  agent_cli: false\n');
    expect(await llm({}, off)).toMatchObject({ provider: 'heuristic', source: expect.stringMatching(/llm\.agent_cli: false/) });
    expect(await llm({ MEM_AGENT_CLI: '1' }, off)).toMatchObject({ provider: 'claude-cli' });
    // MEM_MODEL names an API model: a CLI chosen by itself keeps its own default; named, it takes it.
    expect(await llm({ MEM_MODEL: 'gpt-4o-mini' })).toMatchObject({ provider: 'claude-cli', model: 'haiku' });
    expect(await llm({ MEM_PROVIDER: 'claude-cli', MEM_MODEL: 'sonnet' })).toMatchObject({ provider: 'claude-cli', model: 'sonnet', source: 'MEM_PROVIDER' });
    const bad = vault('llm:\n  agent_cli: maybe\n');
    expect((await run(['extract', SAMPLE], { cwd: bad.root, home: bad.home, env: { ...NO_KEYS, ...fake.env() } })).stderr).toMatch(/llm\.agent_cli must be true or false/);
  });

  it('mem doctor says which model is used and why; a named CLI missing from PATH is a warning', async () => {
    const fake = fakeAgentBin(LEARNINGS, ['codex']);
    const v = vault();
    const text = await run(['doctor'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env() } });
    expect(text.stdout).toMatch(/ok +llm +codex-cli default \(no API key; codex on PATH; runs .*codex\)\n.*hint: each extraction uses your agent subscription; MEM_AGENT_CLI=0 or llm\.agent_cli: false keeps mem offline/);
    const missing = await run(['doctor', '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('ok', { MEM_PROVIDER: 'gemini-cli', PATH: fake.dir }) } });
    const check = (missing.json().checks as { name: string }[]).find((c) => c.name === 'llm');
    expect(check).toMatchObject({ status: 'warn', provider: 'gemini-cli', detail: 'gemini-cli flash (MEM_PROVIDER; its command is not on PATH)' });
    const offline = await run(['doctor'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, MEM_AGENT_CLI: '0' } });
    expect(offline.stdout).toMatch(/llm +none configured: mem extract uses offline heuristics \(search needs no LLM\) \(no API key or provider set, agent CLIs off \(MEM_AGENT_CLI=0\): offline\)/);
    // And a run with that provider says so in one line.
    const r = await run(['extract', SAMPLE, '--no-fallback'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('ok', { MEM_PROVIDER: 'gemini-cli', PATH: fake.dir }) } });
    expect(r.stderr.split('\n')[0]).toBe('mem: gemini-cli: the gemini command is not on PATH');
  });
});

describe('the recursion guard', () => {
  it('inside a model call (MEM_IN_MODEL_CALL) the extract hook does nothing at all, and exits 0', async () => {
    const v = vault();
    // Codex's notify gives its payload as an argument; this one names no transcript, which the hook logs.
    const payload = JSON.stringify({ type: 'agent-turn-complete', cwd: v.root });
    const guarded = await run(['extract', '--hook', 'codex', payload], { cwd: v.root, home: v.home, env: { ...NO_KEYS, MEM_IN_MODEL_CALL: '1' } });
    expect(guarded.status).toBe(0);
    expect(guarded.stdout + guarded.stderr).toBe('');
    expect(fs.existsSync(v.path('.mem/logs/extract.log'))).toBe(false);
    const plain = await run(['extract', '--hook', 'codex', payload], { cwd: v.root, home: v.home, env: NO_KEYS });
    expect(plain.status).toBe(0);
    expect(v.read('.mem/logs/extract.log')).toMatch(/codex hook: the codex hook payload names no transcript/);
  });
});
