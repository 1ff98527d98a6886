// notMemoryFile (what `mem add --file` accepts) against discoverFiles (what index, search, list
// and lint read): the same answer for every path, so an added entry is always found again.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discoverFiles, notMemoryFile, openVault } from '../../src/vault/vault.js';
import { cleanup, tempVault } from '../helpers.js';

afterEach(cleanup);

const CANDIDATES = [
  // read
  'MEMORY.md', 'institutional.md', 'proxy.md', 'memory/a.md', 'memory/deep/b.markdown', 'memory/.hidden.md',
  '.mem/jobs/j1/MEMORY.md', '.mem/jobs/j1/institutional.md', '.mem/jobs/j1/tasks/t1/MEMORY.md',
  '.mem/jobs/j1/tasks/t1/worktree/institutional.md', '.teaparty/jobs/j2/MEMORY.md',
  'projects/p/.sessions/20260101/MEMORY.md', 'projects/p/.sessions/20260101/.x/sub/institutional.md',
  '.mem/episodes/s1.md', '.mem/patterns/PATTERN-x.md',
  'docs/guide.md', 'docs/sub/more.md', 'NOTES.md', '.notes/n.md',
  // not read
  'README.md', 'proxy-alice.md', 'other.md', '.mem/x.md', '.mem/jobs/j1/notes.md', '.mem/jobs/j1/tasks/t1/other/MEMORY.md',
  '.mem/jobs/MEMORY.md', 'memory/.cache/c.md', 'memory/node_modules/m.md', 'memory/private/secret.md', 'memory/a.txt',
  'docs/.drafts/d.md', 'docs/skip.md', '.git/hooks/x.md', 'node_modules/x/MEMORY.md', 'projects/p/.sessions/20260101/notes.md',
  '.mem/episodes/.hidden.md', '.mem/episodes/sub/e.md', 'docs/node_modules/n.md',
];

async function ruleVault() {
  const v = tempVault();
  v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\n  - NOTES.md\n  - .notes/*.md\nexclude:\n  - docs/skip.md\n  - memory/private/**\n');
  return { v, vault: await openVault({ root: v.root, env: { MEM_HOME: v.home } }) };
}

describe('notMemoryFile', () => {
  it('accepts exactly the files the walk reads, before and after they exist', async () => {
    const { v, vault } = await ruleVault();
    const accepted = CANDIDATES.filter((c) => notMemoryFile(vault, v.path(c)) === null);
    for (const c of CANDIDATES) v.write(c, '# x\n');
    const read = new Set(discoverFiles(vault).filter((f) => !f.isGlobal).map((f) => f.path));
    expect(accepted.sort()).toEqual(CANDIDATES.filter((c) => read.has(c)).sort());
    expect(CANDIDATES.filter((c) => notMemoryFile(vault, v.path(c)) === null).sort()).toEqual(accepted.sort());
    // Both sides of the list are exercised.
    expect(accepted).toContain('memory/deep/b.markdown');
    expect(accepted).not.toContain('README.md');
  });

  it('says why: outside the vault, excluded, not memory, a linked folder; the global files are memory', async () => {
    const { v, vault } = await ruleVault();
    expect(notMemoryFile(vault, path.join(v.root, '..', 'out', 'x.md'))).toMatch(/outside the vault/);
    expect(notMemoryFile(vault, '/etc/x.md')).toMatch(/outside the vault/);
    expect(notMemoryFile(vault, v.path('docs/skip.md'))).toMatch(/excluded/);
    expect(notMemoryFile(vault, v.path('README.md'))).toMatch(/does not read it as memory/);
    expect(notMemoryFile(vault, path.join(v.home, 'MEMORY.md'))).toBeNull();
    expect(notMemoryFile(vault, path.join(v.home, 'other.md'))).toMatch(/outside the vault/);
    // A folder inside memory/ that is a link (even one that stays in the vault) is never walked.
    v.write('memory/real/r.md', '# r\n');
    fs.symlinkSync(v.path('memory/real'), v.path('memory/alias'));
    expect(notMemoryFile(vault, v.path('memory/alias/r.md'))).toMatch(/memory\/alias is a symlink/);
    expect(discoverFiles(vault).map((f) => f.path)).not.toContain('memory/alias/r.md');
  });
});
