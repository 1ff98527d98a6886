// What lint, the index and doctor make of files that are not memory files after all: editor
// lock and temp files, links to nothing, and memory files under a case variant of their name.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

describe('files that vanish or are editor artefacts', () => {
  it('an Emacs lock file (a dangling link), a dotfile copy and a link to nothing never fail lint; lint and the index agree', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m1', 'Run the migrations before the API tests.'));
    v.write('memory/x.md', entry('x1', 'The staging deploy needs the VPN.'));
    // Emacs' lock: a symlink whose target is user@host.pid, never a file.
    fs.symlinkSync('someone@host.12345:1700000000', v.path('memory/.#x.md'));
    // An editor's temp copy with a broken entry: not a memory file, so not linted.
    v.write('memory/.x.md.tmp.md', '---\nid: [broken\n---\ntext\n');
    fs.symlinkSync('nowhere.md', v.path('memory/gone.md'));
    const lint = await run(['lint', '--json'], { cwd: v.root, home: v.home });
    expect(lint.status, lint.stdout + lint.stderr).toBe(0);
    expect(lint.json()).toMatchObject({ problems: [] });
    expect(lint.stdout).not.toContain('ENOENT');
    expect(lint.stdout).not.toContain('.#x.md');
    const list = await run(['list', '--json'], { cwd: v.root, home: v.home });
    expect(list.status, list.stderr).toBe(0);
    const paths = new Set((list.json() as { entries: { path: string }[] }).entries.map((e) => e.path));
    expect([...paths].sort()).toEqual(['MEMORY.md', 'memory/x.md']);
    const compact = await run(['compact'], { cwd: v.root, home: v.home });
    expect(compact.status, compact.stderr).toBe(0);
  });
});

describe('memory files under a case variant of their name', () => {
  it('lint and doctor say which file is not read and the name it should have', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m1', 'Run the migrations before the API tests.'));
    v.write('Memory.md', entry('m2', 'A learning nobody reads.'));
    v.write('INSTITUTIONAL.MD', entry('n1', 'Every PR needs a test.'));
    v.write('.mem/jobs/j1/MEMORY.md', entry('j1', 'Job learning.'));
    v.write('.mem/jobs/j1/tasks/t1/Institutional.md', entry('t1', 'Task norm.'));
    const lint = await run(['lint', '--json'], { cwd: v.root, home: v.home });
    expect(lint.status, lint.stderr).toBe(0);
    const problems = (lint.json() as { problems: { file: string; severity: string; message: string }[] }).problems;
    const byFile = new Map(problems.map((p) => [p.file, p]));
    // A case-sensitive file system here: none of them is read.
    expect(byFile.get('Memory.md')).toMatchObject({ severity: 'warning', message: expect.stringContaining('mem reads MEMORY.md beside it') });
    expect(byFile.get('INSTITUTIONAL.MD')).toMatchObject({ severity: 'warning', message: expect.stringContaining('rename it to institutional.md') });
    expect(byFile.get('.mem/jobs/j1/tasks/t1/Institutional.md')).toMatchObject({ severity: 'warning', message: expect.stringContaining('rename it to institutional.md') });
    expect(byFile.has('MEMORY.md')).toBe(false);
    expect(byFile.has('.mem/jobs/j1/MEMORY.md')).toBe(false);
    const human = await run(['lint'], { cwd: v.root, home: v.home });
    expect(human.stdout).toContain('INSTITUTIONAL.MD: warning: not read: mem reads institutional.md here; rename it to institutional.md');
    const doctor = await run(['doctor', '--json'], { cwd: v.root, home: v.home });
    const names = (doctor.json() as { checks: { name: string; status: string; detail: string }[] }).checks.find((c) => c.name === 'names');
    expect(names).toMatchObject({ status: 'warn' });
    expect(names!.detail).toContain('Memory.md');
    expect(names!.detail).toContain('INSTITUTIONAL.MD');
  });

  it('nothing is said when every file has its name', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m1', 'Run the migrations before the API tests.'));
    v.write('memory/Memory.md', entry('m2', 'Under memory/ any .md is read, whatever its case.'));
    const lint = await run(['lint', '--json'], { cwd: v.root, home: v.home });
    expect(lint.status, lint.stderr).toBe(0);
    expect(lint.json()).toMatchObject({ problems: [] });
    const doctor = await run(['doctor', '--json'], { cwd: v.root, home: v.home });
    expect((doctor.json() as { checks: { name: string }[] }).checks.map((c) => c.name)).not.toContain('names');
  });
});
