// Input piped from a slow producer: commands that read standard input wait for the writer to
// finish. A pipe can be non-blocking (asking process.stdin whether it is a terminal made it so),
// and "nothing yet" used to read as an empty input ("stdin is empty").

import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, tempVault } from '../helpers.js';

afterEach(() => cleanup());

/** `(sleep 0.4; printf TEXT) | mem ARGS` in the vault, through a real shell pipe. */
function slowPipe(root: string, home: string, text: string, args: string[]) {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = `(sleep 0.4; printf '%s' ${quote(text)}) | ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(' ')}`;
  return spawnSync('sh', ['-c', cmd], { cwd: root, encoding: 'utf8', env: { ...process.env, MEM_HOME: home, NO_COLOR: '1', NODE_EXTRA_CA_CERTS: '' } });
}

describe('standard input from a slow producer', () => {
  it('mem episode add, mem pattern add and mem add (no text argument) wait for it', () => {
    const v = tempVault();
    const ep = slowPipe(v.root, v.home, '{"session_id":"slow-1","task":"upgrade node","outcome":"failure"}', ['episode', 'add']);
    expect(ep.stderr).toBe('');
    expect(ep.status).toBe(0);
    expect(v.read('.mem/episodes/EPISODE-slow-1.md')).toContain("task: 'upgrade node'");
    const pat = slowPipe(v.root, v.home, '{"name":"retry-once","trigger":"network flake","action":"retry"}', ['pattern', 'add']);
    expect([pat.status, pat.stderr]).toEqual([0, '']);
    expect(v.read('.mem/patterns/PATTERN-retry-once.md')).toContain('network flake');
    const add = slowPipe(v.root, v.home, 'Run the migrations before the API tests', ['add']);
    expect(add.status, add.stderr).toBe(0);
    expect(v.read('MEMORY.md')).toContain('Run the migrations before the API tests');
  });
});
