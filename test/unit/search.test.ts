import { afterEach, describe, expect, it } from 'vitest';
import { withIndex } from '../../src/index/open.js';
import { buildContext } from '../../src/retrieve/context.js';
import { CONTEXT_ONLY_FACTOR, coverageOf, idfFloor, runSearch, SMALL_VAULT, type SearchRequest, lightStem, termsIn } from '../../src/retrieve/search.js';
import { queryTerms } from '../../src/retrieve/terms.js';
import { DEFAULT_SCOPE_MULTIPLIERS } from '../../src/vault/scope.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';

afterEach(cleanup);

const NOW = Date.parse('2026-11-25T12:00:00Z');
const base: Omit<SearchRequest, 'query'> = { limit: 10, candidates: 100, filter: {}, rank: 'prominence', now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS } };

describe('runSearch', () => {
  it('applies filters in SQL before the candidate limit', async () => {
    const v = tempVault();
    let text = '';
    for (let i = 0; i < 150; i++) text += entry(`p${i}`, `Kafka consumer lag kafka kafka note ${i}`, { type: 'procedural', last_reinforced: '2026-11-25' });
    text += entry('c1', 'A rare corrective about kafka.', { type: 'corrective', last_reinforced: '2026-11-25' });
    v.write('MEMORY.md', text);
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const all = runSearch(ix.db, { ...base, query: 'kafka', candidates: 20 });
      expect(all.results.map((h) => h.id)).not.toContain('c1');
      const only = runSearch(ix.db, { ...base, query: 'kafka', candidates: 20, filter: { types: ['corrective'] } });
      expect(only.results.map((h) => h.id)).toEqual(['c1']);
    });
  });

  it('normalises BM25 so the best candidate has relevance 1, and never returns retired entries', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('a', 'postgres vacuum settings postgres') + entry('b', 'postgres is our database') + entry('r', 'postgres postgres postgres retired', { status: 'retired' }));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = runSearch(ix.db, { ...base, query: 'postgres vacuum' });
      expect(res.results.map((h) => h.id)).toEqual(['a', 'b']);
      expect(res.results[0].components.relevance).toBe(1);
      expect(res.results[1].components.relevance).toBeLessThan(1);
      expect(res.results[0].components.bm25).toBeGreaterThan(0);
    });
  });

  it('ranks by prominence: importance, reinforcement and scope', async () => {
    const v = tempVault();
    const same = 'the staging deploy needs a vpn';
    v.write('MEMORY.md', entry('low', same, { importance: 0.2, last_reinforced: '2026-11-25' }) + entry('high', same, { importance: 0.9, last_reinforced: '2026-11-25' }));
    v.write('.mem/jobs/j/tasks/t/MEMORY.md', entry('team', same, { importance: 0.5, reinforcement_count: 1, last_reinforced: '2026-11-25' }));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = runSearch(ix.db, { ...base, query: 'staging deploy vpn', rank: 'prominence' });
      // MMR keeps identical bodies apart, so compare scores, not positions.
      const hit = Object.fromEntries(res.results.map((h) => [h.id, h]));
      expect(hit.team.score).toBeCloseTo(hit.team.components.relevance * 0.5 * 2 * 1.5, 9);
      expect(hit.high.score).toBeCloseTo(hit.high.components.relevance * 0.9 * 1.2, 9);
      expect(hit.low.score).toBeCloseTo(hit.low.components.relevance * 0.2 * 1.2, 9);
      expect(hit.high.score).toBeGreaterThan(hit.low.score);
    });
  });

  it('titled learnings get no neighbour context; untitled short entries do, at reduced relevance', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('n', '## Money\nPrices are integer cents.', { importance: 1, reinforcement_count: 9, last_reinforced: '2026-11-25' })
      + entry('t', '## Flaky checkout test\nThe checkout test is a timezone bug.', { importance: 0.3, last_reinforced: '2026-11-25' }));
    v.write('memory/chat.md', entry('c1', 'Anna: I finally fixed the flaky checkout test.') + entry('c2', 'Ben: Great, how?') + entry('c3', 'Anna: Set TZ to UTC.')
      + entry('c4', 'Ben: Nice one.'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = runSearch(ix.db, { ...base, query: 'flaky checkout test', filter: { paths: ['MEMORY.md'] } });
      expect(res.results.map((h) => h.id)).toEqual(['t']);
      const chat = runSearch(ix.db, { ...base, query: 'flaky checkout test', filter: { paths: ['memory/chat.md'] }, rank: 'relevance' });
      expect(chat.results.map((h) => h.id)).toEqual(['c1', 'c2', 'c3']); // c4 is three turns away
      const direct = chat.results[0].components.relevance;
      expect(direct).toBe(1);
      for (const h of chat.results.slice(1)) expect(h.components.relevance).toBeLessThanOrEqual(CONTEXT_ONLY_FACTOR);
    });
  });

  it('lifts entries created on a day or in a month the query names', async () => {
    const v = tempVault();
    v.write('memory/s1.md', entry('d1', 'Anna: We moved the billing cron to Tuesdays, and alerts to ops.', { created_at: '2026-03-04' }));
    v.write('memory/s2.md', entry('e1', 'Anna: The billing cron runs hourly; billing alerts go to the billing channel.', { created_at: '2026-05-20' }));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const ids = (query: string) => runSearch(ix.db, { ...base, query, rank: 'relevance' }).results.map((h) => h.id);
      expect(ids('billing cron alerts')[0]).toBe('e1');
      expect(ids('billing cron alerts on 20 May, 2026')[0]).toBe('e1');
      for (const q of ['billing cron alerts on 4 March, 2026', 'billing cron alerts on March 4th 2026', 'billing cron alerts 2026-03-04', 'billing cron alerts in March 2026']) {
        expect(ids(q), q).toEqual(['d1', 'e1']);
      }
      expect(ids('billing cron alerts in March 2025')[0]).toBe('e1'); // another year: no lift
    });
  });

  it('ranks the entry with every word of the question above one with only the rare word, however often', async () => {
    const v = tempVault();
    let text = '';
    for (let i = 0; i < 30; i++) text += entry(`n${i}`, `Caroline: note number ${i} about the week.`);
    text += entry('x', 'Melanie: painting, painting and more painting at the painting class.') + entry('y', 'Caroline: I finished my painting.');
    v.write('memory/chat.md', text);
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = runSearch(ix.db, { ...base, query: 'What did Caroline paint? painting', rank: 'relevance' });
      expect(res.results[0].id).toBe('y');
    });
    expect(coverageOf(['caroline', 'painting'])('Caroline: I finished my paintings.')).toBe(1);
    expect(coverageOf(['caroline', 'src/index.ts'])('see src/index.ts')).toBe(0.5);
    expect(coverageOf(['one'])('one')).toBe(0);
    // Another form of a word covers it.
    const { terms, forms } = queryTerms('what trophy did the team win');
    expect(coverageOf(terms, forms)('We even won a trophy!')).toBeCloseTo(2 / 3);
    expect(coverageOf(terms)('We even won a trophy!')).toBeCloseTo(1 / 3);
  });

  it('packs --max-chars, skipping a result that does not fit', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('big', `## Redis big\n${'redis cache eviction '.repeat(40)}`, { importance: 0.9 }) + entry('small', '## Redis small\nredis cache', { importance: 0.5 }));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      expect(runSearch(ix.db, { ...base, query: 'redis cache' }).results.map((h) => h.id)).toEqual(['big', 'small']);
      expect(runSearch(ix.db, { ...base, query: 'redis cache', maxChars: 100 }).results.map((h) => h.id)).toEqual(['small']);
    });
  });

  it('context: institutional entries always, task learnings ranked, separate budgets', async () => {
    const v = tempVault();
    v.write('institutional.md', entry('n1', '## Every PR needs a test') + entry('n2', '## Squash merge only', { importance: 0.9 }));
    v.write('MEMORY.md', entry('t1', '## Login redirect\nThe login redirect loops when cookies are blocked.'));
    v.write('memory/ci.md', entry('t2', '## Unrelated\nThe CI cache key includes the lockfile.'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = buildContext(ix.db, { task: 'fix the login redirect', filter: {}, rank: 'prominence', now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS },
        institutionalChars: 1000, taskChars: 1000, proxyChars: 0, limit: 5, candidates: 100 });
      expect(res.institutional.map((r) => r.entry_id)).toEqual(['n2', 'n1']);
      expect(res.learnings.map((h) => h.id)).toEqual(['t1']);
      const tight = buildContext(ix.db, { task: 'fix the login redirect', filter: {}, rank: 'prominence', now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS },
        institutionalChars: 22, taskChars: 1000, proxyChars: 0, limit: 5, candidates: 100 });
      expect(tight.institutional.map((r) => r.entry_id)).toEqual(['n2']);
      expect(tight.institutionalOmitted).toBe(1);
    });
  });

  it('context: every section that leaves items out says how many, and the markdown says where to see them', async () => {
    const { renderContextMd } = await import('../../src/render/context.js');
    const v = tempVault();
    // One norm, longer than the norms' budget: nothing of it fits.
    v.write('institutional.md', entry('long-norm', `## Review rules\n${'Every change is reviewed by two people before it merges. '.repeat(20)}`));
    v.write('MEMORY.md', entry('t1', `## Login redirect\nThe login redirect loops when cookies are blocked. ${'More detail on the login redirect. '.repeat(10)}`)
      + entry('t2', '## Login redirect cookie\nThe login redirect needs the session cookie.'));
    v.write('proxy.md', entry('p1', `## Login redirect wording\nThe human wants the login redirect explained. ${'login redirect '.repeat(30)}`));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = buildContext(ix.db, { task: 'fix the login redirect', filter: {}, rank: 'prominence', now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS },
        institutionalChars: 100, taskChars: 100, proxyChars: 100, limit: 5, candidates: 100 });
      expect(res.institutional).toEqual([]);
      expect(res.institutionalOmitted).toBe(1);
      expect(res.learnings.map((h) => h.id)).toEqual(['t2']);
      expect(res.omitted).toEqual({ learnings: 1, proxy: 1, failures: 0, patterns: 0 });
      const md = renderContextMd(res);
      expect(md).not.toContain('_None recorded._');
      expect(md).toContain('1 more omitted for the budget; see `mem list --learning-type institutional`');
      expect(md).toContain('`mem list --learning-type institutional`');
      expect(md).toContain('1 more omitted for the budget; see `mem search` with the task');
      expect(md).toContain('1 more omitted for the budget; see `mem search --learning-type proxy` with the task');
      // Within the limit and the budget, nothing is said to be missing.
      const roomy = buildContext(ix.db, { task: 'fix the login redirect', filter: {}, rank: 'prominence', now: NOW, scopeMultipliers: { ...DEFAULT_SCOPE_MULTIPLIERS },
        institutionalChars: 5000, taskChars: 5000, proxyChars: 5000, limit: 5, candidates: 100 });
      expect(roomy.institutionalOmitted).toBe(0);
      expect(roomy.omitted).toEqual({ learnings: 0, proxy: 0, failures: 0, patterns: 0 });
      expect(renderContextMd(roomy)).not.toContain('omitted');
    });
  });
});

describe('long queries, diversity, small vaults', () => {
  it('a pasted log with the key words at its end finds the entry they name', async () => {
    const v = tempVault();
    let text = entry('hit', '## Redis sentinel failover\nECONNREFUSED from the worker after a sentinel failover: the master moved; restart the worker pool.');
    const common = ['worker', 'job', 'queue', 'started', 'finished', 'retry', 'timeout', 'batch', 'upload', 'thumbnail'];
    for (let i = 0; i < 40; i++) text += entry(`n${i}`, `## Note ${i}\nThe ${common[i % 10]} ${common[(i + 3) % 10]} step ${i} is documented here.`);
    v.write('MEMORY.md', text);
    // Over 4,000 characters of log lines (timestamps, ids, paths: hundreds of distinct words), the cause last.
    const lines: string[] = [];
    for (let i = 0; lines.join('\n').length < 4000; i++) {
      lines.push(`2026-11-2${i % 10}T10:${String(i % 60).padStart(2, '0')}:00Z INFO worker-${i} job ${1000 + i} started batch b${i * 7} upload /tmp/up${i}/f${i}.png thumbnail ok${i}`);
    }
    const log = `${lines.join('\n')}\nERROR ECONNREFUSED redis sentinel failover`;
    expect(log.length).toBeGreaterThan(4000);
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = runSearch(ix.db, { ...base, query: log });
      expect(res.truncated).toBe(true);
      expect(res.chosen).toBe('rarest');
      expect(res.terms).toEqual(expect.arrayContaining(['econnrefused', 'redis', 'sentinel', 'failover']));
      expect(res.results[0].id).toBe('hit');
    });
  });

  it('near-duplicate one-line learnings (all title, no body) do not fill the first ranks', async () => {
    const v = tempVault();
    const one = (id: string, title: string, importance = 0.5) => entry(id, `## ${title}`, { importance, last_reinforced: '2026-11-25' });
    v.write('MEMORY.md', one('d1', 'Run the database migrations before the API tests') + one('d2', 'Run database migrations before running the API tests')
      + one('d3', 'Before the API tests, run the database migrations') + one('x', 'API tests: the database is migrated by the test setup')
      + one('y', 'Migrations of the API database live in db/migrate'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const ids = runSearch(ix.db, { ...base, query: 'API tests database migrations' }).results.map((h) => h.id);
      expect(ids).toHaveLength(5);
      // Compared by their empty bodies, the three copies were alike in nothing and took ranks 1-3.
      expect(ids.slice(0, 3).filter((id) => id.startsWith('d')).length).toBeLessThan(3);
    });
  });

  it('results carry their score after diversity, which falls in rank order, and the result above they are most like', async () => {
    const v = tempVault();
    const one = (id: string, title: string, importance: number) => entry(id, `## ${title}`, { importance, last_reinforced: '2026-11-25' });
    v.write('MEMORY.md', one('a', 'Kafka consumers lag when partitions are few', 0.5) + one('b', 'Kafka consumers lag when the partitions are few', 0.5)
      + one('c', 'Consumer group rebalancing causes lag', 0.9) + one('d', 'Terraform sets the partitions of each topic', 0.9));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const res = runSearch(ix.db, { ...base, query: 'kafka consumers lag partitions' }).results;
      expect(res[0].id).toBe('a');
      for (let i = 1; i < res.length; i++) expect(res[i].final_score!).toBeLessThanOrEqual(res[i - 1].final_score!);
      expect(res[0].final_score).toBeCloseTo(res[0].score, 12);
      // b, a copy of a, ranks below an entry of lower score: its final score says why.
      const at = res.findIndex((h) => h.id === 'b');
      const b = res[at];
      expect(res.slice(1, at).some((h) => h.score < b.score)).toBe(true);
      expect(b.final_score!).toBeLessThan(b.score);
      expect(b.like_rank).toBe(1);
    });
  });

  it('small vaults: a word found in half the entries still counts, so the entry it names is not cut as noise', async () => {
    const v = tempVault();
    const one = (id: string, title: string) => entry(id, `## ${title}`, { last_reinforced: '2026-11-25' });
    v.write('MEMORY.md', one('steps', 'Release steps: tag the commit, build, then publish to npm') + one('notes', 'Release notes go in CHANGELOG.md')
      + one('branches', 'Release branches are cut on Mondays') + one('docs', 'Docs checklist: spell-check and link-check before merging docs')
      + one('redis', 'Redis eviction is allkeys-lru') + one('kafka', 'Kafka consumers lag when partitions are few'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const ids = runSearch(ix.db, { ...base, query: 'release checklist' }).results.map((h) => h.id);
      // "release" is in 3 of 6 entries: BM25's IDF is 0 there, and only the checklist entry was found.
      expect(ids[0]).toBe('docs');
      expect(ids.slice(1).sort()).toEqual(['branches', 'notes', 'steps']);
    });
    expect(idfFloor(6)).toBeGreaterThan(0);
    expect(idfFloor(SMALL_VAULT)).toBe(0);
    expect(idfFloor(SMALL_VAULT * 10)).toBe(0);
    for (let n = 3; n < SMALL_VAULT; n++) expect(idfFloor(n), String(n)).toBeLessThan(Math.log((n - 0.5) / 1.5));
  });
});

describe('file prior', () => {
  it('lifts a match among other good matches of its file; the best candidate stays at 1', async () => {
    const { filePrior } = await import('../../src/retrieve/search.js');
    const row = (rowid: number, path: string, bm25: number) => ({ rowid, path, bm25 }) as unknown as Parameters<typeof filePrior>[0][number];
    const rows = [row(1, 'a.md', -10), row(2, 'a.md', -8), row(3, 'b.md', -8), row(4, 'a.md', -6)];
    const p = filePrior(rows, -10);
    expect(p.get(1)).toBe(1);
    expect(p.get(2)!).toBeGreaterThan(p.get(3)!);
    for (const v of p.values()) expect(v).toBeLessThanOrEqual(1);
    const single = filePrior([row(1, 'x.md', -5), row(2, 'x.md', -2.5)], -5);
    expect([single.get(1), single.get(2)]).toEqual([1, 0.5]);
  });
});

describe('lightStem', () => {
  it('strips the usual suffixes symmetrically, and leaves short words alone', () => {
    const cases: [string, string][] = [
      ['studies', 'study'], ['classes', 'class'], ['tests', 'test'], ['testing', 'test'], ['tested', 'test'], ['quickly', 'quick'],
      ['status', 'status'], ['glass', 'glass'], ['red', 'red'], ['shed', 'shed'], ['shredded', 'shredd'], ['sing', 'sing'], ['bring', 'bring'],
      ['feeds', 'feed'], ['rings', 'ring'], ['fly', 'fly'], ['early', 'ear'], ['deployed', 'deploy'],
    ];
    for (const [w, s] of cases) expect(lightStem(w), w).toBe(s);
  });
});

describe('termsIn', () => {
  // The words of the text each stemmed and looked up: what termsIn answers, however it finds them.
  const everyWord = (terms: string[], forms: Map<string, string[]>, text: string): string[] => {
    const wanted = new Map<string, string>();
    for (const w of terms) for (const f of [w, ...(forms.get(w) ?? [])]) if (!wanted.has(lightStem(f))) wanted.set(lightStem(f), w);
    const own = new Set<string>();
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const t = wanted.get(lightStem(w));
      if (t !== undefined) own.add(t);
    }
    return [...own].sort();
  };

  it('finds a word in any of its forms wherever it is: inside punctuation, at either end, next to longer words', () => {
    const words = ['study', 'studies', 'studying', 'supply', 'supplies', 'early', 'tests', 'testing', 'test', 'deploy', 'deployed', 'redeploy', 'fly', 'flies',
      'class', 'classes', 'go', 'went', 'gone', 'x', 'status', 'statuses', 'ies', 'y', 'ly', 'rely', 'relies', 'café', 'naïve', 'ÉTUDES', 'Deploy42', '42'];
    const seps = [' ', '-', '.', '_', '/', '\n', '`', '', '(', "'"];
    let seed = 7;
    // mulberry32: a small deterministic generator whose every bit varies.
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    const forms = new Map([['go', ['went', 'gone']]]);
    for (let i = 0; i < 400; i++) {
      const terms = [...new Set(Array.from({ length: 1 + (i % 4) }, () => pick(words).toLowerCase()))].filter((t) => /^[\p{L}\p{N}]+$/u.test(t));
      const text = Array.from({ length: 1 + (i % 9) }, () => `${pick(words)}${pick(seps)}`).join(pick(['', ' ']));
      expect([...termsIn(terms, forms)(text)].sort(), `${JSON.stringify(terms)} in ${JSON.stringify(text)}`).toEqual(everyWord(terms, forms, text));
    }
  });
});
