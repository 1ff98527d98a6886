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
  it('orders the sources: --provider, MEM_PROVIDER, config, API keys; --model, MEM_MODEL, config', () => {
    const cfg = { provider: 'openai', providerSource: '.mem/config.yaml', configModel: 'qwen2.5', configBaseUrl: 'http://127.0.0.1:8000/v1' };
    expect(resolveProviderConfig({ ANTHROPIC_API_KEY: 'k' }, cfg)).toMatchObject({ name: 'openai', model: 'qwen2.5', baseUrl: 'http://127.0.0.1:8000/v1', source: '.mem/config.yaml' });
    expect(resolveProviderConfig({ MEM_PROVIDER: 'anthropic', MEM_MODEL: 'claude-sonnet-4-5' }, cfg)).toMatchObject({ name: 'anthropic', model: 'claude-sonnet-4-5', source: 'MEM_PROVIDER' });
    expect(resolveProviderConfig({ MEM_PROVIDER: 'anthropic', MEM_MODEL: 'm2' }, { provider: 'heuristic', providerSource: '--provider' })).toMatchObject({ name: 'heuristic', source: '--provider' });
    expect(resolveProviderConfig({ MEM_MODEL: 'm2', ANTHROPIC_API_KEY: 'k' }, {})).toMatchObject({ name: 'anthropic', model: 'm2' });
    expect(resolveProviderConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }, { baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' })).toMatchObject({ name: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
    expect(resolveProviderConfig({}, { configBaseUrl: 'http://127.0.0.1:11434/v1' })).toMatchObject({ name: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' });
    expect(() => resolveProviderConfig({}, { provider: 'gemini', providerSource: '.mem/config.yaml' })).toThrow(/unknown provider "gemini" \(\.mem\/config\.yaml\)/);
  });
  it('rejects an unknown provider as a usage error', () => {
    expect(() => resolveProviderConfig({ MEM_PROVIDER: 'magic' })).toThrow(/unknown provider "magic"/);
  });
});
