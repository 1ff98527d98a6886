// The learning lifecycle end to end through the CLI: ranking (search --json --explain), compaction,
// reinforcement and stage retirement, with real git checking that rewrites touch nothing but the
// entries they change.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, git, tempVault } from '../helpers.js';
import { run as runMem } from '../run.js';

afterEach(cleanup);

const TODAY = '2026-11-25';
const daysAgo = (n: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

function vault() {
  const v = tempVault({ git: true });
  const run = (args: string[], env: Record<string, string> = {}, input?: string) => runMem(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: TODAY, ...env } });
  return { v, run };
}

/** The same body in separate files, so each entry has the same relevance (no neighbours). */
function sameBody(v: ReturnType<typeof vault>['v'], specs: Record<string, Record<string, string | number>>) {
  for (const [id, meta] of Object.entries(specs)) v.write(`memory/${id}.md`, entry(id, 'The nightly backup job writes to the offsite bucket.', meta));
}

function commit(v: ReturnType<typeof vault>['v']) {
  git(v.root, ['add', '-A']);
  git(v.root, ['commit', '-qm', 'state']);
}

/** Changed lines (+/-) of the working tree against HEAD. */
function changedLines(v: ReturnType<typeof vault>['v']): string[] {
  return git(v.root, ['diff', '-U0']).split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));
}

describe('prominence ranking (search --json --explain)', () => {
  const search = async (run: ReturnType<typeof vault>['run']) => {
    const r = await run(['search', 'nightly backup offsite bucket', '--json', '--explain', '--limit', '20']);
    expect(r.status).toBe(0);
    return r.json().results as { id: string; score: number; components: Record<string, number> }[];
  };
  it('importance 0.9 today outranks 0.8 today at equal relevance', async () => {
    const { v, run } = vault();
    sameBody(v, { hi: { importance: 0.9, last_reinforced: TODAY }, lo: { importance: 0.8, last_reinforced: TODAY } });
    const res = await search(run);
    expect(res.map((h) => h.id)).toEqual(['hi', 'lo']);
    expect(res[0].components.relevance).toBe(res[1].components.relevance);
  });
  it('0.2 at 180 days ranks below 0.1 today; a 90-day-old entry has decay 0.5; decay never drops below 0.1', async () => {
    const { v, run } = vault();
    sameBody(v, { old: { importance: 0.2, last_reinforced: daysAgo(180) }, new: { importance: 0.1, last_reinforced: TODAY }, mid: { importance: 0.5, last_reinforced: daysAgo(90) }, ancient: { importance: 0.5, last_reinforced: daysAgo(3000) } });
    const res = await search(run);
    const by = Object.fromEntries(res.map((h) => [h.id, h]));
    expect(res.findIndex((h) => h.id === 'old')).toBeGreaterThan(res.findIndex((h) => h.id === 'new'));
    expect(by.mid.components.decay).toBeCloseTo(0.5, 10);
    expect(by.ancient.components.decay).toBe(0.1);
    expect(by.old.components.decay).toBeCloseTo(0.25, 10);
  });
  it('reinforcement_count 5 gives 6× the prominence of 0', async () => {
    const { v, run } = vault();
    sameBody(v, { five: { reinforcement_count: 5, last_reinforced: TODAY }, zero: { reinforcement_count: 0, last_reinforced: TODAY } });
    const by = Object.fromEntries((await search(run)).map((h) => [h.id, h]));
    expect(by.five.components.prominence / by.zero.components.prominence).toBeCloseTo(6, 10);
    expect(by.five.components.reinforcement).toBe(6);
  });
  it('retired entries never appear', async () => {
    const { v, run } = vault();
    sameBody(v, { live: { last_reinforced: TODAY }, dead: { status: 'retired', importance: 1, reinforcement_count: 9 } });
    expect((await search(run)).map((h) => h.id)).toEqual(['live']);
    expect((await run(['list', '--json'])).json().entries.map((e: { id: string }) => e.id)).toEqual(['live']);
  });
});

const J85 = ['alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo',
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec sierra tango'];
const J60 = ['one1 two2 three3 four4 five5 six6 seven7 eight8 nine9 ten10 eleven11 twelve12 xa xb xc xd',
  'one1 two2 three3 four4 five5 six6 seven7 eight8 nine9 ten10 eleven11 twelve12 ya yb yc yd'];

describe('mem compact', () => {
  it('removes retired, keeps the 0.8 copy of a duplicate id, merges 0.85 not 0.6; a second pass changes nothing', async () => {
    const { v, run } = vault();
    const text = `# Memory\n\n${entry('keep', 'An unrelated learning about the staging VPN.')}${entry('ret', 'An old learning.', { status: 'retired' })}`
      + `${entry('dup', 'The duplicated learning text.', { importance: 0.3 })}${entry('dup', 'The duplicated learning text.', { importance: 0.8 })}`
      + `${entry('m1', J85[0], { importance: 0.6 })}${entry('m2', J85[1], { importance: 0.5 })}${entry('k1', J60[0])}${entry('k2', J60[1])}`;
    v.write('MEMORY.md', text);
    commit(v);
    const dry = await run(['compact', '--dry-run', '--json']);
    expect(dry.status).toBe(0);
    expect(v.read('MEMORY.md')).toBe(text);
    const r = await run(['compact', '--json']);
    expect(r.status).toBe(0);
    const rep = r.json();
    expect(rep.retired.map((x: { id: string }) => x.id)).toEqual(['ret']);
    expect(rep.duplicates[0].kept.line).toBeGreaterThan(rep.duplicates[0].dropped[0].line);
    expect(rep.merges).toHaveLength(1);
    expect(rep.merges[0].survivor.id).toBe('m1');
    const list = (await run(['list', '--json'])).json().entries;
    expect(list.map((e: { id: string }) => e.id)).toEqual(['keep', 'dup', 'm1', 'k1', 'k2']);
    expect(list.find((e: { id: string }) => e.id === 'dup').importance).toBe(0.8);
    expect((await run(['show', 'm1', '--json'])).json()).toMatchObject({ status: 'compacted', compacted_from: ['m2'], body: J85[1] });
    // Untouched entries stay byte-identical.
    expect(v.read('MEMORY.md')).toContain(entry('keep', 'An unrelated learning about the staging VPN.') + entry('dup', 'The duplicated learning text.', { importance: 0.8 }));
    expect(v.read('MEMORY.md').endsWith(entry('k1', J60[0]) + entry('k2', J60[1]))).toBe(true);
    commit(v);
    const again = (await run(['compact', '--json'])).json();
    expect(again.written).toEqual([]);
    expect(changedLines(v)).toEqual([]);
  });
  it('refuses a file with a malformed entry, and a file that is not in the vault', async () => {
    const { v, run } = vault();
    const text = `${entry('a', 'x', { status: 'retired' })}---\nid: broken\ntags: [oops\n---\nbody\n\n${entry('b', 'y')}`;
    v.write('MEMORY.md', text);
    const r = await run(['compact']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: malformed YAML in entry header: .*; fix it before mem rewrites this file \(MEMORY\.md:\d+\)$/m);
    expect(r.stderr).toMatch(/^hint: .*nothing was compacted$/m);
    expect(v.read('MEMORY.md')).toBe(text);
    expect((await run(['compact', 'nope.md'])).status).toBe(1);
  });
});

describe('mem reinforce', () => {
  it('+1 and today, cumulative; retired skipped; an unknown id fails the whole call; only those lines change', async () => {
    const { v, run } = vault();
    v.write('MEMORY.md', entry('a', 'First.', { last_reinforced: '2026-01-01' }) + entry('b', 'Second.', { last_reinforced: '2026-01-01' }) + entry('r', 'Retired.', { status: 'retired', last_reinforced: '2026-01-01' }));
    commit(v);
    const bad = await run(['reinforce', 'a', 'r', 'ghost']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^mem: no entry with id "ghost"$/m);
    expect(changedLines(v)).toEqual([]);
    const r1 = await run(['reinforce', 'a', 'r']);
    expect(r1.status).toBe(0);
    expect(changedLines(v).sort()).toEqual(["+last_reinforced: '2026-11-25'", '+reinforcement_count: 1', "-last_reinforced: '2026-01-01'", '-reinforcement_count: 0'].sort());
    await run(['reinforce', 'a']);
    const a = (await run(['show', 'a', '--json'])).json();
    expect(a).toMatchObject({ reinforcement_count: 2, last_reinforced: TODAY });
    expect((await run(['show', 'r', '--json'])).json()).toMatchObject({ reinforcement_count: 0, status: 'retired' });
    expect((await run(['show', 'b', '--json'])).json()).toMatchObject({ reinforcement_count: 0, last_reinforced: '2026-01-01' });
  });
  it('--session reinforces what the session retrieved; --transcript makes it usage-aware', async () => {
    const { v, run } = vault();
    v.write('MEMORY.md', entry('mig', '## Migrations\nRun the database migrations before the integration tests.', { reinforcement_count: 2 })
      + entry('vpn', '## VPN\nStaging deploys require the corporate VPN connection.', { reinforcement_count: 2 }));
    await run(['search', 'migrations', '--session', 'S1']);
    await run(['search', 'staging vpn', '--session', 'S1']);
    const transcript = JSON.stringify([{ role: 'user', content: 'the integration tests fail' }, { role: 'assistant', content: 'I will run the database migrations, then the integration tests again.' }]);
    v.write('t.json', transcript);
    const r = await run(['reinforce', '--session', 'S1', '--transcript', 't.json', '--json']);
    expect(r.status).toBe(0);
    const d = Object.fromEntries(r.json().decisions.map((x: { id: string; action: string; after: number }) => [x.id, [x.action, x.after]]));
    expect(d).toEqual({ mig: ['reinforced', 3], vpn: ['weakened', 1] });
    expect((await run(['show', 'vpn', '--json'])).json().last_reinforced).not.toBe(TODAY);
    expect((await run(['reinforce', '--session', 'nobody'])).status).toBe(0);
  });
});

describe('stages', () => {
  it('stage set retires only the old stage\'s task-domain entries, once, and prints STAGE_CHANGED', async () => {
    const { v, run } = vault();
    v.write('institutional.md', `# Norms\n\n${entry('t-impl', 'Task rule for implementation.', { domain: 'task', phase: 'implementation' })}`
      + entry('team-impl', 'Team rule for implementation.', { domain: 'team', phase: 'implementation' })
      + entry('t-rev', 'Task rule for review.', { domain: 'task', phase: 'review' }));
    v.write('MEMORY.md', entry('m-impl', 'A task learning of implementation.', { domain: 'task', phase: 'implementation' }));
    commit(v);
    expect((await run(['stage', 'set', 'implementation'])).stdout).toContain('STAGE_CHANGED unknown -> implementation');
    expect(changedLines(v)).toEqual([]);
    const r = await run(['stage', 'set', 'review']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('STAGE_CHANGED implementation -> review');
    const retired = (await run(['list', '--status', 'retired', '--json'])).json().entries.map((e: { id: string }) => e.id).sort();
    expect(retired).toEqual(['m-impl', 't-impl']);
    expect(changedLines(v).sort()).toEqual(["+retired_at: '2026-11-25'", "+retired_at: '2026-11-25'", '+status: retired', '+status: retired', '-status: active', '-status: active'].sort());
    commit(v);
    const same = await run(['stage', 'set', 'review']);
    expect(same.stdout).not.toContain('STAGE_CHANGED');
    expect((await run(['retire-stage', 'implementation', '--json'])).json().retired).toEqual([]);
    expect(changedLines(v)).toEqual([]);
    expect((await run(['stage'])).stdout.trim()).toBe('review');
  });
  it('stage detect reads INTENT.md; unknown stages are usage errors', async () => {
    const { v, run } = vault();
    v.write('INTENT.md', '# Intent\n\nWe are designing the architecture: the data model, the schema and the interfaces.\n');
    const d = await run(['stage', 'detect', '--json']);
    expect(d.status).toBe(0);
    expect(d.json()).toMatchObject({ stage: 'design', changed: true, method: 'keywords' });
    expect(fs.readFileSync(v.path('.mem/current-stage'), 'utf8')).toBe('design\n');
    expect((await run(['stage', 'set', 'party'])).status).toBe(2);
    expect((await run(['retire-stage', 'party'])).status).toBe(2);
    fs.rmSync(v.path('INTENT.md'));
    const missing = await run(['stage', 'detect']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^mem: cannot read INTENT\.md/);
  });
});

describe('promote and consolidate through the CLI', () => {
  it('promotes a lesson seen in three jobs to project scope, once', async () => {
    const { v, run } = vault();
    const lesson = 'Always run the linter before committing changes to avoid failing builds.';
    for (const j of ['j1', 'j2', 'j3']) v.write(`.mem/jobs/${j}/MEMORY.md`, entry(`${j}-l`, lesson));
    const r = await run(['promote', '--json']);
    expect(r.status).toBe(0);
    const p = r.json().promoted;
    expect(p).toHaveLength(1);
    const shown = (await run(['show', p[0].id, '--json'])).json();
    expect(shown).toMatchObject({ scope: 'project', path: 'MEMORY.md', promoted_at: TODAY });
    expect([...shown.promoted_from].sort()).toEqual(['j1-l', 'j2-l', 'j3-l']);
    expect((await run(['promote', '--json'])).json().promoted).toEqual([]);
  });
  it('rolls a lesson seen in three tasks of one job up to the job (session scope), once', async () => {
    const { v, run } = vault();
    const lesson = 'Seed the fixtures with npm run seed:test before the integration tests of this job.';
    for (const t of ['t1', 't2', 't3']) v.write(`.mem/jobs/j9/tasks/${t}/MEMORY.md`, entry(`${t}-x`, lesson));
    v.write('.mem/jobs/j8/tasks/t1/MEMORY.md', entry('other-job', lesson));
    const r = await run(['promote', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const p = r.json().promoted;
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({ scope: 'session', path: '.mem/jobs/j9/MEMORY.md' });
    expect([...p[0].from].sort()).toEqual(['t1-x', 't2-x', 't3-x']);
    expect((await run(['show', p[0].id, '--json'])).json()).toMatchObject({ scope: 'session', promoted_at: TODAY });
    expect((await run(['promote', '--json'])).json().promoted).toEqual([]);
  });
  it('consolidate decays the older contradicting entry and logs it; other entries of the file untouched', async () => {
    const { v, run } = vault();
    const others = Array.from({ length: 8 }, (_, i) => entry(`o${i}`, `Unrelated learning number ${i} about topic ${i * 7}.`)).join('');
    v.write('MEMORY.md', entry('old', 'Use npm to install packages in this repository.', { created_at: '2026-10-01' }) + others
      + entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' }));
    commit(v);
    const r = await run(['consolidate', '--json']);
    expect(r.status).toBe(0);
    expect(r.json().decisions).toMatchObject([{ action: 'decay', id: 'old', by: 'new' }]);
    expect(changedLines(v).sort()).toEqual(['+importance: 0.35', '+superseded_by: new', '-importance: 0.5'].sort());
    const log = v.read('.mem/consolidation-log.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'decay', id: 'old', by: 'new', importance_after: 0.35 });
    commit(v);
    await run(['consolidate']);
    expect(changedLines(v)).toEqual([]);
  });
});
