// FSRS end to end: `mem review` on real vault files, `--rank fsrs` and `search.rank: fsrs`, the
// skip rule, reviews recorded by `mem reinforce --session/--transcript`, and ts-fsrs staying out of
// a plain `mem search`.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rankVault } from '../fixtures/fsrs.js';
import { cleanup, entry, git, tempDir, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterAll(cleanup);

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const R = 'cccccccc-0000-4000-8000-000000000003';

/** A file with a BOM, CRLF line ends, a comment and a hand-quoted value: all must survive. */
const ORIGINAL = '\uFEFF# Project memory\r\n\r\n'
  + `---\r\nid: ${A}\r\ntype: procedural\r\nimportance: 0.7   # set by hand\r\nstatus: active\r\ncreated_at: "2026-11-01"\r\n---\r\n## Run the migrations first\r\n\r\nThe API tests need npm run db:migrate on a fresh database.\r\n\r\n`
  + `---\r\nid: ${B}\r\ntype: corrective\r\nimportance: 0.5\r\ncreated_at: '2026-11-02'\r\n---\r\n## Seed the cache\r\n\r\nWarm the cache after deploys.\r\n\r\n`
  + `---\r\nid: ${R}\r\nstatus: retired\r\ncreated_at: '2026-11-02'\r\n---\r\n## Old rule\r\n\r\nNo longer true.\r\n`;

function reviewVault() {
  const v = tempVault({ git: true });
  v.write('MEMORY.md', ORIGINAL);
  git(v.root, ['add', 'MEMORY.md']);
  git(v.root, ['commit', '-qm', 'memory']);
  return v;
}

const at = (now: string) => ({ MEM_NOW: now });

describe('mem review', () => {
  it('writes the fsrs state as one added header line; every other byte of the file stays', async () => {
    const v = reviewVault();
    const r = await run(['review', A, '--rating', 'good', '--json'], { cwd: v.root, home: v.home, env: at('2026-11-26T10:00:00Z') });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = r.json();
    expect(out.decisions).toHaveLength(1);
    expect(out.decisions[0]).toMatchObject({ id: A, action: 'reviewed', rating: 'good', after: { reps: 1, lapses: 0, state: 'review', last_review: '2026-11-26T10:00:00Z' } });
    // The default state: stability from importance 0.7 (between good 2.31 and easy 8.30 days).
    expect(out.decisions[0].before.stability).toBeGreaterThan(2.3065);
    expect(out.decisions[0].before.stability).toBeLessThan(8.2956);
    expect(out.decisions[0].after.stability).toBeGreaterThan(out.decisions[0].before.stability);

    // git sees exactly one added line and nothing removed.
    expect(git(v.root, ['diff', '--numstat', 'MEMORY.md']).trim()).toBe('1\t0\tMEMORY.md');
    const text = v.read('MEMORY.md');
    const line = text.split('\r\n').find((l) => l.startsWith('fsrs: '))!;
    expect(line).toMatch(/^fsrs: \{stability: [\d.]+, difficulty: [\d.]+, last_review: '2026-11-26T10:00:00Z', reps: 1, lapses: 0, state: review\}$/);
    expect(text).toBe(ORIGINAL.replace('created_at: "2026-11-01"\r\n', `created_at: "2026-11-01"\r\n${line}\r\n`));

    // mem show reads the state back; lint finds nothing wrong with it.
    const shown = (await run(['show', A, '--json'], { cwd: v.root, home: v.home })).json();
    expect(shown.fsrs).toMatchObject({ reps: 1, state: 'review' });
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);
  });

  it('a second review less than a day later is skipped and reported; a day later it updates the same line', async () => {
    const v = reviewVault();
    expect((await run(['review', A, '--rating', 'good'], { cwd: v.root, home: v.home, env: at('2026-11-26T10:00:00Z') })).status).toBe(0);
    const after1 = fs.readFileSync(v.path('MEMORY.md'));

    const soon = await run(['review', A, '--rating', 'again'], { cwd: v.root, home: v.home, env: at('2026-11-27T09:00:00Z') });
    expect(soon.status).toBe(0);
    expect(soon.stdout).toMatch(/skipped \(recent\)\s+aaaaaaaa-.* last review 23 h ago \(less than a day\)/);
    expect(fs.readFileSync(v.path('MEMORY.md')).equals(after1)).toBe(true);

    const later = (await run(['review', A, '--rating', 'again', '--json'], { cwd: v.root, home: v.home, env: at('2026-11-27T10:00:01Z') })).json();
    expect(later.decisions[0]).toMatchObject({ action: 'reviewed', after: { reps: 2, lapses: 1 } });
    expect(later.decisions[0].after.stability).toBeLessThan(later.decisions[0].before.stability);
    // Still one line added against the committed file: the state line was rewritten in place.
    expect(git(v.root, ['diff', '--numstat', 'MEMORY.md']).trim()).toBe('1\t0\tMEMORY.md');
    expect(v.read('MEMORY.md')).toContain("last_review: '2026-11-27T10:00:01Z', reps: 2, lapses: 1");
  });

  it('reports retired ids and writes nothing for them; an unknown id writes nothing at all; --dry-run writes nothing', async () => {
    const v = reviewVault();
    const unknown = await run(['review', A, 'no-such-id', '--rating', 'easy'], { cwd: v.root, home: v.home });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^mem: no entry with id "no-such-id"$/m);
    expect(fs.readFileSync(v.path('MEMORY.md'), 'utf8')).toBe(ORIGINAL);
    const r = await run(['review', R, '--rating', 'easy', '--json'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ decisions: [{ id: R, action: 'skipped-retired' }], unknown: [] });
    const dry = await run(['review', A, '--rating', 'easy', '--dry-run'], { cwd: v.root, home: v.home });
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/reviewed \(easy\)/);
    expect(fs.readFileSync(v.path('MEMORY.md'), 'utf8')).toBe(ORIGINAL);
  });

  it('usage errors exit 2 with one line', async () => {
    const v = reviewVault();
    const none = await run(['review', A], { cwd: v.root, home: v.home });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^mem: missing --rating/);
    const bad = await run(['review', A, '--rating', 'meh'], { cwd: v.root, home: v.home });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^mem: unknown rating "meh"/);
    expect(fs.readFileSync(v.path('MEMORY.md'), 'utf8')).toBe(ORIGINAL);
  });
});

describe('--rank fsrs', () => {
  const ids = (out: string) => out.trim().split('\n');

  it('orders equally relevant entries by retrievability; prominence does not', async () => {
    const v = rankVault();
    const opts = { cwd: v.root, home: v.home, env: at('2026-11-26T12:00:00Z') };
    expect(ids((await run(['search', 'signing keys', '--ids'], opts)).stdout)).toEqual(['11111111-0000-4000-8000-00000000000a', '22222222-0000-4000-8000-00000000000b']);
    expect(ids((await run(['search', 'signing keys', '--ids', '--rank', 'fsrs'], opts)).stdout)).toEqual(['22222222-0000-4000-8000-00000000000b', '11111111-0000-4000-8000-00000000000a']);
    const ex = (await run(['search', 'signing keys', '--json', '--explain', '--rank', 'fsrs'], opts)).json();
    const [first, second] = ex.results;
    // R = (1 + f·t/S)^(−0.1542), f = 0.9^(−1/0.1542) − 1, S = 5: t = 1 and t = 60 days.
    const f = 0.9 ** (-1 / 0.1542) - 1;
    expect(first.components.retrievability).toBeCloseTo((1 + f / 5) ** -0.1542, 6);
    expect(second.components.retrievability).toBeCloseTo((1 + (f * 60) / 5) ** -0.1542, 6);
    expect(first.score / second.score).toBeCloseTo(first.components.retrievability / second.components.retrievability, 6);
    expect((await run(['search', 'signing keys', '--explain', '--rank', 'fsrs'], opts)).stdout).toMatch(/retrievability 0\.9\d\d/);
    // Prominence's --explain has no retrievability.
    expect((await run(['search', 'signing keys', '--json', '--explain'], opts)).json().results[0].components.retrievability).toBeNull();
  });

  it('search.rank: fsrs in the config selects it for search and context; --rank overrides', async () => {
    const v = rankVault();
    v.write('.mem/config.yaml', 'search:\n  rank: fsrs\n');
    const opts = { cwd: v.root, home: v.home, env: at('2026-11-26T12:00:00Z') };
    expect(ids((await run(['search', 'signing keys', '--ids'], opts)).stdout)[0]).toBe('22222222-0000-4000-8000-00000000000b');
    expect(ids((await run(['search', 'signing keys', '--ids', '--rank', 'prominence'], opts)).stdout)[0]).toBe('11111111-0000-4000-8000-00000000000a');
    const ctx = await run(['context', 'rotate signing keys', '--json'], opts);
    expect(ctx.status).toBe(0);
    expect(ctx.stdout.indexOf('22222222-0000-4000-8000-00000000000b')).toBeLessThan(ctx.stdout.indexOf('11111111-0000-4000-8000-00000000000a'));
    expect(ctx.stdout.indexOf('11111111-0000-4000-8000-00000000000a')).toBeGreaterThan(0);
  });

  it('a review changes the order: reviewing the stale entry today lifts it above the other', async () => {
    const v = rankVault();
    const opts = { cwd: v.root, home: v.home, env: at('2026-11-26T12:00:00Z') };
    expect((await run(['review', '11111111-0000-4000-8000-00000000000a', '--rating', 'good'], opts)).status).toBe(0);
    expect(ids((await run(['search', 'signing keys', '--ids', '--rank', 'fsrs'], opts)).stdout)[0]).toBe('11111111-0000-4000-8000-00000000000a');
  });
});

describe('mem reinforce records reviews', () => {
  function sessionVault() {
    const v = tempVault();
    v.write('MEMORY.md', `# Memory\n\n${entry(A, '## Run the migrations first\nThe API tests need npm run db:migrate on a fresh database.', { created_at: '2026-11-01' })}`
      + `${entry(B, '## Warm the cache after deploys\nThe first request after a deploy stays slow until caches warm.', { created_at: '2026-11-01' })}`);
    return v;
  }
  const fsrsOf = async (v: ReturnType<typeof tempVault>, id: string) => (await run(['show', id, '--json'], { cwd: v.root, home: v.home })).json().fsrs;

  it('--session: every retrieved entry gets a good review with its +1; a second run the same day skips the review', async () => {
    const v = sessionVault();
    const opts = { cwd: v.root, home: v.home, env: at('2026-11-26T12:00:00Z') };
    expect((await run(['search', 'migrations database', '--session', 's1', '--limit', '1'], opts)).status).toBe(0);
    const r = await run(['reinforce', '--session', 's1', '--json'], opts);
    expect(r.status).toBe(0);
    expect(r.json().decisions).toEqual([expect.objectContaining({ id: A, action: 'reinforced', review: expect.objectContaining({ rating: 'good', action: 'reviewed' }) })]);
    expect(await fsrsOf(v, A)).toMatchObject({ reps: 1, lapses: 0, last_review: '2026-11-26T12:00:00Z' });
    expect(await fsrsOf(v, B)).toBeUndefined();
    const again = await run(['reinforce', '--session', 's1'], { ...opts, env: at('2026-11-26T18:00:00Z') });
    expect(again.stdout).toMatch(/reinforced .* 1 → 2 · review skipped \(less than a day\)/);
    expect(await fsrsOf(v, A)).toMatchObject({ reps: 1 });
  });

  it('--transcript: a used entry gets good, an ignored one again (a lapse); plain ids record no review', async () => {
    const v = sessionVault();
    const opts = { cwd: v.root, home: v.home, env: at('2026-11-26T12:00:00Z') };
    await run(['search', 'migrations database', '--session', 's2'], opts);
    await run(['search', 'cache deploys', '--session', 's2'], opts);
    const t = path.join(tempDir(), 't.json');
    fs.writeFileSync(t, JSON.stringify([
      { role: 'user', content: 'the API tests fail' },
      { role: 'assistant', content: 'The API tests need the migrations: I ran npm run db:migrate on the fresh database first.' },
    ]));
    const r = await run(['reinforce', '--session', 's2', '--transcript', t, '--json'], opts);
    expect(r.status).toBe(0);
    const byId = Object.fromEntries(r.json().decisions.map((d: { id: string }) => [d.id, d]));
    expect(byId[A]).toMatchObject({ action: 'reinforced', review: { rating: 'good', action: 'reviewed' } });
    expect(byId[B]).toMatchObject({ action: 'unchanged', review: { rating: 'again', action: 'reviewed' } });
    expect(await fsrsOf(v, B)).toMatchObject({ reps: 1, lapses: 1 });
    expect((await fsrsOf(v, A)).stability).toBeGreaterThan((await fsrsOf(v, B)).stability);

    const w = sessionVault();
    expect((await run(['reinforce', A], { cwd: w.root, home: w.home })).status).toBe(0);
    expect(w.read('MEMORY.md')).not.toContain('fsrs');
  });
});
