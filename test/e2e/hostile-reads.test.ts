// What mem reads and where `mem add --file` writes, the CLI in this process on real files: a FIFO,
// a device or a link out of the vault in the place of a file mem reads makes the command stop at
// once with one `mem:` line (never block, never read gigabytes, never send the file to a model),
// and add --file writes only to files that search, list and lint read back. A FIFO opened with no
// writer never returns: a command that answers at all did not open it, and one that did ends by
// the test's timeout.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers, fakeServer, openaiCompletion } from '../fake-llm.js';
import { cleanup, entry, tempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

const NO_KEYS = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined };
const SECRET = 'AKIAZZSECRETZZ42';
function setup(opts: { git?: boolean } = {}) {
  const v = tempVault(opts);
  v.write('MEMORY.md', entry('m1', '## Deploy through CI\nThe deploy runs in the pipeline.'));
  const outside = path.join(path.dirname(v.root), 'outside');
  fs.mkdirSync(outside, { recursive: true });
  const run = (args: string[], env: Record<string, string | undefined> = {}) => runIn(args, { cwd: v.root, home: v.home, env });
  return { v, outside, run };
}

function mkfifo(p: string): void {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const r = spawnSync('mkfifo', [p]);
  if (r.status !== 0) throw new Error(`mkfifo ${p}: ${r.stderr}`);
}

/** Every file under `dir` (not following links) with a hash of its bytes: "nothing written" is this unchanged. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out[path.relative(dir, p)] = createHash('sha256').update(fs.readFileSync(p)).digest('hex');
      else out[path.relative(dir, p)] = e.isSymbolicLink() ? `-> ${fs.readlinkSync(p)}` : 'special';
    }
  };
  walk(dir);
  return out;
}

/** The command came back, failed, and said why in one `mem:` line. */
function expectRefused(r: { status: number; stderr: string; stdout: string }, what: RegExp, status?: number) {
  expect(r.status, `killed or succeeded: ${r.stderr}`).toBeGreaterThan(0);
  if (status !== undefined) expect(r.status, r.stderr).toBe(status);
  expect(r.stderr).toMatch(what);
  expect(r.stderr.split('\n').filter((l) => l.startsWith('mem: ') && !l.startsWith('mem: warning')).length, r.stderr).toBe(1);
}

const isPosix = process.platform !== 'win32';

describe('mem add --file writes only where mem reads memory', () => {
  it('refuses a path outside the vault, absolute, under .git, README.md, .mem/x.md: exit 2, nothing written anywhere', async () => {
    const { v, outside, run } = setup({ git: true });
    const base = path.dirname(v.root);
    const before = snapshot(base);
    for (const file of ['../outside/x.md', path.join(outside, 'abs.md'), '.git/hooks/x.md', '.git/hooks/pre-commit', 'README.md', '.mem/x.md', 'docs/notes.md', path.join(v.home, 'other.md')]) {
      const r = await run(['add', 'A rule that must be found again.', '--file', file]);
      expectRefused(r, /^mem: --file .*(is not a memory file|must be a markdown file)/m, 2);
      expect(snapshot(base), file).toEqual(before);
    }
    const notes = await run(['add', 'An entry in a typed note.', '--file', '.mem/patterns/PATTERN-x.md']);
    expectRefused(notes, /^mem: --file \.mem\/patterns\/PATTERN-x\.md: typed notes are written by mem episode and mem pattern/m, 2);
    expect(snapshot(base)).toEqual(before);
  });

  it('an existing README.md is left as it was', async () => {
    const { v, run } = setup();
    v.write('README.md', '# Project\r\n\r\nSome text.\r\n');
    const r = await run(['add', 'A rule.', '--file', 'README.md']);
    expectRefused(r, /^mem: --file README\.md is not a memory file: mem does not read it as memory; nothing was written/m, 2);
    expect(v.read('README.md')).toBe('# Project\r\n\r\nSome text.\r\n');
  });

  it('what it accepts, search, list and lint read back', async () => {
    const { v, run } = setup();
    v.write('.mem/config.yaml', 'include:\n  - docs/**/*.md\n');
    for (const file of ['memory/new/topic.md', 'docs/guide/ops.md', '.mem/jobs/j1/MEMORY.md']) {
      const add = await run(['add', `Rotate the zebrafish keys for ${file}.`, '--file', file, '--json']);
      expect(add.status, add.stderr).toBe(0);
      const id = add.json().id as string;
      expect((await run(['search', 'zebrafish', '--ids', '--limit', '10'])).stdout.split('\n')).toContain(id);
      expect((await run(['list', '--json'])).stdout).toContain(id);
      const lint = await run(['lint', file]);
      expect(lint.status, lint.stderr).toBe(0);
    }
  });
});

describe.runIf(isPosix)('a FIFO where mem reads a file: the command returns at once with a mem: line', () => {
  it('add --file, lint FILE, search --batch, eval, stage detect, reinforce --transcript, the config', async () => {
    const { v, run } = setup();
    mkfifo(v.path('memory/pipe.md'));
    mkfifo(v.path('queries.txt'));
    mkfifo(v.path('INTENT.md'));
    const FIFO = /not a regular file \(a FIFO\)/;
    expectRefused(await run(['add', 'A rule.', '--file', 'memory/pipe.md']), FIFO);
    // lint reports it as the file's problem (exit 1), in its own format.
    const lint = await run(['lint', 'memory/pipe.md']);
    expect(lint.status, `killed: ${lint.stderr}`).toBe(1);
    expect(lint.stdout).toMatch(/^memory\/pipe\.md: not a regular file \(a FIFO\)$/m);
    expectRefused(await run(['search', '--batch', 'queries.txt']), /^mem: the batch file queries\.txt is not a regular file \(a FIFO\); mem reads only regular files/m);
    expectRefused(await run(['eval', 'queries.txt']), /^mem: the fixture queries\.txt is not a regular file \(a FIFO\)/m);
    expectRefused(await run(['stage', 'detect']), /^mem: INTENT\.md is not a regular file \(a FIFO\)/m);
    expectRefused(await run(['stage', 'detect', '--file', 'queries.txt']), FIFO);
    expectRefused(await run(['reinforce', 'm1', '--transcript', 'queries.txt']), /^mem: (the transcript )?queries\.txt is not a regular file \(a FIFO\)/m);
    // Nothing was put in the FIFOs' place.
    expect(fs.lstatSync(v.path('memory/pipe.md')).isFIFO()).toBe(true);
    mkfifo(v.path('.mem/config.yaml'));
    expectRefused(await run(['search', 'deploy']), /^mem: \.mem\/config\.yaml is not a regular file \(a FIFO\)/m);
  });

  it('a FIFO in the vault is skipped by the index, and by the memory-file listing of search, list and lint', async () => {
    const { v, run } = setup();
    v.write('memory/real.md', entry('r1', '## Real note\nDeploy docs.'));
    mkfifo(v.path('memory/real-target.md'));
    // A link inside the vault to a FIFO: the walk keeps it (it stays inside); the read must not block.
    fs.symlinkSync('real-target.md', v.path('memory/linked.md'));
    const s = await run(['search', 'deploy', '--ids']);
    expect(s.status, s.stderr).toBe(0);
    expect(s.stdout.split('\n')).toContain('r1');
    const lint = await run(['lint']);
    expect(lint.status, `killed: ${lint.stderr}`).toBeGreaterThanOrEqual(0);
    expect(lint.stdout + lint.stderr).toMatch(/not a regular file \(a FIFO\)/);
  });

  it('import ai-agents: a FIFO named as the causal graph is refused; FIFOs in the folder are not imported', async () => {
    const { v, outside, run } = setup();
    const dir = path.join(outside, 'memory');
    mkfifo(path.join(dir, 'causal-graph.json'));
    mkfifo(path.join(dir, 'episode-stuck.json'));
    expectRefused(await run(['import', 'ai-agents', path.join(dir, 'causal-graph.json')]), /^mem: .*causal-graph\.json is not a regular file \(a FIFO\)/m, 2);
    const r = await run(['import', 'ai-agents', dir]);
    expect(r.status, `killed: ${r.stderr}`).toBeGreaterThanOrEqual(0);
    expect(fs.existsSync(v.path('.mem/episodes'))).toBe(false);
    expect(fs.existsSync(v.path('.mem/patterns'))).toBe(false);
  });
});

describe.runIf(fs.existsSync('/dev/zero'))('a device is never read', () => {
  it('/dev/zero named as a batch file, fixture, intent, transcript, or linked in as INTENT.md', async () => {
    const { v, run } = setup();
    const DEV = /not a regular file \(a character device\)/;
    expectRefused(await run(['search', '--batch', '/dev/zero']), DEV);
    expectRefused(await run(['eval', '/dev/zero']), DEV);
    expectRefused(await run(['stage', 'detect', '--file', '/dev/zero']), DEV);
    expectRefused(await run(['reinforce', 'm1', '--transcript', '/dev/zero']), DEV);
    const lint = await run(['lint', '/dev/zero']);
    expect(lint.status, `killed: ${lint.stderr}`).toBe(1);
    expect(lint.stdout).toMatch(/^\/dev\/zero: not a regular file \(a character device\)$/m);
    fs.symlinkSync('/dev/zero', v.path('INTENT.md'));
    expectRefused(await run(['stage', 'detect']), /^mem: refusing to read INTENT\.md: it leads out of the vault through a symlink \(to \/dev\/zero\)/m);
  });
});

describe('INTENT.md linked out of the vault', () => {
  it('is not read by stage detect, and not sent to the model with --llm', async () => {
    const { v, outside } = setup();
    fs.writeFileSync(path.join(outside, 'intent.md'), `# Intent\n\nStage: review\n\nDeploy key ${SECRET}. We are reviewing the release.\n`);
    fs.symlinkSync(path.join(outside, 'intent.md'), v.path('INTENT.md'));
    const srv = await fakeServer([{ body: openaiCompletion(JSON.stringify({ stage: 'review', reason: 'r' })) }]);
    const env = { ...NO_KEYS, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${srv.url}/v1` };
    for (const args of [['stage', 'detect', '--json'], ['stage', 'detect', '--llm', '--json'], ['stage', 'detect', '--llm', '--file', 'INTENT.md']]) {
      const r = await runIn(args, { cwd: v.root, home: v.home, env });
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/^mem: refusing to read INTENT\.md: it leads out of the vault through a symlink/m);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
    }
    expect(srv.seen).toEqual([]);
    expect(fs.existsSync(v.path('.mem/current-stage'))).toBe(false);
    // A link that stays inside the vault is read as before.
    fs.rmSync(v.path('INTENT.md'));
    v.write('docs/intent.md', '# Intent\n\nStage: design\n');
    fs.symlinkSync('docs/intent.md', v.path('INTENT.md'));
    const ok = await runIn(['stage', 'detect', '--dry-run'], { cwd: v.root, home: v.home, env });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe('design');
  });
});
