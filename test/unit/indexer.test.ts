import Database from 'better-sqlite3';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openIndex, SCHEMA_VERSION, type Db } from '../../src/index/db.js';
import { applyRefresh, planRefresh, rebuildIndex } from '../../src/index/indexer.js';
import { withIndex } from '../../src/index/open.js';
import { openVault, type Vault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';

afterEach(cleanup);

async function setup() {
  const v = tempVault();
  v.write('MEMORY.md', `# Memory\n\n${entry('a1', '## Migrations\nRun migrations before tests.')}${entry('a2', 'Deploys need the VPN.')}`);
  v.write('memory/notes.md', '# Notes\n\n## Cache\nThe cache lives in redis.\n');
  const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
  return { v, vault };
}

function refresh(vault: Vault) {
  const { db } = openIndex(vault.dbPath);
  try {
    return applyRefresh(db, planRefresh(db, vault));
  } finally {
    db.close();
  }
}

function rows(vault: Vault, sql: string, ...params: unknown[]) {
  const db = new Database(vault.dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params);
  } finally {
    db.close();
  }
}

describe('the refresh check before every search', () => {
  const later = () => Date.now() + 60_000; // past the racy window, as if the folders had been still
  const old = new Date(Date.now() - 3_600_000);

  async function memoVault() {
    const v = tempVault();
    v.write('MEMORY.md', entry('m1', 'Root learning about caches.'));
    v.write('memory/a.md', entry('a1', 'Alpha note about queues.'));
    v.write('memory/sub/b.md', entry('b1', 'Beta note about retries.'));
    v.write('.mem/jobs/j1/MEMORY.md', entry('j1', 'Job learning about deploys.'));
    v.write('docs/extra.md', '# Extra\n\n## Tips\nPlain include file.\n');
    v.write('.mem/config.yaml', 'include:\n  - docs/extra.md\n  - notes/**/*.md\n');
    for (const f of ['MEMORY.md', 'memory/a.md', 'memory/sub/b.md', '.mem/jobs/j1/MEMORY.md', 'docs/extra.md']) fs.utimesSync(`${v.root}/${f}`, old, old);
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    const { db } = openIndex(vault.dbPath);
    applyRefresh(db, planRefresh(db, vault, later));
    return { v, vault, db };
  }

  const work = (p: ReturnType<typeof planRefresh>) => p.work.map((w) => w.file.path).sort();
  const settle = (db: Db, vault: Vault) => {
    const p = planRefresh(db, vault, later);
    applyRefresh(db, p);
    for (const w of p.work) fs.utimesSync(w.file.abs, old, old);
    applyRefresh(db, planRefresh(db, vault, later));
    expect(planRefresh(db, vault, later).work).toEqual([]);
  };

  it('memoises the walk and digests the stats, and finds nothing to do when nothing changed', async () => {
    const { db, vault } = await memoVault();
    try {
      const meta = (k: string) => db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(k) as string;
      expect(meta('walk_memo')).toContain('memory/sub/b.md');
      expect(meta('stat_digest')).toMatch(/^\d+\.\d+\.5$/);
      const p = planRefresh(db, vault, later);
      expect(p).toEqual({ work: [], removed: [], files: 5 });
      // A wrong stored digest (an older mem's) costs one full check, which stores the right one.
      db.prepare("UPDATE meta SET value = 'stale' WHERE key = 'stat_digest'").run();
      const full = planRefresh(db, vault, later);
      expect(full.work).toEqual([]);
      applyRefresh(db, full);
      expect(meta('stat_digest')).toMatch(/^\d+\.\d+\.5$/);
      // The fast path trusts the digest: it does not even read the files table.
      db.prepare("DELETE FROM files WHERE path = 'memory/a.md'").run();
      expect(planRefresh(db, vault, later).work).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('notices every kind of change behind the memo', async () => {
    const { v, db, vault } = await memoVault();
    try {
      v.write('memory/a.md', entry('a1', 'Alpha note about queues, edited.'));
      expect(work(planRefresh(db, vault, later))).toEqual(['memory/a.md']);
      settle(db, vault);
      v.write('memory/sub/c.md', entry('c1', 'A new note.'));
      expect(work(planRefresh(db, vault, later))).toEqual(['memory/sub/c.md']);
      settle(db, vault);
      fs.rmSync(`${v.root}/memory/sub/b.md`);
      expect(planRefresh(db, vault, later).removed.map((r) => r.path)).toEqual(['memory/sub/b.md']);
      settle(db, vault);
      v.write('.teaparty/jobs/t1/MEMORY.md', entry('t1', 'A job in a folder that did not exist.'));
      expect(work(planRefresh(db, vault, later))).toEqual(['.teaparty/jobs/t1/MEMORY.md']);
      settle(db, vault);
      v.write('institutional.md', entry('i1', 'A norm at the root.'));
      expect(work(planRefresh(db, vault, later))).toEqual(['institutional.md']);
      settle(db, vault);
      v.write('notes/n.md', '# N\n\n## One\nA note under a new include folder.\n');
      expect(work(planRefresh(db, vault, later))).toEqual(['notes/n.md']);
      settle(db, vault);
      fs.rmSync(`${v.root}/docs/extra.md`);
      expect(planRefresh(db, vault, later).removed.map((r) => r.path)).toEqual(['docs/extra.md']);
      settle(db, vault);
      // Same size, same mtime put back: the ctime still moves.
      const st = fs.statSync(`${v.root}/memory/a.md`);
      fs.writeFileSync(`${v.root}/memory/a.md`, fs.readFileSync(`${v.root}/memory/a.md`, 'utf8').replace('Alpha', 'Omega'));
      fs.utimesSync(`${v.root}/memory/a.md`, st.atime, st.mtime);
      expect(work(planRefresh(db, vault, later))).toEqual(['memory/a.md']);
    } finally {
      db.close();
    }
  });
});

describe('indexer', () => {
  it('indexes entries and note chunks with metadata, never frontmatter as text', async () => {
    const { vault } = await setup();
    const r = refresh(vault);
    expect(r.changed).toBe(2);
    expect(rows(vault, 'SELECT entry_id, kind, scope FROM entries ORDER BY path, ordinal')).toEqual([
      { entry_id: 'a1', kind: 'entry', scope: 'project' },
      { entry_id: 'a2', kind: 'entry', scope: 'project' },
      { entry_id: 'memory/notes.md#notes', kind: 'note', scope: 'project' },
      { entry_id: 'memory/notes.md#cache', kind: 'note', scope: 'project' },
    ]);
    // "procedural" is only in the frontmatter: it must not match.
    expect(rows(vault, "SELECT rowid FROM entries_fts WHERE entries_fts MATCH 'procedural'")).toEqual([]);
    expect(rows(vault, "SELECT rowid FROM entries_fts WHERE entries_fts MATCH 'migrations'")).toHaveLength(2); // a1 body + a2 context
  });

  it('is incremental: unchanged stat → nothing; same content → no reparse; deleted → purged', async () => {
    const { v, vault } = await setup();
    refresh(vault);
    // Files just written are "racy" (mtime within 2 s), so force their stat into the past.
    const old = new Date(Date.now() - 60_000);
    for (const f of ['MEMORY.md', 'memory/notes.md']) fs.utimesSync(v.path(f), old, old);
    refresh(vault);
    const { db } = openIndex(vault.dbPath);
    expect(planRefresh(db, vault).work).toHaveLength(0);
    db.close();
    const t = new Date(Date.now() - 30_000);
    fs.utimesSync(v.path('MEMORY.md'), t, t);
    const r1 = refresh(vault);
    expect(r1.changed).toBe(0); // hash unchanged
    v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('a3', 'A third entry about kafka.')}`);
    const r2 = refresh(vault);
    expect(r2.changed).toBe(1);
    expect(rows(vault, "SELECT entry_id FROM entries WHERE entry_id = 'a3'")).toHaveLength(1);
    fs.rmSync(v.path('memory/notes.md'));
    const r3 = refresh(vault);
    expect(r3.removed).toBe(1);
    expect(rows(vault, "SELECT count(*) AS n FROM entries WHERE path = 'memory/notes.md'")).toEqual([{ n: 0 }]);
    expect(rows(vault, "SELECT count(*) AS n FROM entries_fts WHERE entries_fts MATCH 'redis'")).toEqual([{ n: 0 }]);
  });

  it("keeps neighbours' context in step: an edited entry changes the context rows of the entries beside it", async () => {
    const v = tempVault();
    const turns = ['We met at the harbour.', 'The ferry was late again.', 'Then we took the train home.', 'It rained all evening.', 'Next day was sunny.'];
    v.write('memory/chat.md', turns.map((t, i) => entry(`t${i}`, t)).join(''));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    refresh(vault);
    const match = (w: string) => (rows(vault, 'SELECT e.entry_id AS id FROM entries_fts f JOIN entries e ON e.rowid = f.rowid WHERE entries_fts MATCH ? ORDER BY id', w) as { id: string }[]).map((r) => r.id);
    expect(match('ferry')).toEqual(['t0', 't1', 't2', 't3']); // t1 itself, and the context of two on each side
    v.write('memory/chat.md', v.read('memory/chat.md').replace('The ferry was late again.', 'The bus was late again.'));
    refresh(vault);
    expect(match('ferry')).toEqual([]);
    expect(match('bus')).toEqual(['t0', 't1', 't2', 't3']);
    // A longer body leaves less room for context: the far neighbour drops out of t2's context.
    v.write('memory/chat.md', v.read('memory/chat.md').replace('Then we took the train home.', `Then we took the train home. ${'Long story. '.repeat(95)}`));
    refresh(vault);
    const dump = () => rows(vault, 'SELECT entry_id, fts_hash, row_hash FROM entries ORDER BY ordinal');
    const ctx = (w: string) => match(w);
    const incremental = { rows: dump(), harbour: ctx('harbour'), sunny: ctx('sunny'), bus: ctx('bus') };
    await rebuildIndex(vault);
    expect({ rows: dump(), harbour: ctx('harbour'), sunny: ctx('sunny'), bus: ctx('bus') }).toEqual(incremental);
  });

  it('applies a plan made before another process indexed the same files: no duplicate, no constraint error', async () => {
    const { vault } = await setup();
    const a = openIndex(vault.dbPath).db;
    const b = openIndex(vault.dbPath).db;
    try {
      const stale = planRefresh(a, vault);
      expect(stale.work).toHaveLength(2);
      applyRefresh(b, planRefresh(b, vault)); // the other process wins the race
      const r = applyRefresh(a, stale);
      expect(r.changed).toBe(0);
      expect(rows(vault, 'SELECT entry_id FROM entries ORDER BY entry_id')).toEqual(
        rows(vault, 'SELECT DISTINCT entry_id FROM entries ORDER BY entry_id'),
      );
      expect(rows(vault, 'SELECT count(*) AS n FROM files')).toEqual([{ n: 2 }]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('catches a same-size edit within the racy window', async () => {
    const { v, vault } = await setup();
    refresh(vault);
    const text = v.read('MEMORY.md').replace('VPN', 'XYZ');
    const st = fs.statSync(v.path('MEMORY.md'));
    fs.writeFileSync(v.path('MEMORY.md'), text);
    fs.utimesSync(v.path('MEMORY.md'), st.atime, st.mtime);
    refresh(vault);
    expect(rows(vault, "SELECT entry_id FROM entries WHERE body LIKE '%XYZ%'")).toEqual([{ entry_id: 'a2' }]);
  });

  it('rebuilds into a temp file and renames it into place', async () => {
    const { vault } = await setup();
    refresh(vault);
    const before = fs.statSync(vault.dbPath).ino;
    const r = await rebuildIndex(vault);
    expect(r.entries).toBe(4);
    expect(fs.statSync(vault.dbPath).ino).not.toBe(before);
    expect(fs.readdirSync(vault.root).filter((f) => f.includes('rebuild'))).toEqual([]);
    expect(rows(vault, "SELECT value FROM meta WHERE key = 'schema_version'")).toEqual([{ value: SCHEMA_VERSION }]);
  });

  it('rebuilds automatically on a schema version mismatch', async () => {
    const { vault } = await setup();
    refresh(vault);
    const db = new Database(vault.dbPath);
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema_version'").run();
    db.close();
    const res = openIndex(vault.dbPath);
    expect(res.recreated).toBe('version');
    res.db.close();
  });

  it('recovers from a corrupt index file', async () => {
    const { vault } = await setup();
    fs.writeFileSync(vault.dbPath, 'this is not a database'.repeat(100));
    const n = await withIndex(vault, {}, (ix) => {
      expect(ix.notes.join(' ')).toMatch(/corrupt/);
      return (ix.db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n;
    });
    expect(n).toBe(4);
  });

  it('skips binary and non-UTF-8 files with a warning and indexes the rest', async () => {
    const { v, vault } = await setup();
    v.write('memory/bin.md', Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]));
    v.write('memory/latin1.md', Buffer.concat([Buffer.from('# ok\nline two\ncaf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const r = refresh(vault);
    const msgs = r.diagnostics.map((d) => `${d.file}:${d.line ?? ''} ${d.message}`);
    expect(msgs).toContain('memory/bin.md: binary file (contains NUL bytes); skipped');
    expect(msgs).toContain('memory/latin1.md:3 not valid UTF-8; skipped');
    expect(rows(vault, 'SELECT count(*) AS n FROM entries')).toEqual([{ n: 4 }]);
  });
});
