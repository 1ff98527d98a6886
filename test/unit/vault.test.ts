import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverFiles, findRoot, openVault, resolveRoot } from '../../src/vault/vault.js';
import { cleanup, tempDir, tempVault } from '../helpers.js';

afterEach(cleanup);

describe('vault root', () => {
  it('walks up to the first folder with .mem/, MEMORY.md or .git', () => {
    const v = tempVault();
    const deep = path.join(v.root, 'a', 'b');
    fs.mkdirSync(deep, { recursive: true });
    expect(findRoot(deep)).toBe(v.root);
    fs.writeFileSync(path.join(v.root, 'a', 'MEMORY.md'), '');
    expect(findRoot(deep)).toBe(path.join(v.root, 'a'));
  });
  it('--root and MEM_ROOT override; a missing root is a clear error', () => {
    const v = tempVault();
    const other = tempDir();
    expect(resolveRoot({ root: other, cwd: v.root, env: {} })).toBe(other);
    expect(resolveRoot({ cwd: v.root, env: { MEM_ROOT: other } })).toBe(other);
    expect(() => resolveRoot({ root: path.join(other, 'nope'), env: {} })).toThrow(/not a directory/);
  });
});

describe('discoverFiles', () => {
  it('lists every layout with its scope, and include globs from config', async () => {
    const v = tempVault();
    const files = [
      'MEMORY.md', 'institutional.md', 'memory/a.md', 'memory/deep/b.md',
      '.mem/jobs/j1/MEMORY.md', '.mem/jobs/j1/institutional.md', '.mem/jobs/j1/tasks/t1/MEMORY.md',
      '.teaparty/jobs/j2/institutional.md', '.teaparty/jobs/j2/tasks/t2/worktree/MEMORY.md',
      'projects/p/.sessions/20260101/MEMORY.md', 'docs/guide.md', 'docs/skip.md', 'docs/sub/more.md', 'other.md',
      'node_modules/x/MEMORY.md',
    ];
    for (const f of files) v.write(f, '# x\n');
    v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\nexclude:\n  - docs/skip.md\n');
    fs.writeFileSync(path.join(v.home, 'MEMORY.md'), '# global\n');
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    const found = discoverFiles(vault);
    const byPath = Object.fromEntries(found.map((f) => [f.isGlobal ? 'GLOBAL' : f.path, f.scope]));
    expect(byPath).toEqual({
      GLOBAL: 'global', 'MEMORY.md': 'project', 'institutional.md': 'project', 'memory/a.md': 'project', 'memory/deep/b.md': 'project',
      '.mem/jobs/j1/MEMORY.md': 'session', '.mem/jobs/j1/institutional.md': 'session', '.mem/jobs/j1/tasks/t1/MEMORY.md': 'team',
      '.teaparty/jobs/j2/institutional.md': 'session', '.teaparty/jobs/j2/tasks/t2/worktree/MEMORY.md': 'team',
      'projects/p/.sessions/20260101/MEMORY.md': 'team', 'docs/guide.md': 'project', 'docs/sub/more.md': 'project',
    });
  });
  it('a malformed config is an error with file and line', async () => {
    const v = tempVault();
    v.write('.mem/config.yaml', 'include:\n  - a\n bad: [\n');
    await expect(openVault({ root: v.root, env: {} })).rejects.toMatchObject({ where: { file: '.mem/config.yaml' } });
  });
});
