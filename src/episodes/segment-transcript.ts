// `mem segment` as a function (the CLI, and later `mem extract` and the MCP server, call it):
// read a transcript, split it into episodes, write the session's episode file.

import path from 'node:path';
import { usableSessionId } from '../extract/session-id.js';
import { loadTranscript, redactTranscript, type LoadedTranscript } from '../extract/source.js';
import type { RedactionReport } from '../secrets/redact.js';
import type { TranscriptFormat } from '../extract/transcript.js';
import { createHash } from 'node:crypto';
import type { Vault } from '../vault/vault.js';
import { conversationOf, KEY_MOMENT, segment, type EpisodeSpan, type SegmentConfig } from './segment.js';
import type { ChannelOptions } from './channels.js';
import { episodeFile, episodeId, modelSummaries, sessionSlug, writeEpisodes } from './episode-file.js';
import type { WrittenSummary } from './summaries.js';
import type { ClientOptions, LlmProvider, ProviderConfig } from '../llm/provider.js';

export interface SegmentOptions {
  format?: TranscriptFormat;
  /** Session id for the episodes (default: the transcript's, else one derived from its file name). */
  sessionId?: string;
  dryRun?: boolean;
  cwd: string;
  now: string;
  stdin?: () => string;
  channels?: ChannelOptions;
}

export interface SegmentedEpisode {
  id: string;
  title: string;
  summary: string;
  start_at: string | null;
  end_at: string | null;
  surprise: number;
  key_moment: boolean;
  /** 1-based message numbers in the conversation (instructions, tool calls and thinking left out). */
  message_start: number;
  message_end: number;
  messages: number;
  boundary: EpisodeSpan['reason'];
}

export interface SegmentResult {
  transcript: string;
  format: string;
  session_id: string;
  /** The episode file, relative to the root. */
  path: string;
  /** Messages of the conversation segmented (harness instructions left out). */
  messages: number;
  episodes: SegmentedEpisode[];
  /** False on a dry run, or when the file already said exactly this. */
  written: boolean;
  /** The channels that ran: surprise over words or embeddings; the topic channel (a model) or not. */
  channels: { surprise: 'lexical' | 'embeddings'; topic: boolean };
  /** A channel that failed (the offline result stands): one line each. */
  warnings: string[];
  /** Credentials in the messages, written (and sent to a channel) as placeholders. */
  redacted?: RedactionReport;
  /** The whole session's title and summary, when a model wrote them in this run. */
  session_summary?: WrittenSummary;
  /** Episodes titled by a model in this run. */
  summarized?: number;
  usage?: { input_tokens: number; output_tokens: number };
}

/** The model that writes episodes' titles and summaries (a test may give its instance). */
export interface SummaryModel {
  provider: ProviderConfig;
  client: ClientOptions;
  llm?: LlmProvider;
}

/**
 * A session id for a transcript that names none: its file name plus a hash of its path (two
 * `session.jsonl` stay apart); from stdin, a hash of its first messages, so the same text piped
 * twice is the same session and two different ones are not.
 */
export function fallbackSession(loaded: LoadedTranscript): string {
  if (loaded.path === '-') {
    const head = loaded.transcript.messages.slice(0, 3).map((m) => `${m.role}\u0000${m.text}`).join('\u0001');
    return `stdin-${createHash('sha1').update(head).digest('hex').slice(0, 12)}`;
  }
  const base = sessionSlug(path.basename(loaded.label).replace(/\.(jsonl?|md|txt)$/i, ''));
  return `${base}-${createHash('sha1').update(loaded.path).digest('hex').slice(0, 8)}`;
}

/**
 * Segment a transcript already read and (unless a dry run) write the session's episode file.
 * `channels`: the embeddings and model for the surprise and topic channels (none: offline).
 */
export async function segmentLoaded(vault: Vault, raw: LoadedTranscript, cfg: SegmentConfig, opts: { sessionId?: string; dryRun?: boolean; now: string; channels?: ChannelOptions; summaries?: SummaryModel | null }): Promise<SegmentResult> {
  // Episodes keep the messages, and the channels send them out: both get them redacted.
  const { loaded, findings } = await redactTranscript(raw);
  const { redactionReport } = await import('../secrets/redact.js');
  const redacted = redactionReport(findings);
  const t = loaded.transcript;
  const conversation = conversationOf(t);
  const session = opts.sessionId ?? usableSessionId(t.sessionId) ?? fallbackSession(loaded);
  // A conversation too short to split (one episode by the rules) asks no model for topics.
  const channels = opts.channels && conversation.length < cfg.minMessages ? { ...opts.channels, llm: null } : opts.channels;
  const ch = channels && (channels.embeddings || channels.llm) && conversation.length > 0
    ? await (await import('./channels.js')).computeChannels(conversation, channels)
    : { channels: {}, used: { surprise: 'lexical' as const, topic: false }, warnings: [] };
  const spans = segment(conversation, cfg, ch.channels);
  const { rel } = episodeFile(vault.root, session);
  const warnings = [...ch.warnings];
  const titled = await modelTitles(vault.root, session, spans, opts.summaries ?? null, warnings);
  const source = loaded.path === '-' ? 'stdin' : path.basename(loaded.path);
  let written = false;
  if (!opts.dryRun && spans.length > 0) {
    const w = writeEpisodes(vault.root, { session, source, episodes: spans, now: opts.now, shareMessages: vault.config.episodes.shareMessages });
    written = w.changed;
    if (w.movedLocal) warnings.push(`${rel} held the session's messages; they now live in ${w.local} only (not committed; episodes.share_messages: true keeps them in the committed file)`);
  }
  return {
    transcript: loaded.label,
    format: t.format,
    session_id: session,
    path: rel,
    messages: conversation.length,
    written,
    channels: ch.used,
    warnings,
    ...(redacted && { redacted }),
    ...(titled.session && { session_summary: titled.session }),
    ...(titled.count > 0 && { summarized: titled.count }),
    ...(titled.usage && { usage: titled.usage }),
    episodes: spans.map((s, n) => ({
      id: episodeId(session, n),
      title: s.title,
      summary: s.summary,
      start_at: s.startAt,
      end_at: s.endAt,
      surprise: s.surprise,
      key_moment: s.surprise >= KEY_MOMENT,
      message_start: s.first + 1,
      message_end: s.last + 1,
      messages: s.messages.length,
      boundary: s.reason,
    })),
  };
}

/**
 * Titles and summaries by a model, set on the spans: an episode whose messages are those a model
 * already titled keeps that title (no request for it, the same bytes); the others are asked about
 * in one request when a model is given. On failure the extractive ones stay, with a warning.
 */
async function modelTitles(root: string, session: string, spans: EpisodeSpan[], model: SummaryModel | null, warnings: string[]): Promise<{ session?: WrittenSummary; count: number; usage?: { input_tokens: number; output_tokens: number } }> {
  const before = modelSummaries(root, session);
  const ask = new Set<number>();
  spans.forEach((s, n) => {
    const old = before.get(episodeId(session, n));
    if (old && old.start === s.first + 1 && old.end === s.last + 1 && old.title && old.summary) Object.assign(s, { title: old.title, summary: old.summary, summaryBy: old.by });
    else ask.add(n);
  });
  if (!model || model.provider.name === 'heuristic' || ask.size === 0) return { count: 0 };
  try {
    const { createProvider } = await import('../llm/provider.js');
    const { summarizeEpisodes } = await import('./summaries.js');
    const llm = model.llm ?? (await createProvider(model.provider, model.client));
    const r = await summarizeEpisodes(llm, spans, ask);
    const by = `${model.provider.name}:${model.provider.model}`;
    for (const [n, w] of r.episodes) Object.assign(spans[n], { ...w, summaryBy: by });
    return { session: r.session, count: r.episodes.size, usage: r.usage };
  } catch (err) {
    warnings.push(`episode titles not written by the model (${(err instanceof Error ? err.message : String(err)).split('\n')[0]}); the extractive ones stand`);
    return { count: 0 };
  }
}

export async function segmentTranscript(vault: Vault, file: string, cfg: SegmentConfig, opts: SegmentOptions): Promise<SegmentResult> {
  const loaded = loadTranscript(file, { format: opts.format, cwd: opts.cwd, stdin: opts.stdin });
  return segmentLoaded(vault, loaded, cfg, opts);
}
