// The services every front-end calls: they print nothing, return their warnings (or hand them to
// a `warn` sink as they come), and write the session's retrieval log themselves.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { searchMemory } from '../../src/services/search.js';
import { hookContext, taskContext } from '../../src/services/context.js';
import { listMemory } from '../../src/services/list.js';
import { loggedQuery } from '../../src/services/retrieval-log.js';
import type { Db } from '../../src/index/db.js';
import { withIndex } from '../../src/index/open.js';
import { readRetrievalIds, retrievalLogPath } from '../../src/vault/sessions.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempDir, tempVault } from '../helpers.js';

afterEach(cleanup);

const NOW = Date.parse('2026-11-25T12:00:00Z');

async function vaultWith(opts: { linkOut?: boolean } = {}) {
  const v = tempVault();
  v.write('MEMORY.md', [
    entry('migrate', 'Run the database migrations before the API tests, or the users table is missing.', { last_reinforced: '2026-11-20' }),
    entry('vpn', 'The staging deploy needs the VPN connection; without it the Helm upgrade times out.', { last_reinforced: '2026-11-20' }),
  ].join(''));
  v.write('institutional.md', entry('norm', 'Never push to main directly; open a pull request.', { last_reinforced: '2026-11-20' }));
  if (opts.linkOut) {
    const outside = tempDir();
    fs.writeFileSync(path.join(outside, 'MEMORY.md'), entry('far', 'Outside the vault.'));
    fs.mkdirSync(v.path('memory'), { recursive: true });
    fs.symlinkSync(outside, v.path('memory/elsewhere'));
  }
  return { v, vault: await openVault({ root: v.root, env: { MEM_HOME: v.home } }) };
}

describe('searchMemory', () => {
  it('returns the hits and the vault walk\'s warnings; with a warn sink they go there instead', async () => {
    const { vault } = await vaultWith({ linkOut: true });
    const req = { queries: [{ query: 'database migrations' }], filter: {}, detail: 'none' as const };
    const kept = await searchMemory(vault, req, { env: {}, now: NOW });
    expect(kept.answers[0].results[0].id).toBe('migrate');
    expect(kept.warnings.some((w) => /memory\/elsewhere/.test(w))).toBe(true);
    const sent: string[] = [];
    const streamed = await searchMemory(vault, req, { env: {}, now: NOW, warn: (w) => sent.push(w) });
    expect(streamed.warnings).toEqual([]);
    expect(sent).toEqual(kept.warnings);
  });

  it('a query of only common words says so on its own answer; the limit in effect comes back', async () => {
    const { vault } = await vaultWith();
    const res = await searchMemory(vault, { queries: [{ query: 'what is the' }], filter: {}, detail: 'none' }, { env: {}, now: NOW });
    expect(res.answers[0].warnings).toEqual(['the query has only common words (like "the", "what", "is"); nothing to search for']);
    expect(res.limit).toBe(vault.config.search.limit);
  });

  it('logs each query of a batch with the ids it returned, a long query cut', async () => {
    const { v, vault } = await vaultWith();
    const long = `staging deploy ${'x'.repeat(3000)}`;
    await searchMemory(vault, { queries: [{ query: 'database migrations' }, { query: long }], filter: {}, detail: 'none' }, { env: {}, now: NOW, session: 'S1' });
    const lines = fs.readFileSync(retrievalLogPath(v.root, 'S1'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { at: string; query: string; ids: string[] });
    expect(lines.map((l) => l.ids[0])).toEqual(['migrate', 'vpn']);
    expect(lines[1].query).toBe(loggedQuery(long));
    expect(lines[1].query).toHaveLength(2001);
    expect(lines[0].at).toBe(new Date(NOW).toISOString());
  });
});

describe('taskContext and hookContext', () => {
  it('the task\'s context: norms always, the learnings that bear on it logged for the session', async () => {
    const { v, vault } = await vaultWith();
    const { context, warnings } = await taskContext(vault, { task: 'fix the API tests: users table missing after migrations', filter: {}, detail: 'auto' }, { env: {}, now: NOW, session: 'S2' });
    expect(warnings).toEqual([]);
    expect(context.institutional.map((r) => r.entry_id)).toEqual(['norm']);
    expect(context.learnings[0].id).toBe('migrate');
    expect(readRetrievalIds(v.root, 'S2')).toEqual([...context.learnings, ...context.proxy].map((h) => h.id));
  });

  it('a prompt hook answers with the learnings that bear on it, once per session', async () => {
    const { vault } = await vaultWith();
    const req = {
      mode: 'prompt' as const, prompt: 'The API tests fail because the users table is missing', session: 'S3', now: NOW,
      deadline: { passed: () => false }, withIndex: <T>(read: (db: Db) => T) => withIndex(vault, {}, (ix) => read(ix.db)),
    };
    const first = await hookContext(vault, req);
    expect(first.answer).toMatchObject({ mode: 'prompt', omitted: [] });
    expect(first.answer?.mode === 'prompt' && first.answer.learnings.map((h) => h.id)).toEqual(['migrate']);
    // Given once in this session: not again.
    expect((await hookContext(vault, req)).answer).toBeNull();
  });

  it('a deadline already passed: nothing answered, and a note says why', async () => {
    const { vault } = await vaultWith();
    const notes: string[] = [];
    const res = await hookContext(vault, {
      mode: 'session', now: NOW, deadline: { passed: () => true }, warn: (n) => notes.push(n),
      withIndex: (read) => withIndex(vault, {}, (ix) => read(ix.db)),
    });
    expect(res).toEqual({ answer: null, warnings: [] });
    expect(notes).toEqual(['the hook\'s deadline passed before the index was read; nothing printed']);
  });
});

describe('listMemory', () => {
  it('leaves episodes and retired entries out unless asked, and says when the limit cut the list', async () => {
    const { v, vault } = await vaultWith();
    v.write('memory/old/MEMORY.md', entry('gone', 'An old way of deploying.', { status: 'retired' }));
    const some = await listMemory(vault, { filter: {}, limit: 2 });
    expect(some.rows).toHaveLength(2);
    expect(some.truncated).toBe(true);
    const all = await listMemory(vault, { filter: {} });
    expect(all.truncated).toBe(false);
    expect(all.rows.map((r) => r.entry_id).sort()).toEqual(['migrate', 'norm', 'vpn']);
    expect((await listMemory(vault, { filter: {}, all: true })).rows.map((r) => r.entry_id)).toContain('gone');
  });
});
