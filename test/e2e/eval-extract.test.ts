import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, REPO, tempDir } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };
const SID = '5b1e0c2a-1111-4222-8333-944455556666';

/** A Claude Code session: an Edit that misses its string then works (mechanics), and one explicit "Never …". */
function session(): string {
  let i = 0;
  const rec = (type: string, message: unknown) => JSON.stringify({ type, message, sessionId: SID, cwd: '/home/dev/api', uuid: `u-${++i}`, timestamp: `2026-11-20T10:0${i}:00.000Z` });
  return [
    rec('user', { role: 'user', content: 'Add a /health endpoint to the API server.' }),
    rec('assistant', { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Edit', input: { file_path: 'src/server.ts', old_string: 'app.listen(', new_string: "app.get('/health', ok);\napp.listen(" } }] }),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '<tool_use_error>String to replace not found in file.\nString: app.listen(</tool_use_error>', is_error: true }] }),
    rec('assistant', { id: 'm2', role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: 'src/server.ts', old_string: 'server.listen(', new_string: "app.get('/health', ok);\nserver.listen(" } }] }),
    rec('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'The file src/server.ts has been updated.' }] }),
    rec('assistant', { id: 'm3', role: 'assistant', content: [{ type: 'text', text: 'Added GET /health. Shall I run the migrations too?' }] }),
    rec('user', { role: 'user', content: 'Never run the database migrations against production from a dev machine; use the staging database.' }),
    rec('assistant', { id: 'm4', role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] }),
  ].join('\n') + '\n';
}

const LABELS = `# the instruction is kept; the Edit mechanics are noise
transcript: ../sessions/session.jsonl
keep:
  - id: never-migrate-production
    match: ["migrations", "production"]
    offline: true
noise:
  - String to replace not found
`;

function setup(files: Record<string, string> = { 'good.yaml': LABELS }) {
  const base = tempDir();
  fs.mkdirSync(path.join(base, 'sessions'));
  fs.writeFileSync(path.join(base, 'sessions', 'session.jsonl'), session());
  const labels = path.join(base, 'labels');
  fs.mkdirSync(labels);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(labels, name), text);
  return { base, labels };
}

describe('mem eval extract', () => {
  it('scores the real pipeline on a labelled transcript: the "never" kept, no tool mechanics', async () => {
    const { base, labels } = setup();
    const r = await run(['eval', 'extract', '--labels', labels], { cwd: base, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/good\.yaml {2}\.\.\/sessions\/session\.jsonl/);
    expect(r.stdout).toContain('written 1  worth keeping 1  precision 100%  recall offline 1/1 (100%)  all 1/1 (100%)  noise 0');
    expect(r.stdout).toContain('overall: 1 transcripts, 1 learnings written, 1 worth keeping: precision 100%');
    expect(r.stdout).toContain('recall of offline labels 1/1 (100%), of all labels 1/1 (100%); noise hits 0');
    expect(r.stdout).toContain('counts as not worth keeping');
    expect(r.stdout).not.toMatch(/missed|unmatched/);
    // Nothing of the eval is left behind in the folder it ran from.
    expect(fs.readdirSync(base).sort()).toEqual(['labels', 'sessions']);
  });

  it('--json: one object with per-transcript scores, the learnings, and overall totals', async () => {
    const { base, labels } = setup();
    const j = (await run(['eval', 'extract', '--labels', labels, '--json'], { cwd: base, env: OFFLINE })).json();
    expect(Object.keys(j).sort()).toEqual(['labels', 'overall', 'provider', 'skipped', 'transcripts']);
    expect(j.provider).toEqual({ name: 'heuristic', model: 'rules' });
    expect(j.skipped).toEqual([]);
    expect(j.overall).toEqual({
      transcripts: 1, written: 1, matched: 1, precision: 1, labels: { offline: 1, all: 1 }, found: { offline: 1, all: 1 }, recall: { offline: 1, all: 1 }, noise: 0,
    });
    const [t] = j.transcripts;
    expect(t).toMatchObject({ labels_file: path.join('labels', 'good.yaml'), transcript: '../sessions/session.jsonl', written: 1, matched: 1, noise: [], misses: [], unmatched: [] });
    expect(t.learnings).toHaveLength(1);
    expect(`${t.learnings[0].title} ${t.learnings[0].body}`).toMatch(/never run the database migrations against production/i);
    expect(t.matches).toEqual([{ learning: t.learnings[0].title, labels: ['never-migrate-production'] }]);
  });

  it('lists misses, unmatched learnings and noise hits, and reports the two recalls apart', async () => {
    const { base, labels } = setup({
      // The same session judged by stricter labels: a model-only label it cannot find, and a noise
      // phrase the kept learning holds (to see how a hit is shown).
      'strict.yaml': `transcript: ../sessions/session.jsonl
keep:
  - id: health-route
    match: ["/health|health endpoint", "load balancer"]
    offline: false
    why: what the route is for
noise: ["migrations"]
`,
    });
    const r = await run(['eval', 'extract', '--labels', labels], { cwd: base, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('written 1  worth keeping 0  precision 0%  recall offline 0/0  all 0/1 (0%)  noise 1');
    expect(r.stdout).toMatch(/ {2}noise {6}"migrations" in: .*migrations/i);
    expect(r.stdout).toContain('  missed     health-route: /health | health endpoint + load balancer');
    expect(r.stdout).toMatch(/ {2}unmatched {2}.*production/i);
    const j = (await run(['eval', 'extract', '--labels', labels, '--json'], { cwd: base, env: OFFLINE })).json();
    expect(j.overall).toMatchObject({ precision: 0, recall: { offline: null, all: 0 }, noise: 1 });
    expect(j.transcripts[0].misses).toEqual([{ id: 'health-route', offline: false, match: '/health | health endpoint + load balancer', why: 'what the route is for' }]);
  });

  it('--min-precision / --min-offline-recall turn a low score into exit 1; a missing transcript is skipped with a warning', async () => {
    const { base, labels } = setup({
      'none.yaml': 'transcript: ../sessions/session.jsonl\nkeep: []\n',
      'gone.yaml': 'transcript: ../sessions/not-there.jsonl\nkeep: []\n',
    });
    const low = await run(['eval', 'extract', '--labels', labels, '--min-precision', '80'], { cwd: base, env: OFFLINE });
    expect(low.status).toBe(1);
    expect(low.stdout).toContain('overall: 1 transcripts (1 skipped)');
    expect(low.stderr).toMatch(/^mem: warning: labels[/\\]gone\.yaml: transcript not found .*; skipped$/m);
    expect(low.stderr).toMatch(/^mem: precision 0% is below --min-precision 80%$/m);
    expect((await run(['eval', 'extract', '--labels', labels], { cwd: base, env: OFFLINE })).status).toBe(0);
    const good = setup();
    expect((await run(['eval', 'extract', '--labels', good.labels, '--min-precision', '100', '--min-offline-recall', '100%', '-q'], { cwd: good.base, env: OFFLINE })).status).toBe(0);
  });

  it('bad labels: one mem: line, exit 1; bad flags: exit 2', async () => {
    const { base, labels } = setup({ 'bad.yaml': 'transcript: ../sessions/session.jsonl\nkeep:\n  - id: x\n    match: ["a"]\n' });
    const r = await run(['eval', 'extract', '--labels', labels], { cwd: base, env: OFFLINE });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^mem: invalid labels: keep\[0\] \(x\): "offline" must be true or false \(.*bad\.yaml\)$/);
    fs.writeFileSync(path.join(labels, 'bad.yaml'), 'transcript: [\n');
    const y = await run(['eval', 'extract', '--labels', labels], { cwd: base, env: OFFLINE });
    expect(y.status).toBe(1);
    expect(y.stderr).toMatch(/^mem: invalid YAML: /);
    const none = await run(['eval', 'extract', '--labels', path.join(base, 'nowhere')], { cwd: base, env: OFFLINE });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/^mem: labels not found/);
    const usage = await run(['eval', 'extract', '--labels', labels, '--min-precision', 'lots'], { cwd: base, env: OFFLINE });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^mem: --min-precision must be a percentage from 0 to 100, not "lots"/);
    // A provider that cannot answer stops the run (it would fail every transcript), not one skip each.
    const good = setup();
    const nokey = await run(['eval', 'extract', '--labels', good.labels, '--provider', 'anthropic'], { cwd: good.base, env: OFFLINE });
    expect(nokey.status).toBe(1);
    expect(nokey.stderr).toMatch(/^mem: the anthropic provider needs ANTHROPIC_API_KEY$/m);
    expect(nokey.stdout).toBe('');
  });

  it('the bundled labels run from the repo (npm run eval:extract) and `mem eval FIXTURE` still means the retrieval eval', async () => {
    const j = (await run(['eval', 'extract', '--labels', path.join(REPO, 'test', 'fixtures', 'extract-labels', 'example-fix-checkout-tests.yaml'), '--json'], { cwd: REPO, env: OFFLINE })).json();
    expect(j.transcripts[0].transcript).toBe('examples/sessions/fix-checkout-tests.jsonl');
    expect(j.transcripts[0].labels.offline).toBe(4);
    expect(j.overall.written).toBeGreaterThan(0);
    const help = await run(['eval', '--help'], { cwd: REPO });
    expect(help.stdout).toMatch(/extract \[options\]/);
    const d = tempDir();
    fs.mkdirSync(path.join(d, '.mem'));
    fs.writeFileSync(path.join(d, 'q.jsonl'), '{"query":"anything","relevant":[]}\n');
    const ret = await run(['eval', 'q.jsonl', '--json'], { cwd: d });
    expect(ret.status, ret.stderr).toBe(0);
    expect(ret.json().queries).toBe(1);
  });
});
