import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendConfined, confineWritesTo, resolveReal, staysInside, writeTarget } from '../../src/vault/boundary.js';
import { checkInsideRoot } from '../../src/vault/config.js';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mem-boundary-')));
const root = path.join(base, 'root');
const outside = path.join(base, 'outside');
fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
fs.mkdirSync(outside);
fs.writeFileSync(path.join(root, 'docs', 'memory.md'), '# Memory\n');
fs.writeFileSync(path.join(outside, 'secret.md'), 'secret\n');
fs.symlinkSync('docs/memory.md', path.join(root, 'MEMORY.md'));
fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'out.md'));
fs.symlinkSync('../outside/not-yet.md', path.join(root, 'dangling.md'));
fs.symlinkSync('hop.md', path.join(root, 'loop.md'));
fs.symlinkSync('loop.md', path.join(root, 'hop.md'));
fs.symlinkSync(outside, path.join(root, 'ext'));

afterAll(() => {
  confineWritesTo([]);
  fs.rmSync(base, { recursive: true, force: true });
});

describe('boundary', () => {
  it('resolveReal follows links, dangling ones by hand, and paths that do not exist yet', () => {
    expect(resolveReal(path.join(root, 'MEMORY.md'))).toBe(path.join(root, 'docs', 'memory.md'));
    expect(resolveReal(path.join(root, 'dangling.md'))).toBe(path.join(outside, 'not-yet.md'));
    expect(resolveReal(path.join(root, 'ext', 'a', 'b.md'))).toBe(path.join(outside, 'a', 'b.md'));
    expect(resolveReal(path.join(root, 'new', 'x.md'))).toBe(path.join(root, 'new', 'x.md'));
    expect(resolveReal(path.join(root, 'loop.md'))).toBeNull();
  });

  it('staysInside: inside links yes; out, dangling out, through a linked folder, loops no', () => {
    expect(staysInside(path.join(root, 'MEMORY.md'), root).inside).toBe(true);
    for (const p of ['out.md', 'dangling.md', 'ext/x.md', 'loop.md']) expect(staysInside(path.join(root, p), root).inside, p).toBe(false);
  });

  it('writeTarget: the target of an inside link; a link out refused; paths under no base untouched', () => {
    confineWritesTo([root]);
    expect(writeTarget(path.join(root, 'MEMORY.md'))).toBe(path.join(root, 'docs', 'memory.md'));
    expect(() => writeTarget(path.join(root, 'out.md'), 'out.md')).toThrow(/refusing to write out\.md: it leads out of the vault/);
    expect(() => appendConfined(path.join(root, 'ext', 'logs', 'x.log'), 'x\n')).toThrow(/refusing/);
    expect(fs.readdirSync(outside)).toEqual(['secret.md']);
    expect(writeTarget(path.join(outside, 'secret.md'))).toBe(path.join(outside, 'secret.md'));
    appendConfined(path.join(root, 'logs', 'a.log'), 'one\n');
    expect(fs.readFileSync(path.join(root, 'logs', 'a.log'), 'utf8')).toBe('one\n');
  });

  it('writeTarget: a name longer than the file system allows is said as such, not as a link out of the vault', () => {
    confineWritesTo([root]);
    const long = `${'\u6f22'.repeat(100)}.md`; // 302 bytes in UTF-8
    expect(() => writeTarget(path.join(root, 'docs', long), 'docs/long.md')).toThrow(/cannot write docs\/long\.md: a name in its path is longer than 255 bytes/);
  });

  it('include globs: absolute, home and climbing ones refused; relative ones fine', () => {
    for (const g of ['../x/*.md', '/etc/*.md', '~/x.md', 'a/../../x.md', 'C:/x.md', '..\\x.md']) expect(() => checkInsideRoot(g), g).toThrow(/include: .* must stay inside the vault root/);
    for (const g of ['docs/**/*.md', './notes/*.md', 'a..b/*.md', '**/*.md']) expect(() => checkInsideRoot(g), g).not.toThrow();
  });
});
