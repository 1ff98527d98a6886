import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, withFileLock } from '../../src/vault/write.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-write-'));
  dirs.push(d);
  return d;
}

describe('locked writes', () => {
  it('replace the file through its lock: new text, same mode, no lock or temp file left', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    fs.writeFileSync(file, 'old text that is longer than the new one\n');
    fs.chmodSync(file, 0o600);
    const lock = acquireLock(file, 'MEMORY.md');
    expect(fs.readFileSync(path.join(d, '.MEMORY.md.lock'), 'utf8')).toBe(`${process.pid}\n`);
    lock.replace('new\n');
    lock.release(); // nothing left to release
    expect(fs.readFileSync(file, 'utf8')).toBe('new\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(d)).toEqual(['MEMORY.md']);
    // The file can be locked again at once.
    withFileLock(file, (l) => l.replace('again\n'));
    expect(fs.readFileSync(file, 'utf8')).toBe('again\n');
    expect(fs.readdirSync(d)).toEqual(['MEMORY.md']);
  });

  it('create a new file through a temp file, and release without writing leaves the file alone', () => {
    const d = tempDir();
    const file = path.join(d, 'sub', 'new.md');
    withFileLock(file, (l) => l.replace('# New\n'));
    expect(fs.readFileSync(file, 'utf8')).toBe('# New\n');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['new.md']);
    withFileLock(file, () => undefined);
    expect(fs.readFileSync(file, 'utf8')).toBe('# New\n');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['new.md']);
  });

  it('treat a lock holding text as a write in progress, and as left over once it is old', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    fs.writeFileSync(file, 'kept\n');
    const lockFile = path.join(d, '.MEMORY.md.lock');
    fs.writeFileSync(lockFile, '---\nid: half-written\n');
    process.env.MEM_LOCK_TIMEOUT_MS = '100';
    try {
      expect(() => acquireLock(file, 'MEMORY.md')).toThrow(/MEMORY\.md is locked by another writer/);
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(lockFile, old, old);
      withFileLock(file, (l) => l.replace('taken over\n'), 'MEMORY.md');
    } finally {
      delete process.env.MEM_LOCK_TIMEOUT_MS;
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('taken over\n');
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});
