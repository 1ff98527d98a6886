// The offline extractor on whole transcripts through the CLI: harness text is never the
// task or a learning, the agent's mechanics are never learnings, corrections become rules.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, REPO, tempDir, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const FIXTURES = path.join(REPO, 'test', 'fixtures', 'transcripts');
const ALL = 'project,corrective,interventions,observations';
const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };

/** A vault with the MEMORY.md `mem init` writes. */
function vault() {
  const v = tempVault();
  v.write('MEMORY.md', fs.readFileSync(path.join(REPO, 'templates', 'MEMORY.md'), 'utf8'));
  return v;
}

const codex = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-11-20T10:00:00Z', type, payload });
const codexMsg = (role: string, ...texts: string[]) => codex('response_item', { type: 'message', role, content: texts.map((text) => ({ type: role === 'assistant' ? 'output_text' : 'input_text', text })) });
const call = (name: string, args: unknown, id: string) => codex('response_item', { type: 'function_call', name, arguments: JSON.stringify(args), call_id: id });
const out = (id: string, code: number, output: string) => codex('response_item', { type: 'function_call_output', call_id: id, output: `Exit code: ${code}\nWall time: 0.4 seconds\nOutput:\n${output}` });

/** A Codex rollout: harness context first, then a session with a real fix and the agent's own stumbles. */
function codexRollout(): string {
  return [
    codex('session_meta', { id: '0199aa00-1111-7000-8000-000000000001', cwd: '/srv/ledger' }),
    codexMsg('developer', '<permissions instructions>\nCommands run in a workspace-write sandbox.\n</permissions instructions>'),
    codexMsg('user', '# AGENTS.md instructions for /srv/ledger\n\n<INSTRUCTIONS>\nAlways run make check before you finish.\nNever edit files under gen/.\n</INSTRUCTIONS>', '<environment_context>\n  <cwd>/srv/ledger</cwd>\n  <shell>bash</shell>\n</environment_context>'),
    codexMsg('user', 'Make the monthly report script print totals per currency.'),
    call('shell', { command: ['bash', '-lc', 'python scripts/report.py --month 2026-10'] }, 'c1'),
    out('c1', 1, 'Traceback (most recent call last):\n  File "scripts/report.py", line 4, in <module>\n    import babel.numbers\nModuleNotFoundError: No module named \'babel\''),
    call('shell', { command: ['bash', '-lc', 'pip install --user babel'] }, 'c2'),
    out('c2', 1, 'ERROR: Could not install packages: failed in sandbox: operation not permitted'),
    call('shell', { command: ['bash', '-lc', 'pip install --user babel'], with_escalated_permissions: true }, 'c3'),
    out('c3', 0, 'Successfully installed babel-2.16.0'),
    call('shell', { command: ['bash', '-lc', 'python scripts/report.py --month 2026-10'] }, 'c4'),
    out('c4', 0, 'EUR 1200.00\nUSD 310.50'),
    codex('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** Update File: scripts/report.py\n@@\n-print(total)\n+print(totals)\n*** End Patch', call_id: 'p1' }),
    codex('response_item', { type: 'custom_tool_call_output', call_id: 'p1', output: 'Exit code: 1\nOutput:\napply_patch verification failed: Failed to find expected lines in scripts/report.py' }),
    codex('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** Update File: scripts/report.py\n@@\n-print(sum)\n+print(totals)\n*** End Patch', call_id: 'p2' }),
    codex('response_item', { type: 'custom_tool_call_output', call_id: 'p2', output: 'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM scripts/report.py' }),
    codexMsg('assistant', 'I will now also write the totals to a CSV file in /tmp so you can open them.'),
    codexMsg('user', "No, I want the script to print to stdout only; the finance team pipes it into their own tooling. Don't write files anywhere."),
    codexMsg('assistant', 'Understood.'),
  ].join('\n') + '\n';
}

/** A Claude session: reminders around the prompt, an edit that missed, a correction after an interruption. */
function claudeSession(): string {
  const rec = (type: string, content: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type, sessionId: '5b1e0c2a-0000-4000-8000-00000000000a', uuid: `u${Math.random()}`, timestamp: '2026-11-20T09:00:00Z', message: { role: type, content }, ...extra });
  const use = (id: string, name: string, input: unknown) => rec('assistant', [{ type: 'tool_use', id, name, input }]);
  const result = (id: string, text: string, isError: boolean) => rec('user', [{ type: 'tool_result', tool_use_id: id, content: text, is_error: isError }]);
  return [
    rec('user', '<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>', { isMeta: true }),
    rec('user', [{ type: 'text', text: '<system-reminder>\nContents of /app/CLAUDE.md (project instructions):\nRemember to run the type checker before every commit.\n</system-reminder>' }, { type: 'text', text: 'Rename the `fetchUser` helper to `loadUser` across the web app.' }]),
    use('t1', 'Edit', { file_path: '/app/src/api.ts', old_string: 'fetchUser(id)', new_string: 'loadUser(id)' }),
    result('t1', '<tool_use_error>String to replace not found in file.\nString: fetchUser(id)</tool_use_error>', true),
    use('t2', 'Edit', { file_path: '/app/src/api.ts', old_string: 'fetchUser(userId)', new_string: 'loadUser(userId)' }),
    result('t2', 'The file /app/src/api.ts has been updated.', false),
    use('t3', 'Bash', { command: 'git push --force origin main', description: 'push' }),
    result('t3', "The user doesn't want to proceed with this tool use. The tool use was rejected.", true),
    rec('user', [{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
    rec('user', 'Never force-push to main; open a pull request from a feature branch instead.'),
  ].join('\n') + '\n';
}

async function extract(v: ReturnType<typeof vault>, file: string, extra: string[] = []) {
  const r = await run(['extract', file, '--json', '--provider', 'heuristic', '--scopes', ALL, ...extra], { cwd: v.root, home: v.home, env: OFFLINE });
  expect(r.status, r.stderr).toBe(0);
  return r.json() as { written: { title: string; scope: string; file: string }[] };
}

describe('mem extract --provider heuristic on sessions full of harness text and tool noise', () => {
  it('Codex: AGENTS.md and the environment are never the task or a learning; the fix states its cause; the correction is a rule', async () => {
    const v = vault();
    const file = path.join(tempDir(), 'rollout-2026-11-20.jsonl');
    fs.writeFileSync(file, codexRollout());
    const j = await extract(v, file, ['--session', 'cx-1']);
    const titles = j.written.map((w) => w.title);
    expect(titles).toEqual([
      'The script should print to stdout only; the finance team pipes it into their own tooling.',
      "Don't write files anywhere.",
      expect.stringMatching(/^Run `pip install --user babel` before `python scripts\/report\.py --month 2026-10`$/),
    ]);
    for (const t of titles) expect(t).not.toMatch(/make check|gen\/|sandbox|apply_patch|Traceback/);
    const memory = v.read('MEMORY.md');
    expect(memory).toContain("session_task: 'Make the monthly report script print totals per currency.'");
    expect(memory).not.toContain('AGENTS.md');
    expect(memory).toContain("failed with: ModuleNotFoundError: No module named 'babel'");
    // The human's words are the evidence; the agent's last message is not glued on.
    expect(memory).toContain('The human corrected the agent.\n\nEvidence: "No, I want the script to print to stdout only');
    expect(memory).not.toContain('CSV file in /tmp');
  });

  it("Claude: reminders and meta records are not the human; a missed Edit is not a learning; the interruption's correction is kept as a rule", async () => {
    const v = vault();
    const file = path.join(tempDir(), 'session.jsonl');
    fs.writeFileSync(file, claudeSession());
    const j = await extract(v, file);
    expect(j.written.map((w) => `${w.scope}|${w.title}`)).toEqual(['interventions|Never force-push to main; open a pull request from a feature branch instead.']);
    const proxy = v.read('proxy.md');
    expect(proxy).toContain("session_task: 'Rename the `fetchUser` helper to `loadUser` across the web app.'");
    expect(proxy).toContain('The human stopped the agent after it ran `git push --force origin main`.\n\nEvidence: "Never force-push to main');
    expect(`${proxy}${v.read('MEMORY.md')}`).not.toMatch(/type checker|String to replace/);
  });

  it('a human turn that is only a reminder or a command wrapper never becomes the task', async () => {
    const v = vault();
    const file = path.join(tempDir(), 'cmds.jsonl');
    const user = (content: string) => JSON.stringify({ type: 'user', sessionId: 's-9', message: { role: 'user', content } });
    fs.writeFileSync(file, [
      user('<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>'),
      user('<local-command-stdout>Set model to opus</local-command-stdout>'),
      user('<system-reminder>\nAlways answer in French.\n</system-reminder>'),
      user('Always pin the base image digest in the Dockerfile.'),
    ].join('\n') + '\n');
    await extract(v, file);
    const memory = v.read('MEMORY.md');
    expect(memory).toContain("session_task: 'Always pin the base image digest in the Dockerfile.'");
    expect(memory).toMatch(/Directive: Always pin the base image digest/);
    expect(memory).not.toMatch(/French|command-name|Set model/);
  });

  it('on every real transcript: no NUL, no raw tool call, no transcript path, no "X failed" or fragment titles', async () => {
    const v = vault();
    const files = fs.readdirSync(FIXTURES, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && /\.jsonl?$/.test(d.name));
    files.push(Object.assign(fs.statSync(path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl')), { name: 'fix-checkout-tests.jsonl', parentPath: path.join(REPO, 'examples', 'sessions') }) as never);
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const d of files as { name: string; parentPath: string }[]) {
      const file = path.join(d.parentPath, d.name);
      const r = await run(['extract', file, '--dry-run', '--json', '--provider', 'heuristic', '--scopes', ALL], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(r.status, `${d.name}: ${r.stderr}`).toBe(0);
      for (const w of r.json().written as { title: string }[]) {
        expect(w.title, d.name).not.toMatch(/\u0000|\w\(\{"|\.jsonl\b|` failed:|^Traceback|^(?:and|or|but|in|with)\b/i);
        expect(w.title.split(/\s+/).length, `${d.name}: ${w.title}`).toBeGreaterThanOrEqual(4);
      }
    }
  });
});
