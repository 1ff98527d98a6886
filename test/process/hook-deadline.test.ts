// The agent hooks' deadline, as an agent meets it: a real child process whose stdin the test
// writes to and never closes, a hook with no time left, prompts and entries of many megabytes.

import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, HOOK_TIME, launch, mem, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const VPN = 'The staging deploy needs the VPN connection; without it the Helm upgrade times out.';
const CENTS = 'The billing service stores amounts as integer cents; never use floats for money.';

function project(): TempVault {
  const v = tempVault();
  v.write('MEMORY.md', entry('vpn-1', VPN, { importance: 0.6, last_reinforced: '2026-11-18' }) + entry('cents-1', CENTS, { importance: 0.9, last_reinforced: '2026-11-18' }));
  mem(['index', '--quiet'], { cwd: v.root, home: v.home });
  return v;
}

/**
 * Run the hook with `input` written to its stdin, which is then left open until the hook ends.
 * Its deadline is HOOK_TIME's unless `env` sets one: far past the guard below, so that a hook
 * that waited for the end of its input is killed by the guard.
 */
function hookWithOpenStdin(v: TempVault, input: string, env: Record<string, string> = {}): Promise<{ status: number | null; signal: string | null; stdout: string }> {
  const [cmd, argv] = launch(['context', '--hook', 'claude']);
  const child = spawn(cmd, argv, { cwd: v.root, env: { ...process.env, NODE_EXTRA_CA_CERTS: undefined, HOME: v.home, MEM_HOME: v.home, MEM_NOW: '2026-11-20', ...HOOK_TIME, ...env } as NodeJS.ProcessEnv });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stdin.write(input);
  // Never ended: the agent keeps its end of the pipe open. Killed only if the hook hangs (the test then fails).
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) => child.on('close', (status, signal) => {
    clearTimeout(guard);
    child.stdin.destroy();
    resolve({ status, signal, stdout });
  }));
}

describe('the hook deadline', () => {
  it('a whole payload on a pipe left open: the hook answers and exits 0 without waiting for the end of input', async () => {
    const v = project();
    const payload = JSON.stringify({ session_id: 'open-1', cwd: v.root, hook_event_name: 'UserPromptSubmit', prompt: 'the staging deploy times out without the vpn connection' });
    const r = await hookWithOpenStdin(v, `${payload}\n`);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain('VPN connection');
  });

  it('half a payload on a pipe left open: at the deadline the hook answers nothing, exits 0 and logs why', async () => {
    const v = project();
    const r = await hookWithOpenStdin(v, `{"session_id": "open-2", "cwd": ${JSON.stringify(v.root)}, "hook_event_name": "UserPromptSubmit", "prompt": "the staging`, { MEM_HOOK_DEADLINE_MS: '1500' });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(v.read('.mem/logs/hooks.log')).toMatch(/context hook: the hook's deadline passed while its payload was read; nothing done/);
  });

  it('no time left: nothing printed, exit 0; the same payload with time answers', () => {
    const v = project();
    const payload = JSON.stringify({ session_id: 'late', cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' });
    const late = mem(['context', '--hook', 'claude'], { cwd: v.root, home: v.home, input: payload, env: { MEM_HOOK_DEADLINE_MS: '0', MEM_NOW: '2026-11-20' } });
    expect(late.status).toBe(0);
    expect(late.stdout).toBe('');
    expect(v.read('.mem/logs/hooks.log')).toMatch(/deadline passed/);
    const onTime = mem(['context', '--hook', 'claude'], { cwd: tempDir(), home: v.home, input: payload, env: { MEM_NOW: '2026-11-20' } });
    expect(onTime.status).toBe(0);
    expect(JSON.parse(onTime.stdout).hookSpecificOutput.additionalContext).toContain('integer cents');
  });

  it('a prompt of megabytes: its opening is read, and the learning it names is found', () => {
    const v = project();
    const log = 'ERROR worker 17 lost its lease on partition 4; rebalancing the consumer group\n'.repeat(45_000); // ~3.6 MB
    const payload = JSON.stringify({ session_id: 'long', cwd: v.root, hook_event_name: 'UserPromptSubmit', prompt: `Why does the staging deploy time out without the vpn connection? The log:\n${log}` });
    const r = mem(['context', '--hook', 'claude'], { cwd: tempDir(), home: v.home, input: payload, env: { MEM_NOW: '2026-11-20' } });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain('VPN connection');
  });
});
