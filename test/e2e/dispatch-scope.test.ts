// The dispatch scope: learnings about handing work to sub-agents, in dispatch.md beside the
// project's MEMORY.md, with a scope multiplier of their own.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, tempVault } from '../helpers.js';
import { run } from '../run.js';
import { buildPrompt } from '../../src/extract/prompt.js';
import { parseScopeList, preambleFor, targetPath } from '../../src/extract/scopes.js';

afterEach(cleanup);

function vault() {
  const v = tempVault({ git: true });
  const cli = (args: string[], input?: string) => run(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: '2026-11-25' } });
  return { v, cli };
}

describe('dispatch scope', () => {
  it('mem add --scope dispatch writes dispatch.md, and search and list see it as scope dispatch', async () => {
    const { v, cli } = vault();
    const a = await cli(['add', '--scope', 'dispatch', 'Give sub-agents the exact test command; they otherwise guess npm test.']);
    expect(a.status, a.stderr).toBe(0);
    const id = a.stdout.trim();
    const text = v.read('dispatch.md');
    expect(text.startsWith('# Dispatch memory\n')).toBe(true);
    expect(text).toContain(`id: ${id}`);
    expect((await cli(['add', 'Sub-agents run the test command from the root.'])).status).toBe(0);
    expect(fs.readFileSync(v.path('MEMORY.md'), 'utf8')).not.toContain(id);

    const s = await cli(['search', 'sub-agents test command', '--json', '--explain']);
    expect(s.status, s.stderr).toBe(0);
    const hit = s.json().results.find((r: { id: string }) => r.id === id);
    expect(hit).toMatchObject({ path: 'dispatch.md', scope: 'dispatch' });
    expect(hit.components.scope_multiplier).toBe(1.2);
    expect((await cli(['search', 'sub-agents test command', '--scope', 'dispatch', '--ids'])).stdout.trim()).toBe(id);
    expect((await cli(['list', '--scope', 'dispatch', '--json'])).json().entries.map((e: { id: string }) => e.id)).toEqual([id]);
  });

  it('its multiplier comes from scope_multipliers.dispatch in the config', async () => {
    const { v, cli } = vault();
    v.write('.mem/config.yaml', 'scope_multipliers:\n  dispatch: 2.5\n');
    expect((await cli(['add', '--scope', 'dispatch', 'Split the migration work by table, one sub-agent each.'])).status).toBe(0);
    const hit = (await cli(['search', 'migration sub-agent', '--json', '--explain'])).json().results[0];
    expect(hit.scope).toBe('dispatch');
    expect(hit.components.scope_multiplier).toBe(2.5);
  });

  it('a dispatch.md written by hand is read as memory', async () => {
    const { v, cli } = vault();
    v.write('dispatch.md', '# Delegation\n\n## [2026-11-20] Check the sub-agent diff before merging\n\nThe reviewer agent approved a change that deleted the fixtures.\n');
    const r = (await cli(['search', 'reviewer fixtures', '--json'])).json();
    expect(r.results.map((h: { scope: string; path: string }) => [h.scope, h.path])).toEqual([['dispatch', 'dispatch.md']]);
  });

  it('--institutional does not go with --scope dispatch: a usage error, nothing written', async () => {
    const { v, cli } = vault();
    const r = await cli(['add', '--scope', 'dispatch', '--institutional', 'Always brief sub-agents with the acceptance test.']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^mem: --scope dispatch writes dispatch\.md/);
    expect(fs.existsSync(v.path('dispatch.md'))).toBe(false);
  });

  it('extraction has a dispatch scope that writes dispatch.md and is named in the prompt only when asked for', () => {
    expect(parseScopeList('project,dispatch')).toEqual(['project', 'dispatch']);
    expect(targetPath('dispatch', {})).toBe('dispatch.md');
    expect(preambleFor('dispatch')).toMatch(/^# Dispatch memory\n/);
    const withIt = buildPrompt('[human] hi', ['project', 'dispatch'], { known: [] });
    expect(withIt).toMatch(/^- dispatch \(default type procedural\): .*sub-agents/m);
    expect(withIt).toMatch(/belongs to dispatch only/);
    const without = buildPrompt('[human] hi', ['project', 'corrective'], { known: [] });
    expect(without).not.toMatch(/dispatch/);
  });
});
