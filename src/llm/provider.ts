// The provider seam: which language model mem uses (a flag, MEM_PROVIDER, .mem/config.yaml, an
// API key in the environment, or nothing: the offline heuristics), and the interface every
// provider implements. Extraction and stage detection call models only through this.

import { MemError, usageError } from '../errors.js';
import { displaySafe } from '../secrets/display.js';
import { urlForDisplay } from '../secrets/rules.js';

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

export interface LlmRequest {
  system: string;
  prompt: string;
  /** JSON schema of the expected answer (tool use / structured output). */
  schema?: Record<string, unknown>;
  /** Name of the structured answer (the tool's name for Anthropic). */
  schemaName?: string;
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

export interface ClientOptions {
  timeoutMs: number;
  maxRetries: number;
  env: NodeJS.ProcessEnv;
  /** Credentials the client was given (its API key): never shown, whatever a server echoes. */
  secrets?: Array<string | undefined>;
}

/** A provider call that failed (unreachable, rejected key, timeout, unusable answer). */
export class ProviderError extends MemError {
  constructor(message: string, readonly kind: 'auth' | 'timeout' | 'connection' | 'rate-limit' | 'api' | 'invalid-answer', hint?: string, cause?: unknown) {
    super(message, { hint, cause });
  }
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

/** What to check when the embeddings endpoint cannot be reached (its own settings, not the LLM's). */
export const EMBED_CONNECTION_HINT = 'check that the embeddings server is running, or its base URL (embeddings.base_url in .mem/config.yaml / MEM_EMBED_BASE_URL)';

/** At most this much of a server's error message is shown (after redaction). */
const ERROR_EXCERPT = 200;

/**
 * Turn an SDK error into one clear line. Both SDKs share these class names and fields. What the
 * server said is redacted (the client's own key, authorization headers, tokens, URL credentials)
 * before it is cut to an excerpt; the SDK error itself is not kept as the cause, since its
 * message and body hold the server's answer whole.
 */
export function providerError(err: unknown, config: ProviderConfig, opts: Omit<ClientOptions, 'env'>): ProviderError {
  const e = err as { name?: string; status?: number; message?: string; constructor?: { name?: string } };
  const cls = e?.constructor?.name ?? e?.name ?? '';
  const safe = (text: unknown, max = ERROR_EXCERPT) => {
    const line = displaySafe(typeof text === 'string' ? text : JSON.stringify(text) ?? String(text), opts.secrets ?? []).split('\n')[0];
    return line.length > max ? `${line.slice(0, max)}…` : line;
  };
  const where = config.baseUrl ? ` at ${urlForDisplay(config.baseUrl)}` : '';
  // The embeddings endpoint (src/embeddings/) has settings of its own: its hints name them.
  const embed = config.source === 'embeddings';
  const who = embed ? `the embeddings endpoint (${config.model})` : `${config.name} (${config.model})`;
  if (err instanceof ProviderError) return err.message === safe(err.message, Infinity) ? err : new ProviderError(safe(err.message, Infinity), err.kind, err.hint);
  if (cls === 'APIConnectionTimeoutError' || /timed? ?out/i.test(e?.message ?? '')) {
    return new ProviderError(`${who} did not answer within ${opts.timeoutMs} ms${opts.maxRetries ? ` (${opts.maxRetries + 1} tries)` : ''}`, 'timeout',
      `raise ${embed ? 'embeddings' : 'llm'}.timeout_ms in .mem/config.yaml, or try again later`);
  }
  if (cls === 'APIConnectionError') {
    return new ProviderError(`cannot reach ${who}${where}: ${safe(String((err as { cause?: { message?: string } }).cause?.message ?? e.message ?? 'connection failed'))}`, 'connection',
      embed ? EMBED_CONNECTION_HINT : 'check the network, or the base URL (OPENAI_BASE_URL / --base-url)');
  }
  if (e?.status === 401 || e?.status === 403 || cls === 'AuthenticationError') {
    return new ProviderError(`${who} rejected the API key (${e.status ?? 401})`, 'auth', `check ${config.apiKeyEnv ?? 'the API key'}`);
  }
  if (e?.status === 429) {
    return new ProviderError(`${who} is rate limiting requests (429) after ${opts.maxRetries + 1} tries`, 'rate-limit', 'wait a minute and run it again');
  }
  if (typeof e?.status === 'number') {
    return new ProviderError(`${who} answered with an error (${e.status}): ${safe(e.message ?? '')}`, 'api');
  }
  return new ProviderError(`${who} failed: ${safe(e?.message ?? String(err))}`, 'api');
}
