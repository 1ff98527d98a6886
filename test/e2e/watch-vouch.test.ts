// A running watch answering whether the index is fresh (src/integrations/watch-vouch.ts), in this
// process: a real watch of a temp vault (chokidar, fs.watch, question and answer files), the real question
// (askWatcher) and real searches. Every wait polls against a generous deadline; what must never
// happen (a change vouched for) is checked right after the change, with no wait.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startWatch, type BatchResult, type Watch } from '../../src/integrations/watch.js';
import { FloodCheck, floodLimit, FreshnessVouch, notLocal } from '../../src/integrations/watch-vouch.js';
import { withIndex } from '../../src/index/open.js';
import { askWatcher, processStart, safeVouchDir, VOUCH_TIMEOUT_MS, vouchFiles } from '../../src/index/vouch.js';
import { openVault, type Vault } from '../../src/vault/vault.js';
import { cleanup, entry, runEnv, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run } from '../run.js';

afterAll(cleanup);

const watches: Watch[] = [];
afterEach(async () => {
  for (const w of watches.splice(0)) await w.stop();
});

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Watched {
  v: TempVault;
  vault: Vault;
  results: BatchResult[];
  watch: Watch;
}

async function watched(v: TempVault): Promise<Watched> {
  const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
  const results: BatchResult[] = [];
  const watch = await startWatch(vault, { debounceMs: 20, onResult: (r) => results.push(r), onFatal: (e) => results.push({ error: { message: e.message, retryInMs: 0 } } as BatchResult) });
  watches.push(watch);
  return { v, vault, results, watch };
}

function vault(): TempVault {
  const v = tempVault();
  v.write('MEMORY.md', `# Memory\n\n${entry('m1', 'Run the migrations before the API tests.')}`);
  // Written long enough ago that the first index holds no racy row.
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(v.path('MEMORY.md'), old, old);
  return v;
}

/**
 * The report of a read's freshness check, as a search gets it. A busy machine may hold the
 * watcher's answer past a read's 150 ms: the tests wait longer (a late answer is the same answer).
 */
const PATIENT_MS = 10_000;
async function checkReport(w: Watched) {
  return withIndex(w.vault, { refresh: true, askWatcher: true, watcherTimeoutMs: PATIENT_MS }, (ix) => ix.report);
}

/** The watcher's answer (null: none to ask, or not fresh), waiting as long as checkReport. */
async function ask(root: string, timeoutMs = PATIENT_MS): Promise<string | null> {
  return (await askWatcher(root, timeoutMs)?.answer()) ?? null;
}

/** The first hit of a search, as `mem search` finds it. */
async function topHit(w: Watched, query: string): Promise<string | undefined> {
  const r = await run(['search', query, '--json'], { cwd: w.v.root, home: w.v.home });
  expect(r.status, r.stderr).toBe(0);
  return (r.json().results as { id: string }[])[0]?.id;
}

describe.runIf(process.platform === 'linux')('a running watch vouches for the index', () => {
  it('a search asks it and stats no file; the watch says so at start', async () => {
    const w = await watched(vault());
    expect(w.results[0]).toMatchObject({ kind: 'start', answersFreshness: true });
    const token = await until('the watch to vouch', () => ask(w.v.root));
    expect(token).toMatch(/^\d+\.\d+\.1$/);
    const report = await checkReport(w);
    expect(report).toMatchObject({ watcher: true, files: 1, changed: 0, removed: 0 });
    expect(await topHit(w, 'migrations')).toBe('m1');
  });

  it('never vouches for a change made before the question: each edit is found by the next search', async () => {
    const w = await watched(vault());
    await until('the watch to vouch', () => ask(w.v.root));
    for (let i = 0; i < 12; i++) {
      fs.appendFileSync(w.v.path('MEMORY.md'), entry(`e${i}`, `The wombat${i} cache is warmed at noon.`));
      expect(await ask(w.v.root), `edit ${i}`).toBeNull();
      expect(await topHit(w, `wombat${i}`), `edit ${i}`).toBe(`e${i}`);
    }
    // Vouched for again once the edits are indexed and no longer racy (two seconds), after a
    // re-check that is not reported as a batch of its own.
    await until('the watch to vouch again', () => ask(w.v.root));
    expect((await checkReport(w))?.watcher).toBe(true);
    expect(w.results.every((r) => r.kind === 'start' || r.seen.length > 0 || r.diff.files.length > 0)).toBe(true);
  });

  it('mem doctor says whether a watch answers for the vault', async () => {
    const v = vault();
    const check = async () => {
      const r = await run(['doctor', '--json'], { cwd: v.root, home: v.home });
      return (r.json().checks as { name: string; detail: string }[]).find((c) => c.name === 'watch')?.detail;
    };
    expect(await check()).toBe('no mem watch running: reads check every file');
    const w = await watched(v);
    expect(await check()).toBe(`mem watch (pid ${process.pid}) answers reads whether the index is fresh`);
    await w.watch.stop();
    expect(await check()).toBe('no mem watch running: reads check every file');
  });

  it('a file that does not matter to the index changes nothing', async () => {
    const w = await watched(vault());
    const token = await until('the watch to vouch', () => ask(w.v.root));
    w.v.write('notes.txt', 'a scratch file');
    w.v.write('src/app.ts', 'export {};');
    expect(await ask(w.v.root)).toBe(token);
  });

  it('a new folder: the file written into it at once is found, and so is one written later', async () => {
    const w = await watched(vault());
    await until('the watch to vouch', () => ask(w.v.root));
    w.v.write('memory/new/a.md', entry('n1', 'The heron job runs hourly.'));
    expect(await ask(w.v.root)).toBeNull();
    expect(await topHit(w, 'heron')).toBe('n1');
    await until('the watch to vouch again', () => ask(w.v.root));
    // The new folder is watched now: a change in it is not vouched for either.
    fs.appendFileSync(w.v.path('memory/new/a.md'), entry('n2', 'The egret job runs daily.'));
    expect(await ask(w.v.root)).toBeNull();
    expect(await topHit(w, 'egret')).toBe('n2');
  });

  it('a change to the global MEMORY.md is not vouched for', async () => {
    const v = vault();
    fs.writeFileSync(path.join(v.home, 'MEMORY.md'), `# Global\n\n${entry('g1', 'Prefer small commits.')}`);
    const w = await watched(v);
    await until('the watch to vouch', () => ask(v.root));
    fs.appendFileSync(path.join(v.home, 'MEMORY.md'), entry('g2', 'The ibis linter is strict.'));
    expect(await ask(v.root)).toBeNull();
    expect(await topHit(w, 'ibis')).toBe('g2');
  });

  it('an index copied over the one the watch left is checked as usual', async () => {
    const w = await watched(vault());
    await until('the watch to vouch', () => ask(w.v.root));
    const old = path.join(tempDir(), 'old.db');
    fs.copyFileSync(w.vault.dbPath, old);
    fs.appendFileSync(w.v.path('MEMORY.md'), entry('e1', 'The lemur deploy needs a tag.'));
    const token = await until('the edit to be indexed and vouched for', async () => {
      const t = await ask(w.v.root);
      return t !== null && (await checkReport(w))?.watcher ? t : null;
    });
    fs.copyFileSync(old, w.vault.dbPath);
    // The watch still vouches for the index it left; this one is not that index.
    expect(await ask(w.v.root)).toBe(token);
    const report = await checkReport(w);
    expect(report?.watcher).toBeUndefined();
    expect(report?.changed).toBe(1);
    expect(await topHit(w, 'lemur')).toBe('e1');
  });

  it('answers nothing once stopped, and its pid file goes with it', async () => {
    const w = await watched(vault());
    await until('the watch to vouch', () => ask(w.v.root));
    const files = vouchFiles(w.v.root)!;
    expect(fs.readFileSync(files.pidFile, 'utf8')).toBe(`${process.pid} ${processStart(process.pid)}\n`);
    await w.watch.stop();
    expect(fs.existsSync(files.pidFile)).toBe(false);
    expect(await ask(w.v.root)).toBeNull();
    expect((await checkReport(w))?.watcher).toBeUndefined();
    // No question or answer is left behind.
    expect(fs.readdirSync(files.dir).filter((n) => n.includes(files.id) && /^[qa]-/.test(n))).toEqual([]);
  });

  it('the pid file of a watch killed with kill -9 answers nothing; the next watch takes its place', async () => {
    const v = vault();
    const files = vouchFiles(v.root)!;
    fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    fs.writeFileSync(files.pidFile, `${child.pid} ${processStart(child.pid!)}\n`);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // No question is even asked of a watcher that is gone (nor of a pid reused by another process).
    const before = fs.readdirSync(files.dir).length;
    expect(askWatcher(v.root)).toBeNull();
    fs.writeFileSync(files.pidFile, `${process.pid} 1\n`);
    expect(askWatcher(v.root)).toBeNull();
    expect(fs.readdirSync(files.dir).length).toBe(before);
    const w = await watched(v);
    expect(w.results[0]).toMatchObject({ answersFreshness: true });
    await until('the new watch to vouch', () => ask(v.root));
  });

  it('a second watch of the same vault leaves the answering to the first', async () => {
    const v = vault();
    const first = await watched(v);
    const second = await watched(v);
    expect(first.results[0].answersFreshness).toBe(true);
    expect(second.results[0].answersFreshness).toBe(false);
    await until('the first watch to vouch', () => ask(v.root));
    await second.watch.stop();
    // The second one's stop leaves the first one's pid file alone.
    await until('the first watch to vouch still', () => ask(v.root));
  });

  it('a memory file with another name (a hard link) outside the vault: edits through it are found', async () => {
    const v = vault();
    const outside = path.join(tempDir(), 'MEMORY-link.md');
    fs.linkSync(v.path('MEMORY.md'), outside);
    const w = await watched(v);
    // Neither its first refresh nor the re-check 2.5 s after it vouches (a sleep: what is checked
    // is that no answer says fresh, whenever the re-check runs).
    await new Promise((r) => setTimeout(r, 3000));
    expect(await ask(w.v.root)).toBeNull();
    // An edit through the other name raises no notification in the vault's folders.
    fs.appendFileSync(outside, entry('h1', 'The heron census is in May.'));
    expect(await topHit(w, 'heron')).toBe('h1');
  });

  // Linux keeps at most max_queued_events notifications for a process and drops the rest. Here the
  // queue overflows for real: this process is held (a synchronous child) while another writes more
  // files than the queue holds in a watched folder, then adds an entry, whose notification is lost.
  const queued = Number.parseInt(fs.existsSync('/proc/sys/fs/inotify/max_queued_events') ? fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'latin1') : '', 10);
  it.runIf(queued > 0 && queued <= 65_536)('a burst of notifications that may have overflowed the queue: every file is checked again', async () => {
    const w = await watched(vault());
    await until('the watch to vouch', () => ask(w.v.root));
    const flood = `const fs = require('node:fs'), path = require('node:path'), [root, n] = process.argv.slice(1);
      for (let i = 0; i < Number(n); i++) fs.writeFileSync(path.join(root, 'scratch-' + i + '.txt'), 'x');
      fs.appendFileSync(path.join(root, 'MEMORY.md'), process.env.ENTRY);`;
    execFileSync(process.execPath, ['-e', flood, w.v.root, String(queued)], {
      env: { ...runEnv({ cwd: w.v.root, home: w.v.home }), ENTRY: entry('p1', 'The pelican report is sent on Fridays.') },
    });
    // A turn of the event loop: the watch reads what the queue kept (not the entry's notification).
    await new Promise((r) => setTimeout(r, 20));
    expect(await ask(w.v.root)).toBeNull();
    expect(await topHit(w, 'pelican')).toBe('p1');
    // The watch indexes the entry itself (it lost the notification too), and vouches again.
    await until('the watch to index the entry', () => w.results.some((r) => r.diff.files.includes('MEMORY.md')));
    await until('the watch to vouch again', () => ask(w.v.root));
  });

  it('an answer other than "mem-vouch 1 fresh TOKEN" is no answer; none in time is none', async () => {
    const v = vault();
    const files = vouchFiles(v.root)!;
    fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
    // This process poses as the watcher and answers each question with the next of these.
    fs.writeFileSync(files.pidFile, `${process.pid} ${processStart(process.pid)}\n`);
    const answers = ['fresh 1.2.3\n', 'mem-vouch 1 fresh\n', 'mem-vouch 1 fresh ../x\n', 'mem-vouch 2 fresh 1.2.3\n', 'mem-vouch 1 fresh 1.2.3',
      `mem-vouch 1 fresh ${'1'.repeat(300)}.1.1\n`, 'mem-vouch 1 stale\n', 'mem-vouch 1 fresh 1.2.3\n'];
    let next = 0;
    const fake = fs.watch(files.dir, (_e, name) => {
      const n = String(name);
      if (!n.startsWith(`q-${files.id}-`) || !fs.existsSync(path.join(files.dir, n)) || next >= answers.length) return;
      fs.writeFileSync(path.join(files.dir, `a-${n.slice(2)}`), answers[next++]);
    });
    try {
      for (const a of answers.slice(0, -1)) expect(await ask(v.root), a.slice(0, 40)).toBeNull();
      // A well-formed answer from the same "watcher" is believed: the ones above failed on their form.
      expect(await ask(v.root)).toBe('1.2.3');
      // Nothing answers now: the reader gives up after its timeout and leaves nothing behind.
      expect(await ask(v.root, VOUCH_TIMEOUT_MS)).toBeNull();
      // A question withdrawn before it is answered leaves nothing behind either.
      const q = askWatcher(v.root);
      expect(q).not.toBeNull();
      expect(fs.readdirSync(files.dir).filter((n) => n.startsWith(`q-${files.id}-`))).toHaveLength(1);
      q!.drop();
      expect(fs.readdirSync(files.dir).filter((n) => n.includes(files.id) && /^[qa]-/.test(n))).toEqual([]);
    } finally {
      fake.close();
      fs.rmSync(files.pidFile, { force: true });
    }
  });
});

/**
 * `text` written at `rel` (a minute old) and the index refreshed until its walk is memoised (once
 * its folders are two seconds old, see DirCache): the state a refresh leaves the vouch.
 */
async function memoised(v: TempVault, rel: string, text: string): Promise<{ walkMemo: string; statDigest: string }> {
  v.write(rel, text);
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(v.path(rel), old, old);
  const vault_ = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
  return until('a walk memo', () => withIndex(vault_, { refresh: true }, (ix) => {
    const meta = ix.db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    const memo = { walkMemo: meta.get('walk_memo') as string, statDigest: meta.get('stat_digest') as string };
    return memo.walkMemo ? memo : null;
  }));
}

describe.runIf(process.platform === 'linux')('the vouch on its own (no chokidar, nothing pending)', () => {
  it('watches every folder the walk read before it vouches, and a change in any of them ends the vouch', async () => {
    const v = vault();
    const state = await memoised(v, 'memory/a/b/deep.md', entry('d1', 'The puffin report is weekly.'));
    expect(state.statDigest).toMatch(/\.2$/);
    const seen: string[] = [];
    const fv = new FreshnessVouch(v.root, v.home, (abs) => (seen.push(abs), abs.endsWith('.md')), () => true);
    try {
      expect(fv.listen().ok).toBe(true);
      // The first settle starts the folders' watches: a change before them may have been missed.
      expect(fv.settle(fv.mark(), state)).toBe(true);
      expect(await ask(v.root)).toBeNull();
      expect(fv.settle(fv.mark(), state)).toBe(false);
      expect(await ask(v.root)).toBe(state.statDigest);
      fs.appendFileSync(v.path('memory/a/b/deep.md'), entry('d2', 'The puffin report moved.'));
      expect(await ask(v.root)).toBeNull();
      expect(seen).toContain(v.path('memory/a/b/deep.md'));
      // A refresh during which a change came vouches for nothing.
      const mark = fv.mark();
      fs.appendFileSync(v.path('MEMORY.md'), entry('m2', 'More.'));
      await until('the change to be seen', () => seen.includes(v.path('MEMORY.md')));
      expect(fv.settle(mark, state)).toBe(false);
      expect(await ask(v.root)).toBeNull();
    } finally {
      fv.close();
    }
  });
});

describe.runIf(process.platform === 'linux')('a vault on a filesystem whose notifications miss edits made elsewhere', () => {
  // An NFS, SMB, 9p or FUSE mount cannot be made here without privileges: the vouch is told the
  // filesystem of each folder by a stand-in for statfs, and the real statfs is read below.
  it('is never vouched for: at the vault, the global folder, or a folder mounted inside the vault', async () => {
    const v = vault();
    const state = await memoised(v, 'memory/share/notes.md', entry('s1', 'The ibis report is monthly.'));
    for (const [remote, what] of [[v.root, 'the vault'], [v.home, 'the global folder']] as const) {
      const fv = new FreshnessVouch(v.root, v.home, () => true, () => true, (dir) => (dir === remote ? 'nfs' : null));
      try {
        const r = fv.listen();
        expect(r.ok).toBe(false);
        expect(r.why).toBe(`${what} ${remote} is on a nfs filesystem, where edits made elsewhere raise no notification here (mem watch --poll sees them)`);
        expect(await ask(v.root, VOUCH_TIMEOUT_MS)).toBeNull();
      } finally {
        fv.close();
      }
    }
    const share = v.path('memory/share');
    const local = new FreshnessVouch(v.root, v.home, () => true, () => true, () => null);
    try {
      expect(local.listen().ok).toBe(true);
      local.settle(local.mark(), state);
      expect(local.settle(local.mark(), state)).toBe(false);
      expect(await ask(v.root)).toBe(state.statDigest);
    } finally {
      local.close();
    }
    const mounted = new FreshnessVouch(v.root, v.home, () => true, () => true, (dir) => (dir === share ? 'fuse' : null));
    try {
      expect(mounted.listen().ok).toBe(true);
      for (let i = 0; i < 3; i++) mounted.settle(mounted.mark(), state);
      expect(await ask(v.root)).toBeNull();
    } finally {
      mounted.close();
    }
  });

  it('tells the filesystems apart by statfs', () => {
    const as = (type: number) => () => ({ type });
    expect(notLocal('/x', as(0xef53))).toBeNull();
    expect(notLocal('/x', as(0x01021994))).toBeNull();
    expect(notLocal('/x', as(0x794c7630))).toBeNull();
    expect(notLocal('/x', as(0x6969))).toBe('nfs');
    expect(notLocal('/x', as(0x01021997))).toBe('9p');
    expect(notLocal('/x', as(0x65735546))).toBe('fuse');
    // statfs gives f_type as a signed number on some systems: the same magic either way.
    expect(notLocal('/x', as(0xff534d42 | 0))).toBe('cifs');
    expect(notLocal('/x', as(0x1234))).toBe('0x1234');
    expect(notLocal('/x', () => {
      throw new Error('ENOSYS');
    })).toBe('unknown');
    // The real call: the temp folder the tests above watch is a local disk (they vouch there).
    expect(notLocal(tempDir())).toBeNull();
  });
});

describe('the socket folder', () => {
  it.runIf(process.platform !== 'win32')('is trusted only when it is a folder of this user alone', () => {
    const base = tempDir();
    const dir = path.join(base, 'sockets');
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    expect(safeVouchDir(dir)).toBe(true);
    fs.chmodSync(dir, 0o770);
    expect(safeVouchDir(dir)).toBe(false);
    fs.chmodSync(dir, 0o755);
    expect(safeVouchDir(dir)).toBe(false);
    fs.chmodSync(dir, 0o700);
    const link = path.join(base, 'link');
    fs.symlinkSync(dir, link);
    expect(safeVouchDir(link)).toBe(false);
    expect(safeVouchDir(path.join(base, 'missing'))).toBe(false);
  });

  it('names the files by a hash of the vault path, and has none off Linux', () => {
    if (process.platform !== 'linux') expect(vouchFiles('/any')).toBeNull();
    else expect(vouchFiles(path.join(tempDir(), 'x'.repeat(300)))!.pidFile).toMatch(/\/watch-[0-9a-f]{16}\.pid$/);
  });
});

describe('the flood check', () => {
  it('counts notifications per turn of the event loop and fires once a turn reaches the limit', async () => {
    let floods = 0;
    const f = new FloodCheck(3, () => floods++);
    const turn = () => new Promise((r) => setImmediate(r));
    f.hit();
    f.hit();
    await turn();
    f.hit();
    f.hit();
    expect(floods).toBe(0);
    await turn();
    for (let i = 0; i < 7; i++) f.hit();
    expect(floods).toBe(1);
    await turn();
    for (let i = 0; i < 3; i++) f.hit();
    expect(floods).toBe(2);
  });

  it('takes the system\'s queue limit when it is lower than 1,024', () => {
    const dir = tempDir();
    const file = (text: string) => {
      const p = path.join(dir, `max-${text.length}-${Math.random()}`);
      fs.writeFileSync(p, text);
      return p;
    };
    expect(floodLimit(file('500\n'))).toBe(500);
    expect(floodLimit(file('16384\n'))).toBe(1024);
    expect(floodLimit(file('many'))).toBe(1024);
    expect(floodLimit(file('0'))).toBe(1024);
    expect(floodLimit(path.join(dir, 'missing'))).toBe(1024);
  });
});
