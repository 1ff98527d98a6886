// The walk and its memo with symlinks: which links are kept, skipped or read once, and a memo that
// stops holding when a link leads somewhere else.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWalkMemo, DirCache } from '../../src/vault/dircache.js';
import { openVault, probedFiles, skipNotices, walkKey, walkPaths } from '../../src/vault/vault.js';
import { cleanup, tempDir, tempVault } from '../helpers.js';

afterEach(cleanup);

async function setup() {
  const v = tempVault();
  const outside = tempDir('mem-outside-');
  fs.writeFileSync(path.join(outside, 'secret.md'), '# secret\n');
  v.write('memory/real.md', '# real\n');
  v.write('docs/memory.md', '# main\n');
  fs.symlinkSync('real.md', v.path('memory/alias.md'));
  fs.symlinkSync(path.join(outside, 'secret.md'), v.path('memory/out.md'));
  fs.symlinkSync('../docs/memory.md', v.path('memory/docs.md'));
  fs.symlinkSync('docs/memory.md', v.path('MEMORY.md'));
  fs.symlinkSync(path.join(outside, 'secret.md'), v.path('institutional.md'));
  const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
  return { v, outside, vault };
}

describe('walk with links', () => {
  it('keeps links inside once, skips links out, and says so once', async () => {
    const { vault } = await setup();
    // alias.md is real.md again, docs.md is what MEMORY.md (probed) already reads.
    expect(walkPaths(vault).sort()).toEqual(['memory/real.md']);
    expect(probedFiles(vault).map((f) => f.path)).toEqual(['MEMORY.md']);
    const notes = skipNotices(vault);
    expect(notes.filter((n) => n.includes('memory/out.md'))).toHaveLength(1);
    expect(notes.filter((n) => n.includes('institutional.md'))).toHaveLength(1);
    expect(skipNotices(vault)).toEqual([]);
  });

  it('a memoised walk stops holding when a link it met leads elsewhere', async () => {
    const { v, vault } = await setup();
    const cache = new DirCache(null, () => Date.now() + 60_000);
    const paths = walkPaths(vault, cache.read);
    const memo = cache.walkMemo(walkKey(vault), paths, v.root)!;
    expect(memo).toBeDefined();
    expect(checkWalkMemo(memo, walkKey(vault), v.root)).toBe(paths.join('\n'));
    // docs/memory.md becomes a link out: no folder of the walk changed, yet the memo must not hold.
    fs.rmSync(v.path('docs/memory.md'));
    fs.symlinkSync('/etc/hostname', v.path('docs/memory.md'));
    expect(checkWalkMemo(memo, walkKey(vault), v.root)).toBeNull();
  });

  it('dotfiles and links to nothing are not memory files; a memo notices when such a link gets a target', async () => {
    const v = tempVault();
    v.write('memory/x.md', '# x\n');
    v.write('memory/.x.md.swp.md', '# an editor copy\n');
    fs.symlinkSync('someone@host.1:2', v.path('memory/.#x.md'));
    v.write('docs/readme.txt', 'docs\n');
    fs.symlinkSync('../docs/target.md', v.path('memory/later.md'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    const cache = new DirCache(null, () => Date.now() + 60_000);
    const paths = walkPaths(vault, cache.read);
    expect(paths).toEqual(['memory/x.md']);
    expect(skipNotices(vault)).toEqual([]);
    const memo = cache.walkMemo(walkKey(vault), paths, v.root)!;
    expect(checkWalkMemo(memo, walkKey(vault), v.root)).toBe(paths.join('\n'));
    // The link's target appears (in a folder the walk never lists): the memo must not hold.
    v.write('docs/target.md', '# later\n');
    expect(checkWalkMemo(memo, walkKey(vault), v.root)).toBeNull();
    expect(walkPaths(vault).sort()).toEqual(['memory/later.md', 'memory/x.md']);
  });
});
