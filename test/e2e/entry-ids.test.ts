// Entry ids as people and agents type them: every command and MCP tool that takes entry ids
// accepts a unique prefix (the short id `mem list` prints), and an id that names no entry or a
// prefix that names several is an error that changes nothing.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run as runMem } from '../run.js';
import { TOOLS } from '../../src/integrations/mcp/tools.js';
import { toolError, type ToolAnswer } from '../../src/integrations/mcp/results.js';
import { openVault } from '../../src/vault/vault.js';

afterEach(cleanup);

const TODAY = '2026-11-25';
// Three entries share the prefix 3f0c, two of them 3f0c2a; the fourth is alone under 91b7.
const DEPLOY = '3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10';
const MIGRATE = '3f0c2a99-1111-4c1e-9a55-0b7e3c2d9f11';
const LINT = '3f0c7700-2222-4c1e-9a55-0b7e3c2d9f12';
const VPN = '91b7d0c2-3333-4c1e-9a55-0b7e3c2d9f13';

function vault() {
  const v = tempVault();
  v.write('MEMORY.md', '# Memory\n\n'
    + entry(DEPLOY, '## Deploy needs the release tag\nTag the release before running the deploy script.')
    + entry(MIGRATE, '## Migrations first\nRun the database migrations before the integration tests.')
    + entry(LINT, '## Lint before pushing\nThe CI lint step rejects unformatted files.'));
  v.write('memory/network.md', entry(VPN, '## Staging needs the VPN\nStaging deploys require the corporate VPN connection.'));
  const files = () => ({ memory: v.read('MEMORY.md'), network: v.read('memory/network.md') });
  const run = (args: string[]) => runMem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: TODAY } });
  return { v, run, files };
}

/** One line on stderr, `mem: …`, then the hint. */
function failedWith(r: { status: number; stdout: string; stderr: string }, message: RegExp): void {
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^mem: /);
  expect(lines[0]).toMatch(message);
  expect(lines.slice(1).every((l) => l.startsWith('hint: '))).toBe(true);
}

const AMBIGUOUS = /"3f0c" matches 3 entries: 3f0c2a4e "Deploy needs the release tag", 3f0c2a99 "Migrations first", 3f0c7700 "Lint before pushing"$/;

describe('typed entry ids on the command line', () => {
  it('the short id mem list prints is what each command takes', async () => {
    const { run } = vault();
    const listed = (await run(['list'])).stdout;
    expect(listed).toContain('91b7d0c2 ');
    expect((await run(['show', '91b7d0c2', '--json'])).json()).toMatchObject({ id: VPN });

    const r = await run(['reinforce', '91b7d0c2', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ decisions: [{ id: VPN, action: 'reinforced', before: 0, after: 1 }], unknown: [] });

    const rv = await run(['review', '91b7', '3f0c7700', '--rating', 'good', '--json']);
    expect(rv.status, rv.stderr).toBe(0);
    expect(rv.json().decisions.map((d: { id: string; action: string }) => [d.id, d.action]).sort()).toEqual([[LINT, 'reviewed'], [VPN, 'reviewed']]);
    expect((await run(['show', VPN, '--json'])).json()).toMatchObject({ reinforcement_count: 1, fsrs: { reps: 1 } });
  });

  it('an id and its prefix given together count once', async () => {
    const { run } = vault();
    const r = await run(['reinforce', VPN, '91b7d0', '--json']);
    expect(r.json().decisions).toEqual([expect.objectContaining({ id: VPN, before: 0, after: 1 })]);
  });

  it('an exact id wins over a longer id it is the prefix of', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('deploy', '## Short\nThe short id.') + entry('deploy-2', '## Longer\nThe longer id.'));
    const r = await runMem(['reinforce', 'deploy', '--json'], { cwd: v.root, home: v.home, env: { MEM_NOW: TODAY } });
    expect(r.json().decisions.map((d: { id: string }) => d.id)).toEqual(['deploy']);
  });

  for (const [label, args] of [
    ['show', ['show']],
    ['reinforce', ['reinforce']],
    ['review', ['review', '--rating', 'good']],
  ] as const) {
    it(`${label}: an ambiguous prefix names its candidates with titles; nothing changes`, async () => {
      const { run, files } = vault();
      const before = files();
      const r = await run([...args, '3f0c']);
      failedWith(r, AMBIGUOUS);
      expect(r.stderr).toMatch(/^hint: give more of the id$/m);
      expect(files()).toEqual(before);
      // One character more still names two: cut where they differ.
      failedWith(await run([...args, '3f0c2a']), /"3f0c2a" matches 2 entries: 3f0c2a4e "Deploy needs the release tag", 3f0c2a99 "Migrations first"$/);
    });

    it(`${label}: an unknown id, or a prefix under 4 characters, is an error; nothing changes`, async () => {
      const { run, files } = vault();
      const before = files();
      const r = await run([...args, 'ffff0000']);
      failedWith(r, /^mem: no entry with id "ffff0000"$/);
      expect(r.stderr).toMatch(/^hint: find ids with mem search or mem list$/m);
      failedWith(await run([...args, '91b']), /^mem: no entry with id "91b" \(a prefix needs 4 characters or more\)$/);
      expect(files()).toEqual(before);
    });
  }

  for (const [label, args] of [
    ['reinforce', ['reinforce']],
    ['review', ['review', '--rating', 'again']],
  ] as const) {
    it(`${label}: one bad id among good ones writes nothing at all; every bad one is named`, async () => {
      const { run, files } = vault();
      const before = files();
      const r = await run([...args, VPN, 'ghost', DEPLOY, 'gone-too']);
      failedWith(r, /^mem: no entries with ids "ghost", "gone-too"$/);
      expect(files()).toEqual(before);
      const both = await run([...args, '91b7', '3f0c', 'ghost']);
      failedWith(both, /^mem: no entry with id "ghost"; "3f0c" matches 3 entries: .*$/);
      expect(files()).toEqual(before);
      // --dry-run resolves the same way.
      failedWith(await run([...args, '3f0c', '--dry-run']), AMBIGUOUS);
    });
  }

  it('more candidates than shown end in "…and N more"', async () => {
    const v = tempVault();
    v.write('MEMORY.md', ['aaaa0001', 'aaaa0002', 'aaaa0003', 'aaaa0004', 'aaaa0005'].map((id, i) => entry(id, `## Entry ${i + 1}\nText ${i + 1}.`)).join(''));
    const before = v.read('MEMORY.md');
    const r = await runMem(['reinforce', 'aaaa'], { cwd: v.root, home: v.home, env: { MEM_NOW: TODAY } });
    failedWith(r, /^mem: "aaaa" matches 5 entries: aaaa0001 "Entry 1", aaaa0002 "Entry 2", aaaa0003 "Entry 3", …and 2 more$/);
    expect(v.read('MEMORY.md')).toBe(before);
  });

  it('ids the session logged are matched exactly and those gone since are only reported', async () => {
    const { v, run } = vault();
    await run(['search', 'staging vpn', '--session', 'S1']);
    // An entry the session saw, removed since.
    fs.appendFileSync(v.path('.mem/sessions/S1/retrieved.jsonl'), `${JSON.stringify({ at: TODAY, query: 'x', ids: ['gone-since'] })}\n`);
    const r = await run(['reinforce', '--session', 'S1', '3f0c7700', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().unknown).toEqual(['gone-since']);
    expect(r.json().decisions.map((d: { id: string }) => d.id).sort()).toEqual([LINT, VPN]);
  });
});

describe('typed entry ids through the MCP tools', () => {
  const call = async (v: ReturnType<typeof vault>['v'], name: string, args: Record<string, unknown>): Promise<ToolAnswer> => {
    const tool = TOOLS.find((t) => t.name === name)!;
    const env = { MEM_NOW: TODAY, MEM_HOME: v.home };
    const toolEnv = { openVault: () => openVault({ cwd: v.root, env }), cwd: v.root, vars: env, now: () => Date.parse(`${TODAY}T12:00:00Z`), today: () => TODAY };
    // As the server answers: a thrown error becomes the tool's error result.
    try {
      return await tool.run(args, toolEnv);
    } catch (err) {
      return toolError(err);
    }
  };
  const text = (a: ToolAnswer) => a.content.map((c) => c.text).join('\n');

  it('get, reinforce and review take a unique prefix', async () => {
    const { v } = vault();
    expect((await call(v, 'get', { id: '91b7d0c2' })).structuredContent).toMatchObject({ entry: { id: VPN } });
    const r = await call(v, 'reinforce', { ids: ['91b7d0c2'] });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ decisions: [{ id: VPN, action: 'reinforced' }], unknown: [] });
    const rv = await call(v, 'review', { ids: ['3f0c77'], rating: 'good' });
    expect(rv.structuredContent).toMatchObject({ decisions: [{ id: LINT, action: 'reviewed' }] });
  });

  for (const [name, args] of [
    ['get', (id: string) => ({ id })],
    ['reinforce', (id: string) => ({ ids: [VPN, id] })],
    ['review', (id: string) => ({ ids: [VPN, id], rating: 'good' })],
  ] as const) {
    it(`${name}: an ambiguous or unknown id is an error result with the CLI's message; nothing changes`, async () => {
      const { v, run, files } = vault();
      const before = files();
      const amb = await call(v, name, args('3f0c'));
      expect(amb.isError).toBe(true);
      const cli = await run(['show', '3f0c']);
      expect(text(amb)).toBe(cli.stderr.trimEnd());
      const unknown = await call(v, name, args('ghost'));
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toBe('mem: no entry with id "ghost"\nhint: find ids with mem search or mem list');
      expect(files()).toEqual(before);
    });
  }
});
