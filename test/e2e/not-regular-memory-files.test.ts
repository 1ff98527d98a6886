// A FIFO or a folder in the place of a memory file (MEMORY.md, or a file an include glob makes
// one): never opened (a FIFO with no writer would block the read for good), never left out in
// silence. lint reports it as a problem (exit 1); reads answer from the other files and say, in
// one warning, which path it is and what is there; doctor names it. A command that answers at all
// did not open the FIFO.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, entry, mkfifo, tempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

const isPosix = process.platform !== 'win32';

/** A vault whose other memory files hold entries about deploys; `odd` is put in place by the test. */
function setup() {
  const v = tempVault();
  v.write('institutional.md', entry('n1', '## Deploy norm\nEvery deploy goes through CI.'));
  v.write('memory/real.md', entry('r1', '## Deploy notes\nThe deploy needs the VPN.'));
  v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\n');
  v.write('docs/guide.md', '# Guide\n\n## Deploy steps\nTag, then deploy.\n');
  const run = (args: string[]) => runIn(args, { cwd: v.root, home: v.home });
  return { v, run };
}

/** The warnings on stderr that name `file`. */
function warningsAbout(stderr: string, file: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('mem: warning: ') && l.includes(file));
}

const cases: { name: string; file: string; what: string; make: (abs: string) => void }[] = [
  { name: 'a FIFO named MEMORY.md', file: 'MEMORY.md', what: 'a FIFO', make: mkfifo },
  { name: 'a folder named MEMORY.md', file: 'MEMORY.md', what: 'a folder', make: (abs) => fs.mkdirSync(abs) },
  { name: 'a FIFO an include glob matches in a subfolder', file: 'docs/sub/pipe.md', what: 'a FIFO', make: mkfifo },
];

describe.runIf(isPosix)('a memory file that is not a regular file', () => {
  for (const c of cases) {
    const warning = `mem: warning: ${c.file} is not a regular file (${c.what}); mem reads only regular files, so it is left out`;

    it(`${c.name}: lint reports it as a problem and exits 1`, async () => {
      const { v, run } = setup();
      c.make(v.path(c.file));
      const lint = await run(['lint']);
      expect(lint.status, lint.stderr).toBe(1);
      expect(lint.stdout.split('\n')).toContain(`${c.file}: not a regular file (${c.what})`);
      expect(lint.stdout).not.toMatch(/no problems/);
      // Reported once, as the problem: not also as a warning.
      expect(warningsAbout(lint.stderr, c.file)).toEqual([]);
      const json = await run(['lint', '--json']);
      expect(json.status, json.stderr).toBe(1);
      expect(json.json().problems).toContainEqual({ file: c.file, line: null, severity: 'error', message: `not a regular file (${c.what})` });
    });

    it(`${c.name}: list, search, context and index answer from the other files with one warning naming it`, async () => {
      const { v, run } = setup();
      c.make(v.path(c.file));
      const list = await run(['list', '--json']);
      expect(list.status, list.stderr).toBe(0);
      expect(list.json().entries.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining(['n1', 'r1']));
      expect(warningsAbout(list.stderr, c.file)).toEqual([warning]);
      // Again, from the index the first read left: said on every read, not only the first.
      for (const args of [['search', 'deploy', '--ids'], ['search', 'deploy', '--ids']]) {
        const s = await run(args);
        expect(s.status, s.stderr).toBe(0);
        expect(s.stdout.split('\n')).toContain('r1');
        expect(warningsAbout(s.stderr, c.file)).toEqual([warning]);
      }
      const ctx = await run(['context', 'deploy']);
      expect(ctx.status, ctx.stderr).toBe(0);
      expect(ctx.stdout).toMatch(/VPN/);
      expect(warningsAbout(ctx.stderr, c.file)).toEqual([warning]);
      const ix = await run(['index']);
      expect(ix.status, ix.stderr).toBe(0);
      expect(warningsAbout(ix.stderr, c.file)).toEqual([warning]);
    });

    it(`${c.name}: doctor names it`, async () => {
      const { v, run } = setup();
      c.make(v.path(c.file));
      const doc = await run(['doctor', '--json']);
      const skipped = doc.json().checks.find((k: { name: string }) => k.name === 'skipped');
      expect(skipped).toMatchObject({ status: 'warn', detail: expect.stringContaining(`${c.file} is not a regular file (${c.what})`), hint: expect.stringMatching(/move it away/) });
    });
  }

  it('lint of named files: the named one is reported by its read, another one is a warning', async () => {
    const { v, run } = setup();
    mkfifo(v.path('MEMORY.md'));
    mkfifo(v.path('docs/sub/pipe.md'));
    const named = await run(['lint', 'MEMORY.md']);
    expect(named.status, named.stderr).toBe(1);
    expect(named.stdout.split('\n').filter((l) => l.includes('MEMORY.md'))).toEqual(['MEMORY.md: not a regular file (a FIFO)']);
    expect(warningsAbout(named.stderr, 'MEMORY.md')).toEqual([]);
    expect(warningsAbout(named.stderr, 'docs/sub/pipe.md')).toHaveLength(1);
    const other = await run(['lint', 'institutional.md']);
    expect(other.status, other.stderr).toBe(0);
    expect(warningsAbout(other.stderr, 'MEMORY.md')).toHaveLength(1);
  });
});
