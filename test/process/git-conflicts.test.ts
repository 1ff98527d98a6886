// Conflict markers left by a real git merge in a vault big enough that the built CLI indexes it in
// its worker thread: the warnings survive indexing there and a rebuild (the rest of the conflict
// tests run in-process: test/e2e/git-conflicts.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { append, BASE, conflict, markerLines, repo, resolveFromStages } from '../fixtures/git-conflicts.js';
import { cleanup, entry, git, mem, type TempVault } from '../helpers.js';

afterEach(cleanup);

const run = (v: TempVault, args: string[]) => mem(args, { cwd: v.root, home: v.home });
const listedIds = (v: TempVault) => (run(v, ['list', '--json']).json().entries as { id: string }[]).map((e) => e.id);

describe('the index remembers conflicted files', () => {
  it('a big vault (indexed in the worker thread) and mem index --rebuild still warn, and stop once resolved', async () => {
    const v = repo(BASE);
    for (let i = 0; i < 80; i++) v.write(`memory/note-${i}.md`, `# Note ${i}\n\nfiller text number ${i}\n`);
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-qm', 'notes']);
    const text = await conflict(v, append(v, `\n${entry('big-ours', '## Ours\n\nThe ours side entry.')}`), append(v, `\n${entry('big-theirs', '## Theirs\n\nThe theirs side entry.')}`));
    const first = markerLines(text)[0];
    const warn = new RegExp(`MEMORY\\.md has unresolved git conflict markers; the entries of both sides are shown \\(MEMORY\\.md:${first}\\)`);
    for (const args of [['index'], ['index', '--rebuild'], ['search', 'side entry'], ['list', '--no-refresh']]) {
      const r = run(v, args);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(warn);
    }
    expect(listedIds(v)).toEqual(expect.arrayContaining(['big-ours', 'big-theirs']));
    expect(run(v, ['index', '--json']).json().warnings.some((w: { message: string; line: number }) => /conflict markers/.test(w.message) && w.line === first)).toBe(true);
    resolveFromStages(v);
    for (const args of [['search', 'side entry'], ['index', '--rebuild']]) expect(run(v, args).stderr).not.toMatch(/conflict/);
    expect(listedIds(v)).toEqual(expect.arrayContaining(['big-ours', 'big-theirs']));
  });
});
