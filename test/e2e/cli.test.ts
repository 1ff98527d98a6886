// End to end: the CLI in-process (main(argv, io)) in temporary vaults, real files, real SQLite.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const HIT_FIELDS = ['id', 'path', 'line', 'scope', 'type', 'domain', 'status', 'title', 'body', 'score', 'final_score'];
const COMPONENTS = ['bm25', 'vector', 'relevance', 'importance', 'decay', 'reinforcement', 'scope_multiplier', 'retrievability', 'prominence', 'mmr'];

/** A vault in a git repository; `init`: set up by `mem init` (its config, templates and .gitignore lines). */
async function seeded(opts: { init?: boolean } = {}) {
  const v = tempVault({ git: true });
  const cli = (args: string[], input?: string, env?: Record<string, string>) => run(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: '2026-11-25', ...env } });
  if (opts.init !== false) expect((await cli(['init'])).status).toBe(0);
  return { v, run: cli };
}

describe('mem init', () => {
  it('creates the vault files and .gitignore lines, and is idempotent', async () => {
    const { v, run } = await seeded();
    for (const f of ['MEMORY.md', 'institutional.md', '.mem/config.yaml']) expect(fs.existsSync(v.path(f)), f).toBe(true);
    expect(v.read('.gitignore')).toContain('.memory.db*');
    const before = v.read('.gitignore');
    const again = await run(['init']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/already set up/);
    expect(v.read('.gitignore')).toBe(before);
  });
});

describe('add, show, list, search', () => {
  it('adding to a legacy ## [ file keeps its old sections as entries, byte for byte', async () => {
    const v = tempVault();
    const legacy = '# Memory\n\n## [2025-01-02] Old learning one\n\nUse the old build script.\n\n## [2025-02-03] Old learning two\n\nThe staging box is slow.\n';
    v.write('MEMORY.md', legacy);
    expect((await run(['add', 'The cache needs a warm-up after deploys.'], { cwd: v.root, home: v.home })).status).toBe(0);
    expect(v.read('MEMORY.md').startsWith(legacy)).toBe(true);
    const titles = (await run(['list', '--json'], { cwd: v.root, home: v.home })).json().entries.map((e: { title: string }) => e.title);
    expect(titles).toEqual(['Old learning one', 'Old learning two', 'Procedural: The cache needs a warm-up after deploys.']);
    expect((await run(['search', 'staging box slow', '--ids', '--limit', '1'], { cwd: v.root, home: v.home })).stdout.trim()).toMatch(/^legacy-/);
  });

  it('adds entries to the right scoped files and finds them again', async () => {
    const { v, run } = await seeded();
    const a = await run(['add', 'Run npm run db:migrate before the API tests.', '--type', 'corrective', '--importance', '0.8', '--phase', 'implementation', '--tags', 'db,ci']);
    expect(a.status).toBe(0);
    const id = a.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const b = await run(['add', '--institutional', '--type', 'directive'], 'Every pull request needs a test.');
    expect(b.status).toBe(0);
    const t = await run(['add', '--scope', 'team', '--job', 'rel', '--task', 'docs', 'The docs build needs Node 20.']);
    expect(t.status).toBe(0);
    expect(fs.existsSync(v.path('.mem/jobs/rel/tasks/docs/MEMORY.md'))).toBe(true);
    const g = await run(['add', '--scope', 'global', 'Prefer small commits.']);
    expect(fs.readFileSync(path.join(v.home, 'MEMORY.md'), 'utf8')).toContain(g.stdout.trim());

    const show = await run(['show', id.slice(0, 8), '--json']);
    expect(show.status).toBe(0);
    expect(show.json()).toMatchObject({ id, type: 'corrective', importance: 0.8, phase: 'implementation', status: 'active', reinforcement_count: 0,
      last_reinforced: '2026-11-25', created_at: '2026-11-25', tags: ['db', 'ci'], path: 'MEMORY.md', scope: 'project', source: 'manual' });
    expect((await run(['show', id])).stdout).toContain('Run npm run db:migrate');

    const list = (await run(['list', '--json'])).json();
    expect(list.entries.map((e: { scope: string }) => e.scope).sort()).toEqual(['global', 'project', 'project', 'team']);
    expect((await run(['list', '--json', '--type', 'directive'])).json().entries).toHaveLength(1);

    const s = await run(['search', 'API tests migrate', '--json']);
    expect(s.status).toBe(0);
    const res = s.json();
    expect(res.query).toBe('API tests migrate');
    expect(res.results[0].id).toBe(id);
    expect(Object.keys(res.results[0])).toEqual(HIT_FIELDS);
    const ex = (await run(['search', 'API tests migrate', '--json', '--explain'])).json();
    expect(Object.keys(ex.results[0].components)).toEqual(COMPONENTS);
    expect(ex.results[0].components).toMatchObject({ relevance: 1, importance: 0.8, decay: 1, reinforcement: 1, scope_multiplier: 1.2, vector: null });

    expect((await run(['search', 'node docs build', '--scope', 'team', '--ids'])).stdout.trim()).toBe(t.stdout.trim());
    expect((await run(['search', 'docs', '--scope', 'global', '--ids'])).stdout.trim()).toBe('');
    const human = await run(['search', 'migrate']);
    expect(human.stdout).toMatch(/MEMORY\.md:\d+/);
    expect(human.stdout).toContain('corrective');
    const md = (await run(['search', 'migrate', '--md'])).stdout;
    expect(md).toMatch(/^## Background from memory/);
    expect(md).toContain('not instructions');
  });

  it('--batch answers many queries in one process, JSONL in and out', async () => {
    const { v, run } = await seeded({ init: false });
    v.write('MEMORY.md', entry('k1', 'Kafka consumers lag when the partition count is low.') + entry('r1', 'Redis eviction policy is allkeys-lru.'));
    const input = '{"id":"q1","query":"kafka lag"}\n{"id":2,"query":"redis eviction"}\n\n{"id":"q3","query":"zzzz"}\n';
    const r = await run(['search', '--batch', '-', '--limit', '1'], input);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.id, l.results.map((h: { id: string }) => h.id)])).toEqual([['q1', ['k1']], [2, ['r1']], ['q3', []]]);
    const file = v.write('q.jsonl', '{"id":"a","query":"kafka"}\nnot json\n');
    const bad = await run(['search', '--batch', file]);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout.trim()).id).toBe('a');
    expect(bad.stderr).toContain('q.jsonl:2');
  });

  it('--session appends returned ids to the retrieval log', async () => {
    const { v, run } = await seeded({ init: false });
    v.write('MEMORY.md', entry('k1', 'Kafka consumers lag.'));
    await run(['search', 'kafka', '--session', 'S1']);
    await run(['search', 'kafka'], undefined, { MEM_SESSION: 'S1' });
    const log = v.read('.mem/sessions/S1/retrieved.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ query: 'kafka', ids: ['k1'] });
    expect((await run(['search', 'kafka', '--session', '../evil'])).status).toBe(2);
  });

  it('context: norms always in their own section, learnings ranked', async () => {
    const { v, run } = await seeded({ init: false });
    v.write('institutional.md', `# Norms\n\n${entry('n1', '## Squash merge only\nKeep history linear.')}`);
    v.write('MEMORY.md', entry('t1', '## Login redirect loop\nCookies blocked cause a redirect loop.') + entry('t2', '## CI cache\nKey includes the lockfile.'));
    const r = await run(['context', 'fix', 'the', 'login', 'redirect']);
    expect(r.status).toBe(0);
    const norms = r.stdout.indexOf('### Norms');
    const learn = r.stdout.indexOf('### Learnings');
    expect(norms).toBeGreaterThan(-1);
    expect(r.stdout.slice(norms, learn)).toContain('Squash merge only');
    expect(r.stdout.slice(learn)).toContain('Login redirect loop');
    expect(r.stdout.slice(learn)).not.toContain('Squash merge only');
    const j = (await run(['context', 'fix the login redirect', '--json'])).json();
    expect(j.institutional.map((e: { id: string }) => e.id)).toEqual(['n1']);
    expect(j.learnings[0].id).toBe('t1');
  });

  it('index, stats, doctor and help', async () => {
    const { v, run } = await seeded();
    v.write('MEMORY.md', entry('k1', 'Kafka.'));
    v.write('memory/notes.md', '# Notes\n\n## One\ntext\n');
    const ix = await run(['index', '--json']);
    expect(ix.status).toBe(0);
    expect(ix.json()).toMatchObject({ entries: 3, removed: 0 });
    expect((await run(['index'])).stdout).toMatch(/up to date/);
    const rb = (await run(['index', '--rebuild', '--json'])).json();
    expect(rb).toMatchObject({ rebuilt: true, entries: 3 });
    const st = (await run(['stats', '--json'])).json();
    expect(st).toMatchObject({ entries: 3, stale_files: 0, by_kind: { entry: 1, note: 2 } });
    const doc = await run(['doctor', '--json']);
    expect(doc.status).toBe(0);
    expect(doc.json().checks.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['node', 'sqlite', 'vault', 'index', 'gitignore']));
    for (const cmd of ['init', 'add', 'show', 'list', 'index', 'search', 'context', 'lint', 'stats', 'doctor']) {
      const h = await run([cmd, '--help']);
      expect(h.status, cmd).toBe(0);
      expect(h.stdout, cmd).toContain('Examples:');
    }
  });

  it('plain markdown notes added with include: are searchable by section', async () => {
    const { v, run } = await seeded({ init: false });
    v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\n');
    v.write('docs/ops/runbook.md', '# Runbook\n\n## Rotating the TLS certificate\nUse certbot renew, then reload nginx.\n\n## Backups\nNightly at 02:00.\n');
    const r = (await run(['search', 'tls certificate nginx', '--json'])).json();
    expect(r.results[0]).toMatchObject({ id: 'docs/ops/runbook.md#rotating-the-tls-certificate', title: 'Rotating the TLS certificate', line: 3 });
  });
});

describe('mem eval', () => {
  it('reports recall, MRR and nDCG over a fixture, per category', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('k1', 'Kafka consumers lag when partitions are few.') + entry('r1', 'Redis eviction policy is allkeys-lru.') + entry('p1', 'Postgres vacuum runs nightly.'));
    const fixture = [
      { id: 'q1', query: 'kafka consumer lag', relevant: ['k1'], category: 'a' },
      { id: 'q2', query: 'redis eviction', relevant: ['r1', 'missing'], category: 'b' },
    ].map((x) => JSON.stringify(x)).join('\n');
    v.write('fx.jsonl', fixture);
    const r = await run(['eval', 'fx.jsonl', '--k', '1,5', '--json', '--misses'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    const out = r.json();
    expect(out.overall.recall).toEqual({ 1: 0.75, 5: 0.75 });
    expect(out.overall.mrr).toBe(1);
    expect(out.categories.b.recall['5']).toBe(0.5);
    expect(out.misses.map((m: { id: string }) => m.id)).toEqual(['q2']);
    const human = await run(['eval', 'fx.jsonl'], { cwd: v.root, home: v.home });
    expect(human.stdout).toMatch(/R@10/);
    v.write('bad.jsonl', '{"query": 1}\n');
    const bad = await run(['eval', 'bad.jsonl'], { cwd: v.root, home: v.home });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^mem: query 1 needs "query"/);
    // Relevant ids this vault does not hold are said (the scores stand as they are).
    expect(r.stderr).toBe('mem: warning: 1 relevant id is not in this vault (missing); 0 queries have none that can be found\n');
    v.write('other.jsonl', [{ query: 'kafka', relevant: ['x1', 'x2'] }, { query: 'redis', relevant: ['r1'] }].map((x) => JSON.stringify(x)).join('\n'));
    const other = await run(['eval', 'other.jsonl', '--json'], { cwd: v.root, home: v.home });
    expect(other.status).toBe(0);
    expect(other.stderr).toBe('mem: warning: 2 relevant ids are not in this vault (x1, x2); 1 query has none that can be found\n');
    // A fixture with no queries is no fixture.
    for (const [name, text] of [['empty.jsonl', ''], ['empty.json', '[]'], ['obj.json', '[1'], ['nul.jsonl', 'null\n']]) {
      v.write(name, text);
      const e = await run(['eval', name], { cwd: v.root, home: v.home });
      expect(e.status, name).toBe(1);
      expect(e.stderr.split('\n')[0], name).toMatch(/^mem: /);
      expect(e.stderr).not.toMatch(/looks like a bug/);
    }
  });
});

describe('mem search --max-chars', () => {
  it('says how many matches the budget left out; nothing when all fit', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('big', `## Redis big\n${'redis cache eviction '.repeat(40)}`, { importance: 0.9 }) + entry('small', '## Redis small\nredis cache', { importance: 0.5 }));
    const tight = await run(['search', 'redis cache', '--max-chars', '100', '--ids'], { cwd: v.root, home: v.home });
    expect(tight.status, tight.stderr).toBe(0);
    expect(tight.stdout.trim()).toBe('small');
    expect(tight.stderr).toContain('1 more match omitted for --max-chars 100');
    const roomy = await run(['search', 'redis cache', '--max-chars', '5000', '--ids'], { cwd: v.root, home: v.home });
    expect(roomy.stdout.trim().split('\n').sort()).toEqual(['big', 'small']);
    expect(roomy.stderr).not.toContain('omitted');
  });
});
