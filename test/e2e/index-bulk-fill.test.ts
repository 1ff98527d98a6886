// An index that starts empty (none yet, a new index format, a corrupt file replaced) is filled by
// the bulk rebuild beside it when the vault holds 16 MB of markdown or more, row by row below:
// the same answers either way. Only the bulk rebuild records `built_at` in the index's meta table.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

function meta(dbPath: string, key: string): string | undefined {
  const db = new Database(dbPath);
  try {
    return (db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined) ?? undefined;
  } finally {
    db.close();
  }
}

function outdate(dbPath: string): void {
  const db = new Database(dbPath);
  db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema_version'").run();
  db.prepare("DELETE FROM meta WHERE key = 'built_at'").run();
  db.close();
}

async function roundTrip(entries: number) {
  const v = tempVault();
  const filler = 'The deploy needs the VPN and a warm cache before the nightly backup runs. '.repeat(7);
  v.write('MEMORY.md', `# Memory\n\n${Array.from({ length: entries }, (_, i) => entry(`e${i}`, `Learning ${i} about topic${i % 97}: ${filler}`)).join('')}`);
  const dbPath = path.join(v.root, '.memory.db');
  const cli = (args: string[]) => run(args, { cwd: v.root, home: v.home });
  const first = await cli(['search', 'topic42 deploy', '--json']);
  expect(first.status, first.stderr).toBe(0);
  const builtFirst = meta(dbPath, 'built_at');
  outdate(dbPath);
  const again = await cli(['search', 'topic42 deploy', '--json']);
  expect(again.status, again.stderr).toBe(0);
  expect(again.stderr).toMatch(/index format changed \(schema 0 → \d+\); rebuilding \.memory\.db/);
  const ids = (r: typeof first) => (r.json() as { results: { id: string }[] }).results.map((h) => h.id);
  expect(ids(again)).toEqual(ids(first));
  expect(ids(first).length).toBeGreaterThan(0);
  expect(fs.readdirSync(v.root).filter((f) => f.includes('.rebuild-'))).toEqual([]);
  const indexed = await cli(['index', '--json']);
  expect(indexed.json()).toMatchObject({ changed: 0 });
  return { markdown: fs.statSync(v.path('MEMORY.md')).size, builtFirst, builtAgain: meta(dbPath, 'built_at') };
}

describe('an empty index is filled in bulk for a big vault', () => {
  it('16 MB of markdown or more: built beside and renamed into place, the first time and after a format change', async () => {
    const r = await roundTrip(28_000);
    expect(r.markdown).toBeGreaterThan(16 << 20);
    expect(r.builtFirst).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.builtAgain).toMatch(/^\d{4}-\d\d-\d\dT/);
  }, 120_000);

  it('a small vault: row by row in the index itself, the freshness check timed as before', async () => {
    const r = await roundTrip(40);
    expect(r.builtFirst).toBeUndefined();
    expect(r.builtAgain).toBeUndefined();
    const v = tempVault();
    v.write('MEMORY.md', entry('one', 'A single learning.'));
    const first = await run(['index', '--json'], { cwd: v.root, home: v.home });
    expect(first.json()).toMatchObject({ changed: 1, check_ms: expect.any(Number) });
  });
});
