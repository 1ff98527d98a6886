// Fake `claude`, `codex` and `gemini` executables in a temp bin folder, put first on PATH: each
// logs how it was run (arguments, standard input, folder, the guard variable) and answers in its
// CLI's documented output format, or fails the way FAKE_CLI_MODE asks.

import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './helpers.js';

export type FakeMode = 'ok' | 'fenced' | 'error-envelope' | 'garbage' | 'exit' | 'hang' | 'big';

export interface FakeCall {
  name: string;
  args: string[];
  input: string;
  cwd: string;
  guard: string | null;
  claudecode: string | null;
  tty: boolean;
  /** A process the fake started (mode hang), to check that it was killed too. */
  grandchild?: number;
}

// CommonJS, no extension: the bin folder is under the temp folder, outside any package.json.
const SCRIPT = `#!/usr/bin/env node
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const name = path.basename(process.argv[1]);
const mode = process.env.FAKE_CLI_MODE || 'ok';
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const call = { name, args: process.argv.slice(2), input, cwd: process.cwd(), guard: process.env.MEM_IN_MODEL_CALL ?? null,
    claudecode: process.env.CLAUDECODE ?? null, tty: Boolean(process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY) };
  if (mode === 'hang') {
    const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    call.grandchild = g.pid;
  }
  fs.appendFileSync(process.env.FAKE_CLI_LOG, JSON.stringify(call) + '\\n');
  const answer = fs.readFileSync(process.env.FAKE_CLI_ANSWER, 'utf8');
  const text = mode === 'fenced' ? 'Here are the learnings:\\n\\n\`\`\`json\\n' + answer + '\\n\`\`\`\\n' : answer;
  if (mode === 'hang') { setInterval(() => {}, 1000); return; }
  if (mode === 'garbage') { process.stdout.write('Welcome! Something went sideways.\\n'); return; }
  if (mode === 'exit') { process.stderr.write('fatal: upstream said no (token sk-ant-api03-' + 'A'.repeat(40) + ')\\n'); process.exit(3); }
  if (mode === 'big') { const chunk = 'x'.repeat(1024 * 1024); for (let i = 0; i < 10; i++) process.stdout.write(chunk); return; }
  if (name === 'claude') {
    if (mode === 'error-envelope') {
      process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'Not logged in · Please run /login', session_id: 's', total_cost_usd: 0 }) + '\\n');
      process.exit(1);
    }
    process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, duration_ms: 1200, num_turns: 1, result: text,
      session_id: 'fake-session', total_cost_usd: 0.001, usage: { input_tokens: 900, cache_creation_input_tokens: 300, cache_read_input_tokens: 34, output_tokens: 210 } }) + '\\n');
  } else if (name === 'codex') {
    const ev = (e) => process.stdout.write(JSON.stringify(e) + '\\n');
    ev({ type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' });
    ev({ type: 'turn.started' });
    if (mode === 'error-envelope') { ev({ type: 'turn.failed', error: { message: '401 Unauthorized: not logged in' } }); process.exit(1); }
    ev({ type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Reading the transcript**' } });
    ev({ type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text } });
    ev({ type: 'turn.completed', usage: { input_tokens: 800, cached_input_tokens: 500, output_tokens: 150 } });
  } else {
    if (mode === 'error-envelope') {
      process.stdout.write(JSON.stringify({ session_id: 's', error: { type: 'FatalAuthenticationError', message: 'Please set an Auth method', code: 41 } }) + '\\n');
      process.exit(41);
    }
    process.stdout.write(JSON.stringify({ session_id: 's', response: text, stats: { models: { 'gemini-2.5-flash': { api: { totalRequests: 1 }, tokens: { prompt: 700, candidates: 90, total: 790 } } } } }, null, 2) + '\\n');
  }
});
`;

export interface FakeBin {
  /** The folder holding the fakes: put it first on PATH. */
  dir: string;
  /** The environment a run needs: PATH with the fakes first, the log, the answer and the mode. */
  env(mode?: FakeMode, more?: Record<string, string | undefined>): Record<string, string | undefined>;
  calls(): FakeCall[];
}

/** Fakes of `names` (default all three) answering with `answer` (a JSON value, sent as text). */
export function fakeAgentBin(answer: unknown, names: string[] = ['claude', 'codex', 'gemini']): FakeBin {
  const dir = tempDir('mem-fake-bin-');
  const data = tempDir('mem-fake-data-');
  const log = path.join(data, 'calls.jsonl');
  const answerFile = path.join(data, 'answer.txt');
  fs.writeFileSync(answerFile, typeof answer === 'string' ? answer : JSON.stringify(answer));
  for (const n of names) {
    fs.writeFileSync(path.join(dir, n), SCRIPT);
    fs.chmodSync(path.join(dir, n), 0o755);
  }
  return {
    dir,
    env: (mode = 'ok', more = {}) => ({
      // Only the fakes, node (for their #! line) and the system folders: no real agent CLI.
      PATH: [dir, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
      FAKE_CLI_LOG: log, FAKE_CLI_ANSWER: answerFile, FAKE_CLI_MODE: mode, MEM_AGENT_CLI: undefined, ...more,
    }),
    calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as FakeCall) : []),
  };
}
