// The learning lifecycle end to end through the CLI: ranking (search --json --explain), compaction,
// reinforcement and stage retirement, with real git checking that rewrites touch nothing but the
// entries they change.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, git, mem, tempVault } from '../helpers.js';

afterEach(cleanup);

const TODAY = '2026-11-25';
const daysAgo = (n: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

function vault() {
  const v = tempVault({ git: true });
  const run = (args: string[], env: Record<string, string> = {}, input?: string) => mem(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: TODAY, ...env } });
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
  const search = (run: ReturnType<typeof vault>['run']) => {
    const r = run(['search', 'nightly backup offsite bucket', '--json', '--explain', '--limit', '20']);
    expect(r.status).toBe(0);
    return r.json().results as { id: string; score: number; components: Record<string, number> }[];
  };
  it('importance 0.9 today outranks 0.8 today at equal relevance', () => {
    const { v, run } = vault();
    sameBody(v, { hi: { importance: 0.9, last_reinforced: TODAY }, lo: { importance: 0.8, last_reinforced: TODAY } });
    const res = search(run);
    expect(res.map((h) => h.id)).toEqual(['hi', 'lo']);
    expect(res[0].components.relevance).toBe(res[1].components.relevance);
  });
  it('0.2 at 180 days ranks below 0.1 today; a 90-day-old entry has decay 0.5; decay never drops below 0.1', () => {
    const { v, run } = vault();
    sameBody(v, { old: { importance: 0.2, last_reinforced: daysAgo(180) }, new: { importance: 0.1, last_reinforced: TODAY }, mid: { importance: 0.5, last_reinforced: daysAgo(90) }, ancient: { importance: 0.5, last_reinforced: daysAgo(3000) } });
    const res = search(run);
    const by = Object.fromEntries(res.map((h) => [h.id, h]));
    expect(res.findIndex((h) => h.id === 'old')).toBeGreaterThan(res.findIndex((h) => h.id === 'new'));
    expect(by.mid.components.decay).toBeCloseTo(0.5, 10);
    expect(by.ancient.components.decay).toBe(0.1);
    expect(by.old.components.decay).toBeCloseTo(0.25, 10);
  });
  it('reinforcement_count 5 gives 6× the prominence of 0', () => {
    const { v, run } = vault();
    sameBody(v, { five: { reinforcement_count: 5, last_reinforced: TODAY }, zero: { reinforcement_count: 0, last_reinforced: TODAY } });
    const by = Object.fromEntries(search(run).map((h) => [h.id, h]));
    expect(by.five.components.prominence / by.zero.components.prominence).toBeCloseTo(6, 10);
    expect(by.five.components.reinforcement).toBe(6);
  });
  it('retired entries never appear', () => {
    const { v, run } = vault();
    sameBody(v, { live: { last_reinforced: TODAY }, dead: { status: 'retired', importance: 1, reinforcement_count: 9 } });
    expect(search(run).map((h) => h.id)).toEqual(['live']);
    expect(run(['list', '--json']).json().entries.map((e: { id: string }) => e.id)).toEqual(['live']);
  });
});

const J85 = ['alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo',
  'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec sierra tango'];
const J60 = ['one1 two2 three3 four4 five5 six6 seven7 eight8 nine9 ten10 eleven11 twelve12 xa xb xc xd',
  'one1 two2 three3 four4 five5 six6 seven7 eight8 nine9 ten10 eleven11 twelve12 ya yb yc yd'];

describe('mem compact', () => {
  it('removes retired, keeps the 0.8 copy of a duplicate id, merges 0.85 not 0.6; a second pass changes nothing', () => {
    const { v, run } = vault();
    const text = `# Memory\n\n${entry('keep', 'An unrelated learning about the staging VPN.')}${entry('ret', 'An old learning.', { status: 'retired' })}`
      + `${entry('dup', 'The duplicated learning text.', { importance: 0.3 })}${entry('dup', 'The duplicated learning text.', { importance: 0.8 })}`
      + `${entry('m1', J85[0], { importance: 0.6 })}${entry('m2', J85[1], { importance: 0.5 })}${entry('k1', J60[0])}${entry('k2', J60[1])}`;
    v.write('MEMORY.md', text);
    commit(v);
    const dry = run(['compact', '--dry-run', '--json']);
    expect(dry.status).toBe(0);
    expect(v.read('MEMORY.md')).toBe(text);
    const r = run(['compact', '--json']);
    expect(r.status).toBe(0);
    const rep = r.json();
    expect(rep.retired.map((x: { id: string }) => x.id)).toEqual(['ret']);
    expect(rep.duplicates[0].kept.line).toBeGreaterThan(rep.duplicates[0].dropped[0].line);
    expect(rep.merges).toHaveLength(1);
    expect(rep.merges[0].survivor.id).toBe('m1');
    const list = run(['list', '--json']).json().entries;
    expect(list.map((e: { id: string }) => e.id)).toEqual(['keep', 'dup', 'm1', 'k1', 'k2']);
    expect(list.find((e: { id: string }) => e.id === 'dup').importance).toBe(0.8);
    expect(run(['show', 'm1', '--json']).json()).toMatchObject({ status: 'compacted', compacted_from: ['m2'], body: J85[1] });
    // Untouched entries stay byte-identical.
    expect(v.read('MEMORY.md')).toContain(entry('keep', 'An unrelated learning about the staging VPN.') + entry('dup', 'The duplicated learning text.', { importance: 0.8 }));
    expect(v.read('MEMORY.md').endsWith(entry('k1', J60[0]) + entry('k2', J60[1]))).toBe(true);
    commit(v);
    const again = run(['compact', '--json']).json();
    expect(again.written).toEqual([]);
    expect(changedLines(v)).toEqual([]);
  });
  it('refuses a file with a malformed entry, and a file that is not in the vault', () => {
    const { v, run } = vault();
    const text = `${entry('a', 'x', { status: 'retired' })}---\nid: broken\ntags: [oops\n---\nbody\n\n${entry('b', 'y')}`;
    v.write('MEMORY.md', text);
    const r = run(['compact']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: malformed YAML in entry header: .*; fix it before mem rewrites this file \(MEMORY\.md:\d+\)$/m);
    expect(r.stderr).toMatch(/^hint: .*nothing was compacted$/m);
    expect(v.read('MEMORY.md')).toBe(text);
    expect(run(['compact', 'nope.md']).status).toBe(1);
  });
});

describe('mem reinforce', () => {
  it('+1 and today, cumulative; retired skipped; unknown ids reported; only those lines change', () => {
    const { v, run } = vault();
    v.write('MEMORY.md', entry('a', 'First.', { last_reinforced: '2026-01-01' }) + entry('b', 'Second.', { last_reinforced: '2026-01-01' }) + entry('r', 'Retired.', { status: 'retired', last_reinforced: '2026-01-01' }));
    commit(v);
    const r1 = run(['reinforce', 'a', 'r', 'ghost']);
    expect(r1.status).toBe(0);
    expect(r1.stderr).toContain('unknown id ghost');
    expect(changedLines(v).sort()).toEqual(["+last_reinforced: '2026-11-25'", '+reinforcement_count: 1', "-last_reinforced: '2026-01-01'", '-reinforcement_count: 0'].sort());
    run(['reinforce', 'a']);
    const a = run(['show', 'a', '--json']).json();
    expect(a).toMatchObject({ reinforcement_count: 2, last_reinforced: TODAY });
    expect(run(['show', 'r', '--json']).json()).toMatchObject({ reinforcement_count: 0, status: 'retired' });
    expect(run(['show', 'b', '--json']).json()).toMatchObject({ reinforcement_count: 0, last_reinforced: '2026-01-01' });
  });
  it('--session reinforces what the session retrieved; --transcript makes it usage-aware', () => {
    const { v, run } = vault();
    v.write('MEMORY.md', entry('mig', '## Migrations\nRun the database migrations before the integration tests.', { reinforcement_count: 2 })
      + entry('vpn', '## VPN\nStaging deploys require the corporate VPN connection.', { reinforcement_count: 2 }));
    run(['search', 'migrations', '--session', 'S1']);
    run(['search', 'staging vpn', '--session', 'S1']);
    const transcript = JSON.stringify([{ role: 'user', content: 'the integration tests fail' }, { role: 'assistant', content: 'I will run the database migrations, then the integration tests again.' }]);
    v.write('t.json', transcript);
    const r = run(['reinforce', '--session', 'S1', '--transcript', 't.json', '--json']);
    expect(r.status).toBe(0);
    const d = Object.fromEntries(r.json().decisions.map((x: { id: string; action: string; after: number }) => [x.id, [x.action, x.after]]));
    expect(d).toEqual({ mig: ['reinforced', 3], vpn: ['weakened', 1] });
    expect(run(['show', 'vpn', '--json']).json().last_reinforced).not.toBe(TODAY);
    expect(run(['reinforce', '--session', 'nobody']).status).toBe(0);
  });
  it('a file locked by another writer, or with a malformed entry, stops it and changes nothing', () => {
    const { v, run } = vault();
    const text = entry('a', 'First.') + entry('b', 'Second.');
    v.write('MEMORY.md', text);
    v.write('memory/bad.md', `${entry('c', 'Third.')}---\nid: x\nbad: [\n---\nbody\n`);
    fs.writeFileSync(v.path('.MEMORY.md.lock'), `${process.pid}\n`);
    const locked = run(['reinforce', 'a'], { MEM_LOCK_TIMEOUT_MS: '200' });
    expect(locked.status).toBe(1);
    expect(locked.stderr).toMatch(/^mem: MEMORY\.md is locked by another writer/m);
    fs.rmSync(v.path('.MEMORY.md.lock'));
    const bad = run(['reinforce', 'a', 'c']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/memory\/bad\.md:\d+\)/);
    expect(v.read('MEMORY.md')).toBe(text);
  });
});

describe('stages', () => {
  it('stage set retires only the old stage\'s task-domain entries, once, and prints STAGE_CHANGED', () => {
    const { v, run } = vault();
    v.write('institutional.md', `# Norms\n\n${entry('t-impl', 'Task rule for implementation.', { domain: 'task', phase: 'implementation' })}`
      + entry('team-impl', 'Team rule for implementation.', { domain: 'team', phase: 'implementation' })
      + entry('t-rev', 'Task rule for review.', { domain: 'task', phase: 'review' }));
    v.write('MEMORY.md', entry('m-impl', 'A task learning of implementation.', { domain: 'task', phase: 'implementation' }));
    commit(v);
    expect(run(['stage', 'set', 'implementation']).stdout).toContain('STAGE_CHANGED unknown -> implementation');
    expect(changedLines(v)).toEqual([]);
    const r = run(['stage', 'set', 'review']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('STAGE_CHANGED implementation -> review');
    const retired = run(['list', '--status', 'retired', '--json']).json().entries.map((e: { id: string }) => e.id).sort();
    expect(retired).toEqual(['m-impl', 't-impl']);
    expect(changedLines(v).sort()).toEqual(["+retired_at: '2026-11-25'", "+retired_at: '2026-11-25'", '+status: retired', '+status: retired', '-status: active', '-status: active'].sort());
    commit(v);
    const same = run(['stage', 'set', 'review']);
    expect(same.stdout).not.toContain('STAGE_CHANGED');
    expect(run(['retire-stage', 'implementation', '--json']).json().retired).toEqual([]);
    expect(changedLines(v)).toEqual([]);
    expect(run(['stage']).stdout.trim()).toBe('review');
  });
  it('stage detect reads INTENT.md; unknown stages are usage errors', () => {
    const { v, run } = vault();
    v.write('INTENT.md', '# Intent\n\nWe are designing the architecture: the data model, the schema and the interfaces.\n');
    const d = run(['stage', 'detect', '--json']);
    expect(d.status).toBe(0);
    expect(d.json()).toMatchObject({ stage: 'design', changed: true, method: 'keywords' });
    expect(fs.readFileSync(v.path('.mem/current-stage'), 'utf8')).toBe('design\n');
    expect(run(['stage', 'set', 'party']).status).toBe(2);
    expect(run(['retire-stage', 'party']).status).toBe(2);
    fs.rmSync(v.path('INTENT.md'));
    const missing = run(['stage', 'detect']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^mem: cannot read INTENT\.md/);
  });
});

describe('promote and consolidate through the CLI', () => {
  it('promotes a lesson seen in three jobs to project scope, once', () => {
    const { v, run } = vault();
    const lesson = 'Always run the linter before committing changes to avoid failing builds.';
    for (const j of ['j1', 'j2', 'j3']) v.write(`.mem/jobs/${j}/MEMORY.md`, entry(`${j}-l`, lesson));
    const r = run(['promote', '--json']);
    expect(r.status).toBe(0);
    const p = r.json().promoted;
    expect(p).toHaveLength(1);
    const shown = run(['show', p[0].id, '--json']).json();
    expect(shown).toMatchObject({ scope: 'project', path: 'MEMORY.md', promoted_at: TODAY });
    expect([...shown.promoted_from].sort()).toEqual(['j1-l', 'j2-l', 'j3-l']);
    expect(run(['promote', '--json']).json().promoted).toEqual([]);
  });
  it('rolls a lesson seen in three tasks of one job up to the job (session scope), once', () => {
    const { v, run } = vault();
    const lesson = 'Seed the fixtures with npm run seed:test before the integration tests of this job.';
    for (const t of ['t1', 't2', 't3']) v.write(`.mem/jobs/j9/tasks/${t}/MEMORY.md`, entry(`${t}-x`, lesson));
    v.write('.mem/jobs/j8/tasks/t1/MEMORY.md', entry('other-job', lesson));
    const r = run(['promote', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const p = r.json().promoted;
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({ scope: 'session', path: '.mem/jobs/j9/MEMORY.md' });
    expect([...p[0].from].sort()).toEqual(['t1-x', 't2-x', 't3-x']);
    expect(run(['show', p[0].id, '--json']).json()).toMatchObject({ scope: 'session', promoted_at: TODAY });
    expect(run(['promote', '--json']).json().promoted).toEqual([]);
  });
  it('consolidate decays the older contradicting entry and logs it; other entries of the file untouched', () => {
    const { v, run } = vault();
    const others = Array.from({ length: 8 }, (_, i) => entry(`o${i}`, `Unrelated learning number ${i} about topic ${i * 7}.`)).join('');
    v.write('MEMORY.md', entry('old', 'Use npm to install packages in this repository.', { created_at: '2026-10-01' }) + others
      + entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' }));
    commit(v);
    const r = run(['consolidate', '--json']);
    expect(r.status).toBe(0);
    expect(r.json().decisions).toMatchObject([{ action: 'decay', id: 'old', by: 'new' }]);
    expect(changedLines(v).sort()).toEqual(['+importance: 0.35', '+superseded_by: new', '-importance: 0.5'].sort());
    const log = v.read('.mem/consolidation-log.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'decay', id: 'old', by: 'new', importance_after: 0.35 });
    commit(v);
    run(['consolidate']);
    expect(changedLines(v)).toEqual([]);
  });
});

describe('concurrent writers', () => {
  it('adds from several processes at once all land, in a file that parses, with no lock left behind', async () => {
    const { memAsync } = await import('../helpers.js');
    const v = tempVault();
    v.write('MEMORY.md', `# Memory\n\n${entry('seed', 'The first learning.')}`);
    const writers = Array.from({ length: 6 }, async (_, w) => {
      const out: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await memAsync(['add', `Writer ${w} learning ${i}: keep the queue ${w}-${i} drained.`, '--json'], { cwd: v.root, home: v.home });
        expect(r.status, r.stderr).toBe(0);
        out.push(r.json().id);
      }
      return out;
    });
    const ids = (await Promise.all(writers)).flat();
    expect(new Set(ids).size).toBe(24);
    const text = v.read('MEMORY.md');
    for (const id of ids) expect(text).toContain(`id: ${id}`);
    expect(text.startsWith('# Memory\n\n---\nid: seed')).toBe(true);
    expect(fs.readdirSync(v.root).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual([]);
    const lint = mem(['lint', '--json'], { cwd: v.root, home: v.home });
    expect(lint.status).toBe(0);
    const list = mem(['list', '--limit', '100', '--json'], { cwd: v.root, home: v.home });
    expect(list.json().entries).toHaveLength(25);
  }, 60_000);
});
