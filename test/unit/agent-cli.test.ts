import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findOnPath, jsonIn, parseClaude, parseCodex, parseGemini, promptText } from '../../src/llm/agent-cli.js';
import { resolveProviderConfig } from '../../src/llm/provider.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);

/** A folder holding executables named `names` (empty scripts), for PATH look-ups. */
function bin(names: string[], mode = 0o755): string {
  const d = tempDir('mem-bin-');
  for (const n of names) {
    fs.writeFileSync(path.join(d, n), '#!/bin/sh\n');
    fs.chmodSync(path.join(d, n), mode);
  }
  return d;
}

describe('finding an agent CLI on PATH', () => {
  it('takes the first executable file of that name along PATH; skips folders, non-executables and relative entries', () => {
    const a = bin(['claude'], 0o644);
    const b = bin([]);
    fs.mkdirSync(path.join(b, 'claude'));
    const c = bin(['claude']);
    const d = bin(['claude']);
    expect(findOnPath('claude', { PATH: [a, b, 'relative', c, d].join(path.delimiter) })).toBe(path.join(c, 'claude'));
    expect(findOnPath('claude', { PATH: [a, b].join(path.delimiter) })).toBeUndefined();
    expect(findOnPath('claude', {})).toBeUndefined();
  });

  it('the auto choice: keys and base URLs first, then claude, codex, gemini in that order, unless switched off', () => {
    const all = bin(['gemini', 'codex', 'claude']);
    const two = bin(['gemini', 'codex']);
    const one = bin(['gemini']);
    expect(resolveProviderConfig({ PATH: all })).toMatchObject({ name: 'claude-cli', model: 'haiku', command: path.join(all, 'claude'), source: 'no API key; claude on PATH' });
    expect(resolveProviderConfig({ PATH: [one, two].join(path.delimiter) })).toMatchObject({ name: 'codex-cli', command: path.join(two, 'codex') });
    expect(resolveProviderConfig({ PATH: one })).toMatchObject({ name: 'gemini-cli', model: 'flash' });
    expect(resolveProviderConfig({ PATH: bin([]) })).toMatchObject({ name: 'heuristic' });
    expect(resolveProviderConfig({ PATH: all, ANTHROPIC_API_KEY: 'k' })).toMatchObject({ name: 'anthropic' });
    expect(resolveProviderConfig({ PATH: all, OPENAI_API_KEY: 'k' })).toMatchObject({ name: 'openai' });
    expect(resolveProviderConfig({ PATH: all }, { configBaseUrl: 'http://127.0.0.1:11434/v1' })).toMatchObject({ name: 'openai' });
    expect(resolveProviderConfig({ PATH: all, MEM_AGENT_CLI: 'off' })).toMatchObject({ name: 'heuristic' });
    expect(resolveProviderConfig({ PATH: all }, { agentCli: false })).toMatchObject({ name: 'heuristic' });
    expect(resolveProviderConfig({ PATH: all, MEM_AGENT_CLI: '1' }, { agentCli: false })).toMatchObject({ name: 'claude-cli' });
    expect(resolveProviderConfig({ PATH: all, MEM_IN_MODEL_CALL: '1', MEM_AGENT_CLI: '1' })).toMatchObject({ name: 'heuristic' });
    expect(resolveProviderConfig({ PATH: all }, { model: 'sonnet' })).toMatchObject({ name: 'claude-cli', model: 'sonnet' });
    // Named, it is used whatever the switch says (and named without being installed, it says so later).
    expect(resolveProviderConfig({ PATH: all, MEM_AGENT_CLI: '0', MEM_PROVIDER: 'gemini-cli' })).toMatchObject({ name: 'gemini-cli', command: path.join(all, 'gemini') });
    expect(resolveProviderConfig({ PATH: bin([]) }, { provider: 'codex-cli', providerSource: '--provider' })).toMatchObject({ name: 'codex-cli', command: undefined });
  });
});

describe('reading each CLI\'s answer', () => {
  it('claude: the result object, its usage with cached tokens, is_error and error subtypes', () => {
    const ok = { type: 'result', subtype: 'success', is_error: false, result: '{"a":1}', usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 3 } };
    expect(parseClaude(JSON.stringify(ok))).toEqual({ text: '{"a":1}', usage: { inputTokens: 15, outputTokens: 3 } });
    expect(parseClaude(`{"type":"system"}\n${JSON.stringify(ok)}\n`)).toMatchObject({ text: '{"a":1}' });
    expect(parseClaude(JSON.stringify({ ...ok, is_error: true, result: 'Invalid API key' }))).toEqual({ error: 'Invalid API key' });
    expect(parseClaude(JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: false }))).toEqual({ error: 'error_max_turns' });
    expect(parseClaude('hello')).toBeNull();
    expect(parseClaude('{"type":"assistant","message":{}}')).toBeNull();
    expect(parseClaude('[1,2]')).toBeNull();
  });

  it('codex: the last agent message of the JSONL events, usage from turn.completed, turn.failed and error events', () => {
    const ev = (...e: object[]) => e.map((x) => JSON.stringify(x)).join('\n');
    expect(parseCodex(ev({ type: 'thread.started' }, { type: 'item.completed', item: { type: 'agent_message', text: 'one' } }, { type: 'item.completed', item: { type: 'agent_message', text: 'two' } },
      { type: 'turn.completed', usage: { input_tokens: 7, cached_input_tokens: 2, output_tokens: 4 } }))).toEqual({ text: 'two', usage: { inputTokens: 7, outputTokens: 4 } });
    expect(parseCodex(ev({ type: 'turn.started' }, { type: 'turn.failed', error: { message: 'stream disconnected' } }))).toEqual({ error: 'stream disconnected' });
    expect(parseCodex(ev({ type: 'error', message: 'model not supported' }))).toEqual({ error: 'model not supported' });
    expect(parseCodex('Reading prompt from stdin...\nno json here')).toBeNull();
  });

  it('gemini: response and the per-model token stats; an error object', () => {
    const stats = { models: { 'gemini-2.5-flash': { tokens: { prompt: 30, candidates: 6 } }, 'gemini-2.5-flash-lite': { tokens: { prompt: 4, candidates: 1 } } } };
    expect(parseGemini(JSON.stringify({ response: 'ok', stats }))).toEqual({ text: 'ok', usage: { inputTokens: 34, outputTokens: 7 } });
    expect(parseGemini(`Loaded cached credentials.\n${JSON.stringify({ response: 'ok' }, null, 2)}`)).toMatchObject({ text: 'ok' });
    expect(parseGemini(JSON.stringify({ error: { type: 'ApiError', message: 'quota exceeded', code: 429 } }))).toEqual({ error: 'quota exceeded' });
    expect(parseGemini('not json')).toBeNull();
  });

  it('a JSON object in the answer: whole, fenced or wrapped in prose; never an array or a scalar', () => {
    expect(jsonIn('{"a":1}')).toEqual({ a: 1 });
    expect(jsonIn('Sure:\n```json\n{"a":[1,2]}\n```\nDone.')).toEqual({ a: [1, 2] });
    expect(jsonIn('The answer is {"a":{"b":2}} as asked.')).toEqual({ a: { b: 2 } });
    expect(jsonIn('[1]')).toBeUndefined();
    expect(jsonIn('no json')).toBeUndefined();
  });

  it('the prompt text: the system part when the CLI has no flag for it, then the schema to answer with', () => {
    const req = { system: 'SYS', prompt: 'PROMPT', schema: { type: 'object' }, schemaName: 'record_x' };
    expect(promptText(req, true)).toMatch(/^SYS\n\nPROMPT\n\nAnswer with one JSON object .*\(record_x\):\n\{"type":"object"\}$/);
    expect(promptText({ system: 'SYS', prompt: 'PROMPT' }, false)).toBe('PROMPT');
  });
});
