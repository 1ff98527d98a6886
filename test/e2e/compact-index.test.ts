// The index after `mem compact`: a compaction that rewrote most of the vault and changed many of
// its entries rebuilds the index beside the old one (the rows a refresh would leave, the answers
// of a fresh build, the embedding vectors kept); one that rewrote little, or rewrote every file
// but changed few entries, refreshes it; a rebuild that fails leaves the old index, refreshed.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { indexWritten } from '../../src/index/open.js';
import { VECTORS_TABLE } from '../../src/index/vectors-table.js';
import { discoverFiles, openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempDir, tempVault } from '../helpers.js';
import { run as runMem } from '../run.js';

afterEach(cleanup);

const TODAY = '2026-11-25';
const NEAR = [
  'Run the database migrations with the deploy user before restarting the api service on staging hosts.',
  'Run the database migrations with the deploy user before restarting the api service on staging hosts today.',
];

/** Entries with something to compact (a retired entry, a duplicate id, two near-duplicates) and some that stay. */
function fileText(tag: string): string {
  return `# Memory\n\n${entry(`${tag}-keep`, `The ${tag} cache is warmed by the nightly job on the build server.`)}`
    + entry(`${tag}-old`, `An old ${tag} learning.`, { status: 'retired' })
    + entry(`${tag}-dup`, `The ${tag} queue retries three times.`, { importance: 0.3 })
    + entry(`${tag}-dup`, `The ${tag} queue retries three times.`, { importance: 0.8 })
    + entry(`${tag}-m1`, `${NEAR[0]} (${tag})`, { importance: 0.6 })
    + entry(`${tag}-m2`, `${NEAR[1]} (${tag})`, { importance: 0.5 })
    + entry(`${tag}-tail`, `Logs of the ${tag} workers rotate daily.`);
}

function setup() {
  const v = tempVault();
  v.write('MEMORY.md', fileText('alpha'));
  v.write('memory/project/notes.md', fileText('beta'));
  const run = (args: string[], cwd = v.root) => runMem(args, { cwd, home: v.home, env: { MEM_NOW: TODAY } });
  return { v, run };
}

const QUERIES = ['database migrations deploy', 'cache nightly', 'queue retries', 'logs rotate workers', 'alpha', 'beta staging'];

async function answers(run: (args: string[]) => Promise<{ status: number; json(): any }>): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of QUERIES) {
    const r = await run(['search', q, '--no-refresh', '--json', '--limit', '20']);
    expect(r.status).toBe(0);
    out.push(r.json().results.map((x: { id: string; path: string }) => `${x.id}@${x.path}`));
  }
  return out;
}

function rows(dbPath: string): unknown[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(`SELECT e.entry_id, e.path, e.ordinal, e.char_offset, e.line, e.title, e.body, e.content_hash, e.fts_hash, e.row_hash, e.metadata_json,
      f.hash, f.entry_count FROM entries e JOIN files f ON f.id = e.file_id ORDER BY e.path, e.ordinal`).all();
  } finally {
    db.close();
  }
}

function meta(dbPath: string, key: string): string | undefined {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  } finally {
    db.close();
  }
}

describe('the index after mem compact', () => {
  it('rebuilds it when most of the vault was rewritten: the rows of a refresh, the answers of a rebuild, embedding vectors kept', async () => {
    const { v, run } = setup();
    expect((await run(['index'])).status).toBe(0);
    const dbPath = v.path('.memory.db');
    // Vectors as an embedding run leaves them: one for an entry that stays, one for an entry compaction drops.
    const db = new Database(dbPath);
    const hashOf = (id: string) => (db.prepare('SELECT content_hash FROM entries WHERE entry_id = ? LIMIT 1').get(id) as { content_hash: string }).content_hash;
    db.exec(VECTORS_TABLE);
    db.prepare("INSERT INTO meta(key, value) VALUES ('embed_model', 'test-model')").run();
    const insert = db.prepare("INSERT INTO vectors(hash, model, dims, vec) VALUES (?, 'test-model', 2, ?)");
    insert.run(hashOf('alpha-keep'), Buffer.from(new Float32Array([0.6, 0.8]).buffer));
    insert.run(hashOf('alpha-old'), Buffer.from(new Float32Array([1, 0]).buffer));
    db.close();
    expect(meta(dbPath, 'built_at')).toBeUndefined();
    // The same vault and index, refreshed instead of rebuilt after the same compaction.
    const twin = path.join(tempDir(), 'project');
    fs.cpSync(v.root, twin, { recursive: true });

    const r = await run(['compact', '--json']);
    expect(r.status).toBe(0);
    expect(r.json().written.sort()).toEqual(['MEMORY.md', 'memory/project/notes.md']);
    expect(meta(dbPath, 'built_at')).toBeDefined();

    for (const rel of ['MEMORY.md', 'memory/project/notes.md']) fs.copyFileSync(v.path(rel), path.join(twin, rel));
    const vault = await openVault({ root: twin, cwd: twin, env: { HOME: v.home } });
    const refreshed = await indexWritten(vault, discoverFiles(vault));
    expect(refreshed.warning).toBeUndefined();
    const twinDb = path.join(twin, '.memory.db');
    expect(meta(twinDb, 'built_at')).toBeUndefined();

    expect(rows(dbPath)).toEqual(rows(twinDb));
    // Scores as a fresh build gives them: a refresh's deleted full-text rows still count in FTS5's
    // term statistics until its segments merge, so its order of near-equal answers may differ.
    expect((await run(['index', '--rebuild'], twin)).status).toBe(0);
    expect(await answers(run)).toEqual(await answers((args) => run(args, twin)));
    expect((await answers(run))[0].slice(0, 2).sort()).toEqual(['alpha-m1@MEMORY.md', 'beta-m1@memory/project/notes.md']);
    const after = new Database(dbPath, { readonly: true });
    try {
      expect(after.prepare('SELECT hash FROM vectors').pluck().all()).toEqual([rows(dbPath).map((x) => x as { entry_id: string; content_hash: string }).find((x) => x.entry_id === 'alpha-keep')!.content_hash]);
      expect(after.prepare("SELECT value FROM meta WHERE key = 'embed_model'").pluck().get()).toBe('test-model');
    } finally {
      after.close();
    }
  });

  it('refreshes it when the files rewritten are a small part of the vault', async () => {
    const { v, run } = setup();
    // A large file with nothing to compact.
    v.write('memory/project/notes.md', Array.from({ length: 60 }, (_, i) => entry(`big-${i}`, `Fact number ${i} about subsystem ${i * 7} and its owner team ${i % 5}.`)).join(''));
    expect((await run(['index'])).status).toBe(0);
    const r = await run(['compact', '--json']);
    expect(r.json().written).toEqual(['MEMORY.md']);
    expect(meta(v.path('.memory.db'), 'built_at')).toBeUndefined();
    expect((await answers(run))[0][0]).toBe('alpha-m1@MEMORY.md');
  });

  it('refreshes it when every file was rewritten but few of the entries changed', async () => {
    const { v, run } = setup();
    const many = (tag: string) => `# Memory\n\n${Array.from({ length: 40 }, (_, i) => entry(`${tag}-${i}`, `Fact about ${tag}${i}k, ${tag}${i}m and ${tag}${i}q: kept as written.`)).join('')}`
      + entry(`${tag}-old`, `An old ${tag} learning about the cache.`, { status: 'retired' })
      + entry(`${tag}-last`, `The ${tag} cache is flushed on deploy.`);
    v.write('MEMORY.md', many('alpha'));
    v.write('memory/project/notes.md', many('beta'));
    expect((await run(['index'])).status).toBe(0);
    const dbPath = v.path('.memory.db');
    const twin = path.join(tempDir(), 'project');
    fs.cpSync(v.root, twin, { recursive: true });

    const r = await run(['compact', '--json']);
    expect(r.status).toBe(0);
    expect(r.json().written.sort()).toEqual(['MEMORY.md', 'memory/project/notes.md']);
    expect(r.json().retired).toHaveLength(2);
    expect(r.json().merges).toHaveLength(0);
    // Refreshed in place: no rebuild stamp, and the entries away from the dropped one keep their
    // rows (an untitled entry's full-text row holds its neighbours' text, so theirs are new).
    expect(meta(dbPath, 'built_at')).toBeUndefined();
    const db = new Database(dbPath, { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) FROM entries WHERE entry_id LIKE '%-old'").pluck().get()).toBe(0);
      expect(db.prepare('SELECT count(*) FROM entries').pluck().get()).toBe(82);
      expect(db.prepare('SELECT count(*) FROM entries WHERE rowid <= 84').pluck().get()).toBeGreaterThanOrEqual(74);
    } finally {
      db.close();
    }
    // The rows and answers a rebuild of the same files gives.
    for (const rel of ['MEMORY.md', 'memory/project/notes.md']) fs.copyFileSync(v.path(rel), path.join(twin, rel));
    expect((await run(['index', '--rebuild'], twin)).status).toBe(0);
    expect(rows(dbPath)).toEqual(rows(path.join(twin, '.memory.db')));
    expect((await answers(run))[1]).toEqual((await answers((args) => run(args, twin)))[1]);
    expect((await run(['search', 'flushed on deploy', '--ids', '--limit', '2'])).stdout.trim().split('\n').sort()).toEqual(['alpha-last', 'beta-last']);
  });

  it('leaves the old index, refreshed, when the rebuild fails', async () => {
    const { v, run } = setup();
    expect((await run(['index'])).status).toBe(0);
    // Where the new index would be built (this process's id: the CLI runs in it), a folder.
    const blocked = `${v.path('.memory.db')}.rebuild-${process.pid}`;
    fs.mkdirSync(blocked);
    fs.writeFileSync(path.join(blocked, 'x'), 'x');
    const r = await run(['compact', '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(fs.readFileSync(path.join(blocked, 'x'), 'utf8')).toBe('x');
    expect(meta(v.path('.memory.db'), 'built_at')).toBeUndefined();
    expect((await answers(run))[0].slice(0, 2).sort()).toEqual(['alpha-m1@MEMORY.md', 'beta-m1@memory/project/notes.md']);
    expect(await answers(run)).toEqual(await answers((args) => run(args.filter((a) => a !== '--no-refresh'))));
  });
});
