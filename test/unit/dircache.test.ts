import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWalkMemo, DirCache } from '../../src/vault/dircache.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);

const names = (items: readonly { name: string }[]) => items.map((d) => d.name).sort();
const later = () => Date.now() + 60_000; // a clock past the racy window

describe('DirCache', () => {
  it('reuses a still folder listing, with entry kinds, and notices added and removed names', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.md'), 'a');
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.symlinkSync('a.md', path.join(dir, 'link.md'));
    const first = new DirCache(null, later);
    expect(names(first.read(dir))).toEqual(['a.md', 'link.md', 'sub']);
    expect(first.changed).toBe(true);

    const second = new DirCache(first.serialize(), later);
    const items = second.read(dir);
    expect(second.changed).toBe(false); // served from the cache
    const byName = Object.fromEntries(items.map((d) => [d.name, d]));
    expect(byName['sub'].isDirectory()).toBe(true);
    expect(byName['a.md'].isFile()).toBe(true);
    expect(byName['link.md'].isSymbolicLink()).toBe(true);

    fs.writeFileSync(path.join(dir, 'b.md'), 'b');
    fs.rmSync(path.join(dir, 'a.md'));
    const third = new DirCache(second.serialize(), later);
    expect(names(third.read(dir))).toEqual(['b.md', 'link.md', 'sub']);
    expect(third.changed).toBe(true);
  });

  it('notices a change even when the folder mtime is put back (ctime moves)', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.md'), 'a');
    const st = fs.statSync(dir);
    const first = new DirCache(null, later);
    first.read(dir);
    fs.writeFileSync(path.join(dir, 'b.md'), 'b');
    fs.utimesSync(dir, st.atime, st.mtime);
    expect(names(new DirCache(first.serialize(), later).read(dir))).toEqual(['a.md', 'b.md']);
  });

  it('does not keep listings of folders changed within the racy window', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.md'), 'a');
    // A clock a moment after the change, however long this machine took to get here.
    const st = fs.statSync(dir);
    const cache = new DirCache(null, () => Math.max(st.mtimeMs, st.ctimeMs) + 100);
    expect(names(cache.read(dir))).toEqual(['a.md']);
    expect(JSON.parse(cache.serialize())).toEqual({});
  });

  it('drops folders no longer visited or gone, and survives a damaged saved value', () => {
    const dir = tempDir();
    const gone = path.join(dir, 'gone');
    fs.mkdirSync(gone);
    const first = new DirCache(null, later);
    first.read(dir);
    first.read(gone);
    fs.rmSync(gone, { recursive: true });
    const second = new DirCache(first.serialize(), later);
    expect(second.read(gone)).toEqual([]);
    second.read(dir);
    expect(second.changed).toBe(true);
    expect(Object.keys(JSON.parse(second.serialize()))).toHaveLength(1);
    fs.writeFileSync(path.join(dir, 'x.md'), 'x');
    expect(names(new DirCache('{not json', later).read(dir))).toEqual(['x.md']);
  });

  it('a walk memo holds while its folders are unchanged, and a damaged one is ignored', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'sub'));
    const cache = new DirCache(null, later);
    cache.read(dir);
    cache.read(path.join(dir, 'sub'));
    const elsewhere = tempDir(); // not read by the walk: only the missing folder in it is
    cache.read(path.join(elsewhere, 'missing'));
    const memo = cache.walkMemo('k', ['a.md', 'sub/b.md'])!;
    expect(checkWalkMemo(memo, 'k')).toBe('a.md\nsub/b.md');
    expect(checkWalkMemo(memo, 'another key')).toBeNull();
    // Checked from the root (relative paths, the working folder put back) the answer is the same.
    const cwd = process.cwd();
    expect(checkWalkMemo(memo, 'k', dir)).toBe('a.md\nsub/b.md');
    expect(process.cwd()).toBe(cwd);
    const m = JSON.parse(memo);
    expect(checkWalkMemo(JSON.stringify({ ...m, dirs: [[42, 0, 0]] }), 'k')).toBeNull(); // the old shape
    expect(checkWalkMemo(JSON.stringify({ ...m, missing: [null] }), 'k')).toBeNull();
    expect(checkWalkMemo(JSON.stringify({ ...m, times: m.times.slice(0, 8) }), 'k')).toBeNull(); // fewer times than folders
    expect(checkWalkMemo(JSON.stringify({ ...m, dirs: `${m.dirs}\n${dir}` }), 'k')).toBeNull(); // more folders than times
    const bytes = Buffer.from(m.times, 'base64');
    const times = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    expect(times.length).toBe(4); // the root and sub, mtime and ctime each
    times[times.length - 1] += 1; // a folder's ctime moved
    expect(checkWalkMemo(JSON.stringify({ ...m, times: Buffer.from(times.buffer).toString('base64') }), 'k', dir)).toBeNull();
    // A memo made for a root keeps the folders under it relative; checked from the root, or (where
    // the working folder cannot be changed) joined to it, the answer is the same.
    const rooted = cache.walkMemo('k', ['a.md', 'sub/b.md'], dir)!;
    expect(JSON.parse(rooted).dirs.split('\n')).toEqual(['.', 'sub']);
    expect(JSON.parse(rooted).missing).toEqual([path.join(elsewhere, 'missing')]);
    expect(checkWalkMemo(rooted, 'k', dir)).toBe('a.md\nsub/b.md');
    const chdir = process.chdir;
    const stuck = () => {
      process.chdir = () => {
        throw new Error('not here');
      };
    };
    stuck();
    try {
      expect(checkWalkMemo(rooted, 'k', dir)).toBe('a.md\nsub/b.md');
    } finally {
      process.chdir = chdir;
    }
    fs.mkdirSync(path.join(elsewhere, 'missing')); // a folder it found missing appeared
    expect(checkWalkMemo(memo, 'k')).toBeNull();
    fs.rmdirSync(path.join(elsewhere, 'missing'));
    expect(checkWalkMemo(memo, 'k')).toBe('a.md\nsub/b.md');
    fs.writeFileSync(path.join(dir, 'sub', 'c.md'), 'c'); // a name added in a folder it read
    expect(checkWalkMemo(memo, 'k')).toBeNull();
    expect(checkWalkMemo(rooted, 'k', dir)).toBeNull();
    stuck();
    try {
      expect(checkWalkMemo(rooted, 'k', dir)).toBeNull();
    } finally {
      process.chdir = chdir;
    }
    expect(process.cwd()).toBe(cwd);
  });
});
