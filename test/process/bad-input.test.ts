// Bad input where another process is the point: a file only another user may read (mem runs as
// nobody when the tests run as root), an index and a memory file locked by another process, with
// MEM_BUSY_TIMEOUT_MS / MEM_LOCK_TIMEOUT_MS making the wait short. One `mem: …` line, the right
// exit code, no stack trace, no user file changed.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { goodVault, noStack } from '../fixtures/bad-input.js';
import { cleanup, entry, mem } from '../helpers.js';

afterEach(cleanup);

const setup = () => goodVault(mem);

describe('bad input', () => {
  it('an unreadable file is skipped with a warning', () => {
    const { v } = setup();
    // root may read any file whatever its mode: then mem runs as nobody, on a vault nobody owns (a
    // link to an unreadable file such as /proc/self/mem leads out of the vault and is never read).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      fs.chmodSync(path.dirname(v.root), 0o755);
      spawnSync('chown', ['-R', '65534:65534', path.dirname(v.root)]);
    }
    const run = (args: string[]) => mem(args, { cwd: v.root, home: v.home, spawn: asRoot ? { uid: 65534, gid: 65534 } : undefined });
    fs.chmodSync(v.write('memory/secret.md', '# Secret\n\nhidden text\n'), 0o000);
    if (asRoot) fs.chownSync(v.path('memory/secret.md'), 65534, 65534);
    const expected = 'mem: warning: file is not readable (permission denied); skipped (memory/secret.md)';
    const r = run(['search', 'kafka', '--json']);
    expect(r.stderr).toContain(expected);
    expect(r.stderr).toMatch(/skipped \(memory\/secret\.md\)/);
    expect(r.status).toBe(0);
    expect(r.json().results[0].id).toBe('good1');
    const lint = run(['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout).toMatch(/^memory\/secret\.md: /m);
  });

  it('a locked index: mem index fails clearly, mem search answers from a temporary index of the markdown', () => {
    const { v, run } = setup();
    expect(run(['index']).status).toBe(0);
    v.write('MEMORY.md', `${v.read('MEMORY.md')}${entry('new1', 'Kafka retention is seven days.')}`);
    const db = new Database(v.path('.memory.db'));
    db.exec('BEGIN IMMEDIATE');
    try {
      const ix = run(['index'], undefined, { MEM_BUSY_TIMEOUT_MS: '200' });
      expect(ix.status).toBe(1);
      expect(ix.stderr.split('\n')[0]).toBe('mem: the index .memory.db is locked by another process');
      noStack(ix.stderr);
      const s = run(['search', 'kafka', '--json'], undefined, { MEM_BUSY_TIMEOUT_MS: '200' });
      expect(s.status).toBe(0);
      expect(s.stderr).toMatch(/locked by another process; answered from a temporary index/);
      expect(s.json().results.map((h: { id: string }) => h.id)).toEqual(expect.arrayContaining(['good1', 'new1']));
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
    expect(run(['search', 'retention', '--ids']).stdout.split('\n')[0]).toBe('new1');
  });

  it('a memory file locked by another writer: mem add waits, then fails and changes nothing', () => {
    const { v, run } = setup();
    fs.writeFileSync(v.path('.MEMORY.md.lock'), `${process.pid}\n`);
    const before = v.read('MEMORY.md');
    const r = run(['add', 'Something new.'], undefined, { MEM_LOCK_TIMEOUT_MS: '200' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: MEMORY\.md is locked by another writer \(pid \d+\)$/m);
    expect(v.read('MEMORY.md')).toBe(before);
    // A lock left by a dead process is stale and taken over.
    fs.writeFileSync(v.path('.MEMORY.md.lock'), '999999999\n');
    expect(run(['add', 'Something new.']).status).toBe(0);
    expect(fs.existsSync(v.path('.MEMORY.md.lock'))).toBe(false);
  });
});
