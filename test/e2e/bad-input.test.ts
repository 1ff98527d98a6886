// Bad input end to end: one `mem: …` line, the right exit code, no stack trace, no user file changed.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { goodVault, noStack } from '../fixtures/bad-input.js';
import { cleanup, entry, tempDir, type TempVault } from '../helpers.js';
import { run as runMem } from '../run.js';

afterEach(cleanup);

function snapshot(v: TempVault): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (!d.name.startsWith('.memory.db') && !p.includes(`${path.sep}sessions${path.sep}`)) out[path.relative(v.root, p)] = createHash('sha1').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(v.root);
  return out;
}

const setup = () => goodVault(runMem);

describe('bad input', () => {
  it('malformed YAML: warning with file:line, other entries indexed, file untouched', async () => {
    const { v, run } = setup();
    v.write('memory/broken.md', `${entry('ok3', 'Postgres vacuum runs nightly.')}---\nid: bad\ntags: [oops\n---\nbroken entry\n\n${entry('ok4', 'Postgres replicas lag.')}`);
    const before = snapshot(v);
    const r = await run(['search', 'postgres', '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^mem: warning: malformed YAML in entry header: .*\(memory\/broken\.md:\d+\)$/m);
    expect(r.json().results.map((h: { id: string }) => h.id).sort()).toEqual(['ok3', 'ok4']);
    const lint = await run(['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout).toMatch(/^memory\/broken\.md:\d+: malformed YAML/m);
    expect(snapshot(v)).toEqual(before);
  });

  it('duplicate ids: lint names both places; search and show still work', async () => {
    const { v, run } = setup();
    v.write('memory/dup.md', entry('good1', 'A copy with the same id.'));
    const lint = await run(['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout).toContain('MEMORY.md:3: duplicate id "good1" (also at memory/dup.md:1)');
    const show = await run(['show', 'good1']);
    expect(show.status).toBe(0);
    expect(show.stderr).toMatch(/appears 2 times/);
    expect((await run(['search', 'kafka'])).status).toBe(0);
  });

  it('binary and non-UTF-8 files are skipped with a warning', async () => {
    const { v, run } = setup();
    v.write('memory/image.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a]));
    v.write('memory/latin1.md', Buffer.concat([Buffer.from('# Notes\n\nna'), Buffer.from([0xef, 0x76]), Buffer.from('e\n')]));
    const r = await run(['index']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('mem: warning: binary file (contains NUL bytes); skipped (memory/image.md)');
    expect(r.stderr).toContain('mem: warning: not valid UTF-8; skipped (memory/latin1.md:3)');
    expect(r.stdout).toMatch(/2 entries/);
    const lint = await run(['lint']);
    expect(lint.stdout).toContain('memory/latin1.md:3: not valid UTF-8');
  });

  it('no vault: one line and a hint, exit 1', async () => {
    const dir = tempDir();
    const r = await runMem(['search', 'x'], { cwd: dir, home: dir });
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^mem: no vault found/);
    expect(r.stderr).toMatch(/^hint: /m);
    noStack(r.stderr);
  });

  it('empty, stopword-only and 1 MB queries', async () => {
    const { run } = setup();
    const empty = await run(['search', '   ']);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/^mem: empty query/);
    const stop = await run(['search', 'what is the', '--json']);
    expect(stop.status).toBe(0);
    expect(stop.json().results).toEqual([]);
    expect(stop.stderr).toMatch(/only common words/);
    const words = Array.from({ length: 120_000 }, (_, i) => `w${i % 5000} kafka`).join(' ');
    expect(words.length).toBeGreaterThan(1_000_000);
    const big = await run(['search', '-', '--json'], words);
    expect(big.status).toBe(0);
    expect(big.stderr).toMatch(/more than 64 distinct terms/);
    const batch = await run(['search', '--batch', '-', '--json'], `${JSON.stringify({ id: 'big', query: words })}\n`);
    expect(batch.status).toBe(0);
    expect(JSON.parse(batch.stdout).id).toBe('big');
    noStack(big.stderr + batch.stderr);
  });

  it('a corrupt index is rebuilt from the markdown', async () => {
    const { v, run } = setup();
    expect((await run(['index'])).status).toBe(0);
    const junk = Buffer.alloc(8192, 0x41);
    fs.writeFileSync(v.path('.memory.db'), junk);
    fs.rmSync(v.path('.memory.db-wal'), { force: true });
    fs.rmSync(v.path('.memory.db-shm'), { force: true });
    const r = await run(['search', 'kafka', '--json']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/corrupt/);
    expect(r.json().results[0].id).toBe('good1');
  });

  it('malformed config and bad option values', async () => {
    const { v, run } = setup();
    expect((await run(['search', 'kafka', '--type', 'bogus'])).status).toBe(2);
    expect((await run(['search', 'kafka', '--limit', 'ten'])).status).toBe(2);
    // Past 2^53 a number is no exact integer: a usage error, not a failing query.
    for (const [flag, n] of [['--limit', '9223372036854775807'], ['--candidates', '99999999999999999999'], ['--limit', '9007199254740992']]) {
      const r = await run(['search', 'kafka', flag, n]);
      expect(r.status, `${flag} ${n}`).toBe(2);
      expect(r.stderr).toBe(`mem: ${flag} must be an integer from 1 to 9007199254740991 (got "${n}")\n`);
    }
    expect((await run(['search', 'kafka', '--limit', '9007199254740991', '--json'])).status).toBe(0);
    // A batch line with a limit that is not a whole number from 1 up is skipped with a message.
    const batch = ['{"id":"a","query":"kafka","limit":9223372036854775807}', '{"id":"b","query":"kafka","limit":0}', '{"id":"c","query":"kafka","limit":"5"}', '{"id":"d","query":"kafka","limit":2}'].join('\n');
    const b = await run(['search', '--batch', '-'], batch);
    expect(b.stdout.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['d']);
    expect(b.stderr.match(/"limit" must be a whole number/g)).toHaveLength(3);
    expect((await run(['add', 'x', '--importance', '2'])).status).toBe(2);
    expect((await run(['search', 'kafka', '--status', 'retired'])).status).toBe(2);
    expect((await run(['search', 'kafka', '--rank', 'magic'])).status).toBe(2);
    v.write('.mem/config.yaml', 'search:\n  limit: [\n');
    const r = await run(['search', 'kafka']);
    expect(r.status).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^mem: malformed YAML: .*\(\.mem\/config\.yaml:\d+\)$/);
    noStack(r.stderr);
  });
});
