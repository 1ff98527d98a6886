// `mem watch` end to end: the built CLI watching a real temp vault as a child process, real file
// edits, renames and deletions, a real `mem add` from another process, a real SQLite writer
// holding the index, real signals. Every wait polls against a generous deadline (the box may be
// busy; success ends the wait at once), and what must not happen is checked against a later change
// that must, never against a pause.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, entry, HOOK_TIME, mem, tempVault, type TempVault } from '../helpers.js';
import { processStart, vouchFiles } from '../../src/index/vouch.js';

afterAll(cleanup);

interface Batch {
  event: 'start' | 'change' | 'retry';
  time: string;
  files: string[];
  added: number;
  removed: number;
  entries: number | null;
  vault_files: number;
  reindexed: number;
  ms: number;
  folders?: number;
  poll_ms?: number;
  answers_freshness?: boolean;
  warnings: string[];
  error: { message: string; hint: string | null; retry_in_ms: number } | null;
}

interface Watcher {
  child: ChildProcess;
  batches: Batch[];
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: Watcher[] = [];

afterEach(async () => {
  for (const w of running.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
  }
});

function envFor(v: TempVault, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, MEM_HOME: v.home, NO_COLOR: '1', ...extra };
  delete env.MEM_ROOT;
  delete env.MEM_SESSION;
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

function startWatcher(v: TempVault, args: string[] = ['--json'], extra: Record<string, string> = {}): Watcher {
  const child = spawn(process.execPath, [BIN, 'watch', ...args], { cwd: v.root, env: envFor(v, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const batches: Batch[] = [];
  let pending = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
    pending += d;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (args.includes('--json') && line.trim()) {
        batches.push(JSON.parse(line) as Batch);
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const w = { child, batches, stdout: () => out, stderr: () => err, exited };
  running.push(w);
  return w;
}

async function until<T>(what: string, fn: () => T | undefined | null | false, timeoutMs = 90_000, w?: Watcher): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${w ? `\nstdout:\n${w.stdout()}\nstderr:\n${w.stderr()}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The watcher's first line: watchers ready and the initial refresh done. */
async function started(w: Watcher): Promise<Batch> {
  return until('the start line', () => w.batches.find((b) => b.event === 'start'), undefined, w);
}

/** The next batch (after the first `after` ones) that satisfies `pred`. */
function batchAfter(w: Watcher, after: number, pred: (b: Batch) => boolean): Promise<Batch> {
  return until('a batch', () => w.batches.slice(after).find(pred), undefined, w);
}

/**
 * A note written after what the watcher must ignore, and its batch: events come in order, so
 * anything noticed before it is in that batch or in one before it. The batches since `after`,
 * up to and including the note's.
 */
async function batchesUpToNote(v: TempVault, w: Watcher, after: number, name = 'memory/zz-note.md'): Promise<Batch[]> {
  v.write(name, entry('zz-note', 'A note that marks the end of the test\'s changes.'));
  const note = await batchAfter(w, after, (b) => b.files.includes(name));
  return w.batches.slice(after, w.batches.indexOf(note) + 1);
}

/** Ids found by a search that reads the index as it is (no refresh of its own). */
function found(v: TempVault, query: string): string[] {
  const r = mem(['search', query, '--no-refresh', '--json'], { cwd: v.root, home: v.home });
  if (r.status !== 0) return [];
  return (r.json().results as { id: string }[]).map((h) => h.id);
}

function lockFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(lock|takeover|tmp)$|\.rebuild-\d+/.test(e.name)) out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out;
}

function vault(): TempVault {
  const v = tempVault();
  v.write('MEMORY.md', `# Memory\n\n${entry('m1', 'Run the migrations before the API tests.')}`);
  return v;
}

describe('mem watch', () => {
  it('says what it watches, then an edit to MEMORY.md is searchable (how soon: npm run bench)', async () => {
    const v = vault();
    const w = startWatcher(v);
    const start = await started(w);
    expect(start).toMatchObject({ vault_files: 1, entries: 1, error: null });
    expect(start.folders).toBeGreaterThanOrEqual(1);
    const n = w.batches.length;
    fs.appendFileSync(v.path('MEMORY.md'), entry('m2', 'The quokka service needs a warm cache.'));
    const b = await batchAfter(w, n, (x) => x.files.includes('MEMORY.md'));
    expect(b).toMatchObject({ event: 'change', added: 1, removed: 0, entries: 2, error: null });
    expect(found(v, 'quokka')[0]).toBe('m2');
  });

  it.runIf(process.platform === 'linux')('answers searches whether the index is fresh; an edit just before a search is found, and after kill -9 searches check the files again', async () => {
    const v = vault();
    const w = startWatcher(v);
    expect(await started(w)).toMatchObject({ answers_freshness: true });
    const search = (q: string) => {
      const r = mem(['search', q, '--json'], { cwd: v.root, home: v.home });
      expect(r.status, r.stderr).toBe(0);
      return (r.json().results as { id: string }[])[0]?.id;
    };
    for (let i = 0; i < 4; i++) {
      fs.appendFileSync(v.path('MEMORY.md'), entry(`q${i}`, `The quail${i} pipeline is flaky.`));
      expect(search(`quail${i}`)).toBe(`q${i}`);
    }
    // The agents' prompt hook asks it too.
    const hook = (session: string, prompt: string) => {
      const r = mem(['context', '--hook', 'claude'], {
        cwd: v.root, home: v.home, env: { HOME: v.home, ...HOOK_TIME },
        input: JSON.stringify({ session_id: session, cwd: v.root, hook_event_name: 'UserPromptSubmit', prompt }),
      });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    fs.appendFileSync(v.path('MEMORY.md'), entry('p1', 'The narwhal exporter needs the staging token rotated weekly.'));
    expect(hook('s1', 'How often is the narwhal exporter token rotated?')).toContain('The narwhal exporter needs the staging token rotated weekly.');
    w.child.kill('SIGKILL');
    await w.exited;
    fs.appendFileSync(v.path('MEMORY.md'), entry('q9', 'The quail9 pipeline is fixed.'));
    expect(search('quail9')).toBe('q9');
  });

  it.runIf(process.platform === 'linux')('a search or context whose watcher never answers stops waiting and answers in full, leaving no question behind', async () => {
    const v = vault();
    // A live process named as the vault's watcher that answers nothing: a watch stuck in a long batch.
    const files = vouchFiles(v.root)!;
    fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
    const stuck = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => stuck.stdout!.once('data', resolve));
    const exited = new Promise((resolve) => stuck.once('exit', resolve));
    try {
      fs.writeFileSync(files.pidFile, `${stuck.pid} ${processStart(stuck.pid!)}\n`);
      for (const args of [['search', 'migrations', '--json'], ['context', 'api tests', '--json']]) {
        const r = mem(args, { cwd: v.root, home: v.home });
        expect(r.status, r.stderr).toBe(0);
        expect(r.stdout, args.join(' ')).toContain('Run the migrations before the API tests.');
      }
      expect(fs.readdirSync(files.dir).filter((n) => n.includes(files.id) && /^[qa]-/.test(n))).toEqual([]);
    } finally {
      fs.rmSync(files.pidFile, { force: true });
      stuck.kill('SIGKILL');
      await exited;
    }
  });

  it('indexes a new note in a new folder, a rename and a deletion', async () => {
    const v = vault();
    const w = startWatcher(v);
    await started(w);
    let n = w.batches.length;
    v.write('memory/deploy/notes.md', entry('n1', 'Deploys need the wombat VPN.'));
    await batchAfter(w, n, (b) => b.files.includes('memory/deploy/notes.md'));
    expect(found(v, 'wombat')[0]).toBe('n1');

    n = w.batches.length;
    fs.renameSync(v.path('memory/deploy/notes.md'), v.path('memory/deploy/vpn.md'));
    const renamed = await batchAfter(w, n, (b) => b.files.includes('memory/deploy/vpn.md') && b.files.includes('memory/deploy/notes.md'));
    expect(renamed).toMatchObject({ added: 1, removed: 1, entries: 2 });
    const hit = mem(['search', 'wombat', '--no-refresh', '--json'], { cwd: v.root, home: v.home }).json().results[0];
    expect(hit.path ?? hit.file).toBe('memory/deploy/vpn.md');

    n = w.batches.length;
    fs.rmSync(v.path('memory/deploy'), { recursive: true });
    const gone = await batchAfter(w, n, (b) => b.files.includes('memory/deploy/vpn.md'));
    expect(gone).toMatchObject({ added: 0, removed: 1, entries: 1 });
    expect(found(v, 'wombat')).not.toContain('n1');

    // A folder created again after its removal is watched again.
    n = w.batches.length;
    v.write('memory/deploy/again.md', entry('n2', 'The numbat job runs at night.'));
    await batchAfter(w, n, (b) => b.files.includes('memory/deploy/again.md'));
    expect(found(v, 'numbat')[0]).toBe('n2');
  });

  it('picks up an atomic replace of MEMORY.md (temp file renamed over it)', async () => {
    const v = vault();
    const w = startWatcher(v);
    await started(w);
    const n = w.batches.length;
    const tmp = v.path('.MEMORY.md.editor-save');
    fs.writeFileSync(tmp, `# Memory\n\n${entry('m9', 'Only the platypus remains.')}`);
    fs.renameSync(tmp, v.path('MEMORY.md'));
    const b = await batchAfter(w, n, (x) => x.files.includes('MEMORY.md'));
    expect(b).toMatchObject({ added: 1, removed: 1, entries: 1 });
    expect(found(v, 'platypus')[0]).toBe('m9');
    expect(found(v, 'migrations')).not.toContain('m1');
  });

  it('sees a `mem add` from another process exactly once, and its own index writes start no batch', async () => {
    const v = vault();
    fs.mkdirSync(v.path('memory')); // where the closing note goes: a folder that appears is a change
    const w = startWatcher(v);
    await started(w);
    const r = mem(['add', 'The capybara queue drains on Fridays', '--type', 'procedural'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    const b = await batchAfter(w, 1, (x) => x.files.length > 0);
    expect(b).toMatchObject({ files: ['MEMORY.md'], added: 1, removed: 0, entries: 2 });
    // The initial refresh wrote the index; that did not come back as a batch before the add's.
    expect(w.batches.indexOf(b)).toBe(1);
    // Then no second batch for the same write, no loop on the index writes: the next batch is the note's.
    expect((await batchesUpToNote(v, w, 2)).map((x) => x.files)).toEqual([['memory/zz-note.md']]);
    expect(lockFiles(v.root)).toEqual([]);
  });

  it('reports a malformed file in its batch and keeps indexing the next good edit', async () => {
    const v = vault();
    const w = startWatcher(v);
    await started(w);
    let n = w.batches.length;
    v.write('memory/bad.md', '---\nid: b1\ntype: [unclosed\n---\nThe axolotl entry is broken.\n\n');
    const bad = await batchAfter(w, n, (b) => b.files.includes('memory/bad.md'));
    expect(bad.error).toBeNull();
    expect(bad.warnings.join('\n')).toMatch(/memory\/bad\.md:\d+/);
    expect(bad.warnings.join('\n')).toMatch(/malformed YAML/);
    n = w.batches.length;
    v.write('memory/bad.md', entry('b1', 'The axolotl entry is fixed.'));
    const good = await batchAfter(w, n, (b) => b.files.includes('memory/bad.md'));
    expect(good).toMatchObject({ added: 1, warnings: [] });
    expect(found(v, 'axolotl')[0]).toBe('b1');
    expect(w.child.exitCode).toBeNull();
  });

  it('reports a batch whose index is locked by another writer, and retries it without a new change', async () => {
    const v = vault();
    const w = startWatcher(v, ['--json'], { MEM_BUSY_TIMEOUT_MS: '50' });
    await started(w);
    const db = new Database(v.path('.memory.db'));
    db.pragma('busy_timeout = 2000');
    db.exec('BEGIN IMMEDIATE');
    try {
      const n = w.batches.length;
      fs.appendFileSync(v.path('MEMORY.md'), entry('m3', 'The pangolin cache is cold.'));
      const failed = await batchAfter(w, n, (b) => b.error !== null);
      expect(failed.error!.message).toMatch(/locked/);
      expect(failed.error!.retry_in_ms).toBe(1000);
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
    const ok = await batchAfter(w, 0, (b) => b.event === 'retry' && b.error === null && b.files.includes('MEMORY.md'));
    expect(ok).toMatchObject({ added: 1, entries: 2 });
    expect(found(v, 'pangolin')[0]).toBe('m3');
  });

  it('starts even when the index is locked at start: the start is retried until it works', async () => {
    const v = vault();
    expect(mem(['index'], { cwd: v.root, home: v.home }).status).toBe(0);
    fs.appendFileSync(v.path('MEMORY.md'), entry('m12', 'The okapi arrived while locked.'));
    const db = new Database(v.path('.memory.db'));
    db.exec('BEGIN IMMEDIATE');
    let w: Watcher;
    try {
      w = startWatcher(v, ['--json'], { MEM_BUSY_TIMEOUT_MS: '50' });
      const failed = await until('a failed start', () => w.batches.find((b) => b.event === 'start' && b.error !== null), undefined, w);
      expect(failed.error!.message).toMatch(/locked/);
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
    const ok = await until('the start', () => w.batches.find((b) => b.event === 'start' && b.error === null), undefined, w);
    expect(ok).toMatchObject({ vault_files: 1, entries: 2, reindexed: 1 });
    expect(found(v, 'okapi')[0]).toBe('m12');
  });

  it('applies an include: glob added to .mem/config.yaml while watching', async () => {
    const v = vault();
    v.write('docs/guide.md', entry('d1', 'The ocelot build uses make.'));
    const w = startWatcher(v);
    expect((await started(w)).vault_files).toBe(1);
    let n = w.batches.length;
    v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\n');
    const applied = await batchAfter(w, n, (b) => b.files.includes('docs/guide.md'));
    expect(applied.vault_files).toBe(2);
    // docs/ is watched from now on.
    n = w.batches.length;
    v.write('docs/more/deep.md', entry('d2', 'The serval lint runs first.'));
    await batchAfter(w, n, (b) => b.files.includes('docs/more/deep.md'));
    expect(found(v, 'serval')[0]).toBe('d2');
    // A broken edit of the config is said, and the watch goes on with the globs it had.
    n = w.batches.length;
    v.write('.mem/config.yaml', 'include: [docs/**/*.md\n');
    const broken = await batchAfter(w, n, (b) => (b as Batch & { config_error?: string }).config_error !== undefined);
    expect((broken as Batch & { config_error?: string }).config_error).toMatch(/config\.yaml/);
    n = w.batches.length;
    v.write('docs/third.md', entry('d3', 'The civet still counts.'));
    await batchAfter(w, n, (b) => b.files.includes('docs/third.md'));
  });

  it('ignores what the index does not hold: other files, node_modules, .mem/logs, lock and temp files', async () => {
    const v = vault();
    fs.mkdirSync(v.path('node_modules/pkg'), { recursive: true });
    // (A memory/ folder that appears is a change: it is there from the start here.)
    fs.mkdirSync(v.path('memory'), { recursive: true });
    const w = startWatcher(v);
    await started(w);
    v.write('README.md', 'not memory');
    v.write('src/app.ts', 'export {}');
    v.write('node_modules/pkg/MEMORY.md', entry('x1', 'Not ours.'));
    v.write('memory/.git/notes.md', 'no');
    v.write('.mem/logs/hooks.log', 'line\n');
    v.write('.MEMORY.md.lock', '123');
    fs.rmSync(v.path('.MEMORY.md.lock'));
    v.write('.MEMORY.md.123.abc.tmp', 'x');
    expect((await batchesUpToNote(v, w, 1)).map((x) => x.files)).toEqual([['memory/zz-note.md']]);
  });

  it('stops on SIGTERM and on SIGINT with exit 0, leaving no lock or temp files', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const v = vault();
      const w = startWatcher(v);
      await started(w);
      // A batch about to run when the signal comes.
      fs.appendFileSync(v.path('MEMORY.md'), entry('m4', 'The tapir goes last.'));
      await new Promise((r) => setTimeout(r, 150));
      // A watcher that did not stop ends the test by its timeout.
      w.child.kill(signal);
      const { code, signal: by } = await w.exited;
      expect({ code, by }).toEqual({ code: 0, by: null });
      expect(lockFiles(v.root)).toEqual([]);
      // The index is intact and catches up on the next read.
      expect(mem(['search', 'tapir', '--json'], { cwd: v.root, home: v.home }).json().results[0].id).toBe('m4');
    }
  });

  it('prints one human line per batch that changed the index', async () => {
    const v = vault();
    const w = startWatcher(v, []);
    await until('the start line', () => /watching 1 file in \d+ folders?; (index up to date|indexed 1 file) \(1 entry\) in \d+ ms/.test(w.stdout()), undefined, w);
    fs.appendFileSync(v.path('MEMORY.md'), entry('m5', 'The kiwi runs the tests.'));
    await until('the batch line', () => /^\d\d:\d\d:\d\d indexed 1 file \(\+1 -0 entries\) in \d+ ms$/m.test(w.stdout()), undefined, w);
    w.child.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
    expect(w.stdout().trim().split('\n')).toHaveLength(2);
  });

  it('--help shows the examples; a bad --debounce is a usage error', () => {
    const v = vault();
    const help = mem(['watch', '--help'], { cwd: v.root, home: v.home });
    expect(help.status).toBe(0);
    for (const ex of ['$ mem watch\n', '$ mem watch --debounce 1000', '$ mem watch --json | jq', '--poll']) expect(help.stdout).toContain(ex);
    const bad = mem(['watch', '--debounce', 'soon'], { cwd: v.root, home: v.home });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^mem: --debounce must be an integer/);
  });

  it('works with --poll too', async () => {
    const v = vault();
    const w = startWatcher(v, ['--json', '--poll', '--poll-interval', '100']);
    expect((await started(w)).poll_ms).toBe(100);
    const n = w.batches.length;
    fs.appendFileSync(v.path('MEMORY.md'), entry('m6', 'The lemur polls.'));
    await batchAfter(w, n, (b) => b.files.includes('MEMORY.md'));
    expect(found(v, 'lemur')[0]).toBe('m6');
    w.child.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
  });

  it('still sees edits when chokidar is told to poll by CHOKIDAR_USEPOLLING', async () => {
    const v = vault();
    const w = startWatcher(v, ['--json'], { CHOKIDAR_USEPOLLING: '1', CHOKIDAR_INTERVAL: '100' });
    expect((await started(w)).poll_ms).toBe(100);
    const n = w.batches.length;
    fs.appendFileSync(v.path('MEMORY.md'), entry('m7', 'The dingo polls by itself.'));
    await batchAfter(w, n, (b) => b.files.includes('MEMORY.md'));
    expect(found(v, 'dingo')[0]).toBe('m7');
  });

  it.runIf(process.platform !== 'win32')('sees an edit made where a memory file links to inside the vault; a link out is never followed', async () => {
    const v = tempVault();
    v.write('docs/memory.md', `# Memory\n\n${entry('k1', 'Linked file.')}`);
    fs.symlinkSync('docs/memory.md', v.path('MEMORY.md'));
    const outside = path.join(path.dirname(v.root), 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'x.md'), entry('o1', 'Outside.'));
    fs.mkdirSync(v.path('memory'));
    fs.symlinkSync(path.join(outside, 'x.md'), v.path('memory/out.md'));
    const w = startWatcher(v);
    const start = await started(w);
    expect(start.vault_files).toBe(1);
    expect(start.warnings.join('\n')).toMatch(/memory\/out\.md: a symlink out of the vault/);
    let n = w.batches.length;
    fs.appendFileSync(v.path('docs/memory.md'), entry('k2', 'The marmot edit went through the link target.'));
    const b = await batchAfter(w, n, (x) => x.files.length > 0);
    expect(b).toMatchObject({ files: ['MEMORY.md'], added: 1 });
    expect(found(v, 'marmot')[0]).toBe('k2');
    // An edit out of the vault starts nothing.
    n = w.batches.length;
    fs.appendFileSync(path.join(outside, 'x.md'), entry('o2', 'The outside yeti.'));
    expect((await batchesUpToNote(v, w, n)).filter((x) => x.files.length > 0).map((x) => x.files)).toEqual([['memory/zz-note.md']]);
    expect(found(v, 'yeti')).toEqual([]);
  });

  it('watches the global MEMORY.md in MEM_HOME too', async () => {
    const v = vault();
    fs.writeFileSync(path.join(v.home, 'MEMORY.md'), `# Global\n\n${entry('g1', 'Prefer small commits.')}`);
    const w = startWatcher(v);
    expect((await started(w)).vault_files).toBe(2);
    const n = w.batches.length;
    fs.appendFileSync(path.join(v.home, 'MEMORY.md'), entry('g2', 'The gecko rule applies everywhere.'));
    fs.writeFileSync(path.join(v.home, 'unrelated.txt'), 'x');
    const b = await batchAfter(w, n, (x) => x.files.length > 0);
    expect(b.files).toEqual([path.join(v.home, 'MEMORY.md')]);
    expect(found(v, 'gecko')[0]).toBe('g2');
  });

  it('--quiet prints nothing while all goes well', async () => {
    const v = vault();
    const w = startWatcher(v, ['--quiet']);
    await until('the index', () => fs.existsSync(v.path('.memory.db')) && found(v, 'migrations')[0] === 'm1', undefined, w);
    fs.appendFileSync(v.path('MEMORY.md'), entry('m10', 'The quiet ibis.'));
    await until('the edit indexed', () => found(v, 'ibis')[0] === 'm10', undefined, w);
    w.child.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
    expect(w.stdout()).toBe('');
    expect(w.stderr()).toBe('');
  });

  it('takes --debounce as its quiet period (the wait itself: the Batcher unit tests, on fake timers)', async () => {
    const v = vault();
    const w = startWatcher(v, ['--json', '--debounce', '800']);
    await started(w);
    const n = w.batches.length;
    fs.appendFileSync(v.path('MEMORY.md'), entry('m8', 'The emu waits.'));
    const b = await batchAfter(w, n, (x) => x.files.includes('MEMORY.md'));
    expect(b.added).toBeGreaterThanOrEqual(1);
    expect(found(v, 'emu')[0]).toBe('m8');
  });

  // A real ENOSPC: a user namespace with its own, tiny limit of inotify watches (Linux 5.11+).
  const canLimit = process.platform === 'linux' && spawnSync('unshare', ['-Ur', 'sh', '-c', 'echo 2 > /proc/sys/user/max_inotify_watches']).status === 0;
  it.runIf(canLimit)('stops with a clear message and a hint when the inotify limit is reached; --poll works there', async () => {
    const v = vault();
    for (const d of ['a', 'b', 'c']) v.write(`memory/${d}/n.md`, entry(`n${d}`, `Note ${d}.`));
    const limited = (args: string[]) => {
      const script = `echo 2 > /proc/sys/user/max_inotify_watches && exec "$0" "$@"`;
      return spawn('unshare', ['-Ur', 'sh', '-c', script, process.execPath, BIN, 'watch', ...args], { cwd: v.root, env: envFor(v), stdio: ['ignore', 'pipe', 'pipe'] });
    };
    const child = limited([]);
    let err = '';
    let out = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toMatch(/^mem: the system limit on watched folders is reached \(inotify watches\)\nhint: .*max_user_watches.*--poll/);

    const polled = limited(['--json', '--poll', '--poll-interval', '100']);
    let lines = '';
    polled.stdout!.on('data', (d) => (lines += d));
    const exited = new Promise<number | null>((resolve) => polled.on('exit', (c) => resolve(c)));
    await until('the start line', () => lines.includes('"event":"start"'));
    fs.appendFileSync(v.path('MEMORY.md'), entry('m11', 'The polled yak.'));
    await until('the batch', () => lines.includes('"files":["MEMORY.md"]'));
    polled.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it.runIf(process.platform === 'linux')('uses next to no CPU when idle on a vault of 3000 files', async () => {
    const v = vault();
    for (let d = 0; d < 30; d++) {
      fs.mkdirSync(v.path(`memory/d${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) fs.writeFileSync(v.path(`memory/d${d}/f${f}.md`), entry(`e${d}x${f}`, `Note ${d} ${f} about things.`));
    }
    const w = startWatcher(v);
    const start = await started(w);
    expect(start.vault_files).toBe(3001);
    const ticks = () => {
      const f = fs.readFileSync(`/proc/${w.child.pid}/stat`, 'utf8');
      const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
      return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14, 15)
    };
    // Clock ticks (1/100 s): under 0.1 s of CPU in 3 s idle. On a busy machine the start's own
    // work can spill past its line, so 3 s windows are measured until one is idle; a watcher
    // that polls or spins has none.
    const deadline = Date.now() + 90_000;
    let used = Infinity;
    while (used >= 10 && Date.now() < deadline) {
      const before = ticks();
      await new Promise((r) => setTimeout(r, 3000));
      used = ticks() - before;
    }
    expect(used).toBeLessThan(10);
    expect(w.batches.length).toBe(1);
  });
});
