// Bad input end to end: one `mem: …` line, the right exit code, no stack trace, no user file changed.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, mem, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

function snapshot(v: TempVault): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (!d.name.startsWith('.memory.db') && !p.includes(`${path.sep}sessions${path.sep}`)) out[path.relative(v.root, p)] = createHash('sha1').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(v.root);
  return out;
}

function setup() {
  const v = tempVault();
  v.write('MEMORY.md', `# Memory\n\n${entry('good1', '## Kafka lag\nConsumers lag when partitions are few.')}${entry('good2', '## Redis\nEviction is allkeys-lru.')}`);
  const run = (args: string[], input?: string, env?: Record<string, string>) => mem(args, { cwd: v.root, home: v.home, input, env });
  return { v, run };
}

function noStack(stderr: string) {
  expect(stderr).not.toMatch(/^\s+at /m);
}

describe('bad input', () => {
  it('malformed YAML: warning with file:line, other entries indexed, file untouched', () => {
    const { v, run } = setup();
    v.write('memory/broken.md', `${entry('ok3', 'Postgres vacuum runs nightly.')}---\nid: bad\ntags: [oops\n---\nbroken entry\n\n${entry('ok4', 'Postgres replicas lag.')}`);
    const before = snapshot(v);
    const r = run(['search', 'postgres', '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: malformed YAML in entry header: .*\(memory\/broken\.md:\d+\)$/m);
    expect(r.json().results.map((h: { id: string }) => h.id).sort()).toEqual(['ok3', 'ok4']);
    const lint = run(['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout).toMatch(/^memory\/broken\.md:\d+: malformed YAML/m);
    expect(snapshot(v)).toEqual(before);
  });

  it('duplicate ids: lint names both places; search and show still work', () => {
    const { v, run } = setup();
    v.write('memory/dup.md', entry('good1', 'A copy with the same id.'));
    const lint = run(['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout).toContain('MEMORY.md:3: duplicate id "good1" (also at memory/dup.md:1)');
    const show = run(['show', 'good1']);
    expect(show.status).toBe(0);
    expect(show.stderr).toMatch(/appears 2 times/);
    expect(run(['search', 'kafka']).status).toBe(0);
  });

  it('binary and non-UTF-8 files are skipped with a warning', () => {
    const { v, run } = setup();
    v.write('memory/image.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a]));
    v.write('memory/latin1.md', Buffer.concat([Buffer.from('# Notes\n\nna'), Buffer.from([0xef, 0x76]), Buffer.from('e\n')]));
    const r = run(['index']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('mem: warning: binary file (contains NUL bytes); skipped (memory/image.md)');
    expect(r.stderr).toContain('mem: warning: not valid UTF-8; skipped (memory/latin1.md:3)');
    expect(r.stdout).toMatch(/2 entries/);
    const lint = run(['lint']);
    expect(lint.stdout).toContain('memory/latin1.md:3: not valid UTF-8');
  });

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

  it('no vault: one line and a hint, exit 1', () => {
    const dir = tempDir();
    const r = mem(['search', 'x'], { cwd: dir, home: dir });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^mem: no vault found/);
    expect(r.stderr).toMatch(/^hint: /m);
    noStack(r.stderr);
  });

  it('empty, stopword-only and 1 MB queries', () => {
    const { run } = setup();
    const empty = run(['search', '   ']);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/^mem: empty query/);
    const stop = run(['search', 'what is the', '--json']);
    expect(stop.status).toBe(0);
    expect(stop.json().results).toEqual([]);
    expect(stop.stderr).toMatch(/only common words/);
    const words = Array.from({ length: 120_000 }, (_, i) => `w${i % 5000} kafka`).join(' ');
    expect(words.length).toBeGreaterThan(1_000_000);
    // Its speed is in the bench (npm run bench: a 1 MB query against one of half the size).
    const big = run(['search', '-', '--json'], words);
    expect(big.status).toBe(0);
    expect(big.stderr).toMatch(/more than 64 distinct terms/);
    const batch = run(['search', '--batch', '-', '--json'], `${JSON.stringify({ id: 'big', query: words })}\n`);
    expect(batch.status).toBe(0);
    expect(JSON.parse(batch.stdout).id).toBe('big');
    noStack(big.stderr + batch.stderr);
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

  it('a corrupt index is rebuilt from the markdown', () => {
    const { v, run } = setup();
    expect(run(['index']).status).toBe(0);
    const junk = Buffer.alloc(8192, 0x41);
    fs.writeFileSync(v.path('.memory.db'), junk);
    fs.rmSync(v.path('.memory.db-wal'), { force: true });
    fs.rmSync(v.path('.memory.db-shm'), { force: true });
    const r = run(['search', 'kafka', '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/corrupt/);
    expect(r.json().results[0].id).toBe('good1');
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

  it('malformed config and bad option values', () => {
    const { v, run } = setup();
    expect(run(['search', 'kafka', '--type', 'bogus']).status).toBe(2);
    expect(run(['search', 'kafka', '--limit', 'ten']).status).toBe(2);
    expect(run(['add', 'x', '--importance', '2']).status).toBe(2);
    expect(run(['search', 'kafka', '--status', 'retired']).status).toBe(2);
    expect(run(['search', 'kafka', '--rank', 'magic']).status).toBe(2);
    v.write('.mem/config.yaml', 'search:\n  limit: [\n');
    const r = run(['search', 'kafka']);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^mem: malformed YAML: .*\(\.mem\/config\.yaml:\d+\)$/);
    noStack(r.stderr);
  });
});
