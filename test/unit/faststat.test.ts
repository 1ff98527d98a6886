import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIR, FILE, MISSING, OTHER, inFolder, statInto } from '../../src/vault/faststat.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);

function expected(p: string): [number, number[]] {
  const s = fs.statSync(p, { throwIfNoEntry: false });
  if (!s) return [MISSING, []];
  return [s.isFile() ? FILE : s.isDirectory() ? DIR : OTHER, [s.mtimeMs, s.ctimeMs, s.size]];
}

describe('statInto', () => {
  it('gives exactly what fs.statSync gives, for every kind of path', () => {
    const d = tempDir();
    fs.writeFileSync(path.join(d, 'a.md'), 'some text\n');
    fs.writeFileSync(path.join(d, 'empty.md'), '');
    fs.mkdirSync(path.join(d, 'sub'));
    fs.symlinkSync('a.md', path.join(d, 'to-file'));
    fs.symlinkSync('sub', path.join(d, 'to-dir'));
    fs.symlinkSync('nowhere', path.join(d, 'dangling'));
    // Sub-millisecond mtimes: the float arithmetic must match fs.statSync's to the last bit.
    fs.utimesSync(path.join(d, 'a.md'), 1_700_000_000.123456, 1_700_000_000.987654);
    const fifo = spawnSync('mkfifo', [path.join(d, 'fifo')]).status === 0;
    const paths = ['a.md', 'empty.md', 'sub', 'to-file', 'to-dir', 'dangling', 'missing', ...(fifo ? ['fifo'] : [])].map((n) => path.join(d, n));
    const out = new Float64Array(6).fill(-1);
    for (const p of [...paths, d]) {
      const [kind, numbers] = expected(p);
      const got = statInto(p, out, 3);
      expect(got, p).toBe(kind);
      if (kind !== MISSING) expect([...out.subarray(3)], p).toEqual(numbers);
      expect([...out.subarray(0, 3)]).toEqual([-1, -1, -1]); // nothing written before `at`
    }
    if (fifo) expect(statInto(path.join(d, 'fifo'), out, 0)).toBe(OTHER);
    // Below a file: an error, as from fs.statSync (which throws it too, throwIfNoEntry or not).
    const below = path.join(d, 'a.md', 'below');
    expect(() => fs.statSync(below, { throwIfNoEntry: false })).toThrow(/ENOTDIR/);
    expect(() => statInto(below, out, 0)).toThrow(/ENOTDIR/);
  });

  it('refuses a path with a NUL, as fs.statSync does, instead of statting a shorter one', () => {
    const d = tempDir();
    fs.writeFileSync(path.join(d, 'a.md'), 'x');
    expect(() => statInto(`${path.join(d, 'a.md')}\u0000.secret`, new Float64Array(3), 0)).toThrow(/null bytes|NUL|\\u0000/i);
  });
});

describe('inFolder', () => {
  it('stats paths under a folder from it, and always puts the working folder back', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'a.md'), 'a');
    const cwd = process.cwd();
    const out = new Float64Array(3);
    const kinds = inFolder(dir, (moved) => {
      expect(moved).toBe(process.platform !== 'win32');
      const at = (p: string) => (moved ? p : path.join(dir, p));
      return [statInto(at('sub/a.md'), out, 0), statInto(at('.'), out, 0), statInto(at('nope'), out, 0)];
    });
    expect(kinds).toEqual([FILE, DIR, MISSING]);
    expect(process.cwd()).toBe(cwd);
    expect(() => inFolder(dir, () => {
      throw new Error('boom');
    })).toThrow('boom');
    expect(process.cwd()).toBe(cwd);
    // A folder that cannot be entered: told so, and nothing moved.
    expect(inFolder(path.join(dir, 'gone'), (moved) => [moved, process.cwd()])).toEqual([false, cwd]);
    expect(process.cwd()).toBe(cwd);
  });
});
