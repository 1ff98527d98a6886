// Hostile faults around the `mem` process itself: signals sent to a running compaction, locks left
// by crashed writers (empty, holding text, naming a dead or a live pid), and many writers racing
// for a lock left over. Real processes, real signals, real files.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, entry, headerIds, launch, mem, memAsync, tempDir, tempVault, type TempVault } from '../helpers.js';

afterAll(cleanup);

const IS_LINUX = process.platform === 'linux';

function envFor(v: TempVault, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, MEM_HOME: v.home, NO_COLOR: '1', ...extra };
  delete env.MEM_ROOT;
  delete env.MEM_SESSION;
  return env;
}

// A deterministic vault big enough that compacting it takes over a second here: many files of
// distinct entries, a few near-duplicate pairs (one extra word), a few retired entries.
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember fjord garnet harbor iris jasper kelp lagoon marble nectar onyx pewter quartz ruby slate topaz umber velvet willow'.split(' ');
function bigVault(files: number, perFile: number): { v: TempVault; ids: string[] } {
  const v = tempVault();
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const ids: string[] = [];
  let lastWords = '';
  for (let f = 0; f < files; f++) {
    let text = '# Memory\n\n';
    for (let e = 0; e < perFile; e++) {
      const id = `f${f}-e${e}`;
      const retired = e % 40 === 7;
      if (!retired) ids.push(id); // compaction drops retired entries: every other id must stay
      const words = Array.from({ length: 14 }, () => WORDS[Math.floor(rnd() * WORDS.length)]);
      let body = `Note ${f} ${e}: ${words.join(' ')}.`;
      if (e % 25 === 1) body = `Note ${f} ${e - 1}: ${lastWords} extra.`; // near-duplicate of the previous entry
      lastWords = words.join(' ');
      text += entry(id, body, retired ? { status: 'retired' } : {});
    }
    v.write(f === 0 ? 'MEMORY.md' : `memory/area-${f % 20}/notes-${f}.md`, text);
  }
  return { v, ids };
}
/** Every id of the vault's files: entry ids and the ids recorded as absorbed by a merge. */
function idsOnDisk(root: string): Set<string> {
  const seen = new Set<string>();
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.name.endsWith('.md')) {
        const text = fs.readFileSync(p, 'utf8');
        for (const id of headerIds(text)) seen.add(id);
        for (const m of text.matchAll(/^compacted_from:(.*(?:\n {2}- .*)*)/gm)) for (const id of m[1].matchAll(/[\w-]+-e\d+/g)) seen.add(id[0]);
      }
    }
  };
  walk(root);
  return seen;
}

const NOW = '2026-03-01T10:00:00Z';

/** The text of every memory file under root (the index and locks aside). */
function texts(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.name.endsWith('.md')) out.set(path.relative(root, p), fs.readFileSync(p, 'utf8'));
    }
  };
  walk(root);
  return out;
}

/** mtime and size of every file under root (locks and the index included). */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else {
        const s = fs.statSync(p, { throwIfNoEntry: false });
        if (s) out.set(p, `${s.mtimeMs}:${s.size}`);
      }
    }
  };
  walk(root);
  return out;
}

/** Processes (other than this one) whose working folder is `root`: a mem still at work there. */
function processesIn(root: string): number[] {
  if (!IS_LINUX) return [];
  const real = fs.realpathSync(root);
  const found: number[] = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    try {
      if (fs.readlinkSync(`/proc/${p}/cwd`) === real) found.push(Number(p));
    } catch {
      // gone or not ours
    }
  }
  return found;
}

function locksIn(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      if (d.isDirectory()) walk(path.join(dir, d.name));
      else if (d.name.endsWith('.lock') || d.name.includes('.lock.')) out.push(path.relative(root, path.join(dir, d.name)));
    }
  };
  walk(root);
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exited = (child: ChildProcess) => new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));

// A lock timeout shorter than the ages after which mem takes a lock over whoever may still hold
// it (5 s for an empty one, 30 s for one holding text): a writer that gets through with it took
// the lock over because it saw the lock's writer gone. A writer that waited for a lock it should
// have taken over fails instead, however fast or loaded the machine.
const TAKEOVER_ENV = { MEM_LOCK_TIMEOUT_MS: '4000' };

describe('killing mem compact', { timeout: 120_000 }, () => {
  // One vault, indexed once; each kill runs on a fresh copy of it.
  let master: TempVault;
  let ids: string[];
  let original: Map<string, string>;
  let compacted: Map<string, string>;
  beforeAll(() => {
    ({ v: master, ids } = bigVault(240, 150));
    expect(mem(['index', '--quiet'], { cwd: master.root }).status).toBe(0);
    original = texts(master.root);
    // What a whole compaction writes (MEM_NOW fixes the dates it stamps).
    const ref = copy();
    expect(mem(['compact', '--quiet'], { cwd: ref.root, env: { MEM_NOW: NOW } }).status).toBe(0);
    compacted = texts(ref.root);
  }, 180_000);

  function copy(): TempVault {
    const dir = tempDir();
    const root = path.join(dir, 'project');
    fs.cpSync(master.root, root, { recursive: true });
    fs.mkdirSync(path.join(dir, 'home'));
    return { ...master, root, home: path.join(dir, 'home'), path: (rel) => path.join(root, rel), read: (rel) => fs.readFileSync(path.join(root, rel), 'utf8') };
  }

  it('runs in one process (the pid the caller started)', async () => {
    const v = copy();
    const [cmd, argv] = launch(['compact', '--quiet']);
    const child = spawn(cmd, argv, { cwd: v.root, env: envFor(v, { MEM_NOW: NOW }), stdio: 'ignore' });
    const done = exited(child);
    let running = true;
    void done.then(() => (running = false));
    // No other process works in the vault at any moment of the run: the pid we started is the
    // only one (it is there from the spawn on: its working folder is set before it runs).
    const seen = new Set<number>();
    while (running) {
      for (const pid of processesIn(v.root)) seen.add(pid);
      await sleep(20);
    }
    expect([...seen]).toEqual(IS_LINUX ? [child.pid] : []);
    await done;
    expect(child.exitCode).toBe(0);
    expect(texts(v.root)).toEqual(compacted);
    expect([...compacted].filter(([f, t]) => original.get(f) !== t).length).toBeGreaterThan(100);
    const after = idsOnDisk(v.root);
    for (const id of ids) expect(after.has(id), id).toBe(true);
    expect(locksIn(v.root)).toEqual([]);
  });

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    for (const at of [150, 450, 800, 1100]) {
      it(`${signal} at ${at} ms: the work stops with the process, nothing is lost, the next writer is not blocked`, async () => {
        const v = copy();
        const [cmd, argv] = launch(['compact', '--quiet']);
        const child = spawn(cmd, argv, { cwd: v.root, env: envFor(v, { MEM_NOW: NOW }), stdio: 'ignore' });
        await sleep(at);
        child.kill(signal);
        await exited(child);
        expect(child.signalCode ?? child.exitCode).toBe(child.exitCode === 0 ? 0 : signal);
        // Gone with the pid we killed: no process left working in the vault, no file changing.
        expect(processesIn(v.root)).toEqual([]);
        const before = snapshot(v.root);
        await sleep(700);
        expect(snapshot(v.root)).toEqual(before);
        if (signal === 'SIGTERM') {
          // A signal mem can catch: all or nothing, and its locks released on the way out.
          const now = texts(v.root);
          if (child.exitCode !== 0) expect(now.size === original.size && [...now].every(([f, t]) => original.get(f) === t) ? 'untouched' : now).toBe('untouched');
          else expect(now).toEqual(compacted);
          expect(locksIn(v.root)).toEqual([]);
        }
        // Every entry still there (as itself, or recorded as merged into another).
        const after = idsOnDisk(v.root);
        for (const id of ids) expect(after.has(id), id).toBe(true);
        // Whatever locks the kill left, the next writer takes them over because it sees their
        // writer gone, not because they grew old (see TAKEOVER_ENV).
        const add = mem(['add', 'A fresh fact written after the kill.', '--json'], { cwd: v.root, env: TAKEOVER_ENV });
        expect(add.status, add.stderr).toBe(0);
        const c = mem(['compact', '--quiet'], { cwd: v.root, env: { MEM_LOCK_TIMEOUT_MS: '20000' } });
        expect(c.status, c.stderr).toBe(0);
        expect(locksIn(v.root)).toEqual([]);
        const final = idsOnDisk(v.root);
        for (const id of ids) expect(final.has(id), id).toBe(true);
      });
    }
  }
});

// A writer as mem's lock protocol has it: create the lock file exclusively, write the pid, then
// stage the replacement text into it; it holds the file open throughout, then sleeps until killed.
const WRITER = `
const fs = require('fs');
const [lock, stage] = process.argv.slice(1);
const fd = fs.openSync(lock, 'wx');
fs.writeSync(fd, process.pid + '\\n');
if (stage === 'text') { fs.ftruncateSync(fd, 0); fs.writeSync(fd, '---\\nid: staged\\n---\\nhalf of a replacement', 0); }
if (stage === 'empty') fs.ftruncateSync(fd, 0);
process.stdout.write('ready\\n');
setInterval(() => {}, 1000);
`;

async function startWriter(lock: string, stage: 'pid' | 'text' | 'empty'): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', WRITER, lock, stage], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`writer exited ${code}`)));
  });
  return child;
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('locks left by a crash', { timeout: 120_000 }, () => {
  function vaultWithEntry(): TempVault {
    const v = tempVault();
    v.write('MEMORY.md', `# Memory\n\n${entry('m-1', 'The first fact.')}`);
    return v;
  }

  const leftovers: [string, () => string | Buffer, (lock: string) => void][] = [
    ['an empty lock file (an old one)', () => '', (lock) => fs.utimesSync(lock, new Date(Date.now() - 5000), new Date(Date.now() - 5000))],
    ['an empty lock file (just made)', () => '', () => undefined],
    ['a lock holding half an entry', () => '---\nid: half-written\ntype: procedural\n---\nThe body was being wr', () => undefined],
    ['a lock holding garbage text', () => 'not a pid at all\n', () => undefined],
    ['a lock holding binary bytes', () => Buffer.from([0, 1, 2, 255, 10]), () => undefined],
    ['a lock holding pid 0', () => '0\n', () => undefined],
    ['a lock holding a number no pid can be', () => '99999999999999\n', () => undefined],
    ['a lock naming a dead pid', () => `${deadPid()}\n`, () => undefined],
    ['a lock naming a dead pid, without a newline', () => `${deadPid()}`, () => undefined],
  ];
  it('takes over a lock that is a symlink (to a FIFO, to a file outside) without reading or touching its target', () => {
    for (const kind of ['fifo', 'outside'] as const) {
      const v = vaultWithEntry();
      const lock = v.path('.MEMORY.md.lock');
      const target = path.join(tempDir(), kind);
      if (kind === 'fifo') {
        if (spawnSync('mkfifo', [target]).status !== 0) continue;
      } else fs.writeFileSync(target, 'secret\n');
      fs.symlinkSync(target, lock);
      const r = mem(['add', `Written past a ${kind} link.`], { cwd: v.root, env: TAKEOVER_ENV });
      expect(r.status, r.stderr).toBe(0);
      expect(v.read('MEMORY.md')).toContain(`Written past a ${kind} link.`);
      expect(fs.existsSync(lock)).toBe(false);
      if (kind === 'outside') expect(fs.readFileSync(target, 'utf8')).toBe('secret\n');
      else expect(fs.statSync(target).isFIFO()).toBe(true);
    }
  });

  for (const [name, content, touch] of leftovers) {
    it(`takes over ${name} at once`, () => {
      const v = vaultWithEntry();
      const lock = v.path('.MEMORY.md.lock');
      fs.writeFileSync(lock, content());
      touch(lock);
      const r = mem(['add', 'A second fact after the crash.', '--json'], { cwd: v.root, env: TAKEOVER_ENV });
      expect(r.status, r.stderr).toBe(0);
      expect(v.read('MEMORY.md')).toContain('The first fact.');
      expect(v.read('MEMORY.md')).toContain('A second fact after the crash.');
      expect(fs.existsSync(lock)).toBe(false);
    });
  }

  it('waits for a lock naming a live pid: gives up at its timeout with a clear error, or writes once that process is gone', async () => {
    const v = vaultWithEntry();
    const before = v.read('MEMORY.md');
    const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      // Its pid is in the lock, but it does not hold the file open: still a live pid, still waited for.
      fs.writeFileSync(v.path('.MEMORY.md.lock'), `${sleeper.pid}\n`);
      const r = await memAsync(['add', 'Must not be written.'], { cwd: v.root, env: { MEM_LOCK_TIMEOUT_MS: '300' } });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(`locked by another writer (pid ${sleeper.pid})`);
      expect(v.read('MEMORY.md')).toBe(before);
      expect(fs.readFileSync(v.path('.MEMORY.md.lock'), 'utf8')).toBe(`${sleeper.pid}\n`);
      // Told to wait longer than this test may run: nothing is written while the holder lives
      // (the pause only gives a writer that would not wait the chance to show it), and the entry
      // is written once the holder is gone.
      const waiting = memAsync(['add', 'Written once the holder is gone.'], { cwd: v.root, env: { MEM_LOCK_TIMEOUT_MS: '3600000' } });
      await sleep(1000);
      expect(v.read('MEMORY.md')).toBe(before);
      sleeper.kill('SIGKILL');
      await exited(sleeper);
      const w = await waiting;
      expect(w.status, w.stderr).toBe(0);
      expect(v.read('MEMORY.md')).toContain('Written once the holder is gone.');
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  for (const stage of ['pid', 'text', 'empty'] as const) {
    it(`waits while a live writer holds the lock (${stage}), takes it over at once after kill -9`, async () => {
      const v = vaultWithEntry();
      const lock = v.path('.MEMORY.md.lock');
      const writer = await startWriter(lock, stage);
      try {
        fs.utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000)); // age alone proves nothing
        const r = await memAsync(['add', 'Must wait for the writer.'], { cwd: v.root, env: { MEM_LOCK_TIMEOUT_MS: '1000' } });
        expect(r.status, r.stderr).not.toBe(0);
        expect(r.stderr).toContain('locked by another writer');
        expect(v.read('MEMORY.md')).not.toContain('Must wait');
      } finally {
        writer.kill('SIGKILL');
        await exited(writer);
      }
      const r = mem(['add', 'Written after the writer died.'], { cwd: v.root, env: TAKEOVER_ENV });
      expect(r.status, r.stderr).toBe(0);
      expect(v.read('MEMORY.md')).toContain('Written after the writer died.');
      expect(v.read('MEMORY.md')).toContain('The first fact.');
    });
  }

  for (const content of ['', 'garbage left by a crash\n', 'dead-pid']) {
    it(`50 writers racing for a left-over lock (${content === 'dead-pid' ? 'a dead pid' : JSON.stringify(content)}): one takes it over, none is lost`, async () => {
      const v = vaultWithEntry();
      fs.writeFileSync(v.path('.MEMORY.md.lock'), content === 'dead-pid' ? `${deadPid()}\n` : content);
      const old = new Date(Date.now() - 5000);
      fs.utimesSync(v.path('.MEMORY.md.lock'), old, old);
      const runs = await Promise.all(Array.from({ length: 50 }, (_, i) =>
        memAsync(['add', `Concurrent fact number ${i} about the queue.`, '--tags', `n${i}`], { cwd: v.root, env: { MEM_LOCK_TIMEOUT_MS: '600000' } })));
      for (const r of runs) expect(r.status, r.stderr).toBe(0);
      const text = v.read('MEMORY.md');
      for (let i = 0; i < 50; i++) expect(text, `fact ${i}`).toContain(`Concurrent fact number ${i} about the queue.`);
      expect(text).toContain('The first fact.');
      expect(headerIds(text)).toHaveLength(51);
      expect(locksIn(v.root)).toEqual([]);
    });
  }
});
