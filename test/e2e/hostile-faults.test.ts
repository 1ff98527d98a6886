// Faults: an index that is a folder or corrupt; transcripts with hostile session ids or that are
// not regular files; a damaged b-tree page; `mem init` pointed at places a vault cannot live. The
// CLI in this process on real files. A locked or read-only index, kill -9 and what runs as another
// user are in test/process/hostile-faults.test.ts.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { breakIndex, clean, indexVault, leftovers, OFFLINE, POSIX, SAMPLE, UUID, vaultWithEntries, warnings, type IndexState } from '../broken-index.js';
import { serialiseBombTest, writeSucceedsTests } from '../fixtures/hostile-faults.js';
import { rememberIndexFile } from '../../src/index/db.js';
import { cleanup, entry, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

describe('7: a write whose markdown is saved succeeds whatever state the index is in', () => {
  // 'locked' and 'read-only': test/process/hostile-faults.test.ts.
  const states: IndexState[] = ['folder', 'corrupt', 'corrupt-pages', 'corrupt-table'];
  writeSucceedsTests(states, run);
});

describe('8: read commands answer on an index they cannot write, and errors keep their real cause', () => {
  it('.memory.db as a folder: search answers from the markdown and leaves the folder alone', async () => {
    const v = vaultWithEntries();
    const o = { cwd: v.root, home: v.home };
    fs.mkdirSync(v.path('.memory.db'));
    fs.writeFileSync(v.path('.memory.db/mine.txt'), 'x');
    const s = await run(['search', 'kafka', '--ids'], o);
    expect(s.status, s.stderr).toBe(0);
    clean(s.stderr);
    expect(s.stdout.split('\n')[0]).toBe('good1');
    expect(warnings(s.stderr)[0]).toMatch(/\.memory\.db is a folder/);
    expect(fs.readFileSync(v.path('.memory.db/mine.txt'), 'utf8')).toBe('x');
    const ix = await run(['index'], o);
    expect(ix.status).toBe(1);
    expect(ix.stderr.split('\n')[0]).toBe('mem: .memory.db is a folder, not an index file');
    clean(ix.stderr);
    const rb = await run(['index', '--rebuild'], o);
    expect(rb.status).toBe(1);
    expect(rb.stderr.split('\n')[0]).toBe('mem: .memory.db is a folder, not an index file');
    clean(rb.stderr);
    expect(leftovers(v)).toEqual([]);
    const doc = await run(['doctor', '--json'], o);
    expect(doc.json().checks.find((c: { name: string }) => c.name === 'index')).toMatchObject({ status: 'fail', detail: '.memory.db is a folder, not an index file', hint: expect.stringMatching(/^move it away/) });
  });

  for (const name of ['.memory.db', '.memory.db-journal', '.memory.db-wal']) {
    it.skipIf(!POSIX)(`a FIFO as ${name} blocks nothing: search and add answer at once`, async () => {
      const v = vaultWithEntries();
      if (name !== '.memory.db') await indexVault(v);
      expect(spawnSync('mkfifo', [v.path(name)]).status).toBe(0);
      // Opening a FIFO with no writer never returns: an answer at all means it was not opened.
      const s = await run(['search', 'kafka', '--ids'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      expect(s.stdout.split('\n')[0]).toBe('good1');
      expect(warnings(s.stderr)[0]).toMatch(new RegExp(`${name.replace(/\./g, '\\.')} is not a regular file`));
      clean(s.stderr);
      const a = await run(['add', 'Theremin tuning needs a warm room'], { cwd: v.root, home: v.home });
      expect(a.status, a.stderr).toBe(0);
      expect(a.stdout.trim()).toMatch(UUID);
      clean(a.stderr);
      expect(fs.statSync(v.path(name)).isFIFO()).toBe(true);
    });
  }

  it('a corrupt index (garbage, or a valid header over garbage pages) is rebuilt as a file', async () => {
    for (const state of ['corrupt', 'corrupt-pages', 'corrupt-table'] as const) {
      const v = vaultWithEntries();
      await breakIndex(v, state);
      const s = await run(['search', 'staging vpn', '--ids'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      clean(s.stderr);
      expect(s.stdout.split('\n')[0]).toBe('good2');
      const db = new Database(v.path('.memory.db'), { readonly: true });
      expect(db.pragma('quick_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT count(*) AS n FROM entries').get()).toEqual({ n: 2 });
      db.close();
    }
  });

  // A header whose aliases expand past what a string can hold: JSON of it throws "Invalid string
  // length" (in the main thread for a few files, in the parse worker for many). The other files
  // are indexed and the real cause is named; no TypeError replaces it. The parse worker runs only
  // from the built CLI: the case of many files is in test/process/hostile-faults.test.ts.
  for (const files of [1]) serialiseBombTest(files, run);
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
    it(`${name}: a safe id is used before anything is written; exit 0, ledger line, no path escapes`, async () => {
      const v = tempVault();
      const file = path.join(tempDir(), 'session.jsonl');
      fs.writeFileSync(file, text);
      const outside = new Set(fs.readdirSync(path.dirname(v.root)));
      const r = await run(['extract', file, '--scopes', 'project,corrective,interventions', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
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
      const found = (await run(['list', '--json'], { cwd: v.root, home: v.home })).json().entries;
      expect(found.length).toBe(out.written.length);
      // The same transcript maps to the same id: the second run is up to date.
      const again = await run(['extract', file, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(again.status, again.stderr).toBe(0);
      expect(again.json().up_to_date).toBe(true);
    });
  }

  it('an invalid --session, MEM_SESSION, --job or --task is a usage error before anything is written', async () => {
    const cases = [
      [['--session', '../../x'], {}], [[], { MEM_SESSION: 'a/b' }], [['--session', 'x'.repeat(300)], {}],
      [['--job', '../../escape', '--scopes', 'session,project'], {}], [['--job', 'j1', '--task', '../t', '--scopes', 'team,project'], {}],
    ] as [string[], Record<string, string>][];
    for (const [args, env] of cases) {
      const v = tempVault();
      v.write('MEMORY.md', '# Memory\n');
      const r = await run(['extract', SAMPLE, ...args], { cwd: v.root, home: v.home, env: { ...OFFLINE, ...env } });
      expect(r.status).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(/^mem: invalid (session id|--job|--task)/);
      expect(v.read('MEMORY.md')).toBe('# Memory\n');
      expect(fs.existsSync(v.path('.mem/extracted.jsonl'))).toBe(false);
    }
  });
});

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('14: a killed rebuild leaves nothing behind for long', () => {
  // kill -9 of a running rebuild: test/process/hostile-faults.test.ts.
  it('a leftover of a dead process is removed (and reported by doctor); a live rebuild\'s file is kept', async () => {
    const v = vaultWithEntries();
    const o = { cwd: v.root, home: v.home };
    await indexVault(v);
    const dead = deadPid();
    const big = Buffer.alloc(3 << 20, 1);
    fs.writeFileSync(v.path(`.memory.db.rebuild-${dead}`), big);
    fs.writeFileSync(v.path(`.memory.db.rebuild-${dead}-journal`), 'j');
    // This test process is alive: its "rebuild" is in progress and must be left alone.
    fs.writeFileSync(v.path(`.memory.db.rebuild-${process.pid}`), 'live');
    const doc = await run(['doctor'], o);
    clean(doc.stderr);
    expect(doc.stdout).toMatch(new RegExp(`rebuild files +removed what killed rebuilds left: \\.memory\\.db\\.rebuild-${dead} \\(3\\.0 MB\\)`));
    expect(doc.stdout).toMatch(new RegExp(`a rebuild is running \\(pid ${process.pid}\\)`));
    expect(leftovers(v)).toEqual([`.memory.db.rebuild-${process.pid}`]);
    fs.writeFileSync(v.path(`.memory.db.rebuild-${dead}`), big);
    const s = await run(['search', 'kafka', '--ids'], o);
    expect(s.status).toBe(0);
    expect(leftovers(v)).toEqual([`.memory.db.rebuild-${process.pid}`]);
    // Files that only look alike are not touched.
    fs.writeFileSync(v.path('.memory.db.rebuild-notes'), 'mine');
    await run(['search', 'kafka'], o);
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
  async function twenty(): Promise<TempVault> {
    const v = tempVault();
    let text = '# Memory\n\n';
    for (let i = 0; i < 20; i++) text += entry(`z${i}`, `The zebra pipeline note ${i}: ${'lorem ipsum dolor sit amet '.repeat(40)}`);
    v.write('MEMORY.md', text);
    await indexVault(v);
    return v;
  }
  const ids = (out: string) => out.split('\n').filter(Boolean);

  for (const how of ['cells', 'empty-leaf', 'zeros'] as const) {
    it(`mem index detects it (${how}), rebuilds with a note, and search returns all 20`, async () => {
      const v = await twenty();
      const o = { cwd: v.root, home: v.home };
      corruptEntriesPage(v.path('.memory.db'), how);
      const doc = await run(['doctor', '--json'], o);
      expect(doc.status).toBe(1);
      expect(doc.json().checks.find((c: { name: string }) => c.name === 'index').detail).toMatch(/^integrity: /);
      const ix = await run(['index'], o);
      expect(ix.status, ix.stderr).toBe(0);
      clean(ix.stderr);
      expect(ix.stderr).toMatch(/mem: warning: \.memory\.db (failed its integrity check|was corrupt)/);
      expect(ix.stdout).toMatch(/20 entries/);
      expect(ids((await run(['search', 'zebra pipeline', '--ids', '--limit', '50'], o)).stdout)).toHaveLength(20);
      expect((await run(['doctor'], o)).status).toBe(0);
    });

    it(`mem search alone notices it (${how}) and answers with all 20`, async () => {
      const v = await twenty();
      corruptEntriesPage(v.path('.memory.db'), how);
      const s = await run(['search', 'zebra pipeline', '--ids', '--limit', '50'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      clean(s.stderr);
      expect(ids(s.stdout)).toHaveLength(20);
      // Written since mem closed it: checked when opened.
      expect(s.stderr).toMatch(/mem: warning: \.memory\.db failed its integrity check/);
    });

    // Damage no stat shows (a failing disk): mem last saw the file as it is now, so no check runs
    // when it is opened; the query that meets the page rebuilds the index, and mem doctor finds it.
    it(`damage the file's stat does not show (${how}): the search that meets it rebuilds the index`, async () => {
      const v = await twenty();
      corruptEntriesPage(v.path('.memory.db'), how);
      rememberIndexFile(v.path('.memory.db'));
      const s = await run(['search', 'zebra pipeline', '--ids', '--limit', '50'], { cwd: v.root, home: v.home });
      expect(s.status, s.stderr).toBe(0);
      clean(s.stderr);
      expect(ids(s.stdout)).toHaveLength(20);
      expect(s.stderr).toMatch(/mem: warning: \.memory\.db was corrupt; rebuilt it from the markdown/);
    });

    it(`damage the file's stat does not show (${how}): mem doctor checks always, and the next mem index rebuilds`, async () => {
      const v = await twenty();
      const o = { cwd: v.root, home: v.home };
      corruptEntriesPage(v.path('.memory.db'), how);
      rememberIndexFile(v.path('.memory.db'));
      const doc = await run(['doctor', '--json'], o);
      expect(doc.status).toBe(1);
      expect(doc.json().checks.find((c: { name: string }) => c.name === 'index').detail).toMatch(/^integrity: /);
      const ix = await run(['index'], o);
      expect(ix.status, ix.stderr).toBe(0);
      expect(ix.stderr).toMatch(/mem: warning: \.memory\.db failed its integrity check/);
      expect(ix.stdout).toMatch(/20 entries/);
      expect((await run(['doctor'], o)).status).toBe(0);
    });
  }
});

describe('16: special files as transcripts, and init where no vault can live', () => {
  // Opening a FIFO that no one writes to never returns: a mem that answers at all did not open it.

  it.skipIf(!POSIX)('a FIFO given as the transcript is an error before it is opened; "-" still reads stdin', async () => {
    const v = tempVault();
    const o = { cwd: v.root, home: v.home, env: OFFLINE };
    const fifo = path.join(tempDir(), 'session.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const r = await run(['extract', fifo], o);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(`mem: ${fifo} is not a regular file (a FIFO)`);
    clean(r.stderr);
    const dev = await run(['extract', '/dev/null'], o);
    expect(dev.status).toBe(1);
    expect(dev.stderr.split('\n')[0]).toBe('mem: /dev/null is not a regular file (a character device)');
    const viaLink = path.join(tempDir(), 'link.jsonl');
    fs.symlinkSync(fifo, viaLink);
    const l = await run(['extract', viaLink], o);
    expect(l.status).toBe(1);
    expect(l.stderr).toMatch(/is not a regular file \(a FIFO\)/);
    const stdin = await run(['extract', '-', '--json'], { ...o, input: fs.readFileSync(SAMPLE, 'utf8') });
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
      const r = await run(['extract', dir, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/mem: warning: skipped pipe\.jsonl \(a FIFO\): not a regular file/);
      expect(r.stderr).toMatch(/mem: warning: skipped sock\.jsonl \(a socket\): not a regular file/);
      const out = r.json();
      expect(out.transcripts).toHaveLength(1);
      expect(out.transcripts[0].written.length).toBeGreaterThan(0);
      expect(out.not_regular.sort()).toEqual(['pipe.jsonl (a FIFO)', 'sock.jsonl (a socket)']);
    } finally {
      server.close();
    }
  });

  it.skipIf(!POSIX)('a FIFO as the extraction ledger is refused before anything is written, never blocks', async () => {
    const v = tempVault();
    expect(spawnSync('mkfifo', [v.path('.mem/extracted.jsonl')]).status).toBe(0);
    const r = await run(['extract', SAMPLE], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('mem: .mem/extracted.jsonl is not a regular file');
    expect(fs.existsSync(v.path('MEMORY.md'))).toBe(false);
    clean(r.stderr);
  });

  it('init where something is in the way refuses before writing anything', async () => {
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
      const r = await run(['--root', root, 'init'], { cwd: root });
      expect(r.status, name).toBe(1);
      expect(r.stderr.split('\n')[0], name).toMatch(message);
      clean(r.stderr);
      expect(fs.readdirSync(root).sort(), name).toEqual(before);
    }
  });
});
