// An index in every bad state a write or a read must survive (locked, read-only, a folder,
// corrupt), the vault they break and the checks on what mem says about them: shared by the
// in-process fault tests and those that need a second process or another user.

import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { entry, REPO, tempVault, type TempVault } from './helpers.js';
import { run } from './run.js';

export const SAMPLE = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');
export const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const POSIX = process.platform !== 'win32';

/** No crash text: no TypeError, no "bug in mem" hint, no stack frames. */
export function clean(stderr: string): void {
  expect(stderr).not.toMatch(/TypeError|Cannot read properties|bug in mem|^\s+at /m);
  // A cause is described once, not wrapped in itself.
  expect(stderr).not.toMatch(/\(the index/);
}

export function warnings(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('mem: warning:'));
}

/** Root ignores file modes: then mem runs as `nobody`, owning the vault, so modes bite. */
export const AS_ROOT = POSIX && process.getuid?.() === 0;
export function unprivileged(v: TempVault): SpawnSyncOptions {
  if (!AS_ROOT) return {};
  spawnSync('chown', ['-R', '65534:65534', path.dirname(v.root)]);
  return { uid: 65534, gid: 65534 };
}

export function vaultWithEntries(): TempVault {
  const v = tempVault();
  v.write('MEMORY.md', `# Memory\n\n${entry('good1', 'Kafka consumers need the SASL config from the vault.')}${entry('good2', 'The staging deploy needs the VPN.')}`);
  return v;
}

/** Build the vault's index (in this process). */
export async function indexVault(v: TempVault): Promise<void> {
  expect((await run(['index', '-q'], { cwd: v.root, home: v.home })).status).toBe(0);
}

export type IndexState = 'locked' | 'read-only' | 'folder' | 'corrupt' | 'corrupt-pages' | 'corrupt-table';

/**
 * Put the vault's index into `state`; returns the options mem must run with and an undo. A
 * locked or read-only index bites only a mem in another process (the lock wait is read from that
 * process's environment) or run as another user (root ignores modes).
 */
export async function breakIndex(v: TempVault, state: IndexState): Promise<{ spawn: SpawnSyncOptions; env: Record<string, string>; release: () => void }> {
  const db = v.path('.memory.db');
  await indexVault(v);
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

/** The rebuild files beside the index. */
export function leftovers(v: TempVault): string[] {
  return fs.readdirSync(v.root).filter((n) => n.startsWith('.memory.db.rebuild-'));
}
