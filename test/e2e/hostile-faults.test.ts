// Issue 13, faults: an index that is locked, read-only, a folder or corrupt; transcripts with
// hostile session ids or that are not regular files; killed rebuilds; a damaged b-tree page;
// `mem init` pointed at places a vault cannot live. The built CLI on real files, real SQLite
// locks, real permissions (as an unprivileged user when the tests run as root), real kill -9.

import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanup, entry, mem, REPO, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const SAMPLE = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');
const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const POSIX = process.platform !== 'win32';

/** No crash text: no TypeError, no "bug in mem" hint, no stack frames. */
function clean(stderr: string): void {
  expect(stderr).not.toMatch(/TypeError|Cannot read properties|bug in mem|^\s+at /m);
  // A cause is described once, not wrapped in itself.
  expect(stderr).not.toMatch(/\(the index/);
}

function warnings(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('mem: warning:'));
}

/** Root ignores file modes: then mem runs as `nobody`, owning the vault, so modes bite. */
const AS_ROOT = POSIX && process.getuid?.() === 0;
function unprivileged(v: TempVault): SpawnSyncOptions {
  if (!AS_ROOT) return {};
  spawnSync('chown', ['-R', '65534:65534', path.dirname(v.root)]);
  return { uid: 65534, gid: 65534 };
}

function vaultWithEntries(): TempVault {
  const v = tempVault();
  v.write('MEMORY.md', `# Memory\n\n${entry('good1', 'Kafka consumers need the SASL config from the vault.')}${entry('good2', 'The staging deploy needs the VPN.')}`);
  return v;
}

type IndexState = 'locked' | 'read-only' | 'folder' | 'corrupt' | 'corrupt-pages' | 'corrupt-table';

/** Put the vault's index into `state`; returns the options mem must run with and an undo. */
function breakIndex(v: TempVault, state: IndexState): { spawn: SpawnSyncOptions; env: Record<string, string>; release: () => void } {
  const db = v.path('.memory.db');
  expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
  switch (state) {
    case 'locked': {
      // A real SQLite write lock, held by this process for the duration of the command.
      const holder = new Database(db);
      holder.exec('BEGIN IMMEDIATE');
      holder.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('held', 'yes')").run();
      return { spawn: {}, env: { MEM_BUSY_TIMEOUT_MS: '200' }, release: () => { holder.exec('ROLLBACK'); holder.close(); } };
    }
    case 'read-only': {
      const spawnOpts = unprivileged(v);
      fs.chmodSync(db, 0o444);
      return { spawn: spawnOpts, env: {}, release: () => {} };
    }
    case 'folder':
      for (const s of ['', '-wal', '-shm']) fs.rmSync(db + s, { force: true });
      fs.mkdirSync(db);
      fs.writeFileSync(path.join(db, 'keep.txt'), 'not mem\'s\n');
      return { spawn: {}, env: {}, release: () => {} };
    case 'corrupt': {
      const junk = Buffer.alloc(200_000);
      for (let i = 0; i < junk.length; i++) junk[i] = (i * 2654435761) >>> 24;
      fs.writeFileSync(db, junk);
      return { spawn: {}, env: {}, release: () => {} };
    }
    case 'corrupt-table': {
      // The header, schema and meta intact (the index opens), the entries table's root page
      // zeroed: the damage shows only when the write reaches it.
      const ro = new Database(db, { readonly: true });
      const pageSize = ro.pragma('page_size', { simple: true }) as number;
      const root = ro.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'entries'").pluck().get() as number;
      ro.close();
      const fd = fs.openSync(db, 'r+');
      fs.writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, (root - 1) * pageSize);
      fs.closeSync(fd);
      return { spawn: {}, env: {}, release: () => {} };
    }
    case 'corrupt-pages': {
      // A valid SQLite header, garbage in every page after the first.
      const buf = fs.readFileSync(db);
      for (let i = 4096; i < buf.length; i++) buf[i] = (i * 40503) & 0xff;
      fs.writeFileSync(db, buf);
      return { spawn: {}, env: {}, release: () => {} };
    }
  }
}

describe('7: a write whose markdown is saved succeeds whatever state the index is in', () => {
  const states: IndexState[] = ['locked', 'read-only', 'folder', 'corrupt', 'corrupt-pages', 'corrupt-table'];
  for (const state of states) {
    it(`mem add with a ${state} index prints the id, exits 0 and warns once`, () => {
      const v = vaultWithEntries();
      const broken = breakIndex(v, state);
      let r, j;
      try {
        r = mem(['add', `Xylophone builds need ${state} care`], { cwd: v.root, home: v.home, env: broken.env, spawn: broken.spawn });
        j = mem(['add', '--json', `Marimba builds need ${state} care`], { cwd: v.root, home: v.home, env: broken.env, spawn: broken.spawn });
      } finally {
        broken.release();
      }
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim()).toMatch(UUID);
      clean(r.stderr);
      expect(j.status, j.stderr).toBe(0);
      expect(j.json().id).toMatch(UUID);
      expect(j.json().path).toBe('MEMORY.md');
      if (state.startsWith('corrupt')) {
        // A corrupt index is replaced and the entry indexed: nothing to warn about but that.
        expect(fs.statSync(v.path('.memory.db')).isFile()).toBe(true);
      } else {
        expect(warnings(r.stderr)).toHaveLength(1);
        expect(warnings(r.stderr)[0]).toMatch(/(index .*(locked|cannot be written)|\.memory\.db is a folder).*the markdown is written/);
      }
      const text = v.read('MEMORY.md');
      expect(text).toContain(`Xylophone builds need ${state} care`);
      expect(text).toContain(`Marimba builds need ${state} care`);
      // Each entry once: no retry is needed, so no duplicate either.
      expect(text.split(`Xylophone builds need ${state} care`)).toHaveLength(2);
      for (const [word, id] of [['xylophone', r.stdout.trim()], ['marimba', j.json().id]]) {
        const s = mem(['search', word, '--ids'], { cwd: v.root, home: v.home, spawn: broken.spawn });
        expect(s.status, s.stderr).toBe(0);
        expect(s.stdout.split('\n')[0]).toBe(id);
      }
      if (state === 'folder') expect(fs.readFileSync(v.path('.memory.db/keep.txt'), 'utf8')).toBe('not mem\'s\n');
    });

    it(`mem extract with a ${state} index writes, records the ledger line and exits 0`, () => {
      const v = vaultWithEntries();
      // The transcript inside the vault's folder: the unprivileged user may not reach the checkout.
      const sample = path.join(path.dirname(v.root), 'session.jsonl');
      fs.copyFileSync(SAMPLE, sample);
      const broken = breakIndex(v, state);
      let r;
      try {
        r = mem(['extract', sample, '--json'], { cwd: v.root, home: v.home, env: { ...OFFLINE, ...broken.env }, spawn: broken.spawn });
      } finally {
        broken.release();
      }
      expect(r.status, r.stderr).toBe(0);
      clean(r.stderr);
      const out = r.json();
      expect(out.written.length).toBeGreaterThan(0);
      if (!state.startsWith('corrupt')) {
        expect(out.index_warning).toMatch(/index/);
        expect(warnings(r.stderr).some((w) => /the markdown is written/.test(w))).toBe(true);
      }
      const ledger = v.read('.mem/extracted.jsonl').trim().split('\n');
      expect(ledger).toHaveLength(1);
      expect(JSON.parse(ledger[0]).written).toEqual(out.written.map((w: { id: string }) => w.id));
      // A second run knows it is done: nothing is written twice.
      const again = mem(['extract', sample, '--json'], { cwd: v.root, home: v.home, env: OFFLINE, spawn: broken.spawn });
      expect(again.status, again.stderr).toBe(0);
      expect(again.json().up_to_date).toBe(true);
    });
  }
});

describe('7: other commands that write markdown, then index it', () => {
  it('reinforce and retire-stage with a folder or locked index: the edit is kept, exit 0, a warning', () => {
    for (const state of ['folder', 'locked'] as const) {
      const v = vaultWithEntries();
      v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('task1', 'The login form uses the mock API for now.', { domain: 'task', phase: 'implementation' })}`);
      const broken = breakIndex(v, state);
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
  it.skipIf(!POSIX)('a read-only .memory.db: search, list, show, stats and context see a new entry and warn', () => {
    const v = vaultWithEntries();
    expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
    v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('fresh1', 'Zookeeper quorum needs three nodes.')}`);
    const as = unprivileged(v);
    fs.chmodSync(v.path('.memory.db'), 0o444);
    const run = (args: string[]) => mem(args, { cwd: v.root, home: v.home, spawn: as });
    const s = run(['search', 'zookeeper', '--json']);
    expect(s.status, s.stderr).toBe(0);
    clean(s.stderr);
    expect(s.json().results[0].id).toBe('fresh1');
    expect(warnings(s.stderr)).toHaveLength(1);
    expect(warnings(s.stderr)[0]).toMatch(/cannot be written.*temporary index/);
    for (const args of [['list', '--json'], ['show', 'fresh1', '--json'], ['stats', '--json'], ['context', 'zookeeper quorum']]) {
      const r = run(args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      clean(r.stderr);
      expect(r.stdout).toMatch(/fresh1|Zookeeper|"entries"/);
    }
    // mem index itself must write: it fails, clearly.
    const ix = run(['index']);
    expect(ix.status).toBe(1);
    expect(ix.stderr.split('\n')[0]).toMatch(/^mem: the index \.memory\.db cannot be written/);
    clean(ix.stderr);
  });

  it.skipIf(!POSIX)('a read-only vault folder (no index yet, or one that cannot be replaced): search still answers', () => {
    for (const withIndex of [false, true]) {
      const v = vaultWithEntries();
      if (withIndex) expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
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

  it('.memory.db as a folder: search answers from the markdown and leaves the folder alone', () => {
    const v = vaultWithEntries();
    fs.mkdirSync(v.path('.memory.db'));
    fs.writeFileSync(v.path('.memory.db/mine.txt'), 'x');
    const s = mem(['search', 'kafka', '--ids'], { cwd: v.root, home: v.home });
    expect(s.status, s.stderr).toBe(0);
    clean(s.stderr);
    expect(s.stdout.split('\n')[0]).toBe('good1');
    expect(warnings(s.stderr)[0]).toMatch(/\.memory\.db is a folder/);
    expect(fs.readFileSync(v.path('.memory.db/mine.txt'), 'utf8')).toBe('x');
    const ix = mem(['index'], { cwd: v.root, home: v.home });
    expect(ix.status).toBe(1);
    expect(ix.stderr.split('\n')[0]).toBe('mem: .memory.db is a folder, not an index file');
    clean(ix.stderr);
    const rb = mem(['index', '--rebuild'], { cwd: v.root, home: v.home });
    expect(rb.status).toBe(1);
    expect(rb.stderr.split('\n')[0]).toBe('mem: .memory.db is a folder, not an index file');
    clean(rb.stderr);
    expect(leftovers(v)).toEqual([]);
    const doc = mem(['doctor', '--json'], { cwd: v.root, home: v.home });
    expect(doc.json().checks.find((c: { name: string }) => c.name === 'index')).toMatchObject({ status: 'fail', detail: '.memory.db is a folder, not an index file', hint: expect.stringMatching(/^move it away/) });
  });

  for (const name of ['.memory.db', '.memory.db-journal', '.memory.db-wal']) {
    it.skipIf(!POSIX)(`a FIFO as ${name} blocks nothing: search and add answer at once`, () => {
      const v = vaultWithEntries();
      if (name !== '.memory.db') expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
      expect(spawnSync('mkfifo', [v.path(name)]).status).toBe(0);
      // Opening a FIFO with no writer never returns: an answer at all means it was not opened.
      const s = mem(['search', 'kafka', '--ids'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      expect(s.stdout.split('\n')[0]).toBe('good1');
      expect(warnings(s.stderr)[0]).toMatch(new RegExp(`${name.replace(/\./g, '\\.')} is not a regular file`));
      clean(s.stderr);
      const a = mem(['add', 'Theremin tuning needs a warm room'], { cwd: v.root, home: v.home });
      expect(a.status, a.stderr).toBe(0);
      expect(a.stdout.trim()).toMatch(UUID);
      clean(a.stderr);
      expect(fs.statSync(v.path(name)).isFIFO()).toBe(true);
    });
  }

  it('a corrupt index (garbage, or a valid header over garbage pages) is rebuilt as a file', () => {
    for (const state of ['corrupt', 'corrupt-pages', 'corrupt-table'] as const) {
      const v = vaultWithEntries();
      breakIndex(v, state);
      const s = mem(['search', 'staging vpn', '--ids'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      clean(s.stderr);
      expect(s.stdout.split('\n')[0]).toBe('good2');
      const db = new Database(v.path('.memory.db'), { readonly: true });
      expect(db.pragma('quick_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT count(*) AS n FROM entries').get()).toEqual({ n: 2 });
      db.close();
    }
  });

  it('an index held in an exclusive lock (readers blocked too): search answers fresh, with a warning', () => {
    const v = vaultWithEntries();
    expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
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
  // are indexed and the real cause is named; no TypeError replaces it.
  for (const files of [1, 70]) {
    it(`a file that cannot be serialised (Invalid string length) is skipped, not fatal (${files} other file${files > 1 ? 's' : ''})`, () => {
      const v = vaultWithEntries();
      for (let i = 1; i < files; i++) v.write(`memory/note-${i}.md`, entry(`n${i}`, `Note ${i} about the billing service.`));
      expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
      const big = 'x'.repeat(5_500_000);
      v.write('memory/bomb.md', `---\nid: bomb1\nbig: &a "${big}"\nrefs: [${Array(98).fill('*a').join(', ')}]\n---\nThe bomb.\n`);
      v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('fresh4', 'Zookeeper runs on port 2181.')}`);
      const s = mem(['search', 'zookeeper', '--ids'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      clean(s.stderr);
      expect(s.stdout.split('\n')[0]).toBe('fresh4');
    });
  }
});

function claudeTranscript(sessionId: string): string {
  return fs.readFileSync(SAMPLE, 'utf8').split('\n').filter(Boolean).map((l) => {
    const rec = JSON.parse(l);
    if ('sessionId' in rec) rec.sessionId = sessionId;
    return JSON.stringify(rec);
  }).join('\n') + '\n';
}

function codexTranscript(id: string): string {
  const lines = [
    { timestamp: '2026-06-05T04:58:20.653Z', type: 'session_meta', payload: { id, timestamp: '2026-06-05T04:58:20.593Z', cwd: '/tmp/x', originator: 'codex_exec', cli_version: '0.135.0' } },
    { timestamp: '2026-06-05T04:58:21.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Remember to always run the migrations before the API tests.' }] } },
    { timestamp: '2026-06-05T04:58:22.000Z', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Understood, I will run the migrations first.' }] } },
    { timestamp: '2026-06-05T04:58:23.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: "Don't use yarn in this repository, use npm." }] } },
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('9: a transcript whose own session id is not a usable name', () => {
  const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
  const cases: [string, string][] = [
    ['claude, ../../x', claudeTranscript('../../x')],
    ['claude, an absolute path', claudeTranscript('/etc/cron.d/evil')],
    ['claude, only dots', claudeTranscript('..')],
    ['claude, 600 characters', claudeTranscript('a'.repeat(600))],
    ['codex, slashes, NUL and a newline', codexTranscript('abc/../\u0000def\nxyz: 1')],
    ['codex, spaces and a colon', codexTranscript('thread: 42 (resumed)')],
  ];
  for (const [name, text] of cases) {
    it(`${name}: a safe id is used before anything is written; exit 0, ledger line, no path escapes`, () => {
      const v = tempVault();
      const file = path.join(tempDir(), 'session.jsonl');
      fs.writeFileSync(file, text);
      const outside = new Set(fs.readdirSync(path.dirname(v.root)));
      const r = mem(['extract', file, '--scopes', 'project,corrective,interventions', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(r.status, r.stderr).toBe(0);
      clean(r.stderr);
      const out = r.json();
      expect(out.written.length).toBeGreaterThan(0);
      expect(out.session_id).toMatch(SAFE);
      expect(warnings(r.stderr).some((w) => /session id .* cannot name a folder/.test(w))).toBe(true);
      const ledger = v.read('.mem/extracted.jsonl').trim().split('\n').map((l) => JSON.parse(l));
      expect(ledger).toHaveLength(1);
      expect(ledger[0].session_id).toBe(out.session_id);
      const memory = v.read('MEMORY.md');
      expect(memory).toContain(`session_id: ${out.session_id}`);
      expect(memory).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
      // Nothing was created next to the vault, and the entries read back.
      expect(new Set(fs.readdirSync(path.dirname(v.root)))).toEqual(outside);
      const found = mem(['list', '--json'], { cwd: v.root, home: v.home }).json().entries;
      expect(found.length).toBe(out.written.length);
      // The same transcript maps to the same id: the second run is up to date.
      const again = mem(['extract', file, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(again.status, again.stderr).toBe(0);
      expect(again.json().up_to_date).toBe(true);
    });
  }

  it('an invalid --session, MEM_SESSION, --job or --task is a usage error before anything is written', () => {
    const cases = [
      [['--session', '../../x'], {}], [[], { MEM_SESSION: 'a/b' }], [['--session', 'x'.repeat(300)], {}],
      [['--job', '../../escape', '--scopes', 'session,project'], {}], [['--job', 'j1', '--task', '../t', '--scopes', 'team,project'], {}],
    ] as [string[], Record<string, string>][];
    for (const [args, env] of cases) {
      const v = tempVault();
      v.write('MEMORY.md', '# Memory\n');
      const r = mem(['extract', SAMPLE, ...args], { cwd: v.root, home: v.home, env: { ...OFFLINE, ...env } });
      expect(r.status).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(/^mem: invalid (session id|--job|--task)/);
      expect(v.read('MEMORY.md')).toBe('# Memory\n');
      expect(fs.existsSync(v.path('.mem/extracted.jsonl'))).toBe(false);
    }
  });
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

function leftovers(v: TempVault): string[] {
  return fs.readdirSync(v.root).filter((n) => n.startsWith('.memory.db.rebuild-'));
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('14: a killed rebuild leaves nothing behind for long', () => {
  it('kill -9 of mem index --rebuild at several points: the next command removes its file and the index is whole', async () => {
    const { v } = bigVault(6000, 40);
    expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
    const reference = mem(['search', 'quasar', '--ids', '--limit', '10000'], { cwd: v.root, home: v.home }).stdout;
    expect(reference.split('\n').filter(Boolean).length).toBeGreaterThan(800);
    let sawLeftover = 0;
    for (const delay of [50, 150, 300, 'file'] as const) {
      const child = spawn(process.execPath, [BIN, 'index', '--rebuild', '--quiet'], { cwd: v.root, env: { ...process.env, MEM_HOME: v.home }, stdio: 'ignore' });
      // Listened for from the start: a rebuild that ends before the kill has already exited.
      const exited = new Promise((r) => child.once('exit', r));
      if (delay === 'file') {
        // Kill as soon as its file exists: certainly mid-build.
        const t0 = Date.now();
        while (!leftovers(v).some((n) => n.endsWith(`-${child.pid}`)) && child.exitCode === null && Date.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 2));
      } else await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited;
      if (leftovers(v).length > 0) sawLeftover++;
      const s = mem(['search', 'quasar', '--ids', '--limit', '10000'], { cwd: v.root, home: v.home, spawn: { timeout: 30_000 } });
      expect(s.status, `after a kill at ${delay}: ${s.stderr}`).toBe(0);
      clean(s.stderr);
      expect(leftovers(v)).toEqual([]);
      expect(s.stdout).toBe(reference);
      const ix = mem(['index', '--json'], { cwd: v.root, home: v.home, spawn: { timeout: 30_000 } });
      expect(ix.status, `after a kill at ${delay}: ${ix.stderr}`).toBe(0);
      expect(ix.json()).toMatchObject({ entries: 6000, changed: 0, removed: 0 });
    }
    expect(sawLeftover).toBeGreaterThan(0);
  }, 180_000);

  it('a leftover of a dead process is removed (and reported by doctor); a live rebuild\'s file is kept', () => {
    const v = vaultWithEntries();
    expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
    const dead = deadPid();
    const big = Buffer.alloc(3 << 20, 1);
    fs.writeFileSync(v.path(`.memory.db.rebuild-${dead}`), big);
    fs.writeFileSync(v.path(`.memory.db.rebuild-${dead}-journal`), 'j');
    // This test process is alive: its "rebuild" is in progress and must be left alone.
    fs.writeFileSync(v.path(`.memory.db.rebuild-${process.pid}`), 'live');
    const doc = mem(['doctor'], { cwd: v.root, home: v.home });
    clean(doc.stderr);
    expect(doc.stdout).toMatch(new RegExp(`rebuild files +removed what killed rebuilds left: \\.memory\\.db\\.rebuild-${dead} \\(3\\.0 MB\\)`));
    expect(doc.stdout).toMatch(new RegExp(`a rebuild is running \\(pid ${process.pid}\\)`));
    expect(leftovers(v)).toEqual([`.memory.db.rebuild-${process.pid}`]);
    fs.writeFileSync(v.path(`.memory.db.rebuild-${dead}`), big);
    const s = mem(['search', 'kafka', '--ids'], { cwd: v.root, home: v.home });
    expect(s.status).toBe(0);
    expect(leftovers(v)).toEqual([`.memory.db.rebuild-${process.pid}`]);
    // Files that only look alike are not touched.
    fs.writeFileSync(v.path('.memory.db.rebuild-notes'), 'mine');
    mem(['search', 'kafka'], { cwd: v.root, home: v.home });
    expect(fs.existsSync(v.path('.memory.db.rebuild-notes'))).toBe(true);
  });
});

/** Overwrite one leaf page of the entries table's b-tree, found through dbstat and page_size. */
function corruptEntriesPage(dbPath: string, how: 'cells' | 'empty-leaf' | 'zeros'): number {
  const db = new Database(dbPath, { readonly: true });
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const leaves = db.prepare("SELECT pageno FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf' ORDER BY pageno").pluck().all() as number[];
  db.close();
  expect(leaves.length).toBeGreaterThan(2);
  const page = leaves[1];
  const fd = fs.openSync(dbPath, 'r+');
  const buf = Buffer.alloc(pageSize);
  fs.readSync(fd, buf, 0, pageSize, (page - 1) * pageSize);
  if (how === 'cells') for (let i = 200; i < pageSize; i++) buf[i] = (i * 31 + 7) & 0xff;
  else if (how === 'zeros') buf.fill(0);
  else {
    buf.fill(0);
    buf[0] = 0x0d; // a table leaf with no cells: its rows vanish without a read error
  }
  fs.writeSync(fd, buf, 0, pageSize, (page - 1) * pageSize);
  fs.closeSync(fd);
  return page;
}

describe('15: one damaged page of the entries b-tree', () => {
  function twenty(): TempVault {
    const v = tempVault();
    let text = '# Memory\n\n';
    for (let i = 0; i < 20; i++) text += entry(`z${i}`, `The zebra pipeline note ${i}: ${'lorem ipsum dolor sit amet '.repeat(40)}`);
    v.write('MEMORY.md', text);
    expect(mem(['index', '-q'], { cwd: v.root, home: v.home }).status).toBe(0);
    return v;
  }
  const ids = (out: string) => out.split('\n').filter(Boolean);

  for (const how of ['cells', 'empty-leaf', 'zeros'] as const) {
    it(`mem index detects it (${how}), rebuilds with a note, and search returns all 20`, () => {
      const v = twenty();
      corruptEntriesPage(v.path('.memory.db'), how);
      const doc = mem(['doctor', '--json'], { cwd: v.root, home: v.home });
      expect(doc.status).toBe(1);
      expect(doc.json().checks.find((c: { name: string }) => c.name === 'index').detail).toMatch(/^integrity: /);
      const ix = mem(['index'], { cwd: v.root, home: v.home });
      expect(ix.status, ix.stderr).toBe(0);
      clean(ix.stderr);
      expect(ix.stderr).toMatch(/mem: warning: \.memory\.db (failed its integrity check|was corrupt)/);
      expect(ix.stdout).toMatch(/20 entries/);
      expect(ids(mem(['search', 'zebra pipeline', '--ids', '--limit', '50'], { cwd: v.root, home: v.home }).stdout)).toHaveLength(20);
      expect(mem(['doctor'], { cwd: v.root, home: v.home }).status).toBe(0);
    });

    it(`mem search alone notices it (${how}) and answers with all 20`, () => {
      const v = twenty();
      corruptEntriesPage(v.path('.memory.db'), how);
      const s = mem(['search', 'zebra pipeline', '--ids', '--limit', '50'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      clean(s.stderr);
      expect(ids(s.stdout)).toHaveLength(20);
      expect(s.stderr).toMatch(/corrupt/);
    });
  }
});

describe('16: special files as transcripts, and init where no vault can live', () => {
  // Opening a FIFO that no one writes to never returns: a mem that answers at all did not open it.

  it.skipIf(!POSIX)('a FIFO given as the transcript is an error before it is opened; "-" still reads stdin', () => {
    const v = tempVault();
    const fifo = path.join(tempDir(), 'session.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const r = mem(['extract', fifo], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(`mem: ${fifo} is not a regular file (a FIFO)`);
    clean(r.stderr);
    const dev = mem(['extract', '/dev/null'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(dev.status).toBe(1);
    expect(dev.stderr.split('\n')[0]).toBe('mem: /dev/null is not a regular file (a character device)');
    const viaLink = path.join(tempDir(), 'link.jsonl');
    fs.symlinkSync(fifo, viaLink);
    const l = mem(['extract', viaLink], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(l.status).toBe(1);
    expect(l.stderr).toMatch(/is not a regular file \(a FIFO\)/);
    const stdin = mem(['extract', '-', '--json'], { cwd: v.root, home: v.home, env: OFFLINE, input: fs.readFileSync(SAMPLE, 'utf8') });
    expect(stdin.status, stdin.stderr).toBe(0);
    expect(stdin.json().written.length).toBeGreaterThan(0);
  });

  it.skipIf(!POSIX)('a FIFO or a socket in a folder of transcripts is skipped with a note; the rest is extracted', async () => {
    const v = tempVault();
    const dir = tempDir();
    fs.copyFileSync(SAMPLE, path.join(dir, 'real.jsonl'));
    expect(spawnSync('mkfifo', [path.join(dir, 'pipe.jsonl')]).status).toBe(0);
    const server = net.createServer();
    await new Promise<void>((res) => server.listen(path.join(dir, 'sock.jsonl'), res));
    try {
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'extract', dir, '--json'], { cwd: v.root, env: { ...process.env, ...OFFLINE, MEM_HOME: v.home } as NodeJS.ProcessEnv });
        // A mem stuck on the FIFO ends the test by its timeout; then it goes too.
        onTestFinished(() => void child.kill('SIGKILL'));
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/mem: warning: skipped pipe\.jsonl \(a FIFO\): not a regular file/);
      expect(r.stderr).toMatch(/mem: warning: skipped sock\.jsonl \(a socket\): not a regular file/);
      const out = JSON.parse(r.stdout);
      expect(out.transcripts).toHaveLength(1);
      expect(out.transcripts[0].written.length).toBeGreaterThan(0);
      expect(out.not_regular.sort()).toEqual(['pipe.jsonl (a FIFO)', 'sock.jsonl (a socket)']);
    } finally {
      server.close();
    }
  });

  it.skipIf(!POSIX)('a FIFO as the extraction ledger is refused before anything is written, never blocks', () => {
    const v = tempVault();
    expect(spawnSync('mkfifo', [v.path('.mem/extracted.jsonl')]).status).toBe(0);
    const r = mem(['extract', SAMPLE], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('mem: .mem/extracted.jsonl is not a regular file');
    expect(fs.existsSync(v.path('MEMORY.md'))).toBe(false);
    clean(r.stderr);
  });

  it.skipIf(!POSIX)('the hook given a FIFO: exits 0 at once, and its background extraction ends with a logged error', async () => {
    const v = tempVault();
    mem(['init', '-q'], { cwd: v.root, home: v.home });
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

  it('init where something is in the way refuses before writing anything', () => {
    const cases: [string, (root: string) => void, RegExp][] = [
      ['MEMORY.md is a folder', (root) => fs.mkdirSync(path.join(root, 'MEMORY.md')), /^mem: MEMORY\.md is a folder/],
      ['.mem is a file', (root) => fs.writeFileSync(path.join(root, '.mem'), 'x'), /^mem: \.mem is a file/],
      ['.gitignore is a folder', (root) => fs.mkdirSync(path.join(root, '.gitignore')), /^mem: \.gitignore is a folder/],
      ['institutional.md is a dangling link', (root) => fs.symlinkSync(path.join(root, 'nowhere.md'), path.join(root, 'institutional.md')), /^mem: institutional\.md is a link to a missing file/],
    ];
    for (const [name, setup, message] of cases) {
      const root = path.join(tempDir(), 'project');
      fs.mkdirSync(root);
      setup(root);
      const before = fs.readdirSync(root).sort();
      const r = mem(['--root', root, 'init'], { cwd: root });
      expect(r.status, name).toBe(1);
      expect(r.stderr.split('\n')[0], name).toMatch(message);
      clean(r.stderr);
      expect(fs.readdirSync(root).sort(), name).toEqual(before);
    }
  });

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
