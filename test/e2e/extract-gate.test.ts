// The learning quality gate end to end: the CLI, the real Anthropic and OpenAI SDKs against
// a loopback HTTP server (the providers.test.ts pattern), and the offline heuristics.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessage, closeServers, fakeServer, openaiCompletion } from '../fake-llm.js';
import { cleanup, entry, REPO, tempDir, tempVault } from '../helpers.js';
import { run } from '../run.js';

const SAMPLE = path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl');

afterEach(async () => {
  await closeServers();
  cleanup();
});

const server = (body: unknown) => fakeServer([{ body }]);
const anthropic = (input: unknown) => anthropicMessage(input, { input_tokens: 800, output_tokens: 300 });
const openai = (content: string) => openaiCompletion(content, { prompt_tokens: 700, completion_tokens: 200, total_tokens: 900 });

const NO_KEYS = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined, MEM_NOW: '2026-11-20' };

const STRIPE = 'The payment tests need the local Stripe mock on port 12111; start it with `make stripe-mock` before `npm test -- payments`.';

const MEMORY_MD = fs.readFileSync(path.join(REPO, 'templates', 'MEMORY.md'), 'utf8');

/** A vault whose MEMORY.md already holds one entry (the one the model's duplicate repeats) and one more title. */
function vault() {
  const v = tempVault();
  v.write('MEMORY.md', `${MEMORY_MD}\n${entry('stripe-mock', `## The payment tests need the local Stripe mock on port 12111\n\n${STRIPE}`)}${entry('checkout-fixtures', '## Keep the checkout fixtures under test/fixtures/checkout\n\nKeep the checkout fixtures under test/fixtures/checkout, one file per case.')}`);
  return v;
}

/** The model's answer: two good learnings with evidence, and three the gate must turn away. */
const ANSWER = {
  learnings: [
    { scope: 'project', type: 'procedural', title: 'Run the test migrations before the API tests', body: 'A fresh test database has no tables, so the API tests fail; run `npm run db:migrate -- --env test` first.', evidence: 'error: relation "orders" does not exist', importance: 0.8, phase: 'implementation' },
    { scope: 'corrective', type: 'corrective', title: 'Use the npm scripts, never yarn, in this repository', body: 'package.json scripts are the only entry points here; yarn is not set up.', evidence: "No, don't use yarn here, we always use npm in this repo.", importance: 0.7, phase: 'implementation' },
    { scope: 'project', type: 'directive', title: 'Do not finalize.', body: 'Do not finalize.', evidence: '', importance: 0.5, phase: 'unknown' },
    { scope: 'corrective', type: 'corrective', title: 'Edit failed, then another Edit worked', body: 'The Edit of src/checkout.ts failed with "String to replace not found in file"; a second Edit with the exact text worked.', evidence: 'String to replace not found in file.', importance: 0.4, phase: 'implementation' },
    { scope: 'project', type: 'procedural', title: 'Start the Stripe mock before the payment tests', body: 'The payment tests need the local Stripe mock on port 12111; start it with `make stripe-mock` before running `npm test -- payments`.', evidence: '', importance: 0.6, phase: 'implementation' },
  ],
};

const GATED = { 'tool-mechanics': 1, 'transcript-path': 0, 'instruction-text': 0, fragment: 1, 'no-subject': 0, duplicate: 1 };

function checkWritten(v: ReturnType<typeof vault>, j: any) {
  expect(j.rejected).toEqual(GATED);
  expect(j.written.map((w: { title: string }) => w.title)).toEqual(['Run the test migrations before the API tests', 'Use the npm scripts, never yarn, in this repository']);
  expect(j.rejected_learnings.map((x: { title: string; reason: string }) => [x.reason, x.title])).toEqual([
    ['fragment', 'Do not finalize.'],
    ['tool-mechanics', 'Edit failed, then another Edit worked'],
    ['duplicate', 'Start the Stripe mock before the payment tests'],
  ]);
  expect(j.duplicates).toEqual([{ title: 'Start the Stripe mock before the payment tests', file: 'MEMORY.md' }]);
  const memory = v.read('MEMORY.md');
  expect(memory).toContain('A fresh test database has no tables, so the API tests fail; run `npm run db:migrate -- --env test` first.\n\nEvidence: "error: relation "orders" does not exist"');
  expect(memory).toContain('Evidence: "No, don\'t use yarn here, we always use npm in this repo."');
  expect(memory).not.toContain('Do not finalize');
  expect(memory).not.toContain('String to replace');
  expect(memory.split('make stripe-mock').length - 1).toBe(1); // the existing entry's body only
}

describe('mem extract: the quality gate on a model\'s answer', () => {
  it('anthropic: the prompt lists the existing titles, the tool schema asks for evidence, and the answer is gated', async () => {
    const srv = await server(anthropic(ANSWER));
    const v = vault();
    const r = await run(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url } });
    expect(r.status, r.stderr).toBe(0);
    // The learnings, then the episodes' titles.
    expect(srv.seen).toHaveLength(2);
    const req = srv.seen[0].body;
    const item = req.tools[0].input_schema.properties.learnings.items;
    expect(item.required).toContain('evidence');
    expect(item.properties.evidence.type).toBe('string');
    expect(req.system).toMatch(/rule and its evidence separately/);
    const prompt = req.messages[0].content as string;
    expect(prompt).toMatch(/Already in memory \(titles of the existing entries\)[^\n]*\n- The payment tests need the local Stripe mock on port 12111[^\n]*\n- Keep the checkout fixtures under test\/fixtures\/checkout/);
    checkWritten(v, r.json());
  });

  it('openai: the json_schema response format asks for evidence, the prompt lists the titles, the answer is gated', async () => {
    const srv = await server(openai(JSON.stringify(ANSWER)));
    const v = vault();
    const r = await run(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${srv.url}/v1` } });
    expect(r.status, r.stderr).toBe(0);
    const req = srv.seen[0].body;
    expect(srv.seen[0].path).toBe('/v1/chat/completions');
    expect(req.response_format.type).toBe('json_schema');
    expect(req.response_format.json_schema.strict).toBe(true);
    const item = req.response_format.json_schema.schema.properties.learnings.items;
    // Strict mode: every property is required, evidence included.
    expect(item.required.slice().sort()).toEqual(Object.keys(item.properties).sort());
    expect(item.properties.evidence.type).toBe('string');
    expect(req.messages[1].content).toContain('- Keep the checkout fixtures under test/fixtures/checkout');
    checkWritten(v, r.json());
  });

  it('--explain lists each rejected learning with its reason on stdout; without it, stderr counts them and points to --explain', async () => {
    const srv = await server(anthropic(ANSWER));
    const v = vault();
    const env = { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url };
    const r = await run(['extract', SAMPLE, '--dry-run', '--explain'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('would add'))).toHaveLength(2);
    expect(lines).toContainEqual(expect.stringMatching(/^rejected {3}fragment \(.+\) {2}project: Do not finalize\.$/));
    expect(lines).toContainEqual(expect.stringMatching(/^rejected {3}tool-mechanics \(an edit tool's text was not found\) {2}corrective: Edit failed, then another Edit worked$/));
    expect(lines).toContainEqual(expect.stringMatching(/^rejected {3}duplicate \(MEMORY\.md repeats "The payment tests need the local Stripe mock.*" \(similarity 0\.\d+\)\) {2}project: Start the Stripe mock before the payment tests$/));
    expect(r.stderr).toMatch(/would write 2 learnings .*; rejected 3 \(tool-mechanics 1, fragment 1, duplicate 1\)/);
    expect(r.stderr).not.toMatch(/--explain lists/);

    const plain = await run(['extract', SAMPLE, '--dry-run'], { cwd: v.root, home: v.home, env });
    expect(plain.stdout).not.toMatch(/^rejected/m);
    expect(plain.stdout).toMatch(/^skipped {4}MEMORY\.md already has it {2}Start the Stripe mock/m);
    expect(plain.stderr).toMatch(/--explain lists the rejected learnings and why/);
  });

  it('a folder run adds up the rejections in its summary', async () => {
    const srv = await server(anthropic(ANSWER));
    const v = vault();
    const dir = tempDir();
    fs.copyFileSync(SAMPLE, path.join(dir, 'one.jsonl'));
    // A second session of other messages: its identical answer repeats what the first one wrote.
    const lines = fs.readFileSync(SAMPLE, 'utf8').split('\n').filter(Boolean);
    fs.writeFileSync(path.join(dir, 'two.jsonl'), `${lines.map((l) => l.replaceAll('The checkout API tests fail', 'The checkout API tests still fail')).join('\n')}\n`);
    const r = await run(['extract', dir, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url } });
    expect(r.status, r.stderr).toBe(0);
    const j = r.json();
    expect(j.transcripts).toHaveLength(2);
    expect(j.transcripts[1].rejected.duplicate).toBe(3);
    expect(j.summary.written).toBe(2);
    expect(j.summary.rejected).toEqual({ ...GATED, fragment: 2, 'tool-mechanics': 2, duplicate: 4 });
    const text = await run(['extract', dir, '--force', '--dry-run'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: srv.url } });
    expect(text.stderr).toMatch(/would write 0 learnings from 2 transcripts in .*; rejected 10 \(tool-mechanics 2, fragment 2, duplicate 6\)/);
  });
});

describe('mem extract: text that must never reach memory', () => {
  it('a learning quoting the transcript file\'s path or naming nothing is turned away; a NUL is written as a visible mark', async () => {
    const answer = {
      learnings: [
        { scope: 'project', type: 'declarative', title: 'The failing run is recorded in the session file', body: `See ${SAMPLE} for the full failing run of the checkout tests.`, evidence: '', importance: 0.5, phase: 'unknown' },
        { scope: 'project', type: 'procedural', title: 'Clear the build cache first', body: 'Remove dist/ before\u0000 running the checkout build.', evidence: '', importance: 0.5, phase: 'unknown' },
        { scope: 'project', type: 'directive', title: 'Do it the same way next time', body: 'Just do that again, it was much better.', evidence: '', importance: 0.5, phase: 'unknown' },
        { scope: 'project', type: 'procedural', title: 'Seed the checkout database with `npm run db:seed`', body: 'The checkout tests expect the seeded products table.', evidence: '', importance: 0.6, phase: 'implementation' },
      ],
    };
    const srv = await server(openai(JSON.stringify(answer)));
    const v = vault();
    const r = await run(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${srv.url}/v1` } });
    expect(r.status, r.stderr).toBe(0);
    const j = r.json();
    expect(j.rejected).toMatchObject({ 'transcript-path': 1, 'no-subject': 1 });
    expect(j.written.map((w: { title: string }) => w.title)).toEqual(['Clear the build cache first', 'Seed the checkout database with `npm run db:seed`']);
    const memory = v.read('MEMORY.md');
    expect(memory).not.toContain(SAMPLE);
    expect(memory).not.toContain('\u0000');
    expect(memory).toContain('Remove dist/ before\u2400 running the checkout build.');
  });
});

describe('mem extract: text the harness injected', () => {
  it('a model\'s learning copied from an AGENTS.md block of the transcript is turned away as instruction-text; one the human typed is kept', async () => {
    const codex = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-11-20T10:00:00Z', type, payload });
    const msg = (role: string, text: string) => codex('response_item', { type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] });
    const rollout = [
      codex('session_meta', { id: '0199aa00-2222-7000-8000-000000000002', cwd: '/srv/ledger' }),
      msg('user', '# AGENTS.md instructions for /srv/ledger\n\n<INSTRUCTIONS>\nRegenerate the protobuf stubs with make proto after editing any file under api/.\n</INSTRUCTIONS>'),
      msg('user', 'Add a currency field to the invoice message. Keep the ledger totals in integer cents in every report.'),
      msg('assistant', 'Added the field and regenerated the stubs.'),
    ].join('\n') + '\n';
    const answer = {
      learnings: [
        { scope: 'project', type: 'procedural', title: 'Regenerate the protobuf stubs with make proto after editing any file under api/', body: 'Regenerate the protobuf stubs with make proto after editing any file under api/.', evidence: '', importance: 0.6, phase: 'implementation' },
        { scope: 'project', type: 'directive', title: 'Keep ledger totals in integer cents in every report', body: 'Reports must not use floating point for money.', evidence: 'Keep the ledger totals in integer cents in every report.', importance: 0.7, phase: 'implementation' },
      ],
    };
    const srv = await server(openai(JSON.stringify(answer)));
    const v = vault();
    v.write('rollout.jsonl', rollout);
    const r = await run(['extract', 'rollout.jsonl', '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${srv.url}/v1` } });
    expect(r.status, r.stderr).toBe(0);
    const j = r.json();
    expect(j.rejected['instruction-text']).toBe(1);
    expect(j.written.map((w: { title: string }) => w.title)).toEqual(['Keep ledger totals in integer cents in every report']);
    expect(v.read('MEMORY.md')).not.toContain('make proto');
  });
});

describe('mem extract: the quality gate offline', () => {
  const OFFLINE = { ...NO_KEYS, MEM_PROVIDER: 'heuristic' };

  it('a learning already in the target file is rejected as a duplicate, counted in --json and shown by --explain', async () => {
    const v = tempVault();
    v.write('MEMORY.md', MEMORY_MD);
    const first = await run(['extract', SAMPLE, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(first.status, first.stderr).toBe(0);
    const wrote = first.json().written.length;
    expect(wrote).toBeGreaterThan(0);
    expect(Object.keys(first.json().rejected).sort()).toEqual(['duplicate', 'fragment', 'instruction-text', 'no-subject', 'tool-mechanics', 'transcript-path']);
    const before = v.read('MEMORY.md');
    // --force reads the transcript again: every learning it finds is already in MEMORY.md.
    const again = await run(['extract', SAMPLE, '--force', '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(again.status, again.stderr).toBe(0);
    const j = again.json();
    expect(j.written).toEqual([]);
    expect(j.rejected.duplicate).toBe(wrote);
    expect(j.rejected_learnings.filter((x: { reason: string }) => x.reason === 'duplicate')).toHaveLength(wrote);
    expect(v.read('MEMORY.md')).toBe(before);
    const explained = await run(['extract', SAMPLE, '--force', '--explain', '--dry-run'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(explained.stdout.split('\n').filter((l) => /^rejected {3}duplicate \(MEMORY\.md (?:same title as|repeats) /.test(l))).toHaveLength(wrote);
    expect(explained.stderr).toMatch(new RegExp(`would write 0 learnings .*; rejected \\d+ \\(.*duplicate ${wrote}\\)`));
  });

  it('no written learning carries tool mechanics, a tool-call JSON blob or the transcript path', async () => {
    const v = tempVault();
    v.write('MEMORY.md', MEMORY_MD);
    const dir = path.join(REPO, 'test', 'fixtures', 'transcripts');
    const r = await run(['extract', dir, '--json', '--scopes', 'project,corrective,interventions,observations'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    const files = ['MEMORY.md', 'proxy.md'].filter((f) => fs.existsSync(v.path(f))).map((f) => v.read(f)).join('\n');
    expect(files).not.toMatch(/String to replace|tool_use_error|apply_patch|\{"(?:command|file_path|cmd)"/);
    expect(files).not.toContain('\u0000');
    expect(files).not.toContain(dir);
    const s = r.json().summary;
    expect(Object.values(s.rejected as Record<string, number>).every((n) => Number.isInteger(n))).toBe(true);
  });
});
