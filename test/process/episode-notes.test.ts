// Episode notes where a real process is the point: the SessionStart hook run as Claude Code runs it
// (the payload on standard input) and the MCP episode tools over stdio with the official client.

import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, mem } from '../helpers.js';
import { LOGIN, NOTE, NOW, runIn, vault } from '../fixtures/episode-notes.js';

afterEach(cleanup);

const run = runIn(mem);

describe('mem context warns of recent failures', () => {
  it('at most 3 failed episodes of the last 7 days, newest first, in their own budget; --json too', () => {
    const v = vault();
    const add = (id: string, outcome: string, day: string, lessons: string[] = []) =>
      expect(run(v, ['episode', 'add'], JSON.stringify({ session_id: id, task: `Task of ${id}`, outcome, created_at: `2026-01-${day}T09:00:00Z`, lessons })).status).toBe(0);
    add('f1', 'failure', '19', ['Lesson one']);
    add('f2', 'failure', '21');
    add('f3', 'failure', '23', ['Pin the npm version']);
    add('f4', 'failure', '24');
    add('old', 'failure', '10');
    add('ok', 'success', '24');
    run(v, ['add', 'Run npm ci before the tests', '--type', 'procedural']);
    const j = JSON.parse(run(v, ['context', 'npm tests', '--json']).stdout);
    expect(j.failures.map((f: { session_id: string }) => f.session_id)).toEqual(['f4', 'f3', 'f2']);
    expect(j.failures[1]).toMatchObject({ title: 'EPISODE-f3', task: 'Task of f3', path: '.mem/episodes/EPISODE-f3.md', lessons: '- Pin the npm version' });
    // Its own budget: the learnings are all there.
    expect(j.learnings.map((h: { title: string }) => h.title)).toEqual(['Procedural: Run npm ci before the tests']);
    const md = run(v, ['context', 'npm tests']).stdout;
    expect(md).toContain('### Recent failures (episodes of the last 7 days)\n\n- **Task of f4** failed _(EPISODE-f4, 2026-01-24T09:00:00Z, .mem/episodes/EPISODE-f4.md:');
    expect(md).toContain('  > Lessons:\n  > - Pin the npm version');
    expect(md).not.toContain('Task of old');
    expect(md).not.toContain('Task of ok');
    expect(JSON.parse(run(v, ['context', 'npm tests', '--json', '--failure-chars', '0']).stdout).failures).toEqual([]);
    // A budget that fits one warning.
    expect(JSON.parse(run(v, ['context', 'npm tests', '--json', '--failure-chars', '40']).stdout).failures.map((f: { session_id: string }) => f.session_id)).toEqual(['f4']);
    // The agent's SessionStart hook carries the warnings too, whatever the task.
    const hook = run(v, ['context', '--hook', 'claude'], JSON.stringify({ hook_event_name: 'SessionStart', cwd: v.root, session_id: 's9', source: 'startup' }));
    expect(hook.status).toBe(0);
    const said = JSON.parse(hook.stdout).hookSpecificOutput.additionalContext as string;
    expect(said).toContain('### Recent failures (episodes of the last 7 days)');
    expect(said).toContain('**Task of f4** failed');
    expect(said).not.toContain('Task of old');
  });
});

describe('mem mcp: episode tools', () => {
  it('store_episode, query_episodes and get_decision_sequence over stdio with the official client', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const v = vault();
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp', '--root', v.root, '--tools', 'all'], cwd: v.root,
      env: { PATH: process.env.PATH ?? '', MEM_HOME: v.home, NO_COLOR: '1', MEM_NOW: NOW }, stderr: 'pipe',
    });
    const client = new Client({ name: 'mem-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      type Answer = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, any> };
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Answer;
      const { tools } = await client.listTools();
      const by = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(by.store_episode.inputSchema.required).toEqual(['session_id', 'task', 'outcome']);
      const stored = await call('store_episode', LOGIN);
      expect(stored.isError, stored.content[0]?.text).toBeFalsy();
      expect(stored.structuredContent).toMatchObject({ path: NOTE, permalink: 'episodes/episode-2026-01-21-session-42', created: true, changed: true });
      // The same note the CLI writes.
      const viaCli = vault();
      run(viaCli, ['episode', 'add'], JSON.stringify(LOGIN));
      expect(v.read(NOTE)).toBe(viaCli.read(NOTE));
      const again = await call('store_episode', LOGIN);
      expect(again.structuredContent).toMatchObject({ changed: false });
      const bad = await call('store_episode', { ...LOGIN, decisions: [{ id: 'd1', timestamp: 'soon' }] });
      expect(bad.isError).toBe(true);
      expect(bad.content[0].text).toMatch(/invalid episode: decisions\[0\]\.timestamp: must be an ISO 8601 time/);
      await call('store_episode', { session_id: 'other', task: 'Upgrade Node', outcome: 'failure', created_at: '2026-01-24T08:00:00Z' });
      const q = await call('query_episodes', { outcome: 'partial' });
      expect(q.structuredContent?.episodes.map((e: { session_id: string }) => e.session_id)).toEqual(['2026-01-21-session-42']);
      const all = await call('query_episodes', {});
      expect(all.structuredContent?.episodes.map((e: { session_id: string }) => e.session_id)).toEqual(['other', '2026-01-21-session-42']);
      const seq = await call('get_decision_sequence', { episode_id: 'episodes/episode-2026-01-21-session-42' });
      expect(seq.structuredContent?.decisions.map((d: { id: string }) => d.id)).toEqual(['d001', 'd002']);
      // The context tool warns of the recent failure, as mem context does.
      const ctx = await call('context', { task: 'upgrade node' });
      expect(ctx.structuredContent?.failures.map((f: { task: string }) => f.task)).toEqual(['Upgrade Node']);
      expect(ctx.structuredContent?.markdown).toContain('### Recent failures (episodes of the last 7 days)');
      const missing = await call('get_decision_sequence', { episode_id: 'nope' });
      expect(missing.isError).toBe(true);
      expect(missing.content[0].text).toMatch(/no episode note "nope"/);
    } finally {
      await client.close();
    }
  });
});
