import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/extract/transcript.js';
import { commandKey, episodeFromTranscript, isGitCommit, sessionFacts } from '../../src/notes/extract-episode.js';

const FIX = path.join(__dirname, '..', 'fixtures', 'transcripts');
const read = (rel: string) => readTranscript(fs.readFileSync(path.join(FIX, rel), 'utf8'));

describe('episode metrics from real transcripts (counted by hand)', () => {
  it('Claude Code 1.0.17: a rejected commit and push, both retried', () => {
    const f = sessionFacts(read('claude/claude-v1.0.17-short-push-interrupt.sniffly.jsonl'));
    // git status, git remote -v, git add ., git commit (rejected), git push (rejected), git commit, git push
    expect(f.metrics).toEqual({ tool_calls: 7, errors: 2, recoveries: 2, commits: 1, files_changed: 0 });
    expect(f.duration_minutes).toBe(1); // 12:36:23 → 12:37:28
    expect(f.outcome).toBe('success');
  });

  it('Claude Code 2.0.76: one failed Edit retried on the same file, one never', () => {
    const f = sessionFacts(read('claude/claude-v2.0.76-api-error-exit-cmds.entire.jsonl'));
    expect(f.metrics).toEqual({ tool_calls: 18, errors: 2, recoveries: 1, commits: 0, files_changed: 1 });
    expect(f.duration_minutes).toBe(21); // 11:26:10 → 11:47:30
    expect(f.outcome).toBe('partial');
    expect(f.unrecovered.map((c) => c.key)).toEqual(['Edit:/Users/soph/Work/entire/devenv/cli/.claude/skills/test-repo/test-harness.sh']);
  });

  it('Gemini CLI: nine tool calls, one file written by a file tool', () => {
    const f = sessionFacts(read('gemini/gemini-cli-session.entire.json'));
    // write_file docs/blue.md, 6 run_shell_command (ls, git status, rm, echo >>, git status, git add), 2 read_file
    expect(f.metrics).toEqual({ tool_calls: 9, errors: 0, recoveries: 0, commits: 0, files_changed: 1 });
    expect(f.outcome).toBe('success');
  });

  it('Codex 0.135 (real, no tool calls) and the Codex coverage fixture', () => {
    const real = sessionFacts(read('codex/codex-modern-exec-0.135-redacted.kvsankar.jsonl'));
    expect(real.metrics).toEqual({ tool_calls: 0, errors: 0, recoveries: 0, commits: 0, files_changed: 0 });
    expect(real.duration_minutes).toBe(0);
    // shell ls (custom_tool_call), shell ls (function_call), two trimmed calls; no exit codes.
    const cov = sessionFacts(read('synthetic/codex-schema-coverage-v0.146.agent-sessions.jsonl'));
    expect(cov.metrics).toMatchObject({ tool_calls: 4, errors: 0, commits: 0 });
  });

  it('Codex rollouts: exit codes are errors, a rerun of the same command recovers, apply_patch files count', () => {
    const rec = (type: string, payload: Record<string, unknown>, ts: string) => JSON.stringify({ timestamp: ts, type, payload });
    const lines = [
      rec('session_meta', { id: 'codex-1' }, '2026-02-01T10:00:00Z'),
      rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the build' }] }, '2026-02-01T10:00:00Z'),
      rec('response_item', { type: 'function_call', name: 'shell', call_id: 'c1', arguments: JSON.stringify({ command: ['bash', '-lc', 'npm run build'] }) }, '2026-02-01T10:01:00Z'),
      rec('response_item', { type: 'function_call_output', call_id: 'c1', output: 'Exit code: 2\nWall time: 1s\nOutput:\nerror TS2304' }, '2026-02-01T10:01:10Z'),
      rec('response_item', { type: 'custom_tool_call', name: 'apply_patch', call_id: 'c2', input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** Add File: src/b.ts\n+z\n*** End Patch' }, '2026-02-01T10:02:00Z'),
      rec('response_item', { type: 'custom_tool_call_output', call_id: 'c2', output: 'Exit code: 0\nOutput:\nDone' }, '2026-02-01T10:02:05Z'),
      rec('response_item', { type: 'function_call', name: 'shell', call_id: 'c3', arguments: JSON.stringify({ command: ['bash', '-lc', 'npm run build -- --noEmit'] }) }, '2026-02-01T10:03:00Z'),
      rec('response_item', { type: 'function_call_output', call_id: 'c3', output: 'Exit code: 0\nOutput:\nok' }, '2026-02-01T10:03:10Z'),
      rec('response_item', { type: 'function_call', name: 'shell', call_id: 'c4', arguments: JSON.stringify({ command: ['bash', '-lc', 'git add -A && git commit -m fix'] }) }, '2026-02-01T10:04:00Z'),
      rec('response_item', { type: 'function_call_output', call_id: 'c4', output: 'Exit code: 0\nOutput:\n[main 1a2b3c] fix' }, '2026-02-01T10:04:30Z'),
    ];
    const f = sessionFacts(readTranscript(lines.join('\n')));
    expect(f.metrics).toEqual({ tool_calls: 4, errors: 1, recoveries: 1, commits: 1, files_changed: 2 });
    expect(f.duration_minutes).toBe(5);
    expect(f.outcome).toBe('success');
  });
});

describe('rules', () => {
  it('command keys and git commit detection', () => {
    expect(commandKey('cd web && CI=1 npm test -- --watch=false')).toBe('npm test');
    expect(isGitCommit('git commit -m "x"')).toBe(true);
    expect(isGitCommit('git -C repo commit --amend')).toBe(true);
    expect(isGitCommit('git add . && git commit -qm x')).toBe(true);
    expect(isGitCommit('git log --grep commit')).toBe(false);
    expect(isGitCommit('echo git commit')).toBe(false);
  });

  it('judges failure when the session ends on an unrecovered error, and builds the note data', () => {
    const t = readTranscript(JSON.stringify([
      { role: 'user', content: 'make the tests pass' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'Error: 3 failing\nmore' }] },
    ]));
    const f = sessionFacts(t);
    expect(f.outcome).toBe('failure');
    expect(f.metrics).toMatchObject({ tool_calls: 1, errors: 1, recoveries: 0 });
    const d = episodeFromTranscript(t, { sessionId: 's1', task: 'make the tests pass', lessons: ['Run npm ci first'], source: 'x.json', now: '2026-01-01T00:00:00Z' });
    expect(d.outcome).toBe('failure');
    expect(d.lessons).toEqual(['Run npm ci first']);
    expect(d.created_at).toBe('2026-01-01T00:00:00Z');
  });
});
