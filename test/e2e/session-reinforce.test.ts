// A session extracted several times as it grows (the agent hooks: PreCompact then SessionEnd,
// Codex's notify after every turn): each entry the session retrieved is reinforced or weakened,
// and reviewed, once; ids retrieved after an extraction are judged by the next one. With a model
// configured, the review's rating is the model's (real SDK, loopback server).

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer, openaiCompletion, type Seen } from '../fake-llm.js';
import { OFFLINE } from '../fixtures/extract.js';
import { NO_KEYS } from '../fixtures/providers.js';
import { cleanup, entry, tempDir, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

const USED = '11111111-0000-4000-8000-0000000000a1';
const IGNORED = '22222222-0000-4000-8000-0000000000b2';
const LATER = '33333333-0000-4000-8000-0000000000c3';
const SESSION = 'sess-grow';

function sessionVault() {
  const v = tempVault();
  v.write('MEMORY.md', `# Memory\n\n${entry(USED, '## Run the migrations first\nThe API tests need npm run db:migrate on a fresh database.', { created_at: '2026-11-01' })}`
    + `${entry(IGNORED, '## Warm the cache after deploys\nThe first request after a deploy stays slow until caches warm.', { created_at: '2026-11-01', reinforcement_count: 2 })}`
    + `${entry(LATER, '## Rotate the Stripe keys\nRefresh the Stripe sandbox keys with scripts/rotate-stripe.sh before the payment tests.', { created_at: '2026-11-01' })}`);
  return v;
}

type Turn = [user: string, assistant: string];
const TURNS: Turn[] = [
  ['The API tests fail on a fresh database.', 'The API tests need the migrations: I ran npm run db:migrate on the fresh database first, and they pass.'],
  ['Now the payment tests fail.', 'Looking at the payment output.'],
  ['Still failing?', 'I refreshed the Stripe sandbox keys with scripts/rotate-stripe.sh and the payment tests pass now.'],
];

/** The session's transcript after `n` turns, as Claude Code or Codex writes it. */
function transcript(format: 'claude' | 'codex', n: number): string {
  const lines: unknown[] = [];
  if (format === 'codex') lines.push({ timestamp: '2026-11-20T10:00:00.000Z', type: 'session_meta', payload: { id: SESSION, cwd: '/home/dev/p' } });
  TURNS.slice(0, n).forEach(([user, assistant], i) => {
    // Turn i on day 20 + 2i, just after that day's searches (MEM_NOW noon): an answer counts as
    // an entry's use only once the entry was retrieved.
    const at = (s: number) => `2026-11-${20 + 2 * i}T12:${String(10 + s).padStart(2, '0')}:00.000Z`;
    if (format === 'claude') {
      lines.push({ type: 'user', message: { role: 'user', content: user }, sessionId: SESSION, uuid: `u-${i}`, timestamp: at(0) });
      lines.push({ type: 'assistant', message: { id: `msg-${i}`, role: 'assistant', content: [{ type: 'text', text: assistant }] }, sessionId: SESSION, uuid: `a-${i}`, timestamp: at(1) });
    } else {
      lines.push({ timestamp: at(0), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: user }] } });
      lines.push({ timestamp: at(1), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: assistant }] } });
    }
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

const show = async (v: ReturnType<typeof tempVault>, id: string) => (await run(['show', id, '--json'], { cwd: v.root, home: v.home })).json();
const counts = async (v: ReturnType<typeof tempVault>) => Object.fromEntries(await Promise.all([USED, IGNORED, LATER].map(async (id) => [id, (await show(v, id)).reinforcement_count])));

describe('one session extracted again and again: each retrieved id changes once', () => {
  // Claude Code: PreCompact, then SessionEnd (and a Stop in between); Codex: notify after every turn.
  for (const format of ['claude', 'codex'] as const) {
    it(`${format}: three extractions of the growing transcript; counters and reviews change exactly once per id`, async () => {
      const v = sessionVault();
      const file = path.join(tempDir(), format === 'claude' ? `${SESSION}.jsonl` : `rollout-2026-11-20T10-00-00-${SESSION}.jsonl`);
      // Days apart, so the one-review-a-day rule cannot hide a second review.
      const env = (day: string) => ({ ...OFFLINE, MEM_NOW: `2026-11-${day}T12:00:00Z` });
      const opts = (day: string) => ({ cwd: v.root, home: v.home, env: env(day) });
      const search = await run(['search', 'migrations database cache deploys', '--session', SESSION, '--ids'], opts('20'));
      expect(search.stdout.trim().split('\n').sort()).toEqual([USED, IGNORED].sort());

      fs.writeFileSync(file, transcript(format, 1));
      const first = await run(['extract', file, '--session', SESSION, '--json'], opts('20'));
      expect(first.status, first.stderr).toBe(0);
      expect(first.json().judged.map((j: { id: string; action: string; rating: string; by: string }) => [j.id, j.action, j.rating, j.by]).sort()).toEqual([
        [USED, 'reinforced', 'good', 'usage'], [IGNORED, 'weakened', 'again', 'usage'],
      ].sort());
      expect(await counts(v)).toEqual({ [USED]: 1, [IGNORED]: 1, [LATER]: 0 });

      // The session grows; its new messages do not mention the used entry: nothing changes again.
      fs.writeFileSync(file, transcript(format, 2));
      const second = await run(['extract', file, '--session', SESSION, '--json'], opts('22'));
      expect(second.status, second.stderr).toBe(0);
      expect(second.json().messages.new).toBeGreaterThan(0);
      expect(second.json().judged).toEqual([]);
      expect(await counts(v)).toEqual({ [USED]: 1, [IGNORED]: 1, [LATER]: 0 });

      // An id retrieved after the last extraction is judged by the next one, on the whole session.
      expect((await run(['search', 'stripe sandbox keys', '--session', SESSION, '--ids'], opts('24'))).stdout).toContain(LATER);
      fs.writeFileSync(file, transcript(format, 3));
      const third = await run(['extract', file, '--session', SESSION, '--json'], opts('24'));
      expect(third.status, third.stderr).toBe(0);
      expect(third.json().judged.map((j: { id: string }) => j.id)).toEqual([LATER]);
      expect(third.json().reinforced).toBe(1);
      expect(await counts(v)).toEqual({ [USED]: 1, [IGNORED]: 1, [LATER]: 1 });

      // One FSRS review each, at the extraction that judged it.
      expect((await show(v, USED)).fsrs).toMatchObject({ reps: 1, lapses: 0, last_review: '2026-11-20T12:00:00Z' });
      expect((await show(v, IGNORED)).fsrs).toMatchObject({ reps: 1, lapses: 1, last_review: '2026-11-20T12:00:00Z' });
      expect((await show(v, LATER)).fsrs).toMatchObject({ reps: 1, lapses: 0, last_review: '2026-11-24T12:00:00Z' });
      const log = v.read(`.mem/sessions/${SESSION}/judged.jsonl`).trim().split('\n').map((l) => JSON.parse(l));
      expect(log.map((r) => r.id).sort()).toEqual([USED, IGNORED, LATER].sort());

      // A fourth run over the same transcript (SessionEnd after the last Stop) is a no-op.
      const fourth = await run(['extract', file, '--session', SESSION, '--json'], opts('26'));
      expect(fourth.json().up_to_date).toBe(true);
      expect(await counts(v)).toEqual({ [USED]: 1, [IGNORED]: 1, [LATER]: 1 });
    });
  }

  it('a torn line in the judged log loses only its own id', async () => {
    const v = sessionVault();
    const opts = { cwd: v.root, home: v.home, env: { ...OFFLINE, MEM_NOW: '2026-11-20T12:00:00Z' } };
    await run(['search', 'migrations database cache deploys', '--session', SESSION], opts);
    v.write(`.mem/sessions/${SESSION}/judged.jsonl`, `${JSON.stringify({ id: IGNORED, at: '2026-11-19T00:00:00Z', action: 'weakened' })}\n{"id": "${USED}", "at`);
    const file = path.join(tempDir(), 's.jsonl');
    fs.writeFileSync(file, transcript('claude', 1));
    const r = await run(['extract', file, '--session', SESSION, '--json'], opts);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().judged.map((j: { id: string }) => j.id)).toEqual([USED]);
    expect(await counts(v)).toEqual({ [USED]: 1, [IGNORED]: 2, [LATER]: 0 });
  });
});

describe('use is what the assistant did after the entry was retrieved', () => {
  it('an answer given before the search that returned an entry is not its use; one after it is', async () => {
    const v = sessionVault();
    const file = path.join(tempDir(), 's.jsonl');
    // Turn 1 (day 20) already talks about the migrations; the search runs on day 21; turn 2
    // (day 22) does not mention them again.
    fs.writeFileSync(file, transcript('claude', 2));
    const late = { cwd: v.root, home: v.home, env: { ...OFFLINE, MEM_NOW: '2026-11-21T12:00:00Z' } };
    await run(['search', 'migrations database', '--session', SESSION], late);
    const r = await run(['extract', file, '--session', SESSION, '--json'], late);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().judged.map((j: { id: string; action: string }) => [j.id, j.action])).toEqual([[USED, 'unchanged']]);
    expect(await counts(v)).toEqual({ [USED]: 0, [IGNORED]: 2, [LATER]: 0 });

    // The same transcript, the search logged before the answer: the answer is its use.
    const w = sessionVault();
    const early = { cwd: w.root, home: w.home, env: { ...OFFLINE, MEM_NOW: '2026-11-20T12:00:00Z' } };
    await run(['search', 'migrations database', '--session', SESSION], early);
    const r2 = await run(['extract', file, '--session', SESSION, '--json'], early);
    expect(r2.json().judged.map((j: { id: string; action: string }) => [j.id, j.action])).toEqual([[USED, 'reinforced']]);
    expect(await counts(w)).toEqual({ [USED]: 1, [IGNORED]: 2, [LATER]: 0 });
  });
});

describe('the judged log is written only inside the vault', () => {
  it('a judged log that links out of the vault: the extraction is written, the entries are not reinforced, one warning', async () => {
    const v = sessionVault();
    const opts = { cwd: v.root, home: v.home, env: { ...OFFLINE, MEM_NOW: '2026-11-20T12:00:00Z' } };
    await run(['search', 'migrations database cache deploys', '--session', SESSION], opts);
    const outside = path.join(tempDir(), 'elsewhere.jsonl');
    fs.writeFileSync(outside, '');
    fs.symlinkSync(outside, v.path(`.mem/sessions/${SESSION}/judged.jsonl`));
    const file = path.join(tempDir(), 's.jsonl');
    fs.writeFileSync(file, transcript('claude', 1));
    const r = await run(['extract', file, '--session', SESSION, '--json'], opts);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: retrieved entries not reinforced: refusing to write .*judged\.jsonl: it leads out of the vault/m);
    expect(fs.readFileSync(outside, 'utf8')).toBe('');
    expect(await counts(v)).toEqual({ [USED]: 0, [IGNORED]: 2, [LATER]: 0 });
    expect(v.read('.mem/extracted.jsonl')).toContain(SESSION);
  });
});

describe('with a model configured, the review rating is the model\'s', () => {
  const modelEnv = (url: string, day = '20') => ({ ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: url, MEM_NOW: `2026-11-${day}T12:00:00Z` });
  const toolOf = (req: Seen) => req.body.tool_choice?.name as string;

  it('one request with the retrieved entries and the condensed session; its ratings are recorded once per session', async () => {
    const srv = await fakeServer([{
      body: (req: Seen) => toolOf(req) === 'record_ratings'
        ? anthropicMessage({ ratings: [{ id: USED, rating: 'easy', reason: 'the migration step fixed the tests at once' }, { id: IGNORED, rating: 'hard', reason: 'only loosely related' }, { id: 'not-asked', rating: 'good', reason: '' }] })
        : anthropicMessage({ learnings: [] }),
    }]);
    const v = sessionVault();
    const opts = (day: string) => ({ cwd: v.root, home: v.home, env: modelEnv(srv.url, day) });
    await run(['search', 'migrations database cache deploys', '--session', SESSION], opts('20'));
    const file = path.join(tempDir(), 's.jsonl');
    fs.writeFileSync(file, transcript('claude', 1));
    const r = await run(['extract', file, '--session', SESSION, '--json'], opts('20'));
    expect(r.status, r.stderr).toBe(0);
    const asked = srv.seen.filter((s) => toolOf(s) === 'record_ratings');
    expect(asked).toHaveLength(1);
    const prompt = asked[0].body.messages[0].content as string;
    expect(prompt).toContain(`id: ${USED}`);
    expect(prompt).toContain('title: Warm the cache after deploys');
    expect(prompt).toContain('body: The API tests need npm run db:migrate on a fresh database.');
    expect(prompt).toContain('I ran npm run db:migrate on the fresh database first');
    expect(asked[0].body.tools[0].input_schema.properties.ratings.items.properties.rating.enum).toEqual(['again', 'hard', 'good', 'easy']);
    const byId = Object.fromEntries(r.json().judged.map((j: { id: string }) => [j.id, j]));
    expect(byId[USED]).toMatchObject({ action: 'reinforced', rating: 'easy', by: 'anthropic:claude-haiku-4-5', reason: 'the migration step fixed the tests at once' });
    // The counter still follows the words the assistant used; the rating is the model's.
    expect(byId[IGNORED]).toMatchObject({ action: 'weakened', rating: 'hard', by: 'anthropic:claude-haiku-4-5' });
    expect((await show(v, USED)).fsrs).toMatchObject({ reps: 1, lapses: 0 });
    // An easy first review schedules further out than the hard one.
    expect((await show(v, USED)).fsrs.stability).toBeGreaterThan((await show(v, IGNORED)).fsrs.stability);
    expect((await show(v, IGNORED)).fsrs).toMatchObject({ reps: 1, lapses: 0 });

    // The grown session: no second rating request, no second review.
    fs.writeFileSync(file, transcript('claude', 2));
    const again = await run(['extract', file, '--session', SESSION, '--json'], opts('23'));
    expect(again.status, again.stderr).toBe(0);
    expect(srv.seen.filter((s) => toolOf(s) === 'record_ratings')).toHaveLength(1);
    expect(again.json().judged).toEqual([]);
    expect((await show(v, USED)).fsrs).toMatchObject({ reps: 1 });
  });

  it('openai-compatible server: a rating answer that is not usable falls back on the offline rule, with a warning', async () => {
    const srv = await fakeServer([{
      body: (req: Seen) => req.body.response_format?.json_schema?.name === 'record_ratings'
        ? openaiCompletion(JSON.stringify({ ratings: [{ id: USED, rating: 'brilliant', reason: 'x' }] }))
        : openaiCompletion(JSON.stringify({ learnings: [] })),
    }]);
    const v = sessionVault();
    const env = { ...NO_KEYS, OPENAI_BASE_URL: `${srv.url}/v1`, MEM_NOW: '2026-11-20T12:00:00Z' };
    await run(['search', 'migrations database cache deploys', '--session', SESSION], { cwd: v.root, home: v.home, env });
    const file = path.join(tempDir(), 's.jsonl');
    fs.writeFileSync(file, transcript('claude', 1));
    const r = await run(['extract', file, '--session', SESSION, '--json'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    expect(srv.seen.filter((s) => s.body.response_format?.json_schema?.name === 'record_ratings')).toHaveLength(1);
    expect(r.stderr).toMatch(/^mem: warning: reviews rated by the offline rule: openai \(gpt-4o-mini\) rated none of the retrieved memories$/m);
    const byId = Object.fromEntries(r.json().judged.map((j: { id: string }) => [j.id, j]));
    expect(byId[USED]).toMatchObject({ action: 'reinforced', rating: 'good', by: 'usage' });
    expect(byId[IGNORED]).toMatchObject({ action: 'weakened', rating: 'again', by: 'usage' });
  });
});
