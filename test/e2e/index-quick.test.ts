// The short start path of `mem index` (src/cli/quick.ts, dist/quick.cjs): which command lines it
// takes, and that what it does and prints is what the whole CLI does and prints for them.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { plainIndex, quick } from '../../src/cli/quick.js';
import { cleanup, entry, tempVault, type TempVault } from '../helpers.js';
import { run, testIo, type RunOptions } from '../run.js';

afterAll(cleanup);

/** Timings differ from run to run; everything else must not. */
const untimed = (text: string) => text.replace(/("(?:ms|check_ms)": )[\d.]+/g, '$1T').replace(/\d+(?:\.\d+)? ms/g, 'T ms');

async function viaQuick(args: string[], opts: RunOptions) {
  const io = testIo(opts);
  const status = await quick(args, io);
  return { status, stdout: io.out, stderr: io.err };
}

/** Two copies of one vault: the same command through each path, from the same state. */
function twins(fill: (v: TempVault) => void): [TempVault, TempVault] {
  const a = tempVault();
  const b = tempVault();
  fill(a);
  fill(b);
  return [a, b];
}

async function expectSame(args: string[], a: TempVault, b: TempVault, env: Record<string, string> = {}) {
  const full = await run(args, { cwd: a.root, home: a.home, env });
  const short = await viaQuick(args, { cwd: b.root, home: b.home, env });
  expect(short.status, 'the quick path took this command line').not.toBeUndefined();
  expect({ status: short.status, stdout: untimed(short.stdout), stderr: untimed(short.stderr.replaceAll(b.root, 'ROOT')) })
    .toEqual({ status: full.status, stdout: untimed(full.stdout), stderr: untimed(full.stderr.replaceAll(a.root, 'ROOT')) });
  return full;
}

describe('the quick path of mem index', () => {
  it('takes a plain mem index with global options only, in any order', () => {
    expect(plainIndex(['index'])).toEqual({});
    expect(plainIndex(['index', '--quiet'])).toEqual({ quiet: true });
    expect(plainIndex(['--json', 'index', '-q', '--no-color', '--debug'])).toEqual({ json: true, quiet: true, color: false, debug: true });
    expect(plainIndex(['--root', '/v', 'index'])).toEqual({ root: '/v' });
    expect(plainIndex(['index', '--root=/v w'])).toEqual({ root: '/v w' });
    // A value that looks like the word or an option is still --root's, as commander reads it.
    expect(plainIndex(['--root', 'index', 'index'])).toEqual({ root: 'index' });
    expect(plainIndex(['index', '--root', '--json'])).toEqual({ root: '--json' });
  });

  it('declines everything else, for the whole CLI to run or refuse', () => {
    for (const argv of [
      [], ['search', 'index'], ['index', '--rebuild'], ['index', '--embed'], ['index', '--help'], ['index', '-h'],
      ['index', 'extra'], ['index', 'index'], ['index', '--root'], ['index', '--root', ''], ['index', '--root='],
      ['index', '-qj'], ['index', '--'], ['index', '--colour'], ['--version'], ['index', '-V'],
    ]) {
      expect(plainIndex(argv), argv.join(' ')).toBeNull();
    }
  });

  it('hands a terminal that may show a spinner to the whole CLI, having done nothing', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.'));
    const io = { ...testIo({ cwd: v.root, home: v.home }), stderrTTY: true };
    expect(await quick(['index'], io)).toBeUndefined();
    expect(fs.existsSync(v.path('.memory.db'))).toBe(false);
    expect(io.out + io.err).toBe('');
    expect(await quick(['index', '--quiet'], io)).toBe(0);
    expect(fs.existsSync(v.path('.memory.db'))).toBe(true);
  });

  it('prints what the whole CLI prints: a new index, one with nothing changed, one after an edit', async () => {
    const [a, b] = twins((v) => v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.') + entry('m-2', 'Deploys need the VPN.')));
    const first = await expectSame(['index', '--json'], a, b);
    expect(first.json()).toMatchObject({ files: 1, changed: 1, entries: 2, rebuilt: false });
    const same = await expectSame(['index'], a, b);
    expect(same.stdout).toMatch(/^index up to date: 1 files \(0 changed, 0 removed\), 2 entries, \d+ ms \(check [\d.]+ ms\)\n$/);
    await expectSame(['--json', 'index'], a, b);
    for (const v of [a, b]) fs.appendFileSync(v.path('MEMORY.md'), entry('m-3', 'The cache warms up after the deploy.'));
    const edited = await expectSame(['index', '--json'], a, b);
    expect(edited.json()).toMatchObject({ changed: 1, entries: 3 });
    await expectSame(['index', '--quiet'], a, b);
  });

  it('says the same warnings: a file left mid-merge, a file that cannot be read as entries', async () => {
    const [a, b] = twins((v) => {
      v.write('MEMORY.md', `${entry('m-1', 'Run the migrations.')}<<<<<<< HEAD\n${entry('m-2', 'Ours.')}=======\n${entry('m-2', 'Theirs.')}>>>>>>> branch\n`);
      v.write('memory/broken.md', Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x00]));
    });
    const r = await expectSame(['index'], a, b);
    expect(r.stderr).toContain('unresolved git conflict markers');
    await expectSame(['index', '--json'], a, b);
    await expectSame(['index', '--quiet'], a, b);
  });

  it('fails as the whole CLI fails: a root that is not a folder, an index that cannot be opened', async () => {
    const [a, b] = twins((v) => v.write('MEMORY.md', entry('m-1', 'Run the migrations.')));
    const missing = await expectSame(['index', '--root', path.join(a.root, 'nope')].map((x) => x.replace(a.root, '.')), a, b);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^mem: vault root .* is not a directory\nhint: /);
    for (const v of [a, b]) fs.mkdirSync(v.path('.memory.db'));
    const folder = await expectSame(['index'], a, b);
    expect(folder.status).toBe(1);
    expect(folder.stderr).toMatch(/^mem: /);
  });
});
