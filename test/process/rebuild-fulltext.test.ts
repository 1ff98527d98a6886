// A rebuild of a big vault loads its full-text table in the parse worker, into a file of its own
// that is copied into the new index at the end (indexer.ts, rebuildIndex). The built CLI only: the
// worker script exists only in dist/. Compared here with the one-thread build that runs from the
// sources (in-process), which writes both tables on one connection.

import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { leftovers } from '../broken-index.js';
import { BIN, cleanup, entry, mem, tempVault, type TempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

/** 90 files (the worker takes plans of 64 files and more): entries, untitled ones whose context is their neighbours', and notes with headings. */
function vault(): TempVault {
  const v = tempVault();
  const words = ['quasar', 'pulsar', 'nebula', 'comet', 'meteor', 'galaxy', 'orbit'];
  for (let f = 0; f < 90; f++) {
    let text = '# Memory\n\n';
    if (f % 10 === 9) {
      for (let s = 0; s < 12; s++) text += `## Section ${f}.${s} on the ${words[(f + s) % 7]} runbook\n\nStep ${s}: restart the ${words[s % 7]} worker after the deploy; caches warm in ${s + 2} minutes.\n\n`;
    } else {
      for (let i = 0; i < 40; i++) {
        const n = f * 40 + i;
        const body = i % 3 === 0 ? `${words[n % 7]} ok` : `Entry ${n} says the ${words[n % 7]} service ${['retries', 'caches', 'logs', 'drops'][n % 4]} requests from region ${n % 13}. ${'More words about the deploy pipeline. '.repeat(n % 5)}`;
        text += entry(`e${n}`, body, n % 11 === 0 ? { importance: 0.9, created_at: '2025-03-04' } : {});
      }
    }
    v.write(f === 0 ? 'MEMORY.md' : `memory/part-${f}.md`, text);
  }
  return v;
}

/** What must be the same: every entry row, FTS5's own tables as stored, and the answers to searches. */
async function snapshot(v: TempVault): Promise<Record<string, unknown>> {
  const db = new Database(v.path('.memory.db'), { readonly: true });
  const sha = (sql: string) => {
    const h = crypto.createHash('sha1');
    for (const row of db.prepare(sql).raw().iterate() as Iterable<unknown[]>) h.update(JSON.stringify(row.map((x) => (Buffer.isBuffer(x) ? x.toString('hex') : x))));
    return h.digest('hex');
  };
  const out: Record<string, unknown> = {
    entries: db.prepare('SELECT count(*) FROM entries').pluck().get(),
    rows: sha('SELECT * FROM entries ORDER BY rowid'),
    files: sha('SELECT * FROM files ORDER BY id'),
    meta: sha("SELECT * FROM meta WHERE key <> 'built_at' ORDER BY key"),
    schema: sha('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name'),
  };
  for (const t of ['entries_fts_data', 'entries_fts_idx', 'entries_fts_docsize', 'entries_fts_config']) out[t] = sha(`SELECT * FROM ${t} ORDER BY 1, 2`);
  out.integrity = db.pragma('integrity_check', { simple: true });
  db.close();
  for (const q of ['quasar', 'deploy caches', 'runbook restart', 'ok']) out[q] = (await run(['search', q, '--ids', '--limit', '200'], { cwd: v.root, home: v.home })).stdout;
  return out;
}

describe('a rebuild whose worker loads the full-text table', () => {
  it('gives the index a one-thread rebuild gives, and leaves no file of its own behind', async () => {
    const v = vault();
    const one = await run(['index', '--rebuild'], { cwd: v.root, home: v.home });
    expect(one.status, one.stderr).toBe(0);
    const reference = await snapshot(v);
    expect(reference.entries).toBeGreaterThan(3000);
    expect(String(reference.quasar).split('\n').filter(Boolean).length).toBeGreaterThan(50);
    // The built CLI, watched for the worker's file: the two-thread build is the one compared.
    const child = spawn(process.execPath, [BIN, 'index', '--rebuild', '--quiet'], { cwd: v.root, env: { ...process.env, MEM_HOME: v.home, NODE_EXTRA_CA_CERTS: undefined }, stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    let sawFullText = false;
    while (child.exitCode === null) {
      if (leftovers(v).some((n) => n.endsWith('-fts'))) sawFullText = true;
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(await exited).toBe(0);
    expect(sawFullText).toBe(true);
    expect(leftovers(v)).toEqual([]);
    expect(await snapshot(v)).toEqual(reference);
  }, 120_000);

  it('a worker that fails leaves the old index in place and removes what the rebuild wrote', async () => {
    const v = vault();
    expect(mem(['index', '--rebuild'], { cwd: v.root, home: v.home }).status).toBe(0);
    const before = await snapshot(v);
    // A folder where the worker's file goes: its creation fails. exec keeps the shell's pid,
    // which names the rebuild's files.
    const dbPath = v.path('.memory.db');
    const r = spawnSync('/bin/sh', ['-c', 'mkdir "$0.rebuild-$$-fts" && exec "$1" "$2" index --rebuild', dbPath, process.execPath, BIN], {
      cwd: v.root, env: { ...process.env, MEM_HOME: v.home, NODE_EXTRA_CA_CERTS: undefined }, encoding: 'utf8', timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^mem: the index worker failed: .*rebuild-\d+-fts/m);
    const left = leftovers(v);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.memory\.db\.rebuild-\d+-fts$/);
    fs.rmdirSync(v.path(left[0]));
    expect(await snapshot(v)).toEqual(before);
  }, 120_000);

  it('the full-text file of a rebuild that was killed is removed by the next command', async () => {
    const v = vault();
    expect(mem(['index'], { cwd: v.root, home: v.home }).status).toBe(0);
    // No process has this pid (above the kernel's limit).
    v.write('.memory.db.rebuild-99999999-fts', 'x'.repeat(4096));
    const s = mem(['search', 'quasar', '--ids'], { cwd: v.root, home: v.home });
    expect(s.status, s.stderr).toBe(0);
    expect(leftovers(v)).toEqual([]);
  });
});
