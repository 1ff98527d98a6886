import { describe, expect, it } from 'vitest';
import { resolveProviderConfig } from '../../src/llm/provider.js';

describe('resolveProviderConfig', () => {
  it('is offline with no key', () => {
    expect(resolveProviderConfig({})).toMatchObject({ name: 'heuristic' });
  });
  it('follows API keys, MEM_PROVIDER and MEM_MODEL', () => {
    expect(resolveProviderConfig({ ANTHROPIC_API_KEY: 'k' })).toMatchObject({ name: 'anthropic', model: 'claude-haiku-4-5' });
    expect(resolveProviderConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', MEM_MODEL: 'llama3' })).toMatchObject({ name: 'openai', model: 'llama3', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(resolveProviderConfig({ ANTHROPIC_API_KEY: 'k', MEM_PROVIDER: 'heuristic' })).toMatchObject({ name: 'heuristic', source: 'MEM_PROVIDER' });
  });
  it('rejects an unknown provider as a usage error', () => {
    expect(() => resolveProviderConfig({ MEM_PROVIDER: 'magic' })).toThrow(/unknown provider "magic"/);
  });
});
