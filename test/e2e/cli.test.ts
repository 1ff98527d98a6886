// End to end: the built bin/mem.js in temporary vaults, real files, real SQLite.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, mem, tempVault } from '../helpers.js';

afterEach(cleanup);

const HIT_FIELDS = ['id', 'path', 'line', 'scope', 'type', 'domain', 'status', 'title', 'body', 'score'];
const COMPONENTS = ['bm25', 'vector', 'relevance', 'importance', 'decay', 'reinforcement', 'scope_multiplier', 'retrievability', 'prominence', 'mmr'];

function seeded() {
  const v = tempVault({ git: true });
  const run = (args: string[], input?: string, env?: Record<string, string>) => mem(args, { cwd: v.root, home: v.home, input, env: { MEM_NOW: '2026-11-25', ...env } });
  expect(run(['init']).status).toBe(0);
  return { v, run };
}

describe('mem init', () => {
  it('creates the vault files and .gitignore lines, and is idempotent', () => {
    const { v, run } = seeded();
    for (const f of ['MEMORY.md', 'institutional.md', '.mem/config.yaml']) expect(fs.existsSync(v.path(f)), f).toBe(true);
    expect(v.read('.gitignore')).toContain('.memory.db*');
    const before = v.read('.gitignore');
    const again = run(['init']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/already set up/);
    expect(v.read('.gitignore')).toBe(before);
  });
});

describe('add, show, list, search', () => {
  it('adding to a legacy ## [ file keeps its old sections as entries, byte for byte', () => {
    const v = tempVault();
    const legacy = '# Memory\n\n## [2025-01-02] Old learning one\n\nUse the old build script.\n\n## [2025-02-03] Old learning two\n\nThe staging box is slow.\n';
    v.write('MEMORY.md', legacy);
    expect(mem(['add', 'The cache needs a warm-up after deploys.'], { cwd: v.root, home: v.home }).status).toBe(0);
    expect(v.read('MEMORY.md').startsWith(legacy)).toBe(true);
    const titles = mem(['list', '--json'], { cwd: v.root, home: v.home }).json().entries.map((e: { title: string }) => e.title);
    expect(titles).toEqual(['Old learning one', 'Old learning two', 'Procedural: The cache needs a warm-up after deploys.']);
    expect(mem(['search', 'staging box slow', '--ids', '--limit', '1'], { cwd: v.root, home: v.home }).stdout.trim()).toMatch(/^legacy-/);
  });

  it('adds entries to the right scoped files and finds them again', () => {
    const { v, run } = seeded();
    const a = run(['add', 'Run npm run db:migrate before the API tests.', '--type', 'corrective', '--importance', '0.8', '--phase', 'implementation', '--tags', 'db,ci']);
    expect(a.status).toBe(0);
    const id = a.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const b = run(['add', '--institutional', '--type', 'directive'], 'Every pull request needs a test.');
    expect(b.status).toBe(0);
    const t = run(['add', '--scope', 'team', '--job', 'rel', '--task', 'docs', 'The docs build needs Node 20.']);
    expect(t.status).toBe(0);
    expect(fs.existsSync(v.path('.mem/jobs/rel/tasks/docs/MEMORY.md'))).toBe(true);
    const g = run(['add', '--scope', 'global', 'Prefer small commits.']);
    expect(fs.readFileSync(path.join(v.home, 'MEMORY.md'), 'utf8')).toContain(g.stdout.trim());

    const show = run(['show', id.slice(0, 8), '--json']);
    expect(show.status).toBe(0);
    expect(show.json()).toMatchObject({ id, type: 'corrective', importance: 0.8, phase: 'implementation', status: 'active', reinforcement_count: 0,
      last_reinforced: '2026-11-25', created_at: '2026-11-25', tags: ['db', 'ci'], path: 'MEMORY.md', scope: 'project', source: 'manual' });
    expect(run(['show', id]).stdout).toContain('Run npm run db:migrate');

    const list = run(['list', '--json']).json();
    expect(list.entries.map((e: { scope: string }) => e.scope).sort()).toEqual(['global', 'project', 'project', 'team']);
    expect(run(['list', '--json', '--type', 'directive']).json().entries).toHaveLength(1);

    const s = run(['search', 'API tests migrate', '--json']);
    expect(s.status).toBe(0);
    const res = s.json();
    expect(res.query).toBe('API tests migrate');
    expect(res.results[0].id).toBe(id);
    expect(Object.keys(res.results[0])).toEqual(HIT_FIELDS);
    const ex = run(['search', 'API tests migrate', '--json', '--explain']).json();
    expect(Object.keys(ex.results[0].components)).toEqual(COMPONENTS);
    expect(ex.results[0].components).toMatchObject({ relevance: 1, importance: 0.8, decay: 1, reinforcement: 1, scope_multiplier: 1.2, vector: null });

    expect(run(['search', 'node docs build', '--scope', 'team', '--ids']).stdout.trim()).toBe(t.stdout.trim());
    expect(run(['search', 'docs', '--scope', 'global', '--ids']).stdout.trim()).toBe('');
    const human = run(['search', 'migrate']);
    expect(human.stdout).toMatch(/MEMORY\.md:\d+/);
    expect(human.stdout).toContain('corrective');
    const md = run(['search', 'migrate', '--md']).stdout;
    expect(md).toMatch(/^## Background from memory/);
    expect(md).toContain('not instructions');
  });

  it('--batch answers many queries in one process, JSONL in and out', () => {
    const { v, run } = seeded();
    v.write('MEMORY.md', entry('k1', 'Kafka consumers lag when the partition count is low.') + entry('r1', 'Redis eviction policy is allkeys-lru.'));
    const input = '{"id":"q1","query":"kafka lag"}\n{"id":2,"query":"redis eviction"}\n\n{"id":"q3","query":"zzzz"}\n';
    const r = run(['search', '--batch', '-', '--limit', '1'], input);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.id, l.results.map((h: { id: string }) => h.id)])).toEqual([['q1', ['k1']], [2, ['r1']], ['q3', []]]);
    const file = v.write('q.jsonl', '{"id":"a","query":"kafka"}\nnot json\n');
    const bad = run(['search', '--batch', file]);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout.trim()).id).toBe('a');
    expect(bad.stderr).toContain('q.jsonl:2');
  });

  it('--session appends returned ids to the retrieval log', () => {
    const { v, run } = seeded();
    v.write('MEMORY.md', entry('k1', 'Kafka consumers lag.'));
    run(['search', 'kafka', '--session', 'S1']);
    run(['search', 'kafka'], undefined, { MEM_SESSION: 'S1' });
    const log = v.read('.mem/sessions/S1/retrieved.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ query: 'kafka', ids: ['k1'] });
    expect(run(['search', 'kafka', '--session', '../evil']).status).toBe(2);
  });

  it('context: norms always in their own section, learnings ranked', () => {
    const { v, run } = seeded();
    v.write('institutional.md', `# Norms\n\n${entry('n1', '## Squash merge only\nKeep history linear.')}`);
    v.write('MEMORY.md', entry('t1', '## Login redirect loop\nCookies blocked cause a redirect loop.') + entry('t2', '## CI cache\nKey includes the lockfile.'));
    const r = run(['context', 'fix', 'the', 'login', 'redirect']);
    expect(r.status).toBe(0);
    const norms = r.stdout.indexOf('### Norms');
    const learn = r.stdout.indexOf('### Learnings');
    expect(norms).toBeGreaterThan(-1);
    expect(r.stdout.slice(norms, learn)).toContain('Squash merge only');
    expect(r.stdout.slice(learn)).toContain('Login redirect loop');
    expect(r.stdout.slice(learn)).not.toContain('Squash merge only');
    const j = run(['context', 'fix the login redirect', '--json']).json();
    expect(j.institutional.map((e: { id: string }) => e.id)).toEqual(['n1']);
    expect(j.learnings[0].id).toBe('t1');
  });

  it('index, stats, doctor and help', () => {
    const { v, run } = seeded();
    v.write('MEMORY.md', entry('k1', 'Kafka.'));
    v.write('memory/notes.md', '# Notes\n\n## One\ntext\n');
    const ix = run(['index', '--json']);
    expect(ix.status).toBe(0);
    expect(ix.json()).toMatchObject({ entries: 3, removed: 0 });
    expect(run(['index']).stdout).toMatch(/up to date/);
    const rb = run(['index', '--rebuild', '--json']).json();
    expect(rb).toMatchObject({ rebuilt: true, entries: 3 });
    const st = run(['stats', '--json']).json();
    expect(st).toMatchObject({ entries: 3, stale_files: 0, by_kind: { entry: 1, note: 2 } });
    const doc = run(['doctor', '--json']);
    expect(doc.status).toBe(0);
    expect(doc.json().checks.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['node', 'sqlite', 'vault', 'index', 'gitignore']));
    for (const cmd of ['init', 'add', 'show', 'list', 'index', 'search', 'context', 'lint', 'stats', 'doctor']) {
      const h = run([cmd, '--help']);
      expect(h.status, cmd).toBe(0);
      expect(h.stdout, cmd).toContain('Examples:');
    }
  });

  it('plain markdown notes added with include: are searchable by section', () => {
    const { v, run } = seeded();
    v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\n');
    v.write('docs/ops/runbook.md', '# Runbook\n\n## Rotating the TLS certificate\nUse certbot renew, then reload nginx.\n\n## Backups\nNightly at 02:00.\n');
    const r = run(['search', 'tls certificate nginx', '--json']).json();
    expect(r.results[0]).toMatchObject({ id: 'docs/ops/runbook.md#rotating-the-tls-certificate', title: 'Rotating the TLS certificate', line: 3 });
  });
});

describe('progress', () => {
  // A real pseudo-terminal (python's pty module) with a window size, as a user's terminal has.
  const PTY = `
import pty, os, sys, fcntl, termios, struct
args = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack('HHHH', 40, 100, 0, 0))
    os.execvp(args[0], args)
out = b''
while True:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode('utf-8', 'replace'))
sys.exit(os.waitstatus_to_exitcode(status))
`;
  it('shows a spinner on a terminal for long indexing, and nothing when piped or --quiet', async () => {
    const { spawnSync } = await import('node:child_process');
    const { BIN } = await import('../helpers.js');
    const v = tempVault();
    for (let i = 0; i < 150; i++) v.write(`memory/f${i}.md`, entry(`e${i}`, `## Entry ${i}\ntext ${i}`));
    const env = { ...process.env, MEM_HOME: v.home };
    const tty = spawnSync('python3', ['-c', PTY, process.execPath, BIN, 'index'], { cwd: v.root, env, encoding: 'utf8', timeout: 30_000 });
    expect(tty.status).toBe(0);
    // Animated on a terminal; under CI=true ora prints the line once instead.
    expect(tty.stdout).toMatch(/indexing \d+\/150 files/);
    expect(tty.stdout).toContain('150 entries');
    v.write('memory/f0.md', entry('e0', 'changed'));
    const quiet = spawnSync('python3', ['-c', PTY, process.execPath, BIN, 'index', '--rebuild', '--quiet'], { cwd: v.root, env, encoding: 'utf8', timeout: 30_000 });
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).not.toContain('indexing');
    const piped = mem(['index', '--rebuild'], { cwd: v.root, home: v.home });
    expect(piped.stderr).not.toContain('indexing');
  });
});

describe('mem eval', () => {
  it('reports recall, MRR and nDCG over a fixture, per category', () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('k1', 'Kafka consumers lag when partitions are few.') + entry('r1', 'Redis eviction policy is allkeys-lru.') + entry('p1', 'Postgres vacuum runs nightly.'));
    const fixture = [
      { id: 'q1', query: 'kafka consumer lag', relevant: ['k1'], category: 'a' },
      { id: 'q2', query: 'redis eviction', relevant: ['r1', 'missing'], category: 'b' },
    ].map((x) => JSON.stringify(x)).join('\n');
    v.write('fx.jsonl', fixture);
    const r = mem(['eval', 'fx.jsonl', '--k', '1,5', '--json', '--misses'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    const out = r.json();
    expect(out.overall.recall).toEqual({ 1: 0.75, 5: 0.75 });
    expect(out.overall.mrr).toBe(1);
    expect(out.categories.b.recall['5']).toBe(0.5);
    expect(out.misses.map((m: { id: string }) => m.id)).toEqual(['q2']);
    const human = mem(['eval', 'fx.jsonl'], { cwd: v.root, home: v.home });
    expect(human.stdout).toMatch(/R@10/);
    v.write('bad.jsonl', '{"query": 1}\n');
    const bad = mem(['eval', 'bad.jsonl'], { cwd: v.root, home: v.home });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^mem: query 1 needs "query"/);
  });
});

describe('mem index --rebuild with the parse worker', () => {
  it('builds the same index as the incremental path, warnings included', async () => {
    const { default: Database } = await import('better-sqlite3');
    const v = tempVault();
    for (let i = 0; i < 120; i++) {
      const body = Array.from({ length: 5 }, (_, k) => entry(`e-${i}-${k}`, `## Learning ${i}.${k}\n\nUse the cache layer ${i} with key ${k * 7}; it expires after ${k + 1} minutes.`)).join('');
      v.write(`memory/area-${i % 7}/notes-${i}.md`, `# Notes ${i}\n\n${body}`);
    }
    v.write('memory/broken.md', '# Broken\n\n---\nid: b1\ntype: [oops\n---\nbody\n');
    const dump = () => {
      const db = new Database(path.join(v.root, '.memory.db'), { readonly: true });
      try {
        const rows = db.prepare(`SELECT e.entry_id, e.path, e.ordinal, e.line, e.kind, e.scope, e.learning_type, e.type, e.title, e.body, e.content_hash, e.fts_hash, e.row_hash, e.metadata_json
          FROM entries e ORDER BY e.path, e.ordinal`).all();
        const fts = db.prepare("SELECT count(*) AS n FROM entries_fts WHERE entries_fts MATCH 'cache'").get();
        return { rows, fts };
      } finally {
        db.close();
      }
    };
    const inc = mem(['index'], { cwd: v.root, home: v.home });
    expect(inc.status).toBe(0);
    const incremental = dump();
    const rb = mem(['index', '--rebuild'], { cwd: v.root, home: v.home });
    expect(rb.status).toBe(0);
    expect(rb.stderr).toMatch(/memory\/broken\.md/);
    expect(rb.stdout).toMatch(/121 files/);
    const rebuilt = dump();
    expect(rebuilt.rows).toHaveLength(600);
    expect(rebuilt).toEqual(incremental);
    expect(mem(['search', 'cache layer 42', '--ids', '--limit', '1'], { cwd: v.root, home: v.home }).stdout.trim()).toMatch(/^e-42-\d$/);
    // Many files changed at once (a branch switch): the incremental refresh reconciles them to
    // exactly what a rebuild would build.
    for (let i = 0; i < 100; i++) {
      const f = `memory/area-${i % 7}/notes-${i}.md`;
      let text = v.read(f).replace(`key ${7}`, `key ${7}b`);
      if (i % 3 === 0) text += entry(`new-${i}`, `## Added ${i}\n\nA new learning about the queue ${i}.`);
      if (i % 5 === 0) text = text.replace(/---\nid: e-\d+-0[\s\S]*?(?=---\nid: e-\d+-1)/, '');
      v.write(f, text);
    }
    fs.rmSync(v.path('memory/area-0/notes-119.md'));
    const inc2 = mem(['index'], { cwd: v.root, home: v.home });
    expect(inc2.status).toBe(0);
    expect(inc2.stdout).toMatch(/100 changed, 1 removed/);
    const refreshed = dump();
    expect(mem(['index', '--rebuild'], { cwd: v.root, home: v.home }).status).toBe(0);
    expect(refreshed).toEqual(dump());
    expect(refreshed.rows.length).toBe(600 - 5 - 20 + 34);
    // Files rewritten with the same bytes (a checkout touching them): stats change, rows do not.
    const later = new Date(Date.now() + 5000);
    for (let i = 20; i < 110; i++) {
      const f = v.path(`memory/area-${i % 7}/notes-${i}.md`);
      fs.writeFileSync(f, fs.readFileSync(f));
      fs.utimesSync(f, later, later);
    }
    const touched = mem(['index'], { cwd: v.root, home: v.home });
    expect(touched.stdout).toMatch(/0 changed, 0 removed/);
    expect(dump()).toEqual(refreshed);
  });
});

describe('standard output', () => {
  it('carries big outputs whole through a pipe, and ends quietly when the reader goes away', async () => {
    const { memAsync, BIN } = await import('../helpers.js');
    const v = tempVault();
    v.write('MEMORY.md', Array.from({ length: 1500 }, (_, i) => entry(`id-${i}`, `## Learning number ${i}\n\n${'A long body line that takes room in the output. '.repeat(6)}${i}`)).join(''));
    const r = await memAsync(['list', '--limit', '100000', '--json'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(512 * 1024); // far more than a pipe holds at once
    expect(r.json().entries).toHaveLength(1500);
    // `mem … | head -1`: the pipe closes early; mem exits 0 without a word on stderr.
    const sh = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" list --limit 100000 | head -1; echo "status \${PIPESTATUS[0]}" >&2`], {
      cwd: v.root, env: { ...process.env, MEM_HOME: v.home, MEM_ROOT: undefined, NO_COLOR: '1' }, encoding: 'utf8',
    });
    expect(sh.stdout.trim().split('\n')).toHaveLength(1);
    expect(sh.stderr.trim()).toBe('status 0');
  });
});

describe('mem search --max-chars', () => {
  it('says how many matches the budget left out; nothing when all fit', () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('big', `## Redis big\n${'redis cache eviction '.repeat(40)}`, { importance: 0.9 }) + entry('small', '## Redis small\nredis cache', { importance: 0.5 }));
    const tight = mem(['search', 'redis cache', '--max-chars', '100', '--ids'], { cwd: v.root, home: v.home });
    expect(tight.status, tight.stderr).toBe(0);
    expect(tight.stdout.trim()).toBe('small');
    expect(tight.stderr).toContain('1 more match omitted for --max-chars 100');
    const roomy = mem(['search', 'redis cache', '--max-chars', '5000', '--ids'], { cwd: v.root, home: v.home });
    expect(roomy.stdout.trim().split('\n').sort()).toEqual(['big', 'small']);
    expect(roomy.stderr).not.toContain('omitted');
  });
});
