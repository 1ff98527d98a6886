import { describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/vault/scope.js';

describe('classifyPath: path → scope', () => {
  const cases: [string, boolean, string, string, Record<string, string>?][] = [
    ['MEMORY.md', true, 'global', 'task'],
    ['institutional.md', true, 'global', 'institutional'],
    ['MEMORY.md', false, 'project', 'task'],
    ['institutional.md', false, 'project', 'institutional'],
    ['memory/notes/setup.md', false, 'project', 'task'],
    ['memory/proxy.md', false, 'project', 'proxy'],
    ['proxy-prefs.md', false, 'project', 'proxy'],
    ['docs/guide.md', false, 'project', 'task'],
    ['.mem/jobs/j1/MEMORY.md', false, 'session', 'task', { job: 'j1' }],
    ['.mem/jobs/j1/institutional.md', false, 'session', 'institutional', { job: 'j1' }],
    ['.mem/jobs/j1/tasks/t9/MEMORY.md', false, 'team', 'task', { job: 'j1', task: 't9' }],
    ['.teaparty/jobs/build/institutional.md', false, 'session', 'institutional', { job: 'build' }],
    ['.teaparty/jobs/build/MEMORY.md', false, 'session', 'task', { job: 'build' }],
    ['.teaparty/jobs/build/tasks/t1/worktree/MEMORY.md', false, 'team', 'task', { job: 'build', task: 't1' }],
    ['projects/pocket/.sessions/20260101-1200/MEMORY.md', false, 'team', 'task', { job: 'pocket', task: '20260101-1200' }],
    ['projects/pocket/.sessions/20260101-1200/sub/institutional.md', false, 'team', 'institutional'],
    ['./MEMORY.md', false, 'project', 'task'],
    ['dispatch.md', false, 'dispatch', 'task'],
    ['./dispatch.md', false, 'dispatch', 'task'],
    ['memory/dispatch.md', false, 'project', 'task'],
    ['.mem/jobs/j1/dispatch.md', false, 'session', 'task', { job: 'j1' }],
  ];
  it.each(cases)('%s (global=%s) → %s / %s', (p, isGlobal, scope, learningType, extra) => {
    const info = classifyPath(p, isGlobal);
    expect(info.scope).toBe(scope);
    expect(info.learningType).toBe(learningType);
    if (extra) expect(info).toMatchObject(extra);
  });
});
