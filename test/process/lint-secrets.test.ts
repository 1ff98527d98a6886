// The real pre-commit hook and secrets: git runs the hook mem installed, which blocks a commit of
// a staged credential without printing it; after `mem lint --fix` and `git add` the commit goes
// through. Tokens are made up in the vendors' formats (none works anywhere).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { GH, noValue, PW, STRIPE } from '../fixtures/lint-secrets.js';
import { cleanup, entry, git, mem, tempVault } from '../helpers.js';

afterEach(cleanup);

/** git as a user runs it, hooks and all. */
function userGit(cwd: string, args: string[]) {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
    cwd, encoding: 'utf8', env: { ...process.env, MEM_ROOT: '', NO_COLOR: '1' },
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('pre-commit hook: secrets', () => {
  it('blocks a commit of a staged secret without printing it; after mem lint --fix and git add the commit goes through', () => {
    const v = tempVault({ git: true });
    v.write('MEMORY.md', `# Memory\n\n${entry('base', 'Run the migrations before the API tests.')}`);
    v.write('.gitignore', '.memory.db*\n');
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-qm', 'base']);
    expect(mem(['hooks', 'install', '--git'], { cwd: v.root, home: v.home }).status).toBe(0);
    const head = git(v.root, ['rev-parse', 'HEAD']);

    fs.appendFileSync(v.path('MEMORY.md'), entry('leak', `Deploy with STRIPE_KEY=${STRIPE}.`, { token: GH }));
    v.write('.mem/episodes/EPISODE-s1.md', `---\ntitle: EPISODE-s1\ntype: episode\ntags: [episodic]\nsession_id: s1\noutcome: success\ntask: deploy\n---\n\n# EPISODE-s1\n\n## Summary\nexport DB_PASSWORD=${PW}\n`);
    git(v.root, ['add', '-A']);
    const blocked = userGit(v.root, ['commit', '-qm', 'leak']);
    expect(blocked.status).not.toBe(0);
    expect(blocked.stderr).toContain('MEMORY.md:20: secret (github-token) at column 8');
    expect(blocked.stderr).toContain('MEMORY.md:22: secret (stripe-key) at column 24');
    expect(blocked.stderr).toContain('.mem/episodes/EPISODE-s1.md:13: secret (password) at column 20');
    expect(blocked.stderr).toMatch(/--no-verify/);
    noValue(blocked.stdout, blocked.stderr);
    expect(git(v.root, ['rev-parse', 'HEAD'])).toBe(head);

    const fixed = mem(['lint', '--fix'], { cwd: v.root, home: v.home });
    expect(fixed.stderr).toContain('redacted 3 secrets in 2 files');
    // Fixed on disk only: the staged text still holds the secrets.
    expect(userGit(v.root, ['commit', '-qm', 'leak']).status).not.toBe(0);
    git(v.root, ['add', '-A']);
    const ok = userGit(v.root, ['commit', '-qm', 'redacted']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(git(v.root, ['rev-parse', 'HEAD'])).not.toBe(head);
    const committed = git(v.root, ['show', 'HEAD:MEMORY.md']) + git(v.root, ['show', 'HEAD:.mem/episodes/EPISODE-s1.md']);
    noValue(committed);
    expect(committed).toContain("token: '[redacted: github-token]'");
  });
});
