// The pure parts of `mem watch`: which paths matter to the index, batching, the per-batch diff,
// retry delays, watcher faults and the printed lines.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Batcher, diffSnapshots, retryDelay, watchScope, watcherFault, type BatchResult, type IndexSnapshot } from '../../src/integrations/watch.js';
import { batchJson, batchLine } from '../../src/cli/commands/watch.js';

const ROOT = path.resolve('/v/project');
const HOME = path.resolve('/v/home');
const at = (rel: string) => path.join(ROOT, ...rel.split('/'));

describe('watchScope', () => {
  const s = watchScope(ROOT, HOME, { include: ['docs/**/*.md', 'notes/team.md', '.wiki/*.md'], exclude: ['memory/drafts/**'] });

  it('keeps the files the walk indexes', () => {
    for (const rel of ['MEMORY.md', 'institutional.md', 'proxy.md', 'memory/a.md', 'memory/x/y/z.markdown',
      '.mem/jobs/j1/MEMORY.md', '.mem/jobs/j1/tasks/t1/institutional.md', '.mem/jobs/j1/tasks/t1/worktree/MEMORY.md',
      '.teaparty/jobs/j/MEMORY.md', 'projects/p/.sessions/ts/deep/MEMORY.md', 'docs/guide.md', 'docs/a/b.md', 'notes/team.md', '.wiki/page.md']) {
      expect(s.classify(at(rel)), rel).toBe('index');
    }
    expect(s.classify(path.join(HOME, 'MEMORY.md'))).toBe('index');
    expect(s.classify(path.join(HOME, 'institutional.md'))).toBe('index');
    expect(s.classify(at('.mem/config.yaml'))).toBe('config');
  });

  it('drops what the walk skips and what mem itself writes', () => {
    for (const rel of ['README.md', 'src/app.ts', '.memory.db', '.memory.db-wal', '.memory.db-shm', '.memory.db.rebuild-123',
      '.MEMORY.md.lock', '.MEMORY.md.lock.takeover', '.MEMORY.md.123.lx2.tmp', 'memory/.a.md.lock', 'memory/.hidden.md', 'memory/.#a.md', '.wiki/.page.md', '.mem/logs/hooks.log', '.mem/logs',
      'node_modules/x/MEMORY.md', 'memory/node_modules/a.md', 'memory/.git/a.md', 'memory/.obsidian/a.md', 'memory/drafts/a.md',
      '.mem/jobs/j1/notes.md', '.mem/jobs/j1/tasks/t1/worktree/src/MEMORY.md', 'projects/p/README.md', 'docs/.trash/a.md', 'notes/other.md', '']) {
      expect(s.classify(at(rel)), rel).toBeNull();
    }
    expect(s.classify(path.join(HOME, '.bash_history'))).toBeNull();
    expect(s.classify(path.join(HOME, 'sub', 'MEMORY.md'))).toBeNull();
    expect(s.classify(path.resolve('/elsewhere/MEMORY.md'))).toBeNull();
  });

  it('counts a folder appearing or going where indexed files live as a change', () => {
    for (const rel of ['memory', 'memory/new', '.mem/jobs/j2', '.mem/jobs/j1/tasks/t9', 'docs/new', 'projects/p2']) expect(s.classify(at(rel)), rel).toBe('index');
    for (const rel of ['src', 'build', '.mem/cache']) expect(s.classify(at(rel)), rel).toBeNull();
  });

  it('watches only folders that can hold indexed files or lead to them', () => {
    for (const rel of ['', 'memory', 'memory/a/b', '.mem', '.mem/jobs', '.mem/jobs/j/tasks/t/worktree', 'projects/p/.sessions/x/y', 'docs', 'docs/a', 'notes', '.wiki']) {
      expect(s.folder(rel), rel).toBe(true);
    }
    for (const rel of ['src', 'node_modules', 'memory/.git', '.mem/logs', '.mem/jobs/j/tasks/t/worktree/src', '.git', 'docs/.trash', 'docs/node_modules']) {
      expect(s.folder(rel), rel).toBe(false);
    }
  });

  it('an include glob starting at the root watches the whole tree but dot folders and node_modules', () => {
    const all = watchScope(ROOT, HOME, { include: ['**/*.md'], exclude: [] });
    expect(all.folder('src/deep')).toBe(true);
    expect(all.folder('.github')).toBe(false);
    expect(all.folder('src/node_modules')).toBe(false);
    expect(all.classify(at('src/deep/README.md'))).toBe('index');
  });

  it("gives chokidar folders only (natively), files too when polling, and never a link", () => {
    const dir = { isDirectory: () => true, isFile: () => false, isSymbolicLink: () => false } as fs.Stats;
    const file = { isDirectory: () => false, isFile: () => true, isSymbolicLink: () => false } as fs.Stats;
    const link = { isDirectory: () => false, isFile: () => false, isSymbolicLink: () => true } as fs.Stats;
    expect(s.ignoredUnderRoot(ROOT, dir, false)).toBe(false);
    expect(s.ignoredUnderRoot(at('memory'), dir, false)).toBe(false);
    expect(s.ignoredUnderRoot(at('src'), dir, false)).toBe(true);
    expect(s.ignoredUnderRoot(at('memory/a.md'), file, false)).toBe(true);
    expect(s.ignoredUnderRoot(at('memory/a.md'), file, true)).toBe(false);
    expect(s.ignoredUnderRoot(at('src/a.ts'), file, true)).toBe(true);
    expect(s.ignoredUnderRoot(at('memory/ext'), link, false)).toBe(true);
    expect(s.ignoredUnderRoot(at('memory'), undefined, false)).toBe(false);
    expect(s.ignoredUnderRoot(at('src'), undefined, false)).toBe(true);
    expect(s.homeApart).toBe(true);
    expect(s.ignoredUnderHome(HOME, dir, false)).toBe(false);
    expect(s.ignoredUnderHome(path.join(HOME, 'MEMORY.md'), file, false)).toBe(true);
    expect(s.ignoredUnderHome(path.join(HOME, 'MEMORY.md'), file, true)).toBe(false);
    expect(s.ignoredUnderHome(path.join(HOME, 'projects'), dir, true)).toBe(true);
    expect(watchScope(ROOT, ROOT, { include: [], exclude: [] }).homeApart).toBe(false);
  });
});

describe('Batcher', () => {
  // Fake timers (Date.now included): what is checked is the batcher's own schedule, which a busy
  // machine could otherwise shift.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

  it('runs one batch after a quiet period, with every path noted in it', async () => {
    const runs: string[][] = [];
    const b = new Batcher({ quietMs: 60, maxWaitMs: 5000, run: async (p) => void runs.push(p) });
    b.note('a');
    await pass(20);
    b.note('b');
    b.note('a');
    await pass(59);
    expect(runs).toEqual([]);
    await pass(1);
    expect(runs).toEqual([['a', 'b']]);
    await b.stop();
  });

  it('waits the whole quiet period after the last change, however long (the --debounce of mem watch)', async () => {
    const runs: string[][] = [];
    const b = new Batcher({ quietMs: 800, maxWaitMs: 8000, run: async (p) => void runs.push(p) });
    b.note('MEMORY.md');
    await pass(799);
    expect(runs).toEqual([]);
    await pass(1);
    expect(runs).toEqual([['MEMORY.md']]);
    await b.stop();
  });

  it('never runs two batches at once: what comes during one makes the next', async () => {
    const runs: string[][] = [];
    let inFlight = 0;
    let most = 0;
    const b = new Batcher({
      quietMs: 10, maxWaitMs: 1000,
      run: async (p) => {
        inFlight++;
        most = Math.max(most, inFlight);
        runs.push(p);
        await sleep(80);
        inFlight--;
      },
    });
    b.note('a');
    await pass(40);
    expect(runs).toEqual([['a']]);
    b.note('b');
    b.note('c');
    await pass(40);
    expect(runs).toEqual([['a']]); // the first batch is still running
    await pass(250);
    expect(runs).toEqual([['a'], ['b', 'c']]);
    expect(most).toBe(1);
    await b.stop();
  });

  it('runs at the latest maxWaitMs after the first change, however busy', async () => {
    const runs: number[] = [];
    const b = new Batcher({ quietMs: 50, maxWaitMs: 150, run: async (p) => void runs.push(p.length) });
    for (let i = 0; i < 15; i++) {
      b.note(String(i));
      await pass(10);
    }
    expect(runs).toEqual([15]);
    await b.stop();
  });

  it('stop waits for the batch in flight and drops what is pending', async () => {
    let finished = false;
    const runs: string[][] = [];
    const b = new Batcher({ quietMs: 0, maxWaitMs: 100, run: async (p) => { runs.push(p); await sleep(60); finished = true; } });
    b.note('a');
    await pass(10);
    b.note('b');
    const stopped = b.stop();
    await pass(60);
    await stopped;
    expect(finished).toBe(true);
    await pass(30);
    expect(runs).toEqual([['a']]);
  });
});

describe('diffSnapshots', () => {
  const snap = (o: Record<string, [string, string[]]>): IndexSnapshot => new Map(Object.entries(o).map(([k, [hash, ids]]) => [k, { hash, ids }]));

  it('counts entries that came and went per changed file, and files added and removed', () => {
    const before = snap({ 'MEMORY.md': ['h1', ['a', 'b']], 'memory/x.md': ['h2', ['c']], 'memory/same.md': ['h3', ['d']] });
    const after = snap({ 'MEMORY.md': ['h1b', ['a', 'e', 'f']], 'memory/y.md': ['h4', ['c']], 'memory/same.md': ['h3', ['d']] });
    expect(diffSnapshots(before, after)).toEqual({ files: ['MEMORY.md', 'memory/x.md', 'memory/y.md'], added: 3, removed: 2 });
  });

  it('a replaced entry is one in and one out; an unchanged hash is no change', () => {
    expect(diffSnapshots(snap({ f: ['1', ['a']] }), snap({ f: ['2', ['b']] }))).toEqual({ files: ['f'], added: 1, removed: 1 });
    expect(diffSnapshots(snap({ f: ['1', ['a']] }), snap({ f: ['2', ['a']] }))).toEqual({ files: ['f'], added: 0, removed: 0 });
    expect(diffSnapshots(snap({ f: ['1', ['a']] }), snap({ f: ['1', ['a']] }))).toEqual({ files: [], added: 0, removed: 0 });
    expect(diffSnapshots(snap({ f: ['1', ['a', 'a']] }), snap({ f: ['2', ['a']] }))).toEqual({ files: ['f'], added: 0, removed: 1 });
  });
});

describe('retries and faults', () => {
  it('backs off 1, 2, 4 … s up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(retryDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('turns the inotify limit into one clear error with a hint; other errors are not fatal', () => {
    const enospc = Object.assign(new Error("ENOSPC: System limit for number of file watchers reached, watch '/v'"), { code: 'ENOSPC' });
    const f = watcherFault(enospc, false)!;
    expect(f.message).toMatch(/limit on watched folders/);
    expect(f.hint).toMatch(/max_user_watches/);
    expect(f.hint).toMatch(/--poll/);
    expect(watcherFault(Object.assign(new Error('x'), { code: 'EMFILE' }), false)!.hint).toMatch(/--poll/);
    expect(watcherFault(Object.assign(new Error('x'), { code: 'EACCES' }), false)).toBeNull();
    expect(watcherFault(new Error('x'), false)).toBeNull();
  });
});

describe('printed lines', () => {
  const base: BatchResult = {
    at: new Date(2026, 0, 5, 12, 3, 4), kind: 'change', seen: [], diff: { files: ['MEMORY.md', 'memory/a.md', 'memory/b.md'], added: 5, removed: 1 },
    reindexed: 3, vaultFiles: 10, entries: 40, ms: 42, warnings: [],
  };

  it('one line per batch that changed the index, none for one that did not', () => {
    expect(batchLine(base)).toBe('12:03:04 indexed 3 files (+5 -1 entries) in 42 ms');
    expect(batchLine({ ...base, diff: { files: [], added: 0, removed: 0 } })).toBeNull();
    expect(batchLine({ ...base, warnings: ['bad (memory/a.md:3)', 'w2'] })).toBe('12:03:04 indexed 3 files (+5 -1 entries) in 42 ms; 2 warnings: bad (memory/a.md:3) (and 1 more)');
    expect(batchLine({ ...base, error: { message: 'the index .memory.db is locked by another process', retryInMs: 2000 } }))
      .toBe('12:03:04 not indexed: the index .memory.db is locked by another process; retrying in 2 s');
    expect(batchLine({ ...base, diff: { files: [], added: 0, removed: 0 }, configError: 'malformed YAML (.mem/config.yaml:2)' }))
      .toBe('12:03:04 .mem/config.yaml not applied (the previous include/exclude stay): malformed YAML (.mem/config.yaml:2)');
    expect(batchLine({ ...base, kind: 'start', reindexed: 0, folders: 4, entries: 1, vaultFiles: 1 })).toBe('12:03:04 watching 1 file in 4 folders; index up to date (1 entry) in 42 ms');
    expect(batchLine({ ...base, kind: 'start', folders: 4, pollMs: 1000 })).toBe('12:03:04 watching 10 files in 4 folders, polling every 1000 ms; indexed 3 files (40 entries) in 42 ms');
  });

  it('JSON: one object per batch', () => {
    const j = JSON.parse(batchJson(base));
    expect(j).toMatchObject({ event: 'change', files: base.diff.files, added: 5, removed: 1, entries: 40, vault_files: 10, reindexed: 3, ms: 42, warnings: [], error: null });
    expect(JSON.parse(batchJson({ ...base, error: { message: 'm', hint: 'h', retryInMs: 1000 } })).error).toEqual({ message: 'm', hint: 'h', retry_in_ms: 1000 });
  });
});
