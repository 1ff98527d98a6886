// The CLI with one command alone (src/cli/one/, the bundles bin/mem.js loads for `mem search` and
// `mem context`): the same program as the whole CLI's for any command line whose word is theirs.

import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../src/cli/main.js';
import { CONTEXT_COMMAND, main as contextMain } from '../../src/cli/one/context.js';
import { SEARCH_COMMAND, main as searchMain } from '../../src/cli/one/search.js';
import { cleanup, entry, tempVault } from '../helpers.js';
import { testIo } from '../run.js';

afterAll(cleanup);

async function output(run: typeof main, argv: string[], cwd: string, home: string) {
  const io = testIo({ cwd, home, env: { MEM_NOW: '2026-11-27' } });
  const status = await run(argv, io);
  return { status, stdout: io.out.replace(/"ms": [\d.]+/g, '"ms": T'), stderr: io.err };
}

describe('the CLI of one command', () => {
  it('is an entry of the whole command table', () => {
    expect(COMMANDS).toContain(SEARCH_COMMAND);
    expect(COMMANDS).toContain(CONTEXT_COMMAND);
  });

  it('answers its command lines as the whole CLI does: results, help, mistakes', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('m-1', 'Run the migrations before the API tests.') + entry('m-2', 'Deploys need the VPN.'));
    // (The agents' hooks run as processes: test/process/agent-hook-run.test.ts, through bin/mem.js.)
    const cases: [typeof main, string[]][] = [
      [searchMain, ['search', 'migrations', '--json']],
      [searchMain, ['--root', v.root, 'search', 'deploys vpn']],
      [searchMain, ['search', '--help']],
      [searchMain, ['search', '--limt', '3', 'x']],
      [searchMain, ['search']],
      [contextMain, ['context', 'fix the API tests']],
      [contextMain, ['context', '--help']],
    ];
    for (const [one, argv] of cases) {
      const whole = await output(main, argv, v.root, v.home);
      expect(await output(one, argv, v.root, v.home), argv.join(' ')).toEqual(whole);
    }
  });
});
