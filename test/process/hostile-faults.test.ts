// Faults that need a real process: an index locked by another process (mem reads its lock wait
// from its own environment), read-only files and folders (as an unprivileged user when the tests
// run as root), kill -9 of a rebuild, the parse worker of the built CLI, the hook's background
// extraction, and `mem init` run as another user. The built CLI on real files and real SQLite
// locks. The faults that are only bad files on disk are in test/e2e/hostile-faults.test.ts.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { AS_ROOT, breakIndex, clean, indexVault, leftovers, OFFLINE, POSIX, unprivileged, vaultWithEntries, warnings, type IndexState } from '../broken-index.js';
import { serialiseBombTest, writeSucceedsTests } from '../fixtures/hostile-faults.js';
import { BIN, cleanup, entry, mem, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

describe('7: a write whose markdown is saved succeeds whatever state the index is in', () => {
  // The other states: test/e2e/hostile-faults.test.ts.
  const states: IndexState[] = ['locked', 'read-only'];
  writeSucceedsTests(states, mem);
});

describe('7: other commands that write markdown, then index it', () => {
  it('reinforce and retire-stage with a folder or locked index: the edit is kept, exit 0, a warning', async () => {
    for (const state of ['folder', 'locked'] as const) {
      const v = vaultWithEntries();
      v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('task1', 'The login form uses the mock API for now.', { domain: 'task', phase: 'implementation' })}`);
      const broken = await breakIndex(v, state);
      let r, st;
      try {
        r = mem(['reinforce', 'good1'], { cwd: v.root, home: v.home, env: broken.env });
        st = mem(['retire-stage', 'implementation'], { cwd: v.root, home: v.home, env: broken.env });
      } finally {
        broken.release();
      }
      expect(r.status, r.stderr).toBe(0);
      clean(r.stderr);
      expect(v.read('MEMORY.md')).toMatch(/id: good1[\s\S]*reinforcement_count: 1/);
      expect(warnings(r.stderr).some((w) => /the markdown is written/.test(w))).toBe(true);
      expect(st.status, st.stderr).toBe(0);
      clean(st.stderr);
      expect(v.read('MEMORY.md')).toMatch(/id: task1[\s\S]*status: retired/);
    }
  });
});

describe('8: read commands answer on an index they cannot write, and errors keep their real cause', () => {
  it.skipIf(!POSIX)('a read-only .memory.db: search, list, show, stats and context see a new entry and warn', async () => {
    const v = vaultWithEntries();
    await indexVault(v);
    v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('fresh1', 'Zookeeper quorum needs three nodes.')}`);
    const as = unprivileged(v);
    fs.chmodSync(v.path('.memory.db'), 0o444);
    const memAs = (args: string[]) => mem(args, { cwd: v.root, home: v.home, spawn: as });
    const s = memAs(['search', 'zookeeper', '--json']);
    expect(s.status, s.stderr).toBe(0);
    clean(s.stderr);
    expect(s.json().results[0].id).toBe('fresh1');
    expect(warnings(s.stderr)).toHaveLength(1);
    expect(warnings(s.stderr)[0]).toMatch(/cannot be written.*temporary index/);
    for (const args of [['list', '--json'], ['show', 'fresh1', '--json'], ['stats', '--json'], ['context', 'zookeeper quorum']]) {
      const r = memAs(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      clean(r.stderr);
      expect(r.stdout).toMatch(/fresh1|Zookeeper|"entries"/);
    }
    // mem index itself must write: it fails, clearly.
    const ix = memAs(['index']);
    expect(ix.status).toBe(1);
    expect(ix.stderr.split('\n')[0]).toMatch(/^mem: the index \.memory\.db cannot be written/);
    clean(ix.stderr);
  });

  it.skipIf(!POSIX)('a read-only vault folder (no index yet, or one that cannot be replaced): search still answers', async () => {
    for (const withIndex of [false, true]) {
      const v = vaultWithEntries();
      if (withIndex) await indexVault(v);
      v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('fresh2', 'Zookeeper snapshots live in /var/zk.')}`);
      const as = unprivileged(v);
      fs.chmodSync(v.root, 0o555);
      try {
        const s = mem(['search', 'zookeeper snapshots', '--ids'], { cwd: v.root, home: v.home, spawn: as });
        expect(s.status, s.stderr).toBe(0);
        clean(s.stderr);
        expect(s.stdout.split('\n')[0]).toBe('fresh2');
      } finally {
        fs.chmodSync(v.root, 0o755);
      }
    }
  });

  it('an index held in an exclusive lock (readers blocked too): search answers fresh, with a warning', async () => {
    const v = vaultWithEntries();
    await indexVault(v);
    v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('fresh3', 'Zookeeper needs odd quorums.')}`);
    const holder = new Database(v.path('.memory.db'));
    holder.pragma('journal_mode = DELETE');
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE');
    holder.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('held', 'yes')").run();
    try {
      const s = mem(['search', 'zookeeper', '--ids'], { cwd: v.root, home: v.home, env: { MEM_BUSY_TIMEOUT_MS: '200' } });
      expect(s.status, s.stderr).toBe(0);
      clean(s.stderr);
      expect(s.stdout.split('\n')[0]).toBe('fresh3');
      expect(warnings(s.stderr)[0]).toMatch(/locked by another process/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  // A header whose aliases expand past what a string can hold: JSON of it throws "Invalid string
  // length" (in the main thread for a few files, in the parse worker for many). The other files
  // are indexed and the real cause is named; no TypeError replaces it. The parse worker runs only
  // from the built CLI; the case of one file is in test/e2e/hostile-faults.test.ts.
  for (const files of [70]) serialiseBombTest(files, mem);
});

/** A vault of `n` entries over `files` files, with the word "quasar" in every seventh entry. */
function bigVault(n: number, files: number): { v: TempVault } {
  const v = tempVault();
  for (let f = 0; f < files; f++) {
    let text = '# Memory\n\n';
    for (let i = f; i < n; i += files) {
      const q = i % 7 === 0;
      text += entry(`e${i}`, `Entry ${i} says the ${q ? 'quasar' : 'pulsar'} service ${['retries', 'caches', 'logs', 'drops'][i % 4]} requests from region ${i % 13}. ${'More words about the deploy pipeline and its caveats. '.repeat(4)}`);
    }
    v.write(f === 0 ? 'MEMORY.md' : `memory/part-${f}.md`, text);
  }
  return { v };
}

describe('14: a killed rebuild leaves nothing behind for long', () => {
  it('kill -9 of mem index --rebuild at several points: the next command removes its file and the index is whole', async () => {
    const { v } = bigVault(6000, 40);
    await indexVault(v);
    const reference = (await run(['search', 'quasar', '--ids', '--limit', '10000'], { cwd: v.root, home: v.home })).stdout;
    expect(reference.split('\n').filter(Boolean).length).toBeGreaterThan(800);
    let sawLeftover = 0;
    for (const delay of [50, 150, 300, 'file'] as const) {
      const child = spawn(process.execPath, [BIN, 'index', '--rebuild', '--quiet'], { cwd: v.root, env: { ...process.env, MEM_HOME: v.home }, stdio: 'ignore' });
      // Listened for from the start: a rebuild that ends before the kill has already exited.
      const exited = new Promise((r) => child.once('exit', r));
      if (delay === 'file') {
        // Kill as soon as its file exists: certainly mid-build.
        const t0 = Date.now(); // a generous deadline: the file ends the wait
        while (!leftovers(v).some((n) => n.endsWith(`-${child.pid}`)) && child.exitCode === null && Date.now() - t0 < 90_000) await new Promise((r) => setTimeout(r, 2));
      } else await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited;
      if (leftovers(v).length > 0) sawLeftover++;
      const s = mem(['search', 'quasar', '--ids', '--limit', '10000'], { cwd: v.root, home: v.home });
      expect(s.status, `after a kill at ${delay}: ${s.stderr}`).toBe(0);
      clean(s.stderr);
      expect(leftovers(v)).toEqual([]);
      expect(s.stdout).toBe(reference);
      const ix = mem(['index', '--json'], { cwd: v.root, home: v.home });
      expect(ix.status, `after a kill at ${delay}: ${ix.stderr}`).toBe(0);
      expect(ix.json()).toMatchObject({ entries: 6000, changed: 0, removed: 0 });
    }
    expect(sawLeftover).toBeGreaterThan(0);
  }, 300_000);
});

describe('16: special files as transcripts, and init where no vault can live', () => {
  it.skipIf(!POSIX)('the hook given a FIFO: exits 0 at once, and its background extraction ends with a logged error', async () => {
    const v = tempVault();
    await run(['init', '-q'], { cwd: v.root, home: v.home });
    const fifo = path.join(tempDir(), 'session.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const payload = JSON.stringify({ session_id: 'hook-fifo', transcript_path: fifo, cwd: v.root, hook_event_name: 'SessionEnd' });
    const r = mem(['extract', '--hook', 'claude'], { cwd: v.root, home: v.home, env: OFFLINE, input: payload });
    expect(r.status).toBe(0);
    // Until the background extraction has logged its error (or the test's timeout).
    const log = v.path('.mem/logs/extract.log');
    while (!(fs.existsSync(log) && /not a regular file/.test(fs.readFileSync(log, 'utf8')))) await new Promise((res) => setTimeout(res, 50));
    expect(fs.readFileSync(log, 'utf8')).toMatch(/is not a regular file \(a FIFO\)/);
  });

  const refused: [string, () => string, RegExp][] = [
    ['/proc', () => '/proc', /^mem: will not set up a vault in \/proc: it is a system filesystem/],
    ['/proc/self (a path below it)', () => '/proc/self/new-vault', /^mem: (will not set up a vault in \/proc\/self\/new-vault|cannot)/],
    ['/sys', () => '/sys', /^mem: will not set up a vault in \/sys/],
    ['/etc/passwd (a file)', () => '/etc/passwd', /^mem: cannot set up a vault in \/etc\/passwd: it is not a folder/],
    ['a path through a file', () => '/etc/passwd/sub', /^mem: cannot set up a vault in \/etc\/passwd\/sub: a part of the path is a file/],
    ['the filesystem root', () => '/', /^mem: will not set up a vault at the filesystem root \//],
  ];
  for (const [name, root, message] of refused) {
    it.skipIf(process.platform !== 'linux')(`mem --root ${name} init: one clear line, non-zero`, () => {
      const cwd = tempDir();
      // As an unprivileged user: a mem that failed to refuse could not write into / or /proc.
      if (AS_ROOT) spawnSync('chown', ['65534:65534', cwd]);
      const as = AS_ROOT ? { uid: 65534, gid: 65534 } : {};
      const r = mem(['--root', root(), 'init'], { cwd, home: cwd, spawn: as });
      expect(r.status).toBe(1);
      expect(r.stderr.split('\n')[0]).toMatch(message);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('mem:'))).toHaveLength(1);
      clean(r.stderr);
    });
  }

  it('init creates a missing root (and its parents); a read-only folder is one clear line', () => {
    const base = tempDir();
    const root = path.join(base, 'a', 'b', 'c');
    const r = mem(['--root', root, 'init'], { cwd: base });
    expect(r.status, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(root, 'MEMORY.md'))).toBe(true);
    if (POSIX) {
      const v = tempVault({ mem: false });
      const as = unprivileged(v);
      fs.chmodSync(v.root, 0o555);
      try {
        const ro = mem(['--root', v.root, 'init'], { cwd: v.root, home: v.home, spawn: as });
        expect(ro.status).toBe(1);
        expect(ro.stderr.split('\n')[0]).toMatch(/^mem: cannot set up a vault in .*: permission denied/);
        clean(ro.stderr);
      } finally {
        fs.chmodSync(v.root, 0o755);
      }
    }
  });
});
