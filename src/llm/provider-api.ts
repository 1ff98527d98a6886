// What a model provider is: the request and answer every provider client deals in, the options
// it is built with, and ProviderError, the one error its failures become (with SDK errors turned
// into one clear, redacted line). provider.ts chooses the provider and builds its client.

import { MemError } from '../errors.js';
import { displaySafe } from '../secrets/display.js';
import { urlForDisplay } from '../secrets/rules.js';

export const PROVIDERS = ['anthropic', 'openai', 'claude-cli', 'codex-cli', 'gemini-cli', 'heuristic'] as const;
export type ProviderName = (typeof PROVIDERS)[number];
/** The providers that run an installed coding agent's command line headless as the model (agent-cli.ts). */
export const AGENT_CLI_PROVIDERS = ['claude-cli', 'codex-cli', 'gemini-cli'] as const;
export type AgentCliProvider = (typeof AGENT_CLI_PROVIDERS)[number];

export function isAgentCli(name: string): name is AgentCliProvider {
  return (AGENT_CLI_PROVIDERS as readonly string[]).includes(name);
}

export interface ProviderConfig {
  name: ProviderName;
  model: string;
  /** OpenAI-compatible servers (Ollama, vLLM, LM Studio, llama.cpp) are reached through a base URL. */
  baseUrl?: string;
  /** The environment variable holding the API key, when the provider needs one. */
  apiKeyEnv?: string;
  /** Why this provider was chosen, for `mem doctor` and for messages. */
  source: string;
  /** An agent CLI provider: the executable found on PATH (absent when it is not there). */
  command?: string;
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
  constructor(message: string, readonly kind: 'auth' | 'timeout' | 'connection' | 'rate-limit' | 'api' | 'invalid-answer' | 'not-found', hint?: string, cause?: unknown) {
    super(message, { hint, cause });
  }
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
