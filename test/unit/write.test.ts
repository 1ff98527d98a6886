import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inRun, settingsFrom } from '../../src/run.js';
import { acquireLock, acquireLockAsync, replaceAll, withFileLock } from '../../src/vault/write.js';
import { editFilesTogether } from '../../src/vault/edit.js';

/** `fn` as a run of mem whose lock timeout is `ms` (the run's own, as MEM_LOCK_TIMEOUT_MS sets it). */
const withLockTimeout = <T>(ms: number, fn: () => T): T => inRun(settingsFrom({ MEM_LOCK_TIMEOUT_MS: String(ms) }), fn);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-write-'));
  dirs.push(d);
  return d;
}

describe('locked writes', () => {
  it('replace the file through its lock: new text, same mode, no lock or temp file left', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    fs.writeFileSync(file, 'old text that is longer than the new one\n');
    fs.chmodSync(file, 0o600);
    const lock = acquireLock(file, 'MEMORY.md');
    expect(fs.readFileSync(path.join(d, '.MEMORY.md.lock'), 'utf8')).toBe(`${process.pid}\n`);
    lock.replace('new\n');
    lock.release(); // nothing left to release
    expect(fs.readFileSync(file, 'utf8')).toBe('new\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(d)).toEqual(['MEMORY.md']);
    // The file can be locked again at once.
    withFileLock(file, (l) => l.replace('again\n'));
    expect(fs.readFileSync(file, 'utf8')).toBe('again\n');
    expect(fs.readdirSync(d)).toEqual(['MEMORY.md']);
  });

  it('create a new file through a temp file, and release without writing leaves the file alone', () => {
    const d = tempDir();
    const file = path.join(d, 'sub', 'new.md');
    withFileLock(file, (l) => l.replace('# New\n'));
    expect(fs.readFileSync(file, 'utf8')).toBe('# New\n');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['new.md']);
    withFileLock(file, () => undefined);
    expect(fs.readFileSync(file, 'utf8')).toBe('# New\n');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['new.md']);
  });

  it('treat a lock holding text as a write in progress while a process holds it open, as left over once none does', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    fs.writeFileSync(file, 'kept\n');
    const lockFile = path.join(d, '.MEMORY.md.lock');
    fs.writeFileSync(lockFile, '---\nid: half-written\n');
    // Held open (by this process here; a writer keeps its lock file open until it is renamed).
    const fd = fs.openSync(lockFile, 'r');
    withLockTimeout(100, () => {
      if (process.platform === 'linux') expect(() => acquireLock(file, 'MEMORY.md')).toThrow(/MEMORY\.md is locked by another writer/);
      fs.closeSync(fd);
      // Nobody holds it: the writer is gone, and the lock is taken over however fresh it is.
      if (process.platform === 'linux') withFileLock(file, (l) => l.replace('taken over\n'), 'MEMORY.md');
      else {
        const old = new Date(Date.now() - 60_000);
        fs.utimesSync(lockFile, old, old);
        withFileLock(file, (l) => l.replace('taken over\n'), 'MEMORY.md');
      }
    });
    expect(fs.readFileSync(file, 'utf8')).toBe('taken over\n');
    expect(fs.existsSync(lockFile)).toBe(false);
  });

  it('replace many files as one step: staged, synced together, renamed; new files too', async () => {
    const d = tempDir();
    const files = Array.from({ length: 40 }, (_, i) => path.join(d, `f${i}.md`));
    files.forEach((f, i) => {
      fs.writeFileSync(f, `old ${i}\n`);
      fs.chmodSync(f, i % 2 ? 0o600 : 0o644);
    });
    const fresh = path.join(d, 'sub', 'fresh.md');
    const locks = [...files, fresh].map((f) => acquireLock(f));
    await replaceAll(locks.map((lock, i) => ({ lock, text: `new ${i}\n`.repeat(i + 1) })));
    files.forEach((f, i) => {
      expect(fs.readFileSync(f, 'utf8')).toBe(`new ${i}\n`.repeat(i + 1));
      expect(fs.statSync(f).mode & 0o777).toBe(i % 2 ? 0o600 : 0o644);
    });
    expect(fs.readFileSync(fresh, 'utf8')).toBe('new 40\n'.repeat(41));
    for (const l of locks) l.release(); // all released already
    expect(fs.readdirSync(d).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(fs.readdirSync(path.join(d, 'sub'))).toEqual(['fresh.md']);
  });

  it('change no file when one of a batch fails before the renames', async () => {
    const d = tempDir();
    const a = path.join(d, 'a.md');
    const b = path.join(d, 'b.md');
    fs.writeFileSync(a, 'a\n');
    fs.writeFileSync(b, 'b\n');
    const la = acquireLock(a);
    const lb = acquireLock(b);
    lb.release(); // no longer held: staging it throws, after a's text was staged
    await expect(replaceAll([{ lock: la, text: 'A\n' }, { lock: lb, text: 'B\n' }])).rejects.toThrow(/no longer held/);
    expect(fs.readFileSync(a, 'utf8')).toBe('a\n');
    expect(fs.readFileSync(b, 'utf8')).toBe('b\n');
    expect(fs.readdirSync(d).sort()).toEqual(['a.md', 'b.md']); // a's lock file, with A in it, is gone
    withFileLock(a, (l) => l.replace('again\n')); // and a can be locked again
    expect(fs.readFileSync(a, 'utf8')).toBe('again\n');
  });

  it('take a lock asynchronously: wait for the holder, take over a dead writer\'s, give up at the timeout', async () => {
    const d = tempDir();
    const a = path.join(d, 'a.md');
    fs.writeFileSync(a, 'a\n');
    const first = await acquireLockAsync(a);
    expect(fs.readFileSync(path.join(d, '.a.md.lock'), 'utf8')).toBe(`${process.pid}\n`);
    let released = false;
    setTimeout(() => {
      released = true;
      first.release();
    }, 150);
    const second = await acquireLockAsync(a);
    expect(released).toBe(true); // it waited for the release
    second.replace('A\n');
    expect(fs.readFileSync(a, 'utf8')).toBe('A\n');
    // A lock left by a process that is gone is taken over.
    fs.writeFileSync(path.join(d, '.a.md.lock'), '2147483646\n');
    (await acquireLockAsync(a)).release();
    // A live holder past the timeout: a clear error, and its lock stays.
    const held = acquireLock(a);
    await withLockTimeout(120, () => expect(acquireLockAsync(a, 'a.md')).rejects.toThrow(/^a\.md is locked by another writer \(pid \d+\)/));
    expect(fs.existsSync(path.join(d, '.a.md.lock'))).toBe(true);
    held.release();
    expect(fs.readdirSync(d)).toEqual(['a.md']);
  });

  it('edit files together: a malformed file stops the step with no file changed and no lock left', async () => {
    const d = tempDir();
    const names = ['a', 'b', 'c', 'd'].map((n) => path.join(d, `${n}.md`));
    const good = (id: string) => `---\nid: ${id}\n---\n## ${id}\n\nbody ${id}\n`;
    for (const f of names) fs.writeFileSync(f, good(path.basename(f, '.md')));
    fs.writeFileSync(names[1], '---\nid: [broken\n---\n## b\n\nbody\n');
    const targets = names.map((abs) => ({ abs, path: path.basename(abs) }));
    let planned = false;
    await expect(editFilesTogether(targets, (parsed) => {
      planned = true;
      return parsed;
    })).rejects.toMatchObject({ message: /malformed YAML/, where: { file: 'b.md' } });
    expect(planned).toBe(false);
    expect(fs.readdirSync(d).sort()).toEqual(['a.md', 'b.md', 'c.md', 'd.md']);
    // The same step on good files plans with every file parsed, in the callers' order.
    fs.writeFileSync(names[1], good('b'));
    const seen: string[] = [];
    const written = await editFilesTogether([...targets].reverse(), (parsed) => {
      seen.push(...parsed.map((p) => p.entries[0].id));
      return parsed.map(() => null);
    });
    expect(seen).toEqual(['d', 'c', 'b', 'a']);
    expect(written).toEqual([]);
    expect(fs.readdirSync(d).sort()).toEqual(['a.md', 'b.md', 'c.md', 'd.md']);
  });

  it('edit files together: files that lose entries are renamed into place after the ones that keep or gain them', async () => {
    const d = tempDir();
    const block = (id: string, body: string) => `---\nid: ${id}\n---\n## ${id}\n\n${body}\n`;
    // a.md loses its entry (merged into the survivor in z.md); z.md gains its text. A kill between
    // the two renames must leave the text twice, never nowhere: z.md first, whatever the path order.
    const a = path.join(d, 'a.md');
    const z = path.join(d, 'z.md');
    fs.writeFileSync(a, block('x', 'the absorbed text'));
    fs.writeFileSync(z, block('y', 'the survivor'));
    // The order of the renames, as the kernel reports them (inotify, in order).
    const seen: string[] = [];
    let bothSeen!: () => void;
    const both = new Promise<void>((resolve) => (bothSeen = resolve));
    const watcher = fs.watch(d, (_event, name) => {
      if ((name === 'a.md' || name === 'z.md') && seen[seen.length - 1] !== name) seen.push(name);
      if (seen.includes('a.md') && seen.includes('z.md')) bothSeen();
    });
    const written = await editFilesTogether([{ abs: a, path: 'a.md' }, { abs: z, path: 'z.md' }], (parsed) => {
      const [pa, pz] = parsed;
      const merged = { ...pz.blocks[0], raw: block('y', 'the survivor and the absorbed text') };
      return [{ ...pa, blocks: [], entries: [] }, { ...pz, blocks: [merged], entries: pz.entries }];
    });
    await both; // however late the events come (the test's timeout, should one never)
    watcher.close();
    expect(written.sort()).toEqual(['a.md', 'z.md']);
    expect(fs.readFileSync(z, 'utf8')).toContain('the absorbed text');
    expect(fs.readFileSync(a, 'utf8')).toBe('');
    expect(seen).toEqual(['z.md', 'a.md']);
  });
});
