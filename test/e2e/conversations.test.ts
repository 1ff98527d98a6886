// Conversation isolation and time filters: `--conversation` keeps search, context, list and
// recent to what one conversation recorded (entries and episodes by their session_id);
// `--after` / `--before` keep them to what happened in a span, times within one day included.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

function learning(id: string, title: string, body: string, extra: Record<string, string>): string {
  const fm = Object.entries({ type: 'procedural', importance: '0.5', status: 'active', created_at: "'2026-11-27'", ...extra }).map(([k, v]) => `${k}: ${v}`).join('\n');
  return `---\nid: ${id}\n${fm}\n---\n## [2026-11-27] ${title}\n\n${body}\n`;
}

function episode(session: string, n: number, start: string, end: string, title: string): string {
  return `---\nid: ep-${session}-00${n}\ntype: declarative\nimportance: 0.5\nstatus: active\ncreated_at: '${start.slice(0, 10)}'\nkind: episode\nsession_id: ${session}\n`
    + `start_at: '${start}'\nend_at: '${end}'\nsurprise: 0.3\n---\n## [${start.slice(0, 10)}] ${title}\n\n${title}.\n`;
}

/**
 * Two conversations (alpha, beta) that both talked about the deploy cache, a learning with no
 * conversation, norms of each, and episodes on one day: alpha's at 07:10 and 09:00, beta's at
 * 14:00, and one of alpha's the day before.
 */
function seeded() {
  const v = tempVault({ git: true });
  v.write('MEMORY.md', '# Project memory\n\n'
    + learning('l-alpha', 'Warm the deploy cache', 'The deploy cache needs a warm-up run after each release.', { session_id: 'alpha' })
    + learning('l-beta', 'Deploy cache lives in redis', 'The deploy cache is a redis instance on the staging box.', { session_id: 'beta' })
    + learning('l-none', 'Deploy cache size', 'The deploy cache holds 2 GB.', {})
    + learning('l-old', 'Deploy cache was memcached', 'The deploy cache used memcached before.', { session_id: 'beta', created_at: "'2026-11-26'" })
    + learning('l-num', 'Deploy cache keys', 'Deploy cache keys expire after a day.', { session_id: '12345' }));
  v.write('institutional.md', '# Norms\n\n'
    + learning('n-alpha', 'Ask before a release', 'Ask before any release.', { session_id: 'alpha' })
    + learning('n-beta', 'Tag every release', 'Tag every release.', { session_id: 'beta' }));
  v.write('.mem/episodes/alpha.md', '# Episodes of session alpha\n\n'
    + episode('alpha', 0, '2026-11-26T16:00:00Z', '2026-11-26T16:30:00Z', 'Deploy cache outage review')
    + episode('alpha', 1, '2026-11-27T07:10:00Z', '2026-11-27T07:40:00Z', 'Deploy cache warm-up script')
    + episode('alpha', 2, '2026-11-27T09:00:00.000Z', '2026-11-27T09:30:00.000Z', 'Deploy cache metrics'));
  v.write('.mem/episodes/beta.md', '# Episodes of session beta\n\n'
    + episode('beta', 1, '2026-11-27T15:00:00+01:00', '2026-11-27T15:20:00+01:00', 'Deploy cache redis move'));
  const cli = (args: string[]) => run(args, { cwd: v.root, home: v.home, env: { MEM_NOW: '2026-11-27T18:00:00Z' } });
  return { v, cli };
}

const ids = (r: { json(): { results: { id: string }[] } }) => r.json().results.map((h) => h.id).sort();

describe('--conversation', () => {
  it('search keeps to the entries and episodes the conversation recorded; without it, everything', async () => {
    const { cli } = seeded();
    const all = await cli(['search', 'deploy cache', '--json', '--limit', '50']);
    expect(all.status, all.stderr).toBe(0);
    expect(ids(all)).toEqual(['ep-alpha-000', 'ep-alpha-001', 'ep-alpha-002', 'ep-beta-001', 'l-alpha', 'l-beta', 'l-none', 'l-num', 'l-old']);
    const alpha = await cli(['search', 'deploy cache', '--conversation', 'alpha', '--json', '--limit', '50']);
    expect(ids(alpha)).toEqual(['ep-alpha-000', 'ep-alpha-001', 'ep-alpha-002', 'l-alpha']);
    // Several, comma-separated or repeated; a numeric id as YAML wrote it unquoted.
    expect(ids(await cli(['search', 'deploy cache', '--conversation', 'beta,12345', '--json']))).toEqual(['ep-beta-001', 'l-beta', 'l-num', 'l-old']);
    expect(ids(await cli(['search', 'deploy cache', '--conversation', 'beta', '--conversation', '12345', '--json']))).toEqual(['ep-beta-001', 'l-beta', 'l-num', 'l-old']);
    // Ids are case-sensitive, and an unknown one finds nothing (a success).
    const none = await cli(['search', 'deploy cache', '--conversation', 'ALPHA', '--json']);
    expect(none.status).toBe(0);
    expect(none.json().results).toEqual([]);
  });

  it('finds a conversation\'s entries among many stronger matches of others, before, after and between them', async () => {
    const v = tempVault();
    const many = (prefix: string, n: number, session: string) => Array.from({ length: n }, (_, i) =>
      learning(`${prefix}-${i}`, `Flaky login test ${i}`, 'The flaky login test fails on the flaky login page; flaky login again.', { session_id: session })).join('');
    const mine = (i: number) => learning(`c-${i}`, `Note ${i}`, 'The login test needed a retry.', { session_id: 'c' });
    for (const between of [5, 60]) {
      v.write('memory/a.md', many('a', 150, 'other'));
      v.write('memory/b.md', [mine(0), many('b1', between, 'other'), mine(1), many('b2', between, 'other'), mine(2)].join(''));
      v.write('memory/c.md', many('z', 150, 'other'));
      const r = await run(['search', 'flaky login test', '--conversation', 'c', '--limit', '5', '--json'], { cwd: v.root, home: v.home });
      expect(r.status, r.stderr).toBe(0);
      expect(ids(r), `${between} between`).toEqual(['c-0', 'c-1', 'c-2']);
    }
  });

  it('context keeps every section to the conversation: norms, learnings', async () => {
    const { cli } = seeded();
    const r = await cli(['context', 'deploy cache', '--conversation', 'alpha', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const c = r.json();
    expect(c.institutional.map((e: { id: string }) => e.id)).toEqual(['n-alpha']);
    expect(c.learnings.map((e: { id: string }) => e.id)).toEqual(['l-alpha']);
    const everything = (await cli(['context', 'deploy cache', '--json'])).json();
    expect(everything.institutional.map((e: { id: string }) => e.id).sort()).toEqual(['n-alpha', 'n-beta']);
    expect(everything.learnings.map((e: { id: string }) => e.id).sort()).toEqual(['l-alpha', 'l-beta', 'l-none', 'l-num', 'l-old']);
  });

  it('context: recent failures only of the conversation; proven patterns (drawn from many) left out', async () => {
    const { v, cli } = seeded();
    const note = (session: string, task: string) => ['---', `title: EPISODE-${session}`, 'type: episode', 'tags: [episodic]', `session_id: ${session}`,
      "created_at: '2026-11-27T08:00:00Z'", 'outcome: failure', `task: ${task}`, '---', '', `# EPISODE-${session}`, '', '## Lessons Learned', `- ${task} lesson`, ''].join('\n');
    v.write('.mem/episodes/EPISODE-alpha.md', note('alpha', 'warm the deploy cache'));
    v.write('.mem/episodes/EPISODE-beta.md', note('beta', 'move the cache to redis'));
    v.write('.mem/patterns/PATTERN-warm-first.md', ['---', 'title: PATTERN-warm-first', 'type: pattern', 'tags: [pattern]', 'trigger: deploy', 'success_rate: 0.9',
      'occurrences: 4', 'last_validated: 2026-11-20', '---', '', '# PATTERN-warm-first', '', '## Action', 'Warm the cache first.', ''].join('\n'));
    const all = (await cli(['context', 'deploy cache', '--json'])).json();
    expect(all.failures.map((f: { session_id: string }) => f.session_id).sort()).toEqual(['alpha', 'beta']);
    expect(all.patterns.map((p: { title: string }) => p.title)).toEqual(['PATTERN-warm-first']);
    const alpha = (await cli(['context', 'deploy cache', '--conversation', 'alpha', '--json'])).json();
    expect(alpha.failures.map((f: { session_id: string }) => f.session_id)).toEqual(['alpha']);
    expect(alpha.patterns ?? []).toEqual([]);
    const late = (await cli(['context', 'deploy cache', '--after', '2026-11-27T09:00', '--json'])).json();
    expect(late.failures).toEqual([]);
  });

  it('list and recent take it too; recent --session is the same filter', async () => {
    const { cli } = seeded();
    const list = (await cli(['list', '--conversation', 'beta', '--json'])).json().entries.map((e: { id: string }) => e.id).sort();
    // Episodes are listed only when asked for, as always.
    expect(list).toEqual(['l-beta', 'l-old', 'n-beta']);
    expect((await cli(['list', '--conversation', 'beta', '--kind', 'episode', '--json'])).json().entries.map((e: { id: string }) => e.id)).toEqual(['ep-beta-001']);
    const recent = (args: string[]) => cli(['recent', '--json', ...args]).then((r) => r.json().episodes.map((e: { id: string }) => e.id));
    expect(await recent(['--conversation', 'alpha'])).toEqual(['ep-alpha-002', 'ep-alpha-001', 'ep-alpha-000']);
    expect(await recent(['--session', 'alpha'])).toEqual(['ep-alpha-002', 'ep-alpha-001', 'ep-alpha-000']);
    expect((await cli(['recent', '--session', 'alpha', '--conversation', 'beta'])).status).toBe(2);
  });
});

describe('--after / --before', () => {
  it('recent answers "what happened this morning": episodes by their times within one day', async () => {
    const { cli } = seeded();
    const recent = (args: string[]) => cli(['recent', '--json', ...args]).then((r) => {
      expect(r.status, r.stderr).toBe(0);
      return r.json().episodes.map((e: { id: string }) => e.id);
    });
    expect(await recent(['--after', '2026-11-27T06:00', '--before', '2026-11-27T12:00'])).toEqual(['ep-alpha-002', 'ep-alpha-001']);
    // An episode that overlaps the bound counts: 09:00-09:30 is still going on at 09:15.
    expect(await recent(['--after', '2026-11-27T09:15'])).toEqual(['ep-beta-001', 'ep-alpha-002']);
    // --before is exclusive: an episode that starts at 09:00 did not happen before 09:00.
    expect(await recent(['--before', '2026-11-27T09:00'])).toEqual(['ep-alpha-001', 'ep-alpha-000']);
    // An offset: 10:00+01:00 is 09:00 UTC; beta's times were written with an offset too (14:00 UTC).
    expect(await recent(['--after', '2026-11-27T10:00+01:00', '--before', '2026-11-27 14:10'])).toEqual(['ep-beta-001', 'ep-alpha-002']);
    // A date is the start of that day (UTC).
    expect(await recent(['--before', '2026-11-27'])).toEqual(['ep-alpha-000']);
    expect(await recent(['--after', '2026-11-27', '--conversation', 'alpha'])).toEqual(['ep-alpha-002', 'ep-alpha-001']);
  });

  it('search and context: a learning dated with a day happened all that day', async () => {
    const { cli } = seeded();
    const r = await cli(['search', 'deploy cache', '--after', '2026-11-27T09:15', '--json', '--limit', '50']);
    expect(r.status, r.stderr).toBe(0);
    // The learnings dated 2026-11-27 (not l-old, of the 26th), alpha's 09:00 episode and beta's.
    expect(ids(r)).toEqual(['ep-alpha-002', 'ep-beta-001', 'l-alpha', 'l-beta', 'l-none', 'l-num']);
    expect(ids(await cli(['search', 'deploy cache', '--before', '2026-11-27', '--json']))).toEqual(['ep-alpha-000', 'l-old']);
    const c = (await cli(['context', 'deploy cache', '--before', '2026-11-27', '--json'])).json();
    expect(c.learnings.map((e: { id: string }) => e.id)).toEqual(['l-old']);
    expect(c.institutional).toEqual([]);
  });

  it('anything but an ISO date or date-time, or an empty span, is a usage error', async () => {
    const { cli } = seeded();
    for (const args of [['--after', 'yesterday'], ['--after', '2026-02-30'], ['--before', '2026-11-27T25:00'], ['--after', '27/11/2026']]) {
      const r = await cli(['search', 'deploy', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^mem: --(after|before) must be an ISO date or date-time/);
    }
    const swapped = await cli(['recent', '--after', '2026-11-28', '--before', '2026-11-27']);
    expect(swapped.status).toBe(2);
    expect(swapped.stderr).toMatch(/^mem: --after 2026-11-28 is not earlier than --before 2026-11-27/);
    expect((await cli(['search', 'deploy', '--conversation', ' , '])).status).toBe(2);
  });
});
