// The provider seam: which language model mem uses (a flag, MEM_PROVIDER, .mem/config.yaml, an
// API key in the environment, or nothing: the offline heuristics), and its client, built on first
// use. Extraction and stage detection call models only through this; what a provider is, every
// provider implements and this re-exports lives in provider-api.ts.

import { MemError, usageError } from '../errors.js';
import { isAgentCli, PROVIDERS, type ClientOptions, type LlmProvider, type ProviderConfig, type ProviderName } from './provider-api.js';
import { AGENT_CLI_COMMANDS, AGENT_CLI_MODELS, agentCliAllowed, findOnPath, firstAgentCli } from './agent-cli.js';

export {
  AGENT_CLI_PROVIDERS, EMBED_CONNECTION_HINT, isAgentCli, PROVIDERS, ProviderError, providerError,
  type ClientOptions, type LlmProvider, type LlmRequest, type LlmResponse, type ProviderConfig, type ProviderName,
} from './provider-api.js';

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-haiku-4-5',
  openai: 'gpt-4o-mini',
  ...AGENT_CLI_MODELS,
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
  /** `llm.agent_cli` of the config: false keeps mem from choosing an agent CLI by itself (MEM_AGENT_CLI overrides it). */
  agentCli?: boolean;
}

function checkName(wanted: string, source: string): ProviderName {
  const name = wanted.trim().toLowerCase();
  if (!(PROVIDERS as readonly string[]).includes(name)) {
    throw usageError(`unknown provider "${wanted}" (${source})`, `use one of: ${PROVIDERS.join(', ')}`);
  }
  return name as ProviderName;
}

/**
 * The provider a command uses: its flags (--provider, --model, --base-url) over the environment
 * over `llm:` in .mem/config.yaml (mem extract, mem consolidate --episodes).
 */
export function providerFromFlags(flags: { provider?: string; model?: string; baseUrl?: string }, fromConfig: { provider?: string; model?: string; baseUrl?: string; agentCli?: boolean }, env: NodeJS.ProcessEnv): ProviderConfig {
  return resolveProviderConfig(env, {
    provider: flags.provider ?? fromConfig.provider,
    providerSource: flags.provider ? '--provider' : '.mem/config.yaml',
    model: flags.model,
    baseUrl: flags.baseUrl,
    configModel: fromConfig.model,
    configBaseUrl: fromConfig.baseUrl,
    agentCli: fromConfig.agentCli,
  });
}

/**
 * Which provider to use: --provider, else MEM_PROVIDER, else `llm.provider` in the config, else
 * ANTHROPIC_API_KEY, else OPENAI_API_KEY / OPENAI_BASE_URL / a base URL, else the first agent CLI
 * on PATH (claude, codex, gemini) unless MEM_AGENT_CLI=0 or `llm.agent_cli: false`, else the
 * offline heuristics. The model is --model, MEM_MODEL, `llm.model`, or the provider's default;
 * an agent CLI chosen by itself takes only --model (MEM_MODEL and `llm.model` name the API's
 * models), else its own small default.
 */
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
  } else {
    const may = agentCliAllowed(env, c.agentCli);
    const found = may.allowed ? firstAgentCli(env) : undefined;
    if (found) return { name: found.name, model: c.model || DEFAULT_MODELS[found.name], source: `no API key; ${AGENT_CLI_COMMANDS[found.name]} on PATH`, command: found.command };
    if (!may.allowed) return { name: 'heuristic', model: DEFAULT_MODELS.heuristic, source: `no API key or provider set, agent CLIs off (${may.why}): offline` };
  }
  if (!name) return { name: 'heuristic', model: DEFAULT_MODELS.heuristic, source: 'no API key, provider or agent CLI (claude, codex, gemini) found: offline' };
  if (isAgentCli(name)) return { name, model: modelFor(name), source, command: findOnPath(AGENT_CLI_COMMANDS[name], env) };
  return { name, model: modelFor(name), baseUrl: baseFor(name), apiKeyEnv: keyEnv(name), source };
}

/** A provider client; the SDK is loaded only here, so commands that never call a model stay light. */
export async function createProvider(config: ProviderConfig, opts: ClientOptions): Promise<LlmProvider> {
  if (config.name === 'anthropic') return (await import('./anthropic.js')).anthropicProvider(config, opts);
  if (config.name === 'openai') return (await import('./openai.js')).openaiProvider(config, opts);
  if (isAgentCli(config.name)) return (await import('./agent-cli.js')).agentCliProvider({ ...config, name: config.name }, opts);
  throw new MemError('the heuristic provider does not call a model');
}
