// The walk and the probes with something else than a regular file under a memory file's name (a
// FIFO, a socket, a folder): left out of the files to read, never opened, named in skipNotices
// with what it is; and a walk that met one is not memoised, so that every command says so again.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openIndex } from '../../src/index/db.js';
import { applyRefresh, planRefresh } from '../../src/index/indexer.js';
import { discoverFiles, openVault, skipNotices, takeNotRegularFiles } from '../../src/vault/vault.js';
import { cleanup, entry, mkfifo, tempVault } from '../helpers.js';

afterEach(cleanup);

const isPosix = process.platform !== 'win32';

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A listening Unix socket at `p`, open until the test ends (closing it removes its file). */
async function socketAt(p: string): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(p, resolve));
  servers.push(server);
}

const notice = (p: string, what: string) => `${p} is not a regular file (${what}); mem reads only regular files, so it is left out`;

describe.runIf(isPosix)('memory files that are not regular files', () => {
  it('every layout and probe: left out, each named once with what it is', async () => {
    const v = tempVault();
    v.write('memory/real.md', entry('r1', 'A real note.'));
    v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\n  - notes/plain.md\nexclude:\n  - docs/skip/**\n');
    mkfifo(v.path('MEMORY.md'));
    fs.mkdirSync(v.path('institutional.md'));
    mkfifo(v.path('memory/pipe.md'));
    await socketAt(v.path('memory/sock.md'));
    fs.mkdirSync(v.path('.mem/jobs/j1/MEMORY.md'), { recursive: true });
    mkfifo(v.path('.mem/jobs/j1/tasks/t1/institutional.md'));
    mkfifo(v.path('.mem/episodes/e1.md'));
    mkfifo(v.path('docs/sub/pipe.md'));
    fs.mkdirSync(v.path('notes/plain.md'), { recursive: true });
    mkfifo(path.join(v.home, 'MEMORY.md'));
    // Not memory files at all (no walk reads these names, or they are excluded): nothing said.
    mkfifo(v.path('memory/pipe.txt'));
    mkfifo(v.path('docs/.hidden.md'));
    mkfifo(v.path('docs/skip/pipe.md'));
    // A folder with a .md name under memory/ is a folder the walk enters, not a file left out.
    v.write('memory/topics.md/deploy.md', entry('d1', 'Inside a folder named like a file.'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    expect(discoverFiles(vault).map((f) => f.path).sort()).toEqual(['memory/real.md', 'memory/topics.md/deploy.md']);
    expect(skipNotices(vault).sort()).toEqual([
      notice('.mem/episodes/e1.md', 'a FIFO'),
      notice('.mem/jobs/j1/MEMORY.md', 'a folder'),
      notice('.mem/jobs/j1/tasks/t1/institutional.md', 'a FIFO'),
      notice(path.join(v.home, 'MEMORY.md'), 'a FIFO'),
      notice('MEMORY.md', 'a FIFO'),
      notice('docs/sub/pipe.md', 'a FIFO'),
      notice('institutional.md', 'a folder'),
      notice('memory/pipe.md', 'a FIFO'),
      notice('memory/sock.md', 'a socket'),
      notice('notes/plain.md', 'a folder'),
    ].sort());
    expect(skipNotices(vault)).toEqual([]);
  });

  it('takeNotRegularFiles takes the ones asked for out of the notices', async () => {
    const v = tempVault();
    mkfifo(v.path('MEMORY.md'));
    mkfifo(v.path('memory/pipe.md'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    discoverFiles(vault);
    expect(takeNotRegularFiles(vault, (p) => p === 'MEMORY.md')).toEqual([['MEMORY.md', 'a FIFO']]);
    expect(skipNotices(vault)).toEqual([notice('memory/pipe.md', 'a FIFO')]);
  });

  it('a walk that met one is not memoised: the next refresh walks and says it again, until it is gone', async () => {
    const later = () => Date.now() + 60_000; // past the racy window: a plain walk would be memoised
    const v = tempVault();
    v.write('memory/real.md', entry('r1', 'A real note.'));
    mkfifo(v.path('memory/pipe.md'));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    const { db } = openIndex(vault.dbPath);
    try {
      const memo = () => db.prepare("SELECT value FROM meta WHERE key = 'walk_memo'").pluck().get() as string | undefined;
      for (let i = 0; i < 2; i++) {
        applyRefresh(db, planRefresh(db, vault, later));
        expect(memo() ?? '').toBe('');
        expect(skipNotices(vault)).toEqual([notice('memory/pipe.md', 'a FIFO')]);
      }
      fs.rmSync(v.path('memory/pipe.md'));
      applyRefresh(db, planRefresh(db, vault, later));
      expect(memo()).toContain('memory/real.md');
      expect(skipNotices(vault)).toEqual([]);
      // One put at the root (a folder the memo does not depend on) is found by the probe, and the
      // memo is forgotten: no watcher vouches for an index that leaves it out.
      mkfifo(v.path('MEMORY.md'));
      applyRefresh(db, planRefresh(db, vault, later));
      expect(skipNotices(vault)).toEqual([notice('MEMORY.md', 'a FIFO')]);
      expect(memo()).toBe('');
      applyRefresh(db, planRefresh(db, vault, later));
      expect(skipNotices(vault)).toEqual([notice('MEMORY.md', 'a FIFO')]);
    } finally {
      db.close();
    }
  });
});
