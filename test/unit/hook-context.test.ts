import { afterEach, describe, expect, it } from 'vitest';
import { withIndex } from '../../src/index/open.js';
import { countQuery, NOT_EPISODES, potentialQuery } from '../../src/index/queries.js';
import { bearsOn, CHANCE_MAX, chanceCount, MIN_PROMPT_CHARS, promptLearnings, promptSkipReason, prominentLearnings, requiredMatches, type PromptRequest } from '../../src/retrieve/hook-context.js';
import { termsIn } from '../../src/retrieve/search.js';
import { POLICIES } from '../../src/retrieve/policy.js';
import { DEFAULT_SCOPE_MULTIPLIERS } from '../../src/vault/scope.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';

afterEach(cleanup);

const NOW = Date.parse('2026-11-25T12:00:00Z');
const base: Omit<PromptRequest, 'prompt'> = { filter: {}, rank: 'prominence', now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS }, limit: 3, maxChars: 1500, candidates: 100 };

const LEARNINGS = [
  entry('migrate', 'Run the database migrations before the API tests, or the users table is missing.', { last_reinforced: '2026-11-20' }),
  entry('vpn', 'The staging deploy needs the VPN connection; without it the Helm upgrade times out.', { last_reinforced: '2026-11-20' }),
  entry('cents', 'The billing service stores amounts as integer cents; never use floats for money.', { last_reinforced: '2026-11-20', importance: 0.9 }),
  entry('tests', 'Tests run in parallel by default.', { last_reinforced: '2026-01-01', importance: 0.2 }),
].join('');

async function withVault<T>(fn: (db: Parameters<typeof promptLearnings>[0]) => T, extra = ''): Promise<T> {
  const v = tempVault();
  v.write('MEMORY.md', LEARNINGS + extra);
  v.write('institutional.md', entry('norm', 'Never push to main directly; open a pull request.', { last_reinforced: '2026-11-20' }));
  const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
  return withIndex(vault, {}, (ix) => fn(ix.db));
}

describe('the per-prompt relevance gate', () => {
  it('needs 2 matched terms, a quarter of a longer prompt, at most 4', () => {
    expect([1, 2, 3, 4, 8, 9, 12, 13, 16, 17, 40].map(requiredMatches)).toEqual([2, 2, 2, 2, 2, 3, 3, 4, 4, 4, 4]);
  });

  it('chance: words common in a big vault meet by chance; topic words do not; a small vault always passes', () => {
    expect(chanceCount([300, 300], 10_000)).toBeCloseTo(9);
    expect(chanceCount([50, 40, 30], 10_000)).toBeLessThan(0.01);
    expect(chanceCount([1, 1], 3)).toBeLessThan(CHANCE_MAX);
    expect(chanceCount([3, 3, 3], 3)).toBe(3);
    const counts = new Map([['update', 300], ['version', 300], ['kafka', 40], ['lag', 30]]);
    expect(bearsOn(new Set(['update', 'version']), 3, counts, 10_000)).toBe(false);
    expect(bearsOn(new Set(['kafka', 'lag']), 3, counts, 10_000)).toBe(true);
    expect(bearsOn(new Set(['kafka']), 3, counts, 10_000)).toBe(false);
    expect(bearsOn(new Set(['kafka', 'lag', 'update']), 12, counts, 10_000)).toBe(true);
    expect(bearsOn(new Set(['kafka', 'lag']), 12, counts, 10_000)).toBe(false); // 12 terms need 3
  });

  it('termsIn: word forms and identifiers, in the entry\'s own text', () => {
    const m = termsIn(['migrations', 'users_table', 'fails'], new Map([['fails', ['failed']]]));
    expect([...m('The migration failed: users_table is missing.')].sort()).toEqual(['fails', 'migrations', 'users_table']);
    expect([...m('Nothing here.')]).toEqual([]);
  });

  it('skips replies, slash commands and prompts with fewer than 2 content terms', () => {
    expect(promptSkipReason('ok')).toBe('prompt too short');
    expect(promptSkipReason('yes, go on')).toBe('prompt too short');
    expect('yes, go on'.length).toBeLessThan(MIN_PROMPT_CHARS);
    expect(promptSkipReason('/compact keep the test output')).toBe('slash command');
    expect(promptSkipReason('and what about that one?')).toBe('fewer than 2 content terms');
    expect(promptSkipReason('why do the API tests fail on CI?')).toBeNull();
  });

  it('a prompt about a learning gets it; norms are never repeated', async () => {
    const res = await withVault((db) => promptLearnings(db, { ...base, prompt: 'The API tests fail because the users table is missing' }));
    expect(res.skipped).toBeNull();
    expect(res.learnings.map((h) => h.id)).toEqual(['migrate']);
  });

  it('a long pasted prompt is searched and gated by its rarest terms, the key words at its end included', async () => {
    const noise = Array.from({ length: 200 }, (_, i) => `step${i} ok${i * 3} at 10:${String(i % 60).padStart(2, '0')}`).join('\n');
    const prompt = `${noise}\nFAILED: the API tests, the users table is missing; should we apply the database migrations first?`;
    const res = await withVault((db) => promptLearnings(db, { ...base, prompt }));
    expect(res.skipped).toBeNull();
    expect(res.terms).toEqual(expect.arrayContaining(['users', 'migrations']));
    expect(res.learnings.map((h) => h.id)).toEqual(['migrate']);
  });

  it('prompts that must produce output', async () => {
    const prompts: [string, string][] = [
      ['why does the helm upgrade time out on the staging deploy?', 'vpn'],
      ['add a refund endpoint to the billing service (amounts in cents)', 'cents'],
      ['run the migrations, then the API tests', 'migrate'],
    ];
    for (const [prompt, id] of prompts) {
      const res = await withVault((db) => promptLearnings(db, { ...base, prompt }));
      expect(res.learnings.map((h) => h.id), prompt).toContain(id);
    }
  });

  it('prompts that must produce nothing: unrelated, a single shared word, trivially short', async () => {
    for (const prompt of ['write a haiku about autumn leaves', 'rename the tests folder to spec', 'fix the typo in the README header', 'thanks!', 'go on']) {
      const res = await withVault((db) => promptLearnings(db, { ...base, prompt }));
      expect(res.learnings, prompt).toEqual([]);
    }
  });

  it('a match only through a neighbour\'s text does not count', async () => {
    // "kubernetes ingress" is in the neighbour's text only: the entry itself shares one word.
    const extra = entry('n1', 'Kubernetes ingress annotations need the cert-manager issuer name.') + entry('n2', 'Renew certificates every 60 days.');
    const res = await withVault((db) => promptLearnings(db, { ...base, prompt: 'configure the kubernetes ingress certificates' }), extra);
    expect(res.learnings.map((h) => h.id)).toContain('n1');
    expect(res.learnings.map((h) => h.id)).not.toContain('n2');
  });

  it('keeps to the limit and the budget, and leaves out ids already given', async () => {
    const many = Array.from({ length: 8 }, (_, i) => entry(`k${i}`, `Kafka consumer lag alert ${i}: check the consumer group offsets first.`, { last_reinforced: '2026-11-20' })).join('');
    const res = await withVault((db) => promptLearnings(db, { ...base, prompt: 'kafka consumer lag alert fired' }), many);
    expect(res.learnings.length).toBe(3);
    const small = await withVault((db) => promptLearnings(db, { ...base, prompt: 'kafka consumer lag alert fired', maxChars: 150 }), many);
    expect(small.learnings.length).toBe(1);
    const first = res.learnings.map((h) => h.id);
    const again = await withVault((db) => promptLearnings(db, { ...base, prompt: 'kafka consumer lag alert fired', exclude: new Set(first) }), many);
    expect(again.learnings.map((h) => h.id).filter((id) => first.includes(id))).toEqual([]);
    expect(again.learnings.length).toBe(3);
  });
});

describe('the gate in a bigger vault', () => {
  it('two words each in 12% of the entries are no sign; a rarer pair is', async () => {
    const v = tempVault();
    let text = '';
    for (let i = 0; i < 300; i++) {
      const words = [i % 25 < 3 ? 'update' : 'alpha', (i + 7) % 25 < 3 ? 'version' : 'beta', `item${i}`];
      text += entry(`f${i}`, `Filler note ${i}: ${words.join(' ')} gamma.`);
    }
    text += entry('both', 'Bump the version after every update of the lockfile.');
    text += entry('kafka', 'Kafka consumer lag alerts need the offsets reset by hand.');
    v.write('MEMORY.md', text);
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      // Chance puts "update" and "version" together in ~4 of these 302 entries: not a sign.
      expect(promptLearnings(ix.db, { ...base, prompt: 'update the version please' }).learnings).toEqual([]);
      expect(promptLearnings(ix.db, { ...base, prompt: 'the kafka consumer lag alert fired' }).learnings.map((h) => h.id)).toEqual(['kafka']);
    });
  });
});

describe('what the hooks leave out is said', () => {
  it('a prompt: a learning that bears on it but is over the budget is named as left out', async () => {
    const res = await withVault((db) => promptLearnings(db, { ...base, prompt: 'The API tests fail because the users table is missing', maxChars: 20 }));
    expect(res.learnings).toEqual([]);
    expect(res.omitted).toEqual(['migrate']);
    const { renderPromptMd } = await import('../../src/render/context.js');
    expect(renderPromptMd(res.learnings, res.omitted)).toContain('`mem show migrate`');
  });

  it('session start: the task learnings not shown are counted', async () => {
    const { prominentSection } = await import('../../src/retrieve/hook-context.js');
    const res = await withVault((db) => prominentSection(db, { filter: {}, now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS }, limit: 2, maxChars: 5000 }));
    expect(res.learnings).toHaveLength(2);
    expect(res.omitted).toBe(2);
  });
});

describe('prominentLearnings (session start without a prompt)', () => {
  it('ranks task learnings by importance, recency and reinforcement, never norms', async () => {
    const hits = await withVault((db) => prominentLearnings(db, { filter: {}, now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS }, limit: 3, maxChars: 5000 }));
    expect(hits.map((h) => h.id)).toEqual(['cents', 'migrate', 'vpn']);
    expect(hits.every((h) => h.learning_type === 'task')).toBe(true);
  });

  it('reads only as deep as it must, and picks exactly what ranking every entry would (random vaults, budgets, long entries)', async () => {
    // Seeds 1-3: metadata at random. Seed 4: the entries with the most importance and
    // reinforcements are the oldest (decayed to the floor), so the best lie deep in read order.
    for (const seed of [1, 2, 3, 4]) {
      let x = seed * 2654435761;
      const rnd = () => ((x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32);
      const day = (n: number) => new Date(NOW - n * 86_400_000).toISOString().slice(0, 10);
      const entries: string[] = [];
      for (let i = 0; i < 3000; i++) {
        const words = Array.from({ length: 3 + Math.floor(rnd() * (rnd() < 0.05 ? 400 : 30)) }, (_, j) => `w${(i * 7 + j) % 97}`).join(' ');
        const old = seed === 4 && i % 2 === 0;
        entries.push(entry(`e${seed}-${i}`, `Entry ${i}: ${words}.`, seed === 4 ? {
          importance: old ? 0.9 + Math.round(rnd()) / 10 : Math.round((0.2 + rnd() * 0.4) * 10) / 10,
          reinforcement_count: old ? 3 + Math.floor(rnd() * 3) : Math.floor(rnd() * 2),
          last_reinforced: day(old ? 600 + Math.floor(rnd() * 100) : Math.floor(rnd() * 30)),
        } : {
          importance: Math.round((0.1 + rnd() * 0.9) * 10) / 10, reinforcement_count: Math.floor(rnd() * rnd() * 6),
          last_reinforced: day(Math.floor(rnd() * 700)), ...(rnd() < 0.03 ? { status: 'retired' } : {}),
        }));
      }
      const v = tempVault();
      v.write('MEMORY.md', entries.slice(0, 2000).join(''));
      v.write('memory/team/MEMORY.md', entries.slice(2000).join(''));
      const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
      const mult = { ...DEFAULT_SCOPE_MULTIPLIERS };
      for (const [limit, maxChars] of [[8, 3500], [3, 200], [20, 100_000], [5, 60]]) {
        const [fast, slow] = await withIndex(vault, {}, (ix) => {
          const got = prominentLearnings(ix.db, { filter: {}, now: NOW, scopeMultipliers: mult, limit, maxChars }).map((h) => h.id);
          // Brute force: every task entry scored, sorted, then the same greedy budget.
          const all = ix.db.prepare("SELECT entry_id, path, line, scope, status, importance, reinforcement_count, last_reinforced, created_at, length(title) + 1 + length(body) AS chars FROM entries WHERE learning_type = 'task' AND status != 'retired'").all() as any[];
          const scored = all.map((r) => ({ r, s: POLICIES.prominence.score({ ...r, relevance: 1 }, { now: NOW, scopeMultipliers: mult }).score }))
            .sort((a, b) => b.s - a.s || (a.r.path < b.r.path ? -1 : a.r.path > b.r.path ? 1 : 0) || a.r.line - b.r.line);
          const want: string[] = [];
          let left = maxChars;
          for (const { r } of scored) {
            if (want.length >= limit) break;
            if (r.chars > left) continue;
            left -= r.chars;
            want.push(r.entry_id);
          }
          return [got, want];
        });
        expect(fast, `seed ${seed}, limit ${limit}, budget ${maxChars}`).toEqual(slow);
      }
    }
  }, 60_000);

  it('keeps to the budget', async () => {
    const hits = await withVault((db) => prominentLearnings(db, { filter: {}, now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS }, limit: 8, maxChars: 100 }));
    expect(hits.length).toBe(1);
  });
});

describe('the session-start ranking reads rows in index order', () => {
  it('for task learnings, SQLite walks entries_potential and sorts nothing', async () => {
    const plan = await withVault((db) => {
      const q = potentialQuery({ learningTypes: ['task'], scopes: ['project', 'team'] });
      return (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as { detail: string }[]).map((r) => r.detail).join('\n');
    });
    expect(plan).toMatch(/USING INDEX entries_potential/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it("the count of a section's live learnings reads one index, not the rows", async () => {
    const { plan, n } = await withVault((db) => {
      const q = countQuery({ kinds: [...NOT_EPISODES], learningTypes: ['task'] });
      return {
        plan: (db.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as { detail: string }[]).map((r) => r.detail).join('\n'),
        n: (db.prepare(q.sql).get(...q.params) as { n: number }).n,
      };
    }, entry('old', 'A retired learning about the deploy.', { status: 'retired' }));
    expect(plan).toMatch(/USING COVERING INDEX entries_learning_status/);
    expect(n).toBe(4);
  });
});
