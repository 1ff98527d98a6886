// The one opener of files mem reads (vault/read.ts): regular files only, without blocking, under a
// size cap, never through a link out of the folders it is confined to.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isFailure, readRegularBytes, readRegularFile, readRegularText, readVaultText } from '../../src/vault/read.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);

describe('readRegularBytes', () => {
  it('reads a file up to its cap, exactly at it too, and refuses one byte more', () => {
    const dir = tempDir();
    const f = path.join(dir, 'a.txt');
    fs.writeFileSync(f, 'x'.repeat(100));
    expect((readRegularBytes(f, 100) as Buffer).length).toBe(100);
    expect(readRegularBytes(f, 99)).toMatchObject({ kind: 'too-large' });
    fs.writeFileSync(f, '');
    expect((readRegularBytes(f, 10) as Buffer).length).toBe(0);
  });

  it('a file that says size 0 and holds more is still capped (files under /proc)', () => {
    const p = '/proc/self/status';
    if (!fs.existsSync(p)) return;
    expect(fs.statSync(p).size).toBe(0);
    expect(readRegularBytes(p, 16)).toMatchObject({ kind: 'too-large' });
    expect((readRegularBytes(p, 1 << 20) as Buffer).toString()).toMatch(/^Name:/);
  });

  it('refuses a folder, a device and a missing file, each with its reason', () => {
    const dir = tempDir();
    expect(readRegularBytes(dir, 10)).toMatchObject({ error: 'not a regular file (a folder)' });
    expect(readRegularBytes(path.join(dir, 'nope'), 10)).toMatchObject({ kind: 'missing' });
    if (fs.existsSync('/dev/zero')) expect(readRegularBytes('/dev/zero', 10)).toMatchObject({ kind: 'special', error: 'not a regular file (a character device)' });
  });

  it.runIf(process.platform !== 'win32')('refuses a FIFO without waiting for a writer', () => {
    const fifo = path.join(tempDir(), 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Blocking here would hang the test run: the test's timeout is the failure signal.
    const r = readRegularBytes(fifo, 10);
    expect(isFailure(r) && r.error).toBe('not a regular file (a FIFO)');
    expect(readVaultText(fifo)).toEqual({ error: 'not a regular file (a FIFO)' });
    expect(() => readRegularFile(fifo, { maxBytes: 10, display: 'the pipe', within: [] })).toThrow(/^the pipe is not a regular file \(a FIFO\); mem reads only regular files$/);
  });
});

describe('readRegularFile', () => {
  it('never reads through a link out of the folder it is confined to; a link inside is read', () => {
    const base = tempDir();
    const root = path.join(base, 'root');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(base, 'secret.txt'), 'SECRET');
    fs.writeFileSync(path.join(root, 'real.md'), 'inside');
    fs.symlinkSync(path.join(base, 'secret.txt'), path.join(root, 'out.md'));
    fs.symlinkSync('real.md', path.join(root, 'in.md'));
    expect(() => readRegularFile(path.join(root, 'out.md'), { maxBytes: 100, display: 'out.md', within: [root] })).toThrow(/^refusing to read out\.md: it leads out of the vault through a symlink/);
    expect(readRegularText(path.join(root, 'in.md'), { maxBytes: 100, within: [root] })).toBe('inside');
    // A file named outside every confining folder is the caller's own choice.
    expect(readRegularText(path.join(base, 'secret.txt'), { maxBytes: 100, within: [root] })).toBe('SECRET');
  });

  it('says the file, the cap and the hint; text drops a BOM and refuses invalid UTF-8', () => {
    const dir = tempDir();
    const f = path.join(dir, 'big.txt');
    fs.writeFileSync(f, 'y'.repeat(3 << 20));
    expect(() => readRegularFile(f, { maxBytes: 1 << 20, display: 'big.txt', within: [], hint: 'use a smaller one' })).toThrow(/^cannot read big\.txt: file is over 1 MB/);
    fs.writeFileSync(f, '\ufeffhello');
    expect(readRegularText(f, { maxBytes: 100, within: [] })).toBe('hello');
    fs.writeFileSync(f, Buffer.from([0x61, 0xff, 0x62]));
    expect(() => readRegularText(f, { maxBytes: 100, display: 'f', within: [] })).toThrow(/^cannot read f: not valid UTF-8/);
  });
});
