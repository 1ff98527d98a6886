// Pattern notes where a real process is the point: the SessionStart hook run as Claude Code runs
// it (the payload on standard input), the MCP pattern tools over stdio with the official client,
// and concurrent `mem pattern add` processes serialised by the file lock.

import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { CUTOVER_GRAPH, NOW, runAtNow, vault } from '../fixtures/pattern-notes.js';
import { BIN, cleanup, mem, memAsync } from '../helpers.js';

const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  cleanup();
});

const run = runAtNow(mem);

describe('mem context: proven patterns', () => {
  it('shows at most 5 patterns with success rate > 0.7, best first (ties: more occurrences), in their own budget', () => {
    const v = vault();
    const add = (name: string, rate: number, times = 1) => {
      for (let i = 0; i < times; i++) expect(run(v, ['pattern', 'add', '--name', name, '--trigger', `when ${name}`, '--action', `do ${name}`, '--success-rate', String(rate)]).status).toBe(0);
    };
    add('a-095', 0.95); add('b-090-x3', 0.9, 3); add('c-090-x5', 0.9, 5); add('d-080', 0.8); add('e-075', 0.75); add('f-072', 0.72); add('g-070', 0.7); add('h-020', 0.2);
    const j = run(v, ['context', 'run the tests', '--json']);
    expect(j.status).toBe(0);
    expect(j.json().patterns.map((p: { name: string }) => p.name)).toEqual(['a-095', 'c-090-x5', 'b-090-x3', 'd-080', 'e-075']);
    const md = run(v, ['context', 'run the tests']).stdout;
    expect(md).toContain('### Patterns that have worked here\n\n- **PATTERN-a-095** _(success 0.95 over 1 · .mem/patterns/PATTERN-a-095.md)_\n  > When: when a-095\n  > Do: do a-095\n');
    expect(md).not.toContain('f-072');
    // The budget counts title, trigger and action: 40 characters hold one pattern here.
    expect(run(v, ['context', 'x', '--json', '--pattern-chars', '40']).json().patterns.map((p: { name: string }) => p.name)).toEqual(['a-095']);
    expect(run(v, ['context', 'x', '--pattern-chars', '0']).stdout).not.toContain('Patterns that have worked');
    // The SessionStart hook carries them too.
    const hook = mem(['context', '--hook', 'claude'], { cwd: v.root, home: v.home, env: NOW, input: JSON.stringify({ hook_event_name: 'SessionStart', cwd: v.root, session_id: 's1', source: 'startup' }) });
    expect(hook.status).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain('**PATTERN-a-095**');
  });
});

describe('mem mcp: pattern tools', () => {
  interface Answer { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, any> }

  it('add_pattern, query_patterns, get_causal_path, get_antipatterns and context over stdio with the official client', async () => {
    const v = vault();
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp', '--root', v.root, '--tools', 'all'], cwd: v.root,
      env: { PATH: process.env.PATH ?? '', MEM_HOME: v.home, NO_COLOR: '1', MEM_NOW: '2026-11-25' }, stderr: 'pipe',
    });
    const client = new Client({ name: 'mem-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Answer;
    const { tools } = await client.listTools();
    const by = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(by.add_pattern.inputSchema.required).toEqual(['name']);
    expect(Object.keys(by.get_causal_path.inputSchema.properties ?? {})).toEqual(['from_pattern', 'to_pattern', 'max_depth', 'project']);

    const a = await call('add_pattern', { name: 'run-migrations-first', trigger: 'fresh database', action: 'migrate first', success_rate: 0.9, evidence_episode: 's1', causal_relationships: [{ type: 'prevents', target: 'PATTERN-flaky-tests' }] });
    expect(a.isError).toBeFalsy();
    expect(a.structuredContent).toMatchObject({ action: 'created', title: 'PATTERN-run-migrations-first', occurrences: 1, last_validated: '2026-11-25' });
    await call('add_pattern', { name: 'flaky-tests', trigger: 'tests fail at random', action: 'retry', success_rate: 0.2, is_antipattern: true });
    const up = await call('add_pattern', { name: 'ANTIPATTERN-flaky-tests', success_rate: 0 });
    expect(up.structuredContent).toMatchObject({ action: 'updated', occurrences: 2, success_rate: 0.1 });
    // The note on disk is the one mem pattern reads.
    expect(v.read('.mem/patterns/ANTIPATTERN-flaky-tests.md')).toContain('occurrences: 2\n');

    const q = await call('query_patterns', { min_success_rate: 0.5 });
    expect(q.structuredContent).toMatchObject({ total: 1, patterns: [{ title: 'PATTERN-run-migrations-first', success_rate: 0.9 }] });
    const p = await call('get_causal_path', { from_pattern: 'migrations', to_pattern: 'flaky' });
    expect(p.structuredContent).toMatchObject({ found: true, depth: 1, path: [{ label: 'PATTERN-run-migrations-first' }, { label: 'ANTIPATTERN-flaky-tests', via: 'prevents' }] });
    const none = await call('get_causal_path', { from_pattern: 'flaky', to_pattern: 'migrations' });
    expect(none.structuredContent).toMatchObject({ found: false, reason: expect.stringMatching(/no chain/) });
    const amb = await call('get_causal_path', { from_pattern: 't', to_pattern: 'flaky' });
    expect(amb.isError).toBe(true);
    expect(amb.content[0].text).toMatch(/^mem: "t" matches 2 patterns/);
    const anti = await call('get_antipatterns', {});
    expect(anti.structuredContent).toMatchObject({ total: 1, patterns: [{ title: 'ANTIPATTERN-flaky-tests' }] });
    const bad = await call('add_pattern', { name: 'x', trigger: 't', action: 'a', success_rate: 2 });
    expect(bad.isError).toBe(true);
    expect(fs.existsSync(v.path('.mem/patterns/PATTERN-x.md'))).toBe(false);
    const ctx = await call('context', { task: 'run the tests' });
    expect(ctx.structuredContent?.patterns.map((x: { title: string }) => x.title)).toEqual(['PATTERN-run-migrations-first']);
    expect(ctx.structuredContent?.markdown).toContain('### Patterns that have worked here');
  });
});

describe('mem mcp: the causal graph named as users write it', () => {
  interface Answer { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, any> }

  it('get_causal_path and add_pattern take normalised names and unique prefixes, and reach imported outcomes', async () => {
    const v = vault();
    fs.mkdirSync(v.path('export'));
    fs.writeFileSync(path.join(v.path('export'), 'causal-graph.json'), JSON.stringify(CUTOVER_GRAPH));
    expect(run(v, ['import', 'ai-agents', 'export']).status).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp', '--root', v.root, '--tools', 'all'], cwd: v.root,
      env: { PATH: process.env.PATH ?? '', MEM_HOME: v.home, NO_COLOR: '1', MEM_NOW: '2026-11-25' }, stderr: 'pipe',
    });
    const client = new Client({ name: 'mem-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Answer;

    const p = await call('get_causal_path', { from_pattern: 'Stop old job', to_pattern: 'No duplicate invoices' });
    expect(p.isError).toBeFalsy();
    expect(p.structuredContent).toMatchObject({ found: true, depth: 1, path: [{ label: 'PATTERN-stop-old-job-before-cutover' }, { label: 'OUTCOME-no-duplicate-invoices', type: 'outcome', via: 'causes' }] });
    // A relationship to a pattern named as the user says it.
    const a = await call('add_pattern', { name: 'Freeze billing', trigger: 'cutover day', action: 'pause invoicing', causal_relationships: [{ type: 'enables', target: 'Stop old job before cutover' }] });
    expect(a.structuredContent).toMatchObject({ action: 'created', title: 'PATTERN-freeze-billing' });
    const longer = await call('get_causal_path', { from_pattern: 'freeze billing', to_pattern: 'no duplicate' });
    expect(longer.structuredContent).toMatchObject({ found: true, depth: 2 });
    await call('add_pattern', { name: 'Stop old cron', trigger: 't', action: 'a' });
    const amb = await call('get_causal_path', { from_pattern: 'Stop old', to_pattern: 'No duplicate invoices' });
    expect(amb.isError).toBe(true);
    expect(amb.content[0].text).toMatch(/^mem: "Stop old" matches 2 patterns: PATTERN-stop-old-cron, PATTERN-stop-old-job-before-cutover/);
  });
});

describe('mem pattern add: writes are locked, confined and never half-done', () => {
  it('counts every one of concurrent upserts of one pattern (the file lock)', async () => {
    const v = vault();
    expect(run(v, ['pattern', 'add', '--name', 'p', '--trigger', 't', '--action', 'a', '--success-rate', '1']).status).toBe(0);
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => memAsync(['pattern', 'add', '--name', 'p', '--success-rate', i % 2 ? '1' : '0', '--evidence-episode', `s${i}`], { cwd: v.root, home: v.home, env: NOW })));
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    const note = v.read('.mem/patterns/PATTERN-p.md');
    expect(note).toContain('occurrences: 7\n');
    for (let i = 0; i < 6; i++) expect(note).toContain(`- [[EPISODE-s${i}]]\n`);
    // Every order of the same six rates averages to 4/7 (up to the 6-place rounding of each step).
    expect(Number(/success_rate: ([\d.]+)/.exec(note)![1])).toBeCloseTo(4 / 7, 4);
  });
});
