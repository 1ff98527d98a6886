// mem import claude-memory / codex-memory: the memory folders Claude Code and Codex keep outside git,
// laid out as they write them (a fake HOME, CLAUDE_CONFIG_DIR, CODEX_HOME), read into entries.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cleanup, git, tempDir, tempVault, type TempVault } from '../helpers.js';
import { GH } from '../fixtures/secrets.js';
import { run } from '../run.js';

afterEach(() => cleanup());

const slug = (abs: string) => abs.replace(/[^a-zA-Z0-9]/g, '-');

interface Setup {
  v: TempVault;
  userHome: string;
  claude: string;
  codex: string;
  env: Record<string, string | undefined>;
}

function setup(): Setup {
  const v = tempVault({ git: true });
  const userHome = tempDir('mem-agent-home-');
  const claude = path.join(userHome, 'claude-config');
  const codex = path.join(userHome, 'codex-home');
  return { v, userHome, claude, codex, env: { HOME: userHome, USERPROFILE: userHome, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codex, MEM_NOW: '2026-11-20' } };
}

function write(abs: string, text: string): void {
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
}

/** Claude Code's auto memory of the project, as its memory tool lays it out. */
function claudeMemory(s: Setup): string {
  const dir = path.join(s.claude, 'projects', slug(s.v.root), 'memory');
  write(path.join(dir, 'MEMORY.md'), [
    '- [Testing policy](feedback_testing.md) — integration tests hit a real database',
    '- [User role](user_role.md) — backend engineer, new to React',
    '- [Deploy freeze](project_freeze.md) — merge freeze before the release',
    '',
    '## Notes',
    '- The staging cluster is `stage-eu-1`; deploys go through `make deploy-stage`.',
    '',
  ].join('\n'));
  write(path.join(dir, 'feedback_testing.md'), [
    '---', 'name: Testing policy', 'description: Integration tests must hit a real Postgres database, never mocks', 'type: feedback', '---',
    '', 'Integration tests must hit a real Postgres database, never mocks.',
    '', '**Why:** a mocked test passed while the `orders` migration broke production.',
    '**How to apply:** run `docker compose up db` before `npm run test:integration`.', '',
  ].join('\n'));
  write(path.join(dir, 'user_role.md'), [
    '---', 'name: User role', 'description: The user is a backend engineer who writes Go and is new to React', 'type: user', '---',
    '', 'The user is a backend engineer who writes Go daily and is new to React; explain frontend code in backend terms.', '',
  ].join('\n'));
  write(path.join(dir, 'project_freeze.md'), [
    '---', 'name: Deploy freeze', 'description: Merge freeze on the payments service starts 2026-12-01 for the release', 'type: project', '---',
    '', 'Non-critical merges to the payments service stop on 2026-12-01 while the mobile team cuts the release branch.', '',
  ].join('\n'));
  return dir;
}

/** Codex's memories folder: a handbook with this project's task group and another project's. */
function codexMemory(s: Setup, other = '/srv/other-project'): string {
  const dir = path.join(s.codex, 'memories');
  write(path.join(dir, 'MEMORY.md'), [
    '# Task Group: checkout service tests',
    '',
    'scope: running and fixing the checkout test suite',
    `applies_to: cwd=${s.v.root}; reuse_rule=safe for this checkout only`,
    '',
    '## Task 1: fix flaky checkout tests, success',
    '',
    '### rollout_summary_files',
    '',
    `- rollout_summaries/2026-11-02-checkout.md (cwd=${s.v.root}, rollout_path=/x/rollout.jsonl, updated_at=2026-11-02T10:00:00Z, thread_id=abc)`,
    '',
    '### keywords',
    '',
    '- checkout, flaky, stripe-mock',
    '',
    '## User preferences',
    '',
    '- when tests fail, the user asked: "run only the failing spec first" -> run `npx vitest run <file>` before the whole suite [Task 1]',
    '',
    '## Reusable knowledge',
    '',
    '- The checkout tests need `stripe-mock` listening on port 12111; start it with `docker run -p 12111:12111 stripe/stripe-mock`. [Task 1]',
    '',
    '## Failures and how to do differently',
    '',
    '- Symptom: `ECONNREFUSED 127.0.0.1:12111` -> cause: stripe-mock not started -> start it before `npm test`. [Task 1]',
    '',
    '# Task Group: other project release scripts',
    '',
    'scope: release scripts of another repository',
    `applies_to: cwd=${other}; reuse_rule=only there`,
    '',
    '## Reusable knowledge',
    '',
    '- The release script `scripts/cut.sh` needs GNU sed on macOS.',
    '',
  ].join('\n'));
  write(path.join(dir, 'memory_summary.md'), [
    'v1', '', '## User Profile', '',
    'The user maintains payment services in TypeScript and Go and reviews every diff before committing.', '',
    '## User preferences', '',
    '- Keep commit messages in the imperative mood and under 72 characters.', '',
    '## General Tips', '',
    '- On this machine `python` is Python 2; call `python3` explicitly.', '',
    '## What is in memory', '', '- checkout service tests: see MEMORY.md', '',
  ].join('\n'));
  write(path.join(dir, 'raw_memories.md'), '# raw\n- not imported\n');
  return dir;
}

describe('mem import claude-memory', () => {
  it('writes each topic file and each plain index line as an entry with its provenance, user memories to the global file', async () => {
    const s = setup();
    claudeMemory(s);
    const r = await run(['import', 'claude-memory'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain("reading Claude Code's memory in");
    expect(r.stderr).toContain('4 memories: 4 created, 0 updated, 0 unchanged, 0 duplicate, 0 rejected');
    const project = s.v.read('MEMORY.md');
    expect(project).toMatch(/^# Memory\n/);
    expect(project).toContain('type: directive');
    expect(project).toContain('source: claude-memory');
    expect(project).toContain('imported_from: feedback_testing.md');
    expect(project).toContain("imported_name: 'Testing policy'");
    expect(project).toContain('## [2026-11-20] Directive: Integration tests must hit a real Postgres database, never mocks\n');
    expect(project).toContain('**How to apply:** run `docker compose up db` before `npm run test:integration`.');
    expect(project).toContain('Merge freeze on the payments service starts 2026-12-01');
    expect(project).toContain('imported_from: MEMORY.md');
    expect(project).toContain('The staging cluster is `stage-eu-1`');
    // Who the user is belongs to every project: the global file, not the repository.
    expect(project).not.toContain('backend engineer');
    const global = fs.readFileSync(path.join(s.v.home, 'MEMORY.md'), 'utf8');
    expect(global).toMatch(/^# Global memory\n/);
    expect(global).toContain('The user is a backend engineer who writes Go');
    expect(global).toContain('tags: [claude-memory, user]');
    // mem reads what it wrote: the entries are found.
    const found = await run(['search', 'real Postgres database mocks', '--json'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(found.json().results[0].id).toMatch(/^claude-memory-[0-9a-f]{16}$/);
  });

  it('changes nothing on a second import; an edited memory is updated in place, keeping its other fields', async () => {
    const s = setup();
    const dir = claudeMemory(s);
    const opts = { cwd: s.v.root, home: s.v.home, env: s.env };
    expect((await run(['import', 'claude-memory'], opts)).status).toBe(0);
    const project = s.v.read('MEMORY.md');
    const global = fs.readFileSync(path.join(s.v.home, 'MEMORY.md'), 'utf8');
    const again = await run(['import', 'claude-memory'], opts);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('4 memories: 0 created, 0 updated, 4 unchanged');
    expect(s.v.read('MEMORY.md')).toBe(project);
    expect(fs.readFileSync(path.join(s.v.home, 'MEMORY.md'), 'utf8')).toBe(global);

    // The user reinforced the entry in mem; then Claude Code rewrote the memory.
    // (A new file's headers are one comment line each: the entry's line is edited.)
    s.v.write('MEMORY.md', project.split('\n').map((l) => (l.includes('imported_from: feedback_testing.md') ? l.replace('reinforcement_count: 0', 'reinforcement_count: 3') : l)).join('\n'));
    const before = s.v.read('MEMORY.md');
    expect(before).toContain('reinforcement_count: 3');
    const topic = path.join(dir, 'feedback_testing.md');
    fs.writeFileSync(topic, fs.readFileSync(topic, 'utf8').replace('never mocks', 'never mocks or SQLite'));
    const edited = await run(['import', 'claude-memory', '--json'], opts);
    expect(edited.status, edited.stderr).toBe(0);
    const j = edited.json();
    expect(j.counts).toMatchObject({ created: 0, updated: 1, unchanged: 3 });
    const after = s.v.read('MEMORY.md');
    expect(after).toContain('never mocks or SQLite');
    expect(after).toContain('reinforcement_count: 3');
    expect(after.match(/imported_from: feedback_testing\.md/g)).toHaveLength(1);
    // Every other entry keeps its bytes.
    const others = (t: string) => t.split(/^---\n(?=id: )/m).filter((b) => !b.includes('feedback_testing.md'));
    expect(others(after)).toEqual(others(before));
    const last = await run(['import', 'claude-memory'], opts);
    expect(last.stderr).toContain('0 created, 0 updated, 4 unchanged');
    expect(s.v.read('MEMORY.md')).toBe(after);
  });

  it('redacts a credential in a memory before writing it', async () => {
    const s = setup();
    const dir = claudeMemory(s);
    write(path.join(dir, 'reference_ci.md'), ['---', 'name: CI token', 'description: The CI bot pushes with a GitHub token kept in the vault', 'type: reference', '---', '', `The CI bot pushes tags to GitHub with the token ${GH} from the deploy vault.`, ''].join('\n'));
    const r = await run(['import', 'claude-memory'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/redacted 1 secret \(github-token\) before writing/);
    const project = s.v.read('MEMORY.md');
    expect(project).toContain('The CI bot pushes tags to GitHub with the token');
    expect(project).not.toContain(GH);
    expect(r.stdout + r.stderr).not.toContain(GH);
    // The redacted text is what is compared next time: no update, no second entry.
    const again = await run(['import', 'claude-memory'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(again.stderr).toContain('0 created, 0 updated, 5 unchanged');
    expect(s.v.read('MEMORY.md')).toBe(project);
  });

  it('refuses a link out of the memory folder and reports a malformed file, importing the rest', async () => {
    const s = setup();
    const dir = claudeMemory(s);
    const outside = path.join(s.userHome, 'private-notes.md');
    write(outside, '---\nname: Private\ndescription: The SSH passphrase hint is the dog name\ntype: user\n---\n\nNot for any vault.\n');
    fs.symlinkSync(outside, path.join(dir, 'linked_out.md'));
    fs.appendFileSync(path.join(dir, 'MEMORY.md'), '- [Escape](../../../private-notes.md) — outside\n');
    write(path.join(dir, 'broken.md'), '---\nname: [unclosed\ntype: feedback\n---\n\nBody.\n');
    const r = await run(['import', 'claude-memory'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/linked_out\.md: is a link out of the memory folder; not followed; skipped/);
    expect(r.stderr).toMatch(/private-notes\.md: is outside the memory folder; not read; skipped/);
    expect(r.stderr).toMatch(/broken\.md: its frontmatter is not valid YAML/);
    expect(r.stderr).toContain('4 created');
    expect(s.v.read('MEMORY.md')).not.toContain('passphrase');
    expect(fs.existsSync(path.join(s.v.home, 'MEMORY.md')) && fs.readFileSync(path.join(s.v.home, 'MEMORY.md'), 'utf8')).not.toContain('passphrase');
  });

  it('finds the main checkout\'s folder from a git worktree, never opens a FIFO, and --scope puts every memory in one scope', async () => {
    const s = setup();
    const dir = claudeMemory(s);
    s.v.write('README.md', 'x\n');
    git(s.v.root, ['add', '.']);
    git(s.v.root, ['commit', '-qm', 'init']);
    const wt = path.join(path.dirname(s.v.root), 'wt');
    git(s.v.root, ['worktree', 'add', '-q', wt]);
    if (spawnSync('mkfifo', [path.join(dir, 'pipe.md')]).status !== 0) throw new Error('mkfifo failed');
    const r = await run(['import', 'claude-memory', '--scope', 'project', '--json'], { cwd: wt, home: s.v.home, env: s.env });
    expect(r.status).toBe(1);
    const j = r.json();
    expect(j.dir).toBe(dir);
    expect(j.problems).toEqual([{ file: 'pipe.md', error: expect.stringMatching(/FIFO/) }]);
    expect(j.counts).toMatchObject({ created: 4 });
    expect(j.memories.every((m: { scope: string }) => m.scope === 'project')).toBe(true);
    expect(fs.readFileSync(path.join(wt, 'MEMORY.md'), 'utf8')).toContain('backend engineer');
    const bad = await run(['import', 'claude-memory', '--scope', 'team'], { cwd: wt, home: s.v.home, env: s.env });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^mem: --scope must be project or global/);
  });

  it('updates an entry in a file with CRLF line endings in that style', async () => {
    const s = setup();
    const dir = claudeMemory(s);
    const opts = { cwd: s.v.root, home: s.v.home, env: s.env };
    expect((await run(['import', 'claude-memory'], opts)).status).toBe(0);
    s.v.write('MEMORY.md', s.v.read('MEMORY.md').replace(/\n/g, '\r\n'));
    const topic = path.join(dir, 'project_freeze.md');
    fs.writeFileSync(topic, fs.readFileSync(topic, 'utf8').replaceAll('2026-12-01', '2026-12-08'));
    const r = await run(['import', 'claude-memory'], opts);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^updated MEMORY\.md: Merge freeze on the payments service starts 2026-12-08/);
    const text = s.v.read('MEMORY.md');
    expect(text).toContain('stop on 2026-12-08');
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    const lint = await run(['lint'], opts);
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
  });

  it('says clearly where it looked when the project has no memory folder, and when the folder is empty', async () => {
    const s = setup();
    const r = await run(['import', 'claude-memory'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain("no Claude Code's memory for this project: looked in");
    expect(r.stderr).toContain(path.join(s.claude, 'projects', slug(s.v.root), 'memory'));
    expect(fs.existsSync(s.v.path('MEMORY.md'))).toBe(false);
    fs.mkdirSync(path.join(s.claude, 'projects', slug(s.v.root), 'memory'), { recursive: true });
    const empty = await run(['import', 'claude-memory'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(empty.status, empty.stderr).toBe(0);
    expect(empty.stderr).toMatch(/no memories for this project in .*memory/);
    const missing = await run(['import', 'claude-memory', '--dir', 'nowhere'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^mem: nowhere: no such folder/);
  });

  it('--dry-run lists what it would write and writes nothing; --json gives every memory', async () => {
    const s = setup();
    const dir = claudeMemory(s);
    // An index line whose topic file Claude Code removed is no fault.
    fs.appendFileSync(path.join(dir, 'MEMORY.md'), '- [Old idea](gone.md) — dropped later\n');
    const r = await run(['import', 'claude-memory', '--dry-run'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('would create MEMORY.md: Integration tests must hit a real Postgres database, never mocks  (from feedback_testing.md, Testing policy)');
    expect(fs.existsSync(s.v.path('MEMORY.md'))).toBe(false);
    expect(fs.existsSync(path.join(s.v.home, 'MEMORY.md'))).toBe(false);
    const j = (await run(['import', 'claude-memory', '--dry-run', '--json'], { cwd: s.v.root, home: s.v.home, env: s.env })).json();
    expect(j).toMatchObject({ source: 'claude-memory', dry_run: true, counts: { created: 4, failed: 0 }, left: [{ file: 'MEMORY.md', what: 'gone.md', why: 'linked but missing' }] });
    expect(j.memories.find((m: { file: string }) => m.file === 'user_role.md')).toMatchObject({ scope: 'global', action: 'created' });
  });
});

describe('mem import codex-memory', () => {
  it("imports this project's task groups to the project and the summary's user preferences to the global file, once", async () => {
    const s = setup();
    codexMemory(s);
    const opts = { cwd: s.v.root, home: s.v.home, env: s.env };
    const r = await run(['import', 'codex-memory'], opts);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('6 memories: 6 created');
    expect(r.stderr).toContain('1 part of the folder not this project');
    const project = s.v.read('MEMORY.md');
    expect(project).toContain('Corrective: Symptom: `ECONNREFUSED 127.0.0.1:12111`');
    expect(project).toContain('stripe-mock');
    expect(project).toContain("imported_name: 'checkout service tests'");
    expect(project).toContain('tags: [codex-memory, user-preferences]');
    expect(project).not.toContain('[Task 1]');
    expect(project).not.toContain('GNU sed');
    expect(project).not.toContain('not imported');
    const global = fs.readFileSync(path.join(s.v.home, 'MEMORY.md'), 'utf8');
    expect(global).toContain('imperative mood');
    expect(global).toContain('`python3` explicitly');
    expect(global).toContain('The user maintains payment services');
    expect(global).not.toContain('see MEMORY.md');
    const again = await run(['import', 'codex-memory'], opts);
    expect(again.stderr).toContain('0 created, 0 updated, 6 unchanged');
    expect(s.v.read('MEMORY.md')).toBe(project);
    expect(fs.readFileSync(path.join(s.v.home, 'MEMORY.md'), 'utf8')).toBe(global);
  });

  it('skips a memory mem already holds and says so; a missing folder is a clear message', async () => {
    const s = setup();
    const none = await run(['import', 'codex-memory'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(none.status).toBe(0);
    expect(none.stderr).toContain("no Codex's memories folder: looked in " + path.join(s.codex, 'memories'));
    codexMemory(s);
    s.v.write('MEMORY.md', [
      '# Memory', '',
      '---', 'id: hand-1', 'type: procedural', '---',
      '## [2026-11-01] Procedural: The checkout tests need `stripe-mock` listening on port 12111', '',
      'Start it with `docker run -p 12111:12111 stripe/stripe-mock`.', '',
    ].join('\n'));
    const r = await run(['import', 'codex-memory', '--json'], { cwd: s.v.root, home: s.v.home, env: s.env });
    expect(r.status, r.stderr).toBe(0);
    const dup = r.json().memories.filter((m: { action: string }) => m.action === 'duplicate');
    expect(dup).toHaveLength(1);
    expect(dup[0].title).toContain('stripe-mock');
    expect(s.v.read('MEMORY.md').match(/docker run -p 12111/g)).toHaveLength(1);
    expect(r.json().counts).toMatchObject({ created: 5, duplicate: 1 });
  });
});
