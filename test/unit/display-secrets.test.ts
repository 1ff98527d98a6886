import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookLog } from '../../src/integrations/agent-hook.js';
import { providerError, ProviderError } from '../../src/llm/provider.js';
import { credentialsIn, displaySafe } from '../../src/secrets/display.js';
import { urlForDisplay } from '../../src/secrets/rules.js';

const KEY = 'qv7Rk2mZp9TxL4wB8nYc3HdJ6fGs1uEa';
const cfg = { name: 'openai' as const, model: 'm', baseUrl: 'https://bot:s3cretPass@llm.example.com/v1', source: 'test' };

describe('displaySafe', () => {
  it('drops every URL\'s user and password, whatever the scheme', () => {
    expect(urlForDisplay('at https://bot:s3cret@h.example/v1 and postgres://u:p@db:5432/x, token@ not a url, mailto:a@b'))
      .toBe('at https://***@h.example/v1 and postgres://***@db:5432/x, token@ not a url, mailto:a@b');
    expect(displaySafe('GET http://ghp_abcdefghijklmnopqrstuvwxyz0123456789@host/')).toBe('GET http://***@host/');
  });

  it('redacts known values and authorization headers', () => {
    expect(displaySafe(`key ${KEY} rejected`, [KEY])).toBe('key [redacted: api-key] rejected');
    expect(displaySafe('x-api-key: abcdef123456789')).toBe('x-api-key: [redacted: api-key]');
    expect(displaySafe('Authorization: Bearer abcdef123456789')).not.toContain('abcdef123456789');
  });

  it('credentialsIn: values of variables named as credentials; not paths, flags or short values', () => {
    const got = credentialsIn({ OPENAI_API_KEY: KEY, GITHUB_TOKEN: 'tok-1234567890', DB_PASSWORD: 'pw-9876543210', SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1', MEM_DEBUG_TOKEN: 'true', KEYBOARD: 'us-international', PATH: '/usr/bin', API_KEY: 'short' });
    expect(got.sort()).toEqual([KEY, 'pw-9876543210', 'tok-1234567890'].sort());
  });
});

describe('providerError', () => {
  it('redacts the key before cutting the excerpt (no part of it survives), and shows the base URL without credentials', () => {
    const pad = 'x'.repeat(190);
    const e = providerError({ status: 400, message: `${pad} ${KEY} more` }, cfg, { timeoutMs: 1, maxRetries: 0, secrets: [KEY] });
    expect(e.message).not.toContain(KEY.slice(0, 6));
    expect(e.cause).toBeUndefined();
    const c = providerError(Object.assign(new Error('Connection error.'), { cause: new Error(`fetch to https://bot:s3cretPass@llm.example.com/v1 failed, key ${KEY}`) }), cfg, { timeoutMs: 1, maxRetries: 0, secrets: [KEY] });
    // The SDK's connection error is matched by its class name; a plain Error reads as "failed".
    expect(c.message).not.toContain('s3cretPass');
    expect(c.message).not.toContain(KEY);
    class APIConnectionError extends Error {}
    const conn = providerError(Object.assign(new APIConnectionError('Connection error.'), { cause: new Error(`https://bot:s3cretPass@llm.example.com key ${KEY}`) }), cfg, { timeoutMs: 1, maxRetries: 0, secrets: [KEY] });
    expect(conn.message).toMatch(/^cannot reach openai \(m\) at https:\/\/\*\*\*@llm\.example\.com\/v1: https:\/\/\*\*\*@llm\.example\.com key \[redacted: api-key\]$/);
  });

  it('a message that is not text (a hostile server) is shown as JSON, redacted', () => {
    const e = providerError({ status: 500, message: { echo: KEY } }, cfg, { timeoutMs: 1, maxRetries: 0, secrets: [KEY] });
    expect(e.message).toBe('openai (m) answered with an error (500): {"echo":"[redacted: api-key]"}');
  });

  it('a ProviderError made elsewhere is made safe too', () => {
    const e = providerError(new ProviderError(`at http://u:p4ssw0rd@h/ with ${KEY}`, 'connection', 'hint'), cfg, { timeoutMs: 1, maxRetries: 0, secrets: [KEY] });
    expect(e.message).toBe('at http://***@h/ with [redacted: api-key]');
    expect(e.hint).toBe('hint');
  });
});

describe('hookLog', () => {
  const dirs: string[] = [];
  afterEach(() => {
    delete process.env.MEM_TEST_SECRET_TOKEN;
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('never writes a credential of the environment or a URL password into the log', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-hooklog-'));
    dirs.push(root);
    process.env.MEM_TEST_SECRET_TOKEN = KEY;
    hookLog(root, 'hooks.log', `claude hook: failed with ${KEY} at https://bot:pw-Secret99@h.example/v1`);
    const log = fs.readFileSync(path.join(root, '.mem/logs/hooks.log'), 'utf8');
    expect(log).toMatch(/claude hook: failed with \[redacted: api-key\] at https:\/\/\*\*\*@h\.example\/v1\n$/);
  });
});
