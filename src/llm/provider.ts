// The provider seam: which language model mem uses (a flag, MEM_PROVIDER, .mem/config.yaml, an
// API key in the environment, or nothing: the offline heuristics), and its client, built on first
// use. Extraction and stage detection call models only through this; what a provider is, every
// provider implements and this re-exports lives in provider-api.ts.

import { MemError, usageError } from '../errors.js';
import { PROVIDERS, type ClientOptions, type LlmProvider, type ProviderConfig, type ProviderName } from './provider-api.js';

export {
  EMBED_CONNECTION_HINT, PROVIDERS, ProviderError, providerError,
  type ClientOptions, type LlmProvider, type LlmRequest, type LlmResponse, type ProviderConfig, type ProviderName,
} from './provider-api.js';

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-haiku-4-5',
  openai: 'gpt-4o-mini',
  heuristic: 'rules',
};

/** Settings from flags and `.mem/config.yaml` (`llm:`); the environment fills what they leave open. */
export interface ProviderChoice {
  provider?: string;
  /** Where `provider` came from, for messages ('--provider' or '.mem/config.yaml'). */
  providerSource?: string;
  /** --model and --base-url: above the environment. */
  model?: string;
  baseUrl?: string;
  /** `llm.model` and `llm.base_url` of the config: below the environment. */
  configModel?: string;
  configBaseUrl?: string;
}

function checkName(wanted: string, source: string): ProviderName {
  const name = wanted.trim().toLowerCase();
  if (!(PROVIDERS as readonly string[]).includes(name)) {
    throw usageError(`unknown provider "${wanted}" (${source})`, `use one of: ${PROVIDERS.join(', ')}`);
  }
  return name as ProviderName;
}

/**
 * Which provider to use: --provider, else MEM_PROVIDER, else `llm.provider` in the config, else
 * ANTHROPIC_API_KEY, else OPENAI_API_KEY / OPENAI_BASE_URL, else the offline heuristics. The
 * model is --model, MEM_MODEL, `llm.model`, or the provider's default.
 */
/**
 * The provider a command uses: its flags (--provider, --model, --base-url) over the environment
 * over `llm:` in .mem/config.yaml (mem extract, mem consolidate --episodes).
 */
export function providerFromFlags(flags: { provider?: string; model?: string; baseUrl?: string }, fromConfig: { provider?: string; model?: string; baseUrl?: string }, env: NodeJS.ProcessEnv): ProviderConfig {
  return resolveProviderConfig(env, {
    provider: flags.provider ?? fromConfig.provider,
    providerSource: flags.provider ? '--provider' : '.mem/config.yaml',
    model: flags.model,
    baseUrl: flags.baseUrl,
    configModel: fromConfig.model,
    configBaseUrl: fromConfig.baseUrl,
  });
}

export function resolveProviderConfig(env: NodeJS.ProcessEnv, choice: ProviderChoice | string = {}): ProviderConfig {
  const c: ProviderChoice = typeof choice === 'string' ? { provider: choice, providerSource: '--provider' } : choice;
  const envModel = env.MEM_MODEL?.trim() || undefined;
  const modelFor = (name: ProviderName) => (name === 'heuristic' ? DEFAULT_MODELS.heuristic : c.model || envModel || c.configModel || DEFAULT_MODELS[name]);
  const baseFor = (name: ProviderName) =>
    name === 'openai' ? c.baseUrl || env.OPENAI_BASE_URL || c.configBaseUrl || undefined
      : name === 'anthropic' ? c.baseUrl || env.ANTHROPIC_BASE_URL || c.configBaseUrl || undefined : undefined;
  const keyEnv = (name: ProviderName) => (name === 'anthropic' ? 'ANTHROPIC_API_KEY' : name === 'openai' ? 'OPENAI_API_KEY' : undefined);
  let name: ProviderName | undefined;
  let source = '';
  if (c.provider && c.providerSource !== '.mem/config.yaml') {
    name = checkName(c.provider, c.providerSource ?? '--provider');
    source = c.providerSource ?? '--provider';
  } else if (env.MEM_PROVIDER?.trim()) {
    name = checkName(env.MEM_PROVIDER, 'MEM_PROVIDER');
    source = 'MEM_PROVIDER';
  } else if (c.provider) {
    name = checkName(c.provider, '.mem/config.yaml');
    source = '.mem/config.yaml';
  } else if (env.ANTHROPIC_API_KEY) {
    name = 'anthropic';
    source = 'ANTHROPIC_API_KEY is set';
  } else if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL || c.baseUrl || c.configBaseUrl) {
    name = 'openai';
    source = env.OPENAI_API_KEY ? 'OPENAI_API_KEY is set' : 'a base URL is set';
  }
  if (!name) return { name: 'heuristic', model: DEFAULT_MODELS.heuristic, source: 'no API key or provider set: offline' };
  return { name, model: modelFor(name), baseUrl: baseFor(name), apiKeyEnv: keyEnv(name), source };
}

/** A provider client; the SDK is loaded only here, so commands that never call a model stay light. */
export async function createProvider(config: ProviderConfig, opts: ClientOptions): Promise<LlmProvider> {
  if (config.name === 'anthropic') return (await import('./anthropic.js')).anthropicProvider(config, opts);
  if (config.name === 'openai') return (await import('./openai.js')).openaiProvider(config, opts);
  throw new MemError('the heuristic provider does not call a model');
}
