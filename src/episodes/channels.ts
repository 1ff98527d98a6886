// The optional channels of event segmentation: message embeddings for the surprise channel (the
// configured embeddings endpoint, in batches) and topic boundaries from the language model. Each
// fails soft: the offline result plus one warning. The SDKs load only when a channel is in use.

import type { EmbedSettings } from '../embeddings/client.js';
import type { ClientOptions, LlmProvider, ProviderConfig } from '../llm/provider.js';
import type { VaultConfig } from '../vault/config.js';
import type { ConversationMessage, SegmentChannels } from './segment.js';

/** Characters of a message sent to either channel: enough to say what it is about. */
const EMBED_CHARS = 2000;
const TOPIC_CHARS = 300;
/** Messages per topic request: a long session is asked about in windows. */
const TOPIC_WINDOW = 120;

export interface ChannelOptions {
  /** The embeddings settings in effect (embeddingsFrom), or null: the lexical surprise channel. */
  embeddings: EmbedSettings | null;
  /** The language model for the topic channel, or null (offline). */
  llm: { provider: ProviderConfig; client: ClientOptions } | null;
  env: NodeJS.ProcessEnv;
}

export interface ChannelResult {
  channels: SegmentChannels;
  /** Which surprise channel ran and whether the topic channel did. */
  used: { surprise: 'lexical' | 'embeddings'; topic: boolean };
  warnings: string[];
}

function why(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}

export async function computeChannels(messages: ConversationMessage[], opts: ChannelOptions): Promise<ChannelResult> {
  const out: ChannelResult = { channels: {}, used: { surprise: 'lexical', topic: false }, warnings: [] };
  if (messages.length === 0) return out;
  if (opts.embeddings) {
    try {
      const { createEmbedder } = await import('../embeddings/client.js');
      const embedder = createEmbedder(opts.embeddings, opts.env);
      out.channels.vectors = await embedder.embed(messages.map((m) => m.text.slice(0, EMBED_CHARS)));
      out.used.surprise = 'embeddings';
    } catch (err) {
      out.warnings.push(`embeddings endpoint failed (${why(err)}); surprise measured on words instead`);
    }
  }
  if (opts.llm && opts.llm.provider.name !== 'heuristic') {
    try {
      const { createProvider } = await import('../llm/provider.js');
      const llm = await createProvider(opts.llm.provider, { ...opts.llm.client, env: opts.env });
      out.channels.topics = await askTopics(llm, messages);
      out.used.topic = true;
    } catch (err) {
      out.warnings.push(`topic channel failed (${why(err)}); episodes cut by the rules and surprise only`);
    }
  }
  return out;
}

/** Messages that may open an episode: the human's, after the first. */
export function topicCandidates(messages: ConversationMessage[]): number[] {
  return messages.filter((m) => m.index > 0 && m.role === 'user').map((m) => m.index);
}

const SYSTEM = 'You segment a conversation between a developer and a coding agent into episodes: stretches about one task or subject. '
  + 'Given numbered messages, answer the numbers of the candidate messages that begin a new task or subject. '
  + 'A follow-up, a clarification or a next step of the same task is not a new subject. Answer only with the JSON object asked for.';

const SCHEMA = {
  type: 'object',
  properties: { boundaries: { type: 'array', items: { type: 'integer' } } },
  required: ['boundaries'],
  additionalProperties: false,
};

/**
 * The model's answer, checked strictly: `{boundaries: [n, …]}` with whole numbers that are
 * candidates, ascending, no repeats. Anything else throws (the caller falls back).
 */
export function checkTopicAnswer(json: unknown, candidates: readonly number[]): number[] {
  const b = (json as { boundaries?: unknown } | null)?.boundaries;
  if (typeof json !== 'object' || json === null || !Array.isArray(b)) throw new Error('the answer has no boundaries list');
  const allowed = new Set(candidates);
  b.forEach((x, i) => {
    if (typeof x !== 'number' || !Number.isInteger(x)) throw new Error(`boundary ${JSON.stringify(x)} is not a message number`);
    if (!allowed.has(x)) throw new Error(`boundary ${x} is not one of the candidate messages`);
    if (i > 0 && x <= (b[i - 1] as number)) throw new Error('boundaries are not in increasing order without repeats');
  });
  return b as number[];
}

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > TOPIC_CHARS ? `${t.slice(0, TOPIC_CHARS)}…` : t;
}

/** One request per window of messages; the boundaries of every window, as one set. */
export async function askTopics(llm: LlmProvider, messages: ConversationMessage[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (let from = 0; from < messages.length; from += TOPIC_WINDOW) {
    const win = messages.slice(from, from + TOPIC_WINDOW);
    const candidates = topicCandidates(win);
    if (candidates.length === 0) continue;
    const prompt = [
      'Messages (number, role, text; long messages cut):',
      ...win.map((m) => `[${m.index}] ${m.role}: ${oneLine(m.text)}`),
      '',
      `Candidates (messages that may begin a new subject): ${candidates.join(', ')}`,
      'Answer {"boundaries": [numbers]}: the candidates that begin a new task or subject, in increasing order; [] if none.',
    ].join('\n');
    const res = await llm.complete({ system: SYSTEM, prompt, schema: SCHEMA, schemaName: 'record_boundaries', maxTokens: 1024 });
    for (const n of checkTopicAnswer(res.json, candidates)) found.add(n);
  }
  return found;
}

/**
 * The channels a vault's config and a command's flags ask for: embeddings when configured and
 * `episodes.embeddings` is on; the model mem extract would use when `episodes.topic` is on.
 */
export async function channelOptionsFor(config: VaultConfig, flags: { provider?: string; model?: string; baseUrl?: string }, env: NodeJS.ProcessEnv): Promise<ChannelOptions> {
  const { embeddingsFrom } = await import('../vault/config.js');
  const { providerFromFlags } = await import('../llm/provider.js');
  const provider = config.episodes.topic ? providerFromFlags(flags, config.llm, env) : null;
  return {
    embeddings: config.episodes.embeddings ? embeddingsFrom(config.embeddings, env) : null,
    llm: provider && provider.name !== 'heuristic' ? { provider, client: { timeoutMs: config.llm.timeoutMs, maxRetries: config.llm.maxRetries, env } } : null,
    env,
  };
}
