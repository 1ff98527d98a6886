// The provider seam: which language model mem would use (chosen by MEM_PROVIDER, API keys in
// the environment, or nothing: the offline heuristics), and the interface every provider
// implements. Extraction, stage detection and query terms call providers only through this.

import { usageError } from '../errors.js';

export const PROVIDERS = ['anthropic', 'openai', 'heuristic'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const DEFAULT_MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-haiku-4-5',
  openai: 'gpt-4o-mini',
  heuristic: 'rules',
};

export interface ProviderConfig {
  name: ProviderName;
  model: string;
  /** OpenAI-compatible servers (Ollama, vLLM, LM Studio, llama.cpp) are reached through a base URL. */
  baseUrl?: string;
  /** The environment variable holding the API key, when the provider needs one. */
  apiKeyEnv?: string;
  /** Why this provider was chosen, for `mem doctor` and for messages. */
  source: string;
}

export interface LlmRequest {
  system: string;
  prompt: string;
  /** JSON schema of the expected answer (tool use / structured output). */
  schema?: Record<string, unknown>;
  maxTokens?: number;
}

export interface LlmResponse {
  text: string;
  json?: unknown;
  usage: { inputTokens: number; outputTokens: number };
}

export interface LlmProvider {
  readonly config: ProviderConfig;
  complete(request: LlmRequest): Promise<LlmResponse>;
}

/** Which provider the environment asks for: MEM_PROVIDER, else an API key, else offline heuristics. */
export function resolveProviderConfig(env: NodeJS.ProcessEnv = process.env, explicit?: string): ProviderConfig {
  const wanted = (explicit ?? env.MEM_PROVIDER)?.trim().toLowerCase();
  const model = env.MEM_MODEL?.trim();
  if (wanted) {
    if (!(PROVIDERS as readonly string[]).includes(wanted)) {
      throw usageError(`unknown provider "${wanted}"`, `use one of: ${PROVIDERS.join(', ')}`);
    }
    const name = wanted as ProviderName;
    return {
      name,
      model: model || DEFAULT_MODELS[name],
      baseUrl: name === 'openai' ? env.OPENAI_BASE_URL || undefined : undefined,
      apiKeyEnv: name === 'anthropic' ? 'ANTHROPIC_API_KEY' : name === 'openai' ? 'OPENAI_API_KEY' : undefined,
      source: explicit ? '--provider' : 'MEM_PROVIDER',
    };
  }
  if (env.ANTHROPIC_API_KEY) return { name: 'anthropic', model: model || DEFAULT_MODELS.anthropic, apiKeyEnv: 'ANTHROPIC_API_KEY', source: 'ANTHROPIC_API_KEY is set' };
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    return { name: 'openai', model: model || DEFAULT_MODELS.openai, baseUrl: env.OPENAI_BASE_URL || undefined, apiKeyEnv: 'OPENAI_API_KEY', source: env.OPENAI_API_KEY ? 'OPENAI_API_KEY is set' : 'OPENAI_BASE_URL is set' };
  }
  return { name: 'heuristic', model: DEFAULT_MODELS.heuristic, source: 'no API key or MEM_PROVIDER: offline' };
}
