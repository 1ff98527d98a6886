import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers, fakeServer, openaiCompletion } from '../fake-llm.js';
import { cleanup, tempDir, tempVault, type RunResult } from '../helpers.js';
import { run } from '../run.js';
import { parseMemoryFile } from '../../src/vault/format.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

const NO_KEYS = { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_MODEL: undefined };

const RULE = 'Never run the deploy script with sudo, it breaks file ownership in the release folder.';

/** The entries' metadata of a memory file, whichever header form mem wrote them in. */
const metas = (text: string) => parseMemoryFile(text, 'MEMORY.md').entries.map((e) => e.meta);

function vault() {
  const v = tempVault();
  v.write('MEMORY.md', '# Project memory\n');
  return v;
}

/** A tiny Claude Code JSONL session: a task, the agent's act, the human's "never …" rule, the agent's answer. */
function transcript(dir: string, session: string, rule = RULE): string {
  const p = path.join(dir, `${session}.jsonl`);
  const rows: [string, string][] = [
    ['user', `Please deploy the staging build for ${session}.`],
    ['assistant', 'I ran the deploy script with sudo and it finished.'],
    ['user', rule],
    ['assistant', 'Understood, I will run it as the deploy user from now on.'],
  ];
  const lines = rows.map(([role, text], i) => JSON.stringify(role === 'user'
    ? { type: 'user', sessionId: session, timestamp: `2026-11-20T10:0${i}:00Z`, uuid: `u${i}`, message: { role: 'user', content: text } }
    : { type: 'assistant', sessionId: session, timestamp: `2026-11-20T10:0${i}:00Z`, uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text }] } }));
  fs.writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

const HEUR = ['--provider', 'heuristic'];

async function segmentAll(v: ReturnType<typeof vault>, sessions: string[], rule?: string) {
  const dir = tempDir();
  for (const s of sessions) {
    const r = await run(['segment', transcript(dir, s, rule)], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
  }
}

const epFile = (s: string) => `.mem/episodes/${s}.md`;

describe('mem consolidate --episodes', () => {
  it('turns three episodes into a learning linked to them, marks only their consolidated_at lines, and a second run does nothing', async () => {
    const v = vault();
    const sessions = ['s-one', 's-two', 's-three'];
    await segmentAll(v, sessions);
    const before = new Map(sessions.map((s) => [s, fs.readFileSync(v.path(epFile(s)))]));
    const memBefore = fs.readFileSync(v.path('MEMORY.md'));

    // A dry run says what it would do and writes nothing.
    const dry = await run(['consolidate', '--episodes', '--dry-run', '--json', ...HEUR], { cwd: v.root, home: v.home });
    expect(dry.status, dry.stderr).toBe(0);
    const d = dry.json();
    expect(d.dry_run).toBe(true);
    expect(d.considered.map((c: any) => c.id).sort()).toEqual(['ep-s-one-001', 'ep-s-three-001', 'ep-s-two-001']);
    expect(d.written.length).toBe(1);
    expect(fs.readFileSync(v.path('MEMORY.md')).equals(memBefore)).toBe(true);
    for (const s of sessions) expect(fs.readFileSync(v.path(epFile(s))).equals(before.get(s)!)).toBe(true);

    const r = await run(['consolidate', '--episodes', '--json', ...HEUR], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const out = r.json();
    expect(out.due).toBe(true);
    expect(out.why).toBe('count');
    expect(out.written.length).toBe(1);
    expect(out.written[0].file).toBe('MEMORY.md');
    expect(out.written[0].episodes.sort()).toEqual(['ep-s-one-001', 'ep-s-three-001', 'ep-s-two-001']);
    expect(out.marked.sort()).toEqual(['ep-s-one-001', 'ep-s-three-001', 'ep-s-two-001']);
    expect(Object.keys(out.rejected)).toContain('duplicate');

    const memory = v.read('MEMORY.md');
    expect(memory).toContain('Never run the deploy script with sudo');
    expect(metas(memory)).toContainEqual(expect.objectContaining({ episodes: ['ep-s-one-001', 'ep-s-three-001', 'ep-s-two-001'], tags: ['corrective', 'consolidated'] }));
    // Byte-level: each episode file differs from before in its consolidated_at line only.
    for (const s of sessions) {
      const a = before.get(s)!.toString('utf8').split('\n');
      const b = v.read(epFile(s)).split('\n');
      expect(b.length).toBe(a.length);
      const changed = a.map((line, i) => (line === b[i] ? null : [line, b[i]])).filter((x) => x !== null);
      expect(changed).toEqual([['consolidated_at: null', expect.stringMatching(/^consolidated_at: '\d{4}-\d\d-\d\dT[\d:.]+Z'$/)]]);
    }
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);
    // The learning is indexed and searchable as a learning.
    const hits = (await run(['search', 'deploy script sudo', '--kind', 'learning', '--json'], { cwd: v.root, home: v.home })).json();
    expect(hits.results.map((h: any) => h.id)).toContain(out.written[0].id);

    // Again: nothing left, nothing written.
    const memAfter = fs.readFileSync(v.path('MEMORY.md'));
    const eps = sessions.map((s) => fs.readFileSync(v.path(epFile(s))));
    const again = await run(['consolidate', '--episodes', ...HEUR], { cwd: v.root, home: v.home });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/nothing to consolidate: fewer than 3 unconsolidated episodes and none with surprise >= 0\.85 \(0 waiting of 3\)/);
    expect(fs.readFileSync(v.path('MEMORY.md')).equals(memAfter)).toBe(true);
    sessions.forEach((s, i) => expect(fs.readFileSync(v.path(epFile(s))).equals(eps[i])).toBe(true));
  });

  it('the same rule in a later batch is a duplicate: no second learning, the episodes are still marked', async () => {
    const v = vault();
    await segmentAll(v, ['a-1', 'a-2', 'a-3']);
    expect((await run(['consolidate', '--episodes', ...HEUR], { cwd: v.root, home: v.home })).status).toBe(0);
    await segmentAll(v, ['b-1', 'b-2', 'b-3']);
    const r = await run(['consolidate', '--episodes', '--json', ...HEUR], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const out = r.json();
    expect(out.written).toEqual([]);
    expect(out.rejected.duplicate).toBe(1);
    expect(out.marked.length).toBe(3);
    expect(v.read('MEMORY.md').match(/^## .*Never run the deploy script/gm)?.length).toBe(1);
  });

  it('a single flashbulb episode (surprise >= 0.85) is consolidated on its own', async () => {
    const v = vault();
    await segmentAll(v, ['flash'], 'Never push to the main branch without running the integration tests first.');
    // Below the threshold first: the episode with an ordinary surprise (set by hand; a short
    // session's lexical surprise is whatever its words make it).
    const text = v.read(epFile('flash')).replace(/^surprise: [\d.]+$/m, 'surprise: 0.5');
    v.write(epFile('flash'), text);
    const below = await run(['consolidate', '--episodes', ...HEUR], { cwd: v.root, home: v.home });
    expect(below.status).toBe(0);
    expect(below.stderr).toContain('nothing to consolidate');
    expect(below.stderr).toContain('(1 waiting of 1)');
    expect(v.read(epFile('flash'))).toBe(text);
    // The same episode, as a surprise the segmenter rated 0.9.
    v.write(epFile('flash'), text.replace(/^surprise: [\d.]+$/m, 'surprise: 0.9'));
    const r = await run(['consolidate', '--episodes', '--json', ...HEUR], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    const out = r.json();
    expect(out.why).toBe('flashbulb');
    expect(out.written.map((w: any) => w.episodes)).toEqual([['ep-flash-001']]);
    expect(metas(v.read('MEMORY.md'))).toContainEqual(expect.objectContaining({ episodes: ['ep-flash-001'] }));
    expect(v.read(epFile('flash'))).toMatch(/^consolidated_at: '/m);
  });

  it('below the threshold: one line, exit 0, nothing written; with --json, due: false', async () => {
    const v = vault();
    await segmentAll(v, ['x-1', 'x-2']);
    const files = ['MEMORY.md', epFile('x-1'), epFile('x-2')].map((f) => fs.readFileSync(v.path(f)));
    const r = await run(['consolidate', '--episodes', ...HEUR], { cwd: v.root, home: v.home });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual(['nothing to consolidate: fewer than 3 unconsolidated episodes and none with surprise >= 0.85 (2 waiting of 2)']);
    ['MEMORY.md', epFile('x-1'), epFile('x-2')].forEach((f, i) => expect(fs.readFileSync(v.path(f)).equals(files[i])).toBe(true));
    const j = (await run(['consolidate', '--episodes', '--json', ...HEUR], { cwd: v.root, home: v.home })).json();
    expect(j).toMatchObject({ due: false, waiting: 2, episodes_total: 2, written: [], marked: [] });
    // No episodes at all: the same line.
    const empty = vault();
    const e = await run(['consolidate', '--episodes', ...HEUR], { cwd: empty.root, home: empty.home });
    expect(e.status).toBe(0);
    expect(e.stderr).toContain('(0 waiting of 0)');
  });

  it('with a model: one request over the episodes\' messages, its learnings gated and linked to every episode', async () => {
    const v = vault();
    await segmentAll(v, ['m-1', 'm-2', 'm-3']);
    const answer = {
      learnings: [
        { scope: 'project', type: 'directive', title: 'Run the deploy script as the deploy user, never with sudo', body: 'Running it with sudo leaves root-owned files in the release folder, which breaks the next deploy.', importance: 0.8, phase: 'implementation' },
        { scope: 'project', type: 'procedural', title: 'The edit failed', body: 'The old_string was not found in the file.', importance: 0.3, phase: 'implementation' },
      ],
    };
    const srv = await fakeServer([{ body: openaiCompletion(JSON.stringify(answer)) }]);
    const r = await run(['consolidate', '--episodes', '--json', '--model', 'llama3.1'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${srv.url}/v1` } });
    expect(r.status, r.stderr).toBe(0);
    expect(srv.seen).toHaveLength(1);
    expect(srv.seen[0].path).toBe('/v1/chat/completions');
    // The prompt carries the messages recovered from the episodes' bodies.
    expect(srv.seen[0].body.messages[1].content).toContain('Never run the deploy script with sudo');
    expect(srv.seen[0].body.messages[1].content).toContain('Please deploy the staging build for m-3.');
    const out = r.json();
    expect(out.provider).toMatchObject({ name: 'openai', model: 'llama3.1' });
    expect(out.fallback).toBeNull();
    expect(out.written.map((w: any) => w.title)).toEqual(['Run the deploy script as the deploy user, never with sudo']);
    expect(out.written[0].episodes).toEqual(['ep-m-1-001', 'ep-m-2-001', 'ep-m-3-001']);
    expect(out.rejected['tool-mechanics'] + out.rejected.fragment + out.rejected['no-subject']).toBe(1);
    const memory = v.read('MEMORY.md');
    expect(metas(memory)).toContainEqual(expect.objectContaining({ source: 'openai:llama3.1', episodes: ['ep-m-1-001', 'ep-m-2-001', 'ep-m-3-001'] }));
    expect(out.marked).toHaveLength(3);
  });

  it('the API key mem is given, in the model\'s answer whatever its shape, is redacted before it is written', async () => {
    const v = vault();
    await segmentAll(v, ['k-1', 'k-2', 'k-3']);
    const key = 'sk-test-SECRET123456789';
    const answer = { learnings: [{ scope: 'project', type: 'corrective', title: 'Always run npm ci before the unit tests', body: `The server key is ${key} for the npm ci step.`, importance: 0.8, phase: 'implementation' }] };
    const srv = await fakeServer([{ body: openaiCompletion(JSON.stringify(answer)) }]);
    const r = await run(['consolidate', '--episodes', '--model', 'llama3.1'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${srv.url}/v1`, OPENAI_API_KEY: key } });
    expect(r.status, r.stderr).toBe(0);
    const memory = v.read('MEMORY.md');
    expect(memory).toContain('The server key is [redacted: api-key] for the npm ci step.');
    expect(memory).not.toContain(key);
    expect(r.stderr).toMatch(/redacted/);
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('--check is refused with --episodes; plain mem consolidate is unchanged', async () => {
    const v = vault();
    const r = await run(['consolidate', '--episodes', '--check'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^mem: --check does not apply to --episodes/);
    const plain = await run(['consolidate'], { cwd: v.root, home: v.home });
    expect(plain.status).toBe(0);
    expect(plain.stderr).toContain('no contradicting learnings found');
  });

  it('mem extract consolidates after segmenting when extract.consolidate is true and the threshold is met; off by default', async () => {
    const OFFLINE = { ...NO_KEYS, MEM_NOW: '2026-11-20' };
    const dir = tempDir();
    // Off (the default): episodes are written, none consolidated.
    const off = vault();
    for (const s of ['o-1', 'o-2', 'o-3']) expect((await run(['extract', transcript(dir, s)], { cwd: off.root, home: off.home, env: OFFLINE })).status).toBe(0);
    for (const s of ['o-1', 'o-2', 'o-3']) expect(off.read(epFile(s))).toMatch(/^consolidated_at: null$/m);

    const v = vault();
    await run(['init', '-q'], { cwd: v.root, home: v.home });
    const cfg = v.read('.mem/config.yaml');
    expect(cfg).toMatch(/^ {2}budget_chars: .*$/m);
    v.write('.mem/config.yaml', cfg.replace(/^( {2}budget_chars: .*)$/m, '$1\n  consolidate: true'));
    const runs: RunResult[] = [];
    for (const s of ['e-1', 'e-2', 'e-3']) runs.push(await run(['extract', transcript(dir, s), '--json'], { cwd: v.root, home: v.home, env: OFFLINE }));
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    // Below the threshold for the first two; the third consolidates all three.
    expect(runs[0].json().consolidation).toBeUndefined();
    expect(runs[1].json().consolidation).toBeUndefined();
    const third = runs[2].json();
    expect(third.consolidation.episodes.sort()).toEqual(['ep-e-1-001', 'ep-e-2-001', 'ep-e-3-001']);
    // The rule is already in MEMORY.md from the first extraction: the duplicate check keeps it single.
    expect(third.consolidation.written).toEqual([]);
    expect(v.read('MEMORY.md').match(/^## .*Never run the deploy script/gm)?.length).toBe(1);
    for (const s of ['e-1', 'e-2', 'e-3']) expect(v.read(epFile(s))).toMatch(/^consolidated_at: '/m);
    expect((await run(['lint'], { cwd: v.root, home: v.home })).status).toBe(0);
  });

  it('an episode file with a BOM and CRLF line endings keeps both; only its consolidated_at line changes', async () => {
    const v = vault();
    await segmentAll(v, ['w-1', 'w-2', 'w-3']);
    const crlf = `\ufeff${v.read(epFile('w-2')).replace(/\n/g, '\r\n')}`;
    v.write(epFile('w-2'), crlf);
    const r = await run(['consolidate', '--episodes', '--json', ...HEUR], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().written[0].episodes).toEqual(['ep-w-1-001', 'ep-w-2-001', 'ep-w-3-001']);
    const after = v.read(epFile('w-2'));
    expect(after.startsWith('\ufeff')).toBe(true);
    expect(after.replace(/^consolidated_at: '[^']+'\r$/m, 'consolidated_at: null\r')).toBe(crlf);
    expect(after).not.toMatch(/[^\r]\n/);
  });

  it('an episode file that is a symlink out of the vault is neither read nor written', async () => {
    const v = vault();
    await segmentAll(v, ['l-1', 'l-2', 'l-3']);
    const outside = path.join(tempDir(), 'outside.md');
    fs.copyFileSync(v.path(epFile('l-3')), outside);
    fs.rmSync(v.path(epFile('l-3')));
    fs.symlinkSync(outside, v.path(epFile('l-3')));
    const before = fs.readFileSync(outside);
    const r = await run(['consolidate', '--episodes', '--json', ...HEUR], { cwd: v.root, home: v.home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ due: false, waiting: 2, episodes_total: 2 });
    expect(fs.readFileSync(outside).equals(before)).toBe(true);
  });
});
