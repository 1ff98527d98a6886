// End to end: no credential typed into a session or handed to a command reaches the vault, the
// terminal or a tool's answer. Each way in (mem add, extract offline and with a model, segment,
// episode add, pattern add, import) is run through the CLI on input that holds them; the MCP
// tools, over stdio, are in test/process/secrets.test.ts. The tokens are made up in the vendors'
// formats (none works anywhere).

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer } from '../fake-llm.js';
import { allText, AWS_ID, AWS_SECRET, DB_URL, expectClean, expectNoSecret, GH, JWT, PEM, STRIPE } from '../fixtures/secrets.js';
import { cleanup, tempDir, tempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

const OFFLINE = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined, MEM_NOW: '2026-11-20' };

/** A Claude Code session where the human types credentials, and the agent and its tools echo them. */
function sessionFile(): string {
  const sid = '5b2f0c4e-1d3a-4e6f-8a9b-0c1d2e3f4a5b';
  let n = 0;
  const at = () => `2026-11-20T10:${String(n).padStart(2, '0')}:00.000Z`;
  const rec = (role: 'user' | 'assistant', content: unknown) => JSON.stringify({ type: role, sessionId: sid, uuid: `u-${++n}`, timestamp: at(), message: { role, content } });
  const lines = [
    rec('user', `The billing tests fail. Remember to run export STRIPE_API_KEY=${STRIPE} before the billing tests.`),
    rec('assistant', [{ type: 'text', text: `I'll clone it first: git clone https://${GH}@github.com/acme/billing.git` }]),
    rec('assistant', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: `git clone https://${GH}@github.com/acme/billing.git && DATABASE_URL=${DB_URL} npm test` } }]),
    rec('user', [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: `Error: could not connect to ${DB_URL}\nTests: 3 failed` }]),
    rec('user', `Always set AWS_ACCESS_KEY_ID=${AWS_ID} and AWS_SECRET_ACCESS_KEY=${AWS_SECRET} before deploying to staging.`),
    rec('user', `Don't ever paste the token into scripts: curl -H "Authorization: Bearer ${JWT}" broke the audit. The database is ${DB_URL}, use it for the migrations.`),
    rec('user', `Remember the deploy key is this one:\n${PEM}`),
    rec('assistant', [{ type: 'text', text: `Done: the billing tests pass with DATABASE_URL=${DB_URL}.` }]),
  ];
  const file = path.join(tempDir(), 'session-with-secrets.jsonl');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('credentials never reach the vault', () => {
  it('mem add writes placeholders for every kind, in text, title and tags, and says so once', async () => {
    const v = tempVault();
    const text = `Clone with git clone https://${GH}@github.com/acme/app.git; export STRIPE_API_KEY=${STRIPE}; AWS_ACCESS_KEY_ID=${AWS_ID} AWS_SECRET_ACCESS_KEY=${AWS_SECRET}; DATABASE_URL=${DB_URL}; Authorization: Bearer ${JWT}\n\n${PEM}`;
    const r = await run(['add', text, '--tags', `deploy,${GH}`, '--json'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.redacted.count).toBeGreaterThanOrEqual(7);
    expect(out.redacted.kinds).toEqual(expect.arrayContaining(['github-token', 'stripe-key']));
    expect(r.stderr.match(/mem: warning: redacted \d+ secrets \(.*github-token.*\) before writing/g)).toHaveLength(1);
    const memory = v.read('MEMORY.md');
    expect(memory).toContain('https://[redacted: github-token]@github.com/acme/app.git');
    expect(memory).toContain('export STRIPE_API_KEY=[redacted: stripe-key]');
    expect(memory).toContain('postgres://admin:[redacted: ');
    expect(memory).toMatch(/tags: \[deploy, '\[redacted: github-token\]'\]/);
    // The file still reads as mem's: the entry lints and is found.
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);
    const found = (await run(['search', 'clone acme app', '--json'], { cwd: v.root, home: v.home })).json();
    expect(found.results[0].id).toBe(out.id);
    expectClean(v, r.stdout, r.stderr);
    // A title given apart is redacted too; a learning with no secret says nothing.
    const t = await run(['add', 'Rotate the staging key monthly', '--title', `Key ${GH}`], { cwd: v.root, home: v.home });
    expect(t.status, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/redacted 1 secret \(github-token\) before writing/);
    const plain = await run(['add', 'Run the migrations before the API tests', '--json'], { cwd: v.root, home: v.home });
    expect(plain.stderr).not.toMatch(/redacted/);
    expect(JSON.parse(plain.stdout).redacted).toBeUndefined();
    expectClean(v, t.stdout, t.stderr);
  });

  it('mem extract offline: learnings, episodes, the episode note, stdout and stderr hold placeholders only', async () => {
    const v = tempVault();
    const file = sessionFile();
    const r = await run(['extract', file, '--scopes', 'project,corrective,interventions,observations', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.written.length).toBeGreaterThan(0);
    expect(out.redacted.count).toBeGreaterThan(5);
    expect(out.redacted.kinds).toEqual(expect.arrayContaining(['github-token', 'stripe-key']));
    expect(r.stderr).toMatch(/mem: warning: redacted \d+ secrets \(.*\) before writing/);
    // The learnings keep what they teach, with the placeholder where the value was.
    const learned = ['MEMORY.md', 'proxy.md'].filter((f) => fs.existsSync(v.path(f))).map((f) => v.read(f)).join('\n');
    expect(learned).toMatch(/\[redacted: [a-z-]+\]/);
    // The episodes: summaries committed, messages in the local store; redacted in both.
    const episodes = ['.mem/episodes', '.mem/local/episodes'].flatMap((d) => fs.readdirSync(v.path(d)).filter((e) => e.endsWith('.md')).map((e) => `${d}/${e}`));
    expect(episodes.length).toBeGreaterThan(1);
    expect(episodes.map((e) => v.read(e)).join('\n')).toContain('[redacted: github-token]');
    expectClean(v, r.stdout, r.stderr);
    // The human text output says it as well, once.
    const again = await run(['extract', file, '--force', '--dry-run'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(again.stderr.match(/redacted \d+ secrets/g)).toHaveLength(1);
    expectClean(v, again.stdout, again.stderr);
  });

  it('mem extract: an API key mem is given is redacted whatever its shape', async () => {
    const v = tempVault();
    const key = 'plainkey-0042-local';
    const sid = '7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6';
    const rec = (n: number, text: string) => JSON.stringify({ type: 'user', sessionId: sid, uuid: `k-${n}`, timestamp: `2026-11-20T11:0${n}:00.000Z`, message: { role: 'user', content: text } });
    const file = path.join(tempDir(), 'session-with-own-key.jsonl');
    fs.writeFileSync(file, `${[
      rec(1, `Remember: the local embeddings server takes the key ${key} and nothing else.`),
      rec(2, `Always pass ${key} to the embeddings server before indexing.`),
    ].join('\n')}\n`);
    const r = await run(['extract', file, '--json'], { cwd: v.root, home: v.home, env: { ...OFFLINE, MEM_EMBED_API_KEY: key } });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).redacted?.kinds).toContain('api-key');
    for (const text of [allText(v.root), r.stdout, r.stderr]) expect(text).not.toContain(key);
  });

  it('mem extract with a model: the model never sees a credential, and one it makes up is not written', async () => {
    const v = tempVault();
    const echoed = {
      learnings: [
        { scope: 'project', type: 'procedural', title: `Export STRIPE_API_KEY=${STRIPE} before the billing tests`, body: `The billing tests read the key; clone with https://${GH}@github.com/acme/billing.git first.`, importance: 0.8, evidence: `export STRIPE_API_KEY=${STRIPE}` },
        { scope: 'project', type: 'declarative', title: 'The staging database needs its password in the URL', body: `Use ${DB_URL} for the migrations.`, importance: 0.6, evidence: '' },
      ],
      episode: { outcome: 'success', decisions: [{ title: `Use the key ${AWS_ID}`, type: 'design', context: `AWS_SECRET_ACCESS_KEY=${AWS_SECRET} was needed`, options: [JWT], chosen: `the token ${GH}`, rationale: 'it worked', outcome: 'success', evidence: '' }] },
    };
    const srv = await fakeServer([{ body: anthropicMessage(echoed) }]);
    const r = await run(['extract', sessionFile(), '--json', '--session', 'model-run'], { cwd: v.root, home: v.home, env: { ...OFFLINE, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url } });
    expect(r.status, r.stderr).toBe(0);
    // The learnings, then the episodes' titles: neither request holds a credential.
    expect(srv.seen).toHaveLength(2);
    expectNoSecret('the prompt', JSON.stringify(srv.seen[0].body));
    expectNoSecret('the episodes\' prompt', JSON.stringify(srv.seen[1].body));
    expect(JSON.stringify(srv.seen[0].body)).toContain('[redacted: stripe-key]');
    const out = JSON.parse(r.stdout);
    expect(out.written.map((w: { title: string }) => w.title).join('\n')).toContain('Export STRIPE_API_KEY=[redacted: stripe-key] before the billing');
    expect(v.read('MEMORY.md')).toContain('postgres://admin:[redacted: ');
    expect(v.read('.mem/episodes/EPISODE-model-run.md')).toContain('[redacted: aws-access-key-id]');
    expectClean(v, r.stdout, r.stderr);
  });

  it('mem segment writes the episodes redacted', async () => {
    const v = tempVault();
    const r = await run(['segment', sessionFile(), '--session', 'seg-1', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).redacted.count).toBeGreaterThan(5);
    expect(v.read('.mem/episodes/seg-1.md')).toContain('[redacted: stripe-key]');
    expectClean(v, r.stdout, r.stderr);
  });

  it('mem episode add redacts every field of the note: task, context, decisions, events, lessons', async () => {
    const v = tempVault();
    const input = {
      session_id: 'ep-secrets', task: `Deploy with ${GH}`, outcome: 'success', context: `The database is ${DB_URL}`,
      decisions: [{ id: 'd001', timestamp: '2026-11-20T10:00:00Z', type: 'design', context: `export STRIPE_API_KEY=${STRIPE}`, options: [`use ${JWT}`, 'ask ops'], chosen: `AWS_ACCESS_KEY_ID=${AWS_ID}`, rationale: `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`, outcome: 'success' }],
      events: [{ id: 'e001', timestamp: '2026-11-20T10:05:00Z', type: 'error', content: `auth failed for ${GH}` }],
      lessons: [`Never commit ${PEM}`],
    };
    const r = await run(['episode', 'add', '--json'], { cwd: v.root, home: v.home, input: JSON.stringify(input) });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.redacted.count).toBeGreaterThanOrEqual(8);
    expect(r.stderr).toMatch(/redacted \d+ secrets \(.*\) before writing/);
    const note = v.read('.mem/episodes/EPISODE-ep-secrets.md');
    expect(note).toContain('Deploy with [redacted: github-token]');
    expect((await run(['validate'], { cwd: v.root, home: v.home })).status).toBe(0);
    expectClean(v, r.stdout, r.stderr);
  });

  it('mem pattern add redacts name, trigger, action and description', async () => {
    const v = tempVault();
    const r = await run(['pattern', 'add', '--name', 'export-stripe-key', '--trigger', `billing tests need STRIPE_API_KEY=${STRIPE}`, '--action', `git clone https://${GH}@github.com/acme/billing.git`, '--description', `db at ${DB_URL}`, '--json'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.redacted.count).toBe(3);
    expect(out.redacted.kinds).toEqual(expect.arrayContaining(['github-token', 'stripe-key']));
    expect(r.stderr).toMatch(/redacted 3 secrets/);
    const note = v.read('.mem/patterns/PATTERN-export-stripe-key.md');
    expect(note).toContain('https://[redacted: github-token]@github.com/acme/billing.git');
    expectClean(v, r.stdout, r.stderr);
  });

  it('mem import ai-agents redacts the episodes and the causal graph it brings in', async () => {
    const v = tempVault();
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'episode-imp-1.json'), JSON.stringify({
      id: 'imp-1', session: 'imp-1', timestamp: '2026-01-02T10:00:00Z', outcome: 'success', task: `Rotate ${GH}`,
      decisions: [`Use STRIPE_API_KEY=${STRIPE}`], events: [{ type: 'error', content: `login with ${DB_URL} failed`, timestamp: '2026-01-02T10:01:00Z' }], lessons: [`AWS_SECRET_ACCESS_KEY=${AWS_SECRET} leaked`], metrics: {},
    }));
    fs.writeFileSync(path.join(dir, 'causal-graph.json'), JSON.stringify({
      version: 1, nodes: [], edges: [],
      patterns: [{ id: 'p1', name: 'clone with token', trigger: `repo needs ${GH}`, action: `export STRIPE_API_KEY=${STRIPE}`, success_rate: 1, occurrences: 2 }],
    }));
    const r = await run(['import', 'ai-agents', dir, '--json'], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.episodes[0].redacted.count).toBeGreaterThanOrEqual(4);
    expect(out.graphs[0].redacted.count).toBe(2);
    expect(r.stderr.match(/redacted \d+ secrets/g)).toHaveLength(1);
    expect(fs.readdirSync(v.path('.mem/patterns')).length).toBe(1);
    expectClean(v, r.stdout, r.stderr);
  });
});
