import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { errorCode, indexFault, isBusy, isCorruption, openIndex, openMemoryIndex, quickCheck, rebuildLeftovers, rememberIndexFile, removeRebuildLeftovers } from '../../src/index/db.js';
import { checkSessionId, usableSessionId } from '../../src/extract/session-id.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);

describe('error classification never throws', () => {
  it('takes any thrown value, and reads codes through the cause chain', () => {
    for (const v of [undefined, null, 0, 'text', Symbol('s'), [], {}, new Error('x'), Object.create(null), { code: 5 }, { cause: null }]) {
      expect(errorCode(v)).toBe('');
      expect(isBusy(v)).toBe(false);
      expect(isCorruption(v)).toBe(false);
      expect(indexFault(v)).toBeNull();
    }
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const wrapped = new MemError('the index is locked', { cause: busy });
    expect(isBusy(wrapped)).toBe(true);
    expect(indexFault(new MemError('x', { cause: new MemError('y', { cause: busy }) }))).toBe('locked');
    const loop: { code?: string; cause?: unknown } = {};
    loop.cause = loop;
    expect(errorCode(loop)).toBe('');
  });

  it('names each fault', () => {
    const e = (code: string) => Object.assign(new Error(code), { code });
    expect(indexFault(e('SQLITE_BUSY_SNAPSHOT'))).toBe('locked');
    expect(indexFault(e('SQLITE_READONLY_DBMOVED'))).toBe('read-only');
    expect(indexFault(e('EACCES'))).toBe('read-only');
    expect(indexFault(e('SQLITE_NOTADB'))).toBe('corrupt');
    expect(indexFault(e('SQLITE_CORRUPT_VTAB'))).toBe('corrupt');
    expect(indexFault(e('SQLITE_CANTOPEN'))).toBe('unusable');
    expect(indexFault(e('SQLITE_FULL'))).toBe('unusable');
    expect(indexFault(e('ERR_SOMETHING_ELSE'))).toBeNull();
    expect(indexFault(new RangeError('Invalid string length'))).toBeNull();
  });
});

describe('session ids from transcripts', () => {
  const SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
  it('keeps a valid id as it is', () => {
    for (const id of ['7d1c5a90-3b2e-4f61-9a0d-2c4e8b6f1a37', 's-1', 'a.b_c', 'x'.repeat(128)]) expect(usableSessionId(id)).toBe(id);
  });
  it('makes any other id valid, stable and distinct', () => {
    const bad = ['../../x', '/etc/passwd', '..', '.', '-', 'a/b', 'a\u0000b', 'a\nb', 'a b', 'thread: 42', 'x'.repeat(129), 'é', '\u202e', '💥'.repeat(200), 'a:b'];
    const out = bad.map((b) => usableSessionId(b)!);
    for (const o of out) {
      expect(o).toMatch(SAFE);
      expect(() => checkSessionId(o)).not.toThrow();
    }
    expect(new Set(out).size).toBe(bad.length);
    expect(bad.map((b) => usableSessionId(b))).toEqual(out);
    expect(usableSessionId('../../x')).toMatch(/^x-[0-9a-f]{12}$/);
  });
  it('has none for a missing or blank id', () => {
    expect(usableSessionId(undefined)).toBeUndefined();
    expect(usableSessionId('')).toBeUndefined();
    expect(usableSessionId('  \n')).toBeUndefined();
  });
  it('refuses an invalid explicit id as a usage error, printable on one line', () => {
    try {
      checkSessionId('a\nb\u0000c');
      expect.unreachable();
    } catch (err) {
      expect((err as MemError).exitCode).toBe(2);
      expect((err as MemError).message).toBe('invalid session id "a\\nb\\u0000c"');
    }
  });
});

describe('rebuild leftovers', () => {
  it('lists and removes only the files of dead processes', () => {
    const dir = tempDir();
    const db = path.join(dir, '.memory.db');
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    for (const name of [`.memory.db.rebuild-${dead}`, `.memory.db.rebuild-${dead}-wal`, `.memory.db.rebuild-${process.pid}`, '.memory.db.rebuild-x', '.memory.db.rebuild-12-old', 'other.db.rebuild-1']) {
      fs.writeFileSync(path.join(dir, name), 'x');
    }
    fs.mkdirSync(path.join(dir, `.memory.db.rebuild-${dead}-shm`));
    const seen = rebuildLeftovers(db);
    expect(seen.map((l) => [path.basename(l.file), l.live]).sort()).toEqual([[`.memory.db.rebuild-${dead}`, false], [`.memory.db.rebuild-${dead}-wal`, false], [`.memory.db.rebuild-${process.pid}`, true]].sort());
    expect(removeRebuildLeftovers(db).map((l) => path.basename(l.file)).sort()).toEqual([`.memory.db.rebuild-${dead}`, `.memory.db.rebuild-${dead}-wal`]);
    expect(fs.readdirSync(dir).sort()).toEqual([`.memory.db.rebuild-${dead}-shm`, `.memory.db.rebuild-${process.pid}`, '.memory.db.rebuild-12-old', '.memory.db.rebuild-x', 'other.db.rebuild-1'].sort());
  });
});

describe('temporary and verified indexes', () => {
  it('copies a WAL-mode index into memory, writable, and leaves the file as it was', () => {
    const dir = tempDir();
    const file = path.join(dir, '.memory.db');
    const { db } = openIndex(file);
    db.prepare("INSERT INTO meta(key, value) VALUES ('probe', 'on disk')").run();
    db.close();
    const before = fs.readFileSync(file);
    const copy = openMemoryIndex(file);
    expect(copy.prepare("SELECT value FROM meta WHERE key = 'probe'").pluck().get()).toBe('on disk');
    copy.prepare("UPDATE meta SET value = 'in memory' WHERE key = 'probe'").run();
    expect(quickCheck(copy)).toBe('ok');
    copy.close();
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('starts empty when the file is not an index', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'folder.db'));
    fs.writeFileSync(path.join(dir, 'junk.db'), 'not sqlite at all, just text; '.repeat(300));
    for (const p of [path.join(dir, 'folder.db'), path.join(dir, 'junk.db'), path.join(dir, 'missing.db')]) {
      const m = openMemoryIndex(p);
      expect(m.prepare('SELECT count(*) AS n FROM entries').get()).toEqual({ n: 0 });
      m.close();
    }
    expect(fs.readdirSync(dir).sort()).toEqual(['folder.db', 'junk.db']);
  });
});

describe('a writer killed mid-write', () => {
  /**
   * An index with a damaged page that reads do not notice (rows just vanish). `seen`: mem is then
   * told it last saw the file so, as if the damage came from a failing disk: no stat shows it.
   */
  function damagedIndex(marker: number | null, seen = true): string {
    const dir = tempDir();
    const file = path.join(dir, '.memory.db');
    const { db } = openIndex(file);
    const ins = db.prepare(`INSERT INTO entries(entry_id, file_id, path, ordinal, char_offset, line, kind, scope, learning_type, type, domain, importance, phase, status,
      reinforcement_count, title, body, content_hash, fts_hash, row_hash, metadata_json) VALUES (?, 1, 'MEMORY.md', ?, 0, 1, 'entry', 'project', 'task', 'procedural', 'team', 0.5, 'unknown', 'active', 0, 't', ?, 'h', 'h', 'h', '{}')`);
    for (let i = 0; i < 40; i++) ins.run(`e${i}`, i, 'lorem ipsum '.repeat(60));
    if (marker !== null) db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('writing', ?)").run(String(marker));
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma('wal_checkpoint(TRUNCATE)');
    const leaf = db.prepare("SELECT pageno FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf' ORDER BY pageno").pluck().all()[1] as number;
    db.close();
    const fd = fs.openSync(file, 'r+');
    const buf = Buffer.alloc(pageSize);
    buf[0] = 0x0d; // an empty table leaf: a read does not fail, rows just vanish
    fs.writeSync(fd, buf, 0, pageSize, (leaf - 1) * pageSize);
    fs.closeSync(fd);
    if (seen) rememberIndexFile(file);
    return file;
  }
  const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

  it('leaves a marker that makes the next open verify the file and rebuild it', () => {
    const file = damagedIndex(deadPid());
    const r = openIndex(file);
    expect(r.recreated).toBe('corrupt');
    expect(r.note).toMatch(/failed its integrity check/);
    r.db.close();
  });

  it('a rollback journal left beside it (a write cut short in that mode) makes the next open verify it', () => {
    const file = damagedIndex(null);
    fs.writeFileSync(`${file}-journal`, Buffer.alloc(512));
    const r = openIndex(file);
    expect(r.recreated).toBe('corrupt');
    r.db.close();
  });

  it('costs no check while the marker\'s writer lives, nor without a marker, when the file is as mem left it', () => {
    for (const marker of [process.pid, null]) {
      const r = openIndex(damagedIndex(marker));
      expect(r.recreated).toBeUndefined();
      r.db.close();
    }
  });

  it('a clean close records the file as mem left it; the next open trusts it', () => {
    const file = path.join(tempDir(), '.memory.db');
    openIndex(file).db.close();
    const seen = fs.readFileSync(`${file}-seen`, 'utf8');
    const st = fs.statSync(file, { bigint: true });
    expect(seen).toBe(`${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}\n`);
    const r = openIndex(file);
    expect(r.recreated).toBeUndefined();
    r.db.close();
    expect(fs.readFileSync(`${file}-seen`, 'utf8')).toBe(seen);
  });
});

describe('an index file other than mem last left it is checked before it is trusted', () => {
  const damaged = () => {
    const dir = tempDir();
    const file = path.join(dir, '.memory.db');
    const { db } = openIndex(file);
    const ins = db.prepare(`INSERT INTO entries(entry_id, file_id, path, ordinal, char_offset, line, kind, scope, learning_type, type, domain, importance, phase, status,
      reinforcement_count, title, body, content_hash, fts_hash, row_hash, metadata_json) VALUES (?, 1, 'MEMORY.md', ?, 0, 1, 'entry', 'project', 'task', 'procedural', 'team', 0.5, 'unknown', 'active', 0, 't', ?, 'h', 'h', 'h', '{}')`);
    for (let i = 0; i < 40; i++) ins.run(`e${i}`, i, 'lorem ipsum '.repeat(60));
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const leaf = db.prepare("SELECT pageno FROM dbstat WHERE name = 'entries' AND pagetype = 'leaf' ORDER BY pageno").pluck().all()[1] as number;
    db.close();
    const fd = fs.openSync(file, 'r+');
    const buf = Buffer.alloc(pageSize);
    buf[0] = 0x0d;
    fs.writeSync(fd, buf, 0, pageSize, (leaf - 1) * pageSize);
    fs.closeSync(fd);
    // The damage as mem's own: only what the test changes next can tell the file apart.
    rememberIndexFile(file);
    expect(openIndexRecreated(file)).toBeUndefined();
    return { file, pageSize };
  };
  function openIndexRecreated(file: string): string | undefined {
    const r = openIndex(file);
    r.db.close();
    return r.recreated;
  }
  // Put the times back: the check must come from what the test changed, not from a newer mtime.
  const keepTimes = (file: string, change: () => void) => {
    const st = fs.statSync(file);
    change();
    fs.utimesSync(file, st.atime, st.mtime);
  };

  it('another file in its place (a copy: same bytes, same times, another inode)', () => {
    const { file } = damaged();
    keepTimes(file, () => {
      fs.copyFileSync(file, `${file}.copy`);
      fs.renameSync(`${file}.copy`, file);
    });
    expect(openIndexRecreated(file)).toBe('corrupt');
  });

  it('a file of another size (grown by a page, its times put back)', () => {
    const { file, pageSize } = damaged();
    keepTimes(file, () => fs.appendFileSync(file, Buffer.alloc(pageSize)));
    expect(openIndexRecreated(file)).toBe('corrupt');
  });

  it('a file written since (same size, newer mtime)', () => {
    const { file } = damaged();
    const later = new Date(fs.statSync(file).mtimeMs + 5000);
    fs.utimesSync(file, later, later);
    expect(openIndexRecreated(file)).toBe('corrupt');
  });

  it('a file mem has no record of (one from an older mem, or a record removed)', () => {
    const { file } = damaged();
    fs.rmSync(`${file}-seen`);
    expect(openIndexRecreated(file)).toBe('corrupt');
  });

  it.skipIf(process.platform === 'win32')('a record that is not a small regular file is never read, and is replaced, not written through', () => {
    const { file } = damaged();
    const target = path.join(tempDir(), 'elsewhere.txt');
    fs.writeFileSync(target, 'not mem\'s\n');
    fs.rmSync(`${file}-seen`);
    fs.symlinkSync(target, `${file}-seen`);
    expect(openIndexRecreated(file)).toBe('corrupt');
    expect(fs.readFileSync(target, 'utf8')).toBe('not mem\'s\n');
    expect(fs.lstatSync(`${file}-seen`).isFile()).toBe(true);
    expect(openIndexRecreated(file)).toBeUndefined();
  });

  it('a completed write leaves no marker', async () => {
    const dir = tempDir();
    const file = path.join(dir, '.memory.db');
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '---\nid: a1\n---\nThe cache needs a warm-up.\n');
    const { openVault } = await import('../../src/vault/vault.js');
    const vault = await openVault({ root: dir, cwd: dir, env: process.env });
    const { withIndex } = await import('../../src/index/open.js');
    await withIndex(vault, {}, () => undefined);
    const { db } = openIndex(vault.dbPath);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'writing'").get()).toBeUndefined();
    expect(db.prepare('SELECT count(*) AS n FROM entries').get()).toEqual({ n: 1 });
    db.close();
    expect(vault.dbPath).toBe(file);
  });
});
