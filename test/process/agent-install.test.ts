// The commands `mem hooks install` writes into the agents' settings, run as the agents run them: a
// shell runs the command with the agent's payload on stdin (Codex notify: the payload as the last
// argument), the built CLI answers, and an extract hook leaves the work to a detached child. The
// install itself runs in-process; HOME and the project are temporary folders.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cmd, exists, JS, read, run } from '../fixtures/agent-install.js';
import { cleanup, entry, HOOK_TIME, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

/** The command of mem's handler for `event` in a hooks file. */
function installed(file: string, event: string): string {
  const s = JSON.parse(read(file).replace(/^\s*\/\/.*$/gm, ''));
  return s.hooks[event][0].hooks[0].command;
}

function sh(command: string, cwd: string, input: string, home: string) {
  return spawnSync('sh', ['-c', command], { cwd, input, encoding: 'utf8', env: { ...process.env, HOME: home, MEM_HOME: home, MEM_ROOT: '', ...HOOK_TIME } });
}

describe('the installed commands run', () => {
  const payload = (v: TempVault, event: string) => JSON.stringify({ session_id: 's1', transcript_path: path.join(v.root, 'no-such-transcript.jsonl'), cwd: v.root, hook_event_name: event });

  it.each([
    ['claude', '.claude/settings.json', 'SessionEnd'],
    ['codex', '.codex/hooks.json', 'PreCompact'],
    ['gemini', '.gemini/settings.json', 'SessionEnd'],
  ])('%s extract hook: exit 0, nothing on stdout', async (agent, rel, event) => {
    const v = tempVault();
    expect((await run(v, ['hooks', 'install', `--${agent}`])).status).toBe(0);
    const command = installed(v.path(rel), event);
    expect(command).toBe(cmd('extract', agent));
    const r = sh(command, v.root, payload(v, event), v.home);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('codex notify: the argv with the payload as last argument exits 0, prints nothing', async () => {
    const v = tempVault();
    expect((await run(v, ['hooks', 'install', '--codex', '--user'])).status).toBe(0);
    const m = /^notify = (\[.*\])$/m.exec(read(path.join(v.home, '.codex', 'config.toml')));
    const argv = JSON.parse(m![1]) as string[];
    const r = spawnSync(argv[0], [...argv.slice(1), JSON.stringify({ type: 'agent-turn-complete', 'thread-id': 't', cwd: v.root })], { cwd: v.root, encoding: 'utf8', env: { ...process.env, HOME: v.home, MEM_HOME: v.home, MEM_ROOT: '', ...HOOK_TIME } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });

  // The whole loop through the agent's own file: the command mem wrote, run by a shell as the
  // agent runs it, with the agent's payload → the JSON the agent reads, holding the learning.
  const PROMPT_EVENT: Record<string, string> = { claude: 'UserPromptSubmit', codex: 'UserPromptSubmit', gemini: 'BeforeAgent' };
  it.each([
    ['claude', '.claude/settings.json'],
    ['codex', '.codex/hooks.json'],
    ['gemini', '.gemini/settings.json'],
  ])('%s: the installed SessionStart and per-prompt commands answer with the learning, as the agent\'s JSON', async (agent, rel) => {
    const v = tempVault();
    v.write('MEMORY.md', entry('db-migrate', 'Run npm run db:migrate before the API tests, or they fail on a fresh database', { type: 'corrective' }));
    expect((await run(v, ['hooks', 'install', `--${agent}`, '--per-prompt'])).status).toBe(0);
    const start = sh(installed(v.path(rel), 'SessionStart'), v.root, JSON.stringify({ session_id: 's1', cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' }), v.home);
    expect(start.status, start.stderr).toBe(0);
    const out = JSON.parse(start.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('Run npm run db:migrate before the API tests');
    const event = PROMPT_EVENT[agent];
    const ask = (prompt: string, session: string) => sh(installed(v.path(rel), event), v.root, JSON.stringify({ session_id: session, cwd: v.root, hook_event_name: event, prompt }), v.home);
    const relevant = ask('the API tests fail on a fresh database, why?', 's2');
    expect(relevant.status, relevant.stderr).toBe(0);
    const answer = JSON.parse(relevant.stdout);
    expect(answer.hookSpecificOutput.hookEventName).toBe(event);
    expect(answer.hookSpecificOutput.additionalContext).toContain('db:migrate');
    const unrelated = ask('write a haiku about autumn leaves falling', 's3');
    expect(unrelated.status, unrelated.stderr).toBe(0);
    expect(unrelated.stdout).toBe('');
  });

  it.each([
    ['claude', '.claude/settings.json', 'SessionEnd'],
    ['gemini', '.gemini/settings.json', 'PreCompress'],
    ['codex', '.codex/hooks.json', 'SessionEnd'],
  ])('%s: the installed extract command (%s) extracts the transcript in the background', async (agent, rel, event) => {
    const v = tempVault();
    expect((await run(v, ['hooks', 'install', `--${agent}`])).status).toBe(0);
    // Each agent's hook reads a transcript in that agent's own format (see extract --hook).
    const transcript = agent === 'claude' ? path.join(path.dirname(path.dirname(JS)), 'examples', 'sessions', 'fix-checkout-tests.jsonl') : path.join(tempDir(), `session.${agent === 'codex' ? 'jsonl' : 'json'}`);
    const said = ['Never push to main directly; always open a pull request.', 'Understood, I will open a pull request.'];
    if (agent === 'codex') {
      const lines = [{ timestamp: '2026-11-20T10:00:00Z', type: 'session_meta', payload: { id: `hook-${agent}`, cwd: v.root } }, ...said.map((text, i) => ({
        timestamp: `2026-11-20T10:00:0${i + 1}Z`, type: 'response_item', payload: { type: 'message', role: i === 0 ? 'user' : 'assistant', content: [{ type: i === 0 ? 'input_text' : 'output_text', text }] },
      }))];
      fs.writeFileSync(transcript, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    } else if (agent === 'gemini') {
      const messages = said.map((content, i) => ({ id: `m${i}`, timestamp: `2026-11-20T10:00:0${i + 1}Z`, type: i === 0 ? 'user' : 'gemini', content }));
      fs.writeFileSync(transcript, JSON.stringify({ sessionId: `hook-${agent}`, startTime: '2026-11-20T10:00:00Z', messages }, null, 2));
    }
    const r = sh(installed(v.path(rel), event), v.root, JSON.stringify({ session_id: `hook-${agent}`, transcript_path: transcript, cwd: v.root, hook_event_name: event }), v.home);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    // Generous: the wait ends as soon as the background run has written.
    const deadline = Date.now() + 90_000;
    const has = () => exists(v.path('MEMORY.md')) && read(v.path('MEMORY.md')).includes(`session_id: hook-${agent}`);
    while (!has() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    expect(read(v.path('MEMORY.md'))).toContain(`session_id: hook-${agent}`);
    // let the detached run finish (compaction, index) before the folder is removed
    const done = () => exists(v.path('.mem/logs/extract.log')) && read(v.path('.mem/logs/extract.log')).includes('wrote ');
    while (!done() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
  });
});

