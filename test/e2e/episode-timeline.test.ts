import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, tempVault, type TempVault } from '../helpers.js';
import { run as runMem } from '../run.js';

afterEach(cleanup);

const run = (v: TempVault, args: string[]) => runMem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: '2026-11-21' } });

/** An episode as `mem segment` writes it (the fields mem recent reads). */
function episode(session: string, n: number, title: string, start: string | null, end: string | null, surprise = 0.1): string {
  const times = `${start === null ? '' : `start_at: '${start}'\n`}${end === null ? '' : `end_at: '${end}'\n`}`;
  return `---\nid: ep-${session}-${String(n).padStart(3, '0')}\ntype: declarative\nimportance: 0.5\nstatus: active\ncreated_at: '2026-11-20'\nkind: episode\nsession_id: ${session}\n`
    + `${times}message_start: ${n}\nmessage_end: ${n}\nsurprise: ${surprise}\nkey_moment: ${surprise >= 0.7}\nconsolidated_at: null\n---\n## [2026-11-20] ${title}\n\n${title}.\n\n`;
}

function sessions(): TempVault {
  const v = tempVault();
  v.write('.mem/episodes/s42.md', `# Episodes of session s42\n\n${[
    episode('s42', 2, 'Section: fix the login test', '2026-11-20T10:20:00Z', '2026-11-20T10:45:00Z', 0.8),
    episode('s42', 1, 'Read the failing "auth" test #1', '2026-11-20T11:00:00+01:00', '2026-11-20T10:15:00Z'),
    episode('s42', 3, 'Commit', '2026-11-20T10:50:00Z', '2026-11-20T10:50:00Z'),
    episode('s42', 4, 'Undated', null, null),
  ].join('')}`);
  v.write('.mem/episodes/s41.md', `# Episodes of session s41\n\n${episode('s41', 1, 'Older work', '2026-11-19T09:00:00Z', '2026-11-19T09:30:00Z')}`);
  return v;
}

describe('mem episode timeline', () => {
  it('draws the newest session as a mermaid gantt chart, oldest episode first, in UTC', async () => {
    const v = sessions();
    const r = await run(v, ['episode', 'timeline']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`gantt
  title Session s42 (UTC)
  dateFormat YYYY-MM-DD HH:mm:ss
  axisFormat %H:%M
  todayMarker off
  %% 1 episode without a start time not shown
  1. Read the failing #34;auth#34; test #35;1 :2026-11-20 10:00:00, 2026-11-20 10:15:00
  2. Section#58; fix the login test :crit, 2026-11-20 10:20:00, 2026-11-20 10:45:00
  3. Commit :milestone, 2026-11-20 10:50:00, 0m
`);
    expect(r.stderr).toBe('1 episode without a start time left out\n');
    const md = await run(v, ['episode', 'timeline', 'EPISODE-s42', '--md']);
    expect(md.stdout).toBe(`\`\`\`mermaid\n${r.stdout}\`\`\`\n`);
  });

  it('takes a session; lists it as lines or JSON; refuses an unknown one', async () => {
    const v = sessions();
    const text = await run(v, ['episode', 'timeline', 's41', '--format', 'text']);
    expect(text.stdout).toBe('  2026-11-19 09:00–09:30  Older work  ep-s41-001\n');
    const j = (await run(v, ['--json', 'episode', 'timeline', 's42'])).json();
    expect(j.session).toBe('s42');
    expect(j.undated).toBe(1);
    expect(j.episodes.map((e: { id: string }) => e.id)).toEqual(['ep-s42-001', 'ep-s42-002', 'ep-s42-003']);
    const none = await run(v, ['episode', 'timeline', 'nope']);
    expect(none.status).toBe(1);
    expect(none.stderr.split('\n')[0]).toBe('mem: no episodes of session "nope"');
    expect((await run(v, ['episode', 'timeline', '--format', 'gantt'])).stderr).toContain('mem: --format must be mermaid or text');
    const empty = await run(tempVault(), ['episode', 'timeline']);
    expect(empty.status).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toBe('no episodes (mem segment TRANSCRIPT writes them)\n');
  });
});
