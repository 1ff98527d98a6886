// Rewrites checked with real git: only the touched entry's lines change; lint --staged reads the index.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, git, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const FILE = `# Project memory

Some preamble  with odd   spacing.

---
id: first
type: corrective
domain: task
importance: 0.80
custom_key: "kept as written"   # a comment
phase: implementation
status: active
reinforcement_count: 1
last_reinforced: '2026-10-01'
created_at: 2026-09-01
---
## [2026-09-01] Corrective: keep me byte-identical

Body with a rule:

---

and more text after it.

---
id: second
type: Declarative
importance: '0.5'
status: Active
---
## Second entry needs fixing
Its type and status are not lowercase.

---
id: third
type: procedural
tags:
  - deploy
  - vpn
---
## Third, with nested YAML
Untouched.
`;

describe('byte-identical rewrites (git diff)', () => {
  it('lint --fix changes only the fixed lines of one entry', async () => {
    const v = tempVault({ git: true });
    v.write('MEMORY.md', FILE);
    git(v.root, ['add', 'MEMORY.md']);
    git(v.root, ['commit', '-qm', 'seed']);
    const r = await run(['lint', '--fix'], { cwd: v.root, home: v.home });
    expect(r.stderr).toMatch(/fixed 3 problems in 1 file/);
    expect(r.status).toBe(0);
    const numstat = git(v.root, ['diff', '--numstat', 'MEMORY.md']).trim();
    expect(numstat).toBe('3\t3\tMEMORY.md');
    const diff = git(v.root, ['diff', '-U0', 'MEMORY.md']);
    const changed = diff.split('\n').filter((l) => /^[-+][^-+]/.test(l));
    expect(changed).toEqual(['-type: Declarative', "-importance: '0.5'", '-status: Active', '+type: declarative', '+importance: 0.5', '+status: active']);
    // A second run has nothing left to do.
    const again = await run(['lint', '--fix'], { cwd: v.root, home: v.home });
    expect(again.stderr).not.toMatch(/fixed/);
  });

  it('mem add only appends', async () => {
    const v = tempVault({ git: true });
    v.write('MEMORY.md', FILE);
    git(v.root, ['add', 'MEMORY.md']);
    git(v.root, ['commit', '-qm', 'seed']);
    expect((await run(['add', 'A new learning.'], { cwd: v.root, home: v.home })).status).toBe(0);
    const [added, deleted] = git(v.root, ['diff', '--numstat', 'MEMORY.md']).trim().split('\t');
    expect(Number(deleted)).toBe(0);
    expect(Number(added)).toBeGreaterThan(10);
    expect(v.read('MEMORY.md').startsWith(FILE)).toBe(true);
  });
});

describe('lint --staged', () => {
  it('checks the staged version, not the working copy', async () => {
    const v = tempVault({ git: true });
    const bad = '---\nid: x1\nimportance: 7\n---\nbody\n';
    const good = '---\nid: x1\nimportance: 0.7\n---\nbody\n';
    v.write('MEMORY.md', bad);
    git(v.root, ['add', 'MEMORY.md']);
    const lintStaged = () => run(['lint', '--staged'], { cwd: v.root, home: v.home });
    let r = await lintStaged();
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('MEMORY.md:3: importance must be a number from 0.0 to 1.0 (got 7)');
    v.write('MEMORY.md', good);
    expect((await lintStaged()).status).toBe(1);
    git(v.root, ['add', 'MEMORY.md']);
    r = await lintStaged();
    expect(r.status).toBe(0);
    // Unstaged files are not linted, but their ids still count for uniqueness.
    v.write('memory/other.md', '---\nid: x1\n---\nsame id\n');
    r = await lintStaged();
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('duplicate id "x1"');
  });

  it('reads the config the commit will have: an unstaged broken one does not block it, a staged one does', async () => {
    const v = tempVault({ git: true });
    v.write('MEMORY.md', '---\nid: c1\nimportance: 0.7\n---\nbody\n');
    v.write('.mem/config.yaml', 'include:\n  - "docs/**/*.md"\n');
    v.write('docs/guide.md', '# Guide\n\nRun the tests.\n');
    git(v.root, ['add', '-A']);
    git(v.root, ['-c', 'user.email=a@b', '-c', 'user.name=t', 'commit', '-qm', 'base']);
    const lintStaged = () => run(['lint', '--staged'], { cwd: v.root, home: v.home });
    // A broken config in the working tree only, and an unrelated file staged.
    v.write('.mem/config.yaml', 'include: [\n');
    v.write('a.txt', 'hi\n');
    git(v.root, ['add', 'a.txt']);
    expect((await lintStaged()).status).toBe(0);
    // The staged config's globs decide what is a memory file: a staged note it includes is checked.
    v.write('docs/guide.md', '---\nid: c1\n---\nsame id as MEMORY.md\n');
    git(v.root, ['add', 'docs/guide.md']);
    let r = await lintStaged();
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('duplicate id "c1"');
    git(v.root, ['reset', '-q', 'docs/guide.md']);
    // The broken config staged: that is what would be committed.
    git(v.root, ['add', '.mem/config.yaml']);
    r = await lintStaged();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: malformed YAML: .*\(\.mem\/config\.yaml:\d+\)$/m);
  });
});
