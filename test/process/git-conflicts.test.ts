// Conflict markers left by a real git merge in a vault big enough that the built CLI indexes it in
// its worker thread: the warnings survive indexing there and a rebuild (the rest of the conflict
// tests run in-process: test/e2e/git-conflicts.test.ts).
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cleanup, entry, git, mem, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const MARKER = /^(<{7}|\|{7}|={7}|>{7})(?:[ \t].*)?\r?$/;

function repo(text: string, opts: { crlf?: boolean } = {}): TempVault {
  const v = tempVault({ git: true });
  v.write('.gitignore', '.memory.db*\n.mem/\n');
  // No merge driver and no eol conversion: the file is merged as plain text, as a clone without
  // mem's config (or a web UI) does it.
  git(v.root, ['config', 'core.autocrlf', 'false']);
  v.write('MEMORY.md', opts.crlf ? text.replace(/\n/g, '\r\n') : text);
  git(v.root, ['add', '-A']);
  git(v.root, ['commit', '-qm', 'base']);
  git(v.root, ['branch', '-M', 'main']);
  return v;
}

/** Commit `change` on a branch `other` and `ours` on main, then merge other into main: a real conflict. */
function conflict(v: TempVault, ours: () => void, theirs: () => void, style?: 'diff3' | 'zdiff3'): string {
  git(v.root, ['checkout', '-qb', 'other']);
  theirs();
  git(v.root, ['commit', '-qam', 'theirs']);
  git(v.root, ['checkout', '-q', 'main']);
  ours();
  git(v.root, ['commit', '-qam', 'ours']);
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...(style ? ['-c', `merge.conflictStyle=${style}`] : []), 'merge', 'other'], { cwd: v.root, encoding: 'utf8' });
  expect(r.status).not.toBe(0);
  expect(r.stdout).toMatch(/CONFLICT \((content|add\/add)\): Merge conflict in MEMORY\.md/);
  const text = v.read('MEMORY.md');
  expect(text).toMatch(/^<<<<<<< /m);
  return text;
}

const markerLines = (text: string) => text.split('\n').flatMap((l, i) => (MARKER.test(l) ? [i + 1] : []));
const run = (v: TempVault, args: string[]) => mem(args, { cwd: v.root, home: v.home });
const listedIds = (v: TempVault) => (run(v, ['list', '--json']).json().entries as { id: string }[]).map((e) => e.id);
const append = (v: TempVault, text: string) => () => fs.appendFileSync(v.path('MEMORY.md'), text);

/**
 * Resolve by hand from git's stages, the way a careful user does when the hunks cut through
 * headers (keeping both sides line by line would glue two headers into one): ours, then the
 * entries only theirs has.
 */
function resolveFromStages(v: TempVault): void {
  const ours = git(v.root, ['show', ':2:MEMORY.md']);
  const theirs = git(v.root, ['show', ':3:MEMORY.md']);
  const blocks = (t: string) => t.split(/(?=^---\r?\nid: )/m).slice(1);
  const idOf = (b: string) => /^id: (.*?)\r?$/m.exec(b)![1];
  const have = new Set(blocks(ours).map(idOf));
  const nl = ours.includes('\r\n') ? '\r\n' : '\n';
  const extra = blocks(theirs).filter((b) => !have.has(idOf(b)));
  fs.writeFileSync(v.path('MEMORY.md'), `${ours.endsWith(`${nl}${nl}`) ? ours : `${ours}${nl}`}${extra.join('')}`);
}

const BASE = `# Project memory\n\n${entry('base-entry', '## Base: the build uses esbuild\n\nRun npm run build first.')}`;

describe('the index remembers conflicted files', () => {
  it('a big vault (indexed in the worker thread) and mem index --rebuild still warn, and stop once resolved', () => {
    const v = repo(BASE);
    for (let i = 0; i < 80; i++) v.write(`memory/note-${i}.md`, `# Note ${i}\n\nfiller text number ${i}\n`);
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-qm', 'notes']);
    const text = conflict(v, append(v, `\n${entry('big-ours', '## Ours\n\nThe ours side entry.')}`), append(v, `\n${entry('big-theirs', '## Theirs\n\nThe theirs side entry.')}`));
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
