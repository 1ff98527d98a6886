// Near-duplicates that state different facts, through the CLI on real files: `mem compact`
// never merges two learnings that differ in a number, a version, a name or a negation (the newer
// fact was silently lost), and `mem consolidate` reports such pairs with the reason, same-day pairs
// included. True duplicates (case, punctuation, whitespace, a reworded or added clause) still
// merge.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

const TODAY = '2026-11-25';

function vault() {
  const v = tempVault();
  const run = (args: string[], env: Record<string, string> = {}) => runIn(args, { cwd: v.root, home: v.home, env: { MEM_NOW: TODAY, ...env } });
  const add = async (text: string, env: Record<string, string> = {}) => {
    const r = await run(['add', text], env);
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  const ids = async () => ((await run(['list', '--json'])).json().entries as { id: string }[]).map((e) => e.id).sort();
  return { v, run, add, ids };
}

interface Flag {
  action: string;
  kind: string;
  reason: string;
  a: { id: string };
  b: { id: string };
}

const pairOf = (c: Flag) => [c.a.id, c.b.id].sort();

// Pairs long enough that their Jaccard over body words is above 0.8 (the old code merged them).
const DIFFERENT: [string, string, string, RegExp][] = [
  ['node version', 'Use Node 18 for the build, the unit tests, the CI runners and the release scripts of this repository.',
    'Use Node 20 for the build, the unit tests, the CI runners and the release scripts of this repository.', /differ in a number: 18 vs 20/],
  ['port', 'The staging database listens on port 5432 behind the bastion host for the reporting jobs and the admin console.',
    'The staging database listens on port 6543 behind the bastion host for the reporting jobs and the admin console.', /differ in a number: 5432 vs 6543/],
  ['semver', 'Pin the payments client library to v1.2.3 until the upstream retry fix ships in the nightly channel builds.',
    'Pin the payments client library to v1.3 until the upstream retry fix ships in the nightly channel builds.', /differ in a number: v1\.2\.3 vs v1\.3/],
  ['python minor', 'The lambdas for the ingest pipeline run on Python 3.11 in every region and every staging account.',
    'The lambdas for the ingest pipeline run on Python 3.12 in every region and every staging account.', /differ in a number: 3\.11 vs 3\.12/],
  ['never', 'Use yarn to install packages in this repository, for the web app, the docs site and the CLI tools.',
    'Never use yarn to install packages in this repository, for the web app, the docs site and the CLI tools.', /negation: "never"/],
  ["don't", 'Use yarn to install packages in this repository, for the web app, the docs site and the CLI tools.',
    "Don't use yarn to install packages in this repository, for the web app, the docs site and the CLI tools.", /negation: "don't"/],
  ['do not', 'Rebase feature branches on the shared branch before merging pull requests into the release train.',
    'Do not rebase feature branches on the shared branch before merging pull requests into the release train.', /negation: "not"/],
  ['package manager', 'Use yarn to install packages in this repository, for the web app, the docs site and the CLI tools.',
    'Use pnpm to install packages in this repository, for the web app, the docs site and the CLI tools.', /differ in a name: yarn vs pnpm/],
  ['branch', 'Always rebase feature branches on main before opening a pull request for the billing and the search services.',
    'Always rebase feature branches on master before opening a pull request for the billing and the search services.', /differ in a name: main vs master/],
  ['database', 'The analytics service stores the raw events in postgres with one table per tenant and a nightly vacuum job.',
    'The analytics service stores the raw events in mysql with one table per tenant and a nightly vacuum job.', /differ in a name: postgres vs mysql/],
];

describe('mem compact keeps learnings that state different facts', () => {
  it.each(DIFFERENT)('%s: both stay after mem add + mem compact, and compact --json says why', async (_, a, b, why) => {
    const { run, add, ids } = vault();
    const ia = await add(a);
    const ib = await add(b);
    const r = await run(['compact', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const rep = r.json();
    expect(rep.merges).toEqual([]);
    expect(await ids()).toEqual([ia, ib].sort());
    expect(rep.kept).toHaveLength(1);
    expect([rep.kept[0].a.id, rep.kept[0].b.id].sort()).toEqual([ia, ib].sort());
    expect(rep.kept[0].jaccard).toBeGreaterThan(0.8);
    expect(rep.kept[0].reason).toMatch(why);
    // A second run changes nothing either, and says in words which pair it kept apart.
    expect((await run(['compact', '--json'])).json().written).toEqual([]);
    const human = await run(['compact']);
    expect(human.stdout).toMatch(new RegExp(`^keep apart +(${ia}|${ib}) MEMORY\\.md:\\d+ / (${ia}|${ib}) MEMORY\\.md:\\d+ \\(J=[01]\\.\\d\\d, ${why.source}`, 'm'));
  });

  it('same body, the number only in the heading titles: both stay', async () => {
    const { v, run, ids } = vault();
    const body = 'Pinned for the build, the tests and the release scripts of this repository after the upgrade review.';
    v.write('MEMORY.md', `# Memory\n\n${entry('n18', `## Use Node 18\n\n${body}`)}${entry('n20', `## Use Node 20\n\n${body}`)}`);
    expect((await run(['compact', '--json'])).json().merges).toEqual([]);
    expect(await ids()).toEqual(['n18', 'n20']);
  });

  it('a vaguer third entry close to both does not join two conflicting ones, now or on a second run', async () => {
    for (const vague of ['Use it', 'Always use the package manager named in the README']) {
      const { v, run, ids } = vault();
      const tail = 'to install packages for the web app, the docs site, the CLI tools and the shared component library.';
      v.write('MEMORY.md', `# Memory\n\n${entry('yarn', `Use yarn ${tail}`, { importance: 0.7 })}${entry('npm', `Use npm ${tail}`, { importance: 0.6 })}`
        + entry('vague', `${vague} ${tail}`, { importance: 0.5 }));
      await run(['compact', '--json']);
      await run(['compact', '--json']);
      const left = await ids();
      expect(left).toEqual(expect.arrayContaining(['npm', 'yarn']));
      const shown: string[] = [];
      for (const id of left) shown.push((await run(['show', id, '--json'])).json().body as string);
      const bodies = shown.join('\n');
      expect(bodies).toMatch(/Use yarn/);
      expect(bodies).toMatch(/Use npm/);
    }
  });

  it('true near-duplicates still merge (case, punctuation, whitespace, an added or reworded clause); a changed number beside them stays', async () => {
    const { v, run, ids } = vault();
    const base = 'Run the integration tests against a fresh database before every release of the billing service and the invoicing worker';
    const variants = [
      `${base}.`,
      `${base.toLowerCase()}`,
      `${base.toUpperCase()}!`,
      `${base.replace(/ /g, '  ').replace('database', 'database,\n')}.`,
      `- ${base.replace('integration', '*integration*').replace('billing', '`billing`')}.`,
      `${base}, so migrations get caught.`,
    ];
    v.write('MEMORY.md', `# Memory\n\n${variants.map((t, i) => entry(`v${i}`, t, { importance: i === 0 ? 0.9 : 0.5 })).join('')}`
      + entry('r1', 'Keep the test fixtures small so the whole suite stays under a minute on a laptop, in the CI runners and in the nightly release job of the monorepo.', { importance: 0.9 })
      + entry('r2', 'Keep the test fixtures small, which keeps the whole suite under a minute on a laptop, in the CI runners and in the nightly release job of the monorepo.')
      + entry('x2', `${base.replace('fresh', '2nd fresh')}.`));
    const rep = (await run(['compact', '--json'])).json();
    expect(await ids()).toEqual(['r1', 'v0', 'x2']);
    expect(rep.kept.length).toBeGreaterThan(0);
    for (const k of rep.kept) expect([k.a.id, k.b.id]).toContain('x2');
    expect(rep.kept[0].reason).toBe('differ in a number: (none) vs 2nd');
  });
});

describe('mem consolidate flags the pairs compact keeps apart', () => {
  it('same day (both added today): flagged with the reason, nothing written', async () => {
    for (const [, a, b, why] of [DIFFERENT[0], DIFFERENT[4], DIFFERENT[7]]) {
      const { v, run, add } = vault();
      const ia = await add(a);
      const ib = await add(b);
      const before = v.read('MEMORY.md');
      const r = await run(['consolidate', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const out = r.json();
      expect(out.decisions).toEqual([]);
      expect(out.conflicts).toHaveLength(1);
      const c = out.conflicts[0] as Flag;
      expect(c.action).toBe('flag');
      expect(pairOf(c)).toEqual([ia, ib].sort());
      expect(c.reason).toMatch(why);
      expect(v.read('MEMORY.md')).toBe(before);
      // Human output names both entries and the reason; --check fails CI.
      const human = await run(['consolidate']);
      expect(human.stdout).toContain(ia);
      expect(human.stdout).toContain(ib);
      expect(human.stdout).toMatch(why);
      expect((await run(['consolidate', '--check'])).status).toBe(1);
      expect(v.read('MEMORY.md')).toBe(before);
    }
  });

  it('different days, a name changed: flagged older first, nothing written', async () => {
    for (const [, a, b, why] of [DIFFERENT[8], DIFFERENT[7]]) {
      const { v, run, add } = vault();
      const older = await add(a, { MEM_NOW: '2026-11-02' });
      const newer = await add(b, { MEM_NOW: '2026-11-20' });
      const before = v.read('MEMORY.md');
      const out = (await run(['consolidate', '--json'])).json();
      expect(out.decisions).toEqual([]);
      expect(out.conflicts).toMatchObject([{ action: 'flag', kind: 'name', a: { id: older }, b: { id: newer } }]);
      expect(out.conflicts[0].reason).toMatch(why);
      expect(v.read('MEMORY.md')).toBe(before);
    }
  });

  it('different days, a number or a negation changed: the older decays, superseded by the newer, with the reason', async () => {
    for (const [, a, b, why] of [DIFFERENT[2], DIFFERENT[0], DIFFERENT[5]]) {
      const { v, run, add } = vault();
      const older = await add(a, { MEM_NOW: '2026-11-02' });
      const newer = await add(b, { MEM_NOW: '2026-11-20' });
      const r = await run(['consolidate', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const out = r.json();
      expect(out.decisions).toHaveLength(1);
      expect(out.decisions[0]).toMatchObject({ action: 'decay', id: older, by: newer, importance_after: 0.35 });
      expect(out.decisions[0].reason).toMatch(why);
      expect(pairOf(out.conflicts[0])).toEqual([older, newer].sort());
      expect((await run(['show', older, '--json'])).json()).toMatchObject({ importance: 0.35, superseded_by: newer });
      expect(v.read('.mem/consolidation-log.jsonl')).toContain(newer);
    }
  });

  it('true duplicates are not reported as conflicts, a changed name beside them is', async () => {
    const { run, add } = vault();
    await add('Run the integration tests against a fresh database before every release of the billing service and its nightly jobs.');
    await add('run the integration tests against a fresh database, before every release of the billing service and its nightly jobs!');
    expect((await run(['consolidate', '--check'])).status).toBe(0);
    const x = await add('Run the integration tests against a fresh database before every release of the invoicing service and its nightly jobs.');
    const out = (await run(['consolidate', '--json'])).json();
    expect(out.conflicts.map((c: Flag) => c.reason)).toEqual(['differ in a name: billing vs invoicing; same date, newer unknown: review by hand',
      'differ in a name: billing vs invoicing; same date, newer unknown: review by hand']);
    expect(out.conflicts.every((c: Flag) => c.b.id === x)).toBe(true);
  });
});

describe('promote: facts that differ are not one recurring lesson', () => {
  it('three jobs that each name another version promote nothing; the same lesson in three jobs still promotes', async () => {
    const v = tempVault({ git: true });
    const run = (args: string[]) => runIn(args, { cwd: v.root, home: v.home, env: { MEM_NOW: '2026-11-25' } });
    const lesson = (n: string) => `Use Node ${n} for the release build of the billing service and its nightly jobs.`;
    v.write('.mem/jobs/j1/MEMORY.md', entry('j1-a', lesson('18')));
    v.write('.mem/jobs/j2/MEMORY.md', entry('j2-a', lesson('20')));
    v.write('.mem/jobs/j3/MEMORY.md', entry('j3-a', lesson('22')));
    const none = await run(['promote', '--json']);
    expect(none.status, none.stderr).toBe(0);
    expect(none.json().promoted).toEqual([]);
    // Two agree, one differs: still only two sources for "Node 20", below the three needed.
    v.write('.mem/jobs/j1/MEMORY.md', entry('j1-a', lesson('20')));
    expect((await run(['promote', '--json'])).json().promoted).toEqual([]);
    v.write('.mem/jobs/j3/MEMORY.md', entry('j3-a', lesson('20')));
    const one = (await run(['promote', '--json'])).json().promoted;
    expect(one).toHaveLength(1);
    expect([...one[0].from].sort()).toEqual(['j1-a', 'j2-a', 'j3-a']);
  });
});
