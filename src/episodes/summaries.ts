// Episode titles and summaries written by a language model: one request for the episodes of a
// session that have none from a model yet (an episode whose messages are unchanged keeps the one
// it has), and a title and summary of the whole session for its episode note. Offline, and on any
// failure, the extractive title and summary of segment.ts stand.

import type { LlmProvider } from '../llm/provider.js';
import type { EpisodeSpan } from './segment.js';

export interface WrittenSummary {
  title: string;
  summary: string;
}

export interface EpisodeSummaries {
  /** By episode index (0-based), for the episodes asked about. */
  episodes: Map<number, WrittenSummary>;
  session?: WrittenSummary;
  usage: { input_tokens: number; output_tokens: number };
}

/** Characters of one message in the prompt, and of every episode asked about together. */
const MESSAGE_CHARS = 300;
const PROMPT_CHARS = 24_000;
const TITLE_MAX = 120;
const SUMMARY_MAX = 600;

const SYSTEM = 'You write the titles and summaries of episodes of a conversation between a developer and a coding agent, for the agent\'s long-term memory. '
  + 'A title says in 5 to 12 words what the episode was about (the task or subject, not "the user asks"). '
  + 'A summary says in one to three sentences what was tried, decided and how it ended, with the names that matter (files, commands, errors). '
  + 'Answer only with the JSON object asked for.';

const item = (extra: Record<string, unknown> = {}) => ({
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(extra), 'title', 'summary'],
  properties: { ...extra, title: { type: 'string' }, summary: { type: 'string' } },
});

export const SUMMARIES_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['session', 'episodes'],
  properties: {
    session: item(),
    episodes: { type: 'array', items: item({ n: { type: 'integer', description: 'the episode\'s number, as given' } }) },
  },
};

const oneLine = (s: string, max: number): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
};

/** An episode's messages within `chars`: its head and its tail when they do not all fit. */
function excerpt(span: EpisodeSpan, chars: number): string[] {
  const lines = span.messages.map((m) => `${m.role}: ${oneLine(m.text, MESSAGE_CHARS)}`);
  if (lines.reduce((s, l) => s + l.length + 1, 0) <= chars) return lines;
  const head: string[] = [];
  const tail: string[] = [];
  let used = 40;
  for (let i = 0, j = lines.length - 1; i <= j; ) {
    const take = head.length <= tail.length ? lines[i] : lines[j];
    if (used + take.length + 1 > chars) break;
    used += take.length + 1;
    if (head.length <= tail.length) head.push(lines[i++]);
    else tail.unshift(lines[j--]);
  }
  return [...head, `[… ${lines.length - head.length - tail.length} messages left out …]`, ...tail];
}

export function summariesPrompt(spans: readonly EpisodeSpan[], ask: ReadonlySet<number>): string {
  const share = Math.max(600, Math.floor(PROMPT_CHARS / Math.max(1, ask.size)));
  const parts = ['The session\'s episodes, in order:'];
  spans.forEach((s, n) => {
    if (ask.has(n)) parts.push('', `Episode ${n + 1} (messages ${s.first + 1}–${s.last + 1}): write its title and summary`, ...excerpt(s, share));
    else parts.push('', `Episode ${n + 1} (messages ${s.first + 1}–${s.last + 1}), already titled: ${oneLine(s.title, TITLE_MAX)} — ${oneLine(s.summary, SUMMARY_MAX)}`);
  });
  parts.push('', `Answer {"session": {"title", "summary"} for the whole session, "episodes": [{"n", "title", "summary"}] for episodes ${[...ask].map((n) => n + 1).join(', ')}}.`);
  return parts.join('\n');
}

function checked(raw: unknown): WrittenSummary | null {
  const r = (raw ?? {}) as Record<string, unknown>;
  const title = typeof r.title === 'string' ? oneLine(r.title, TITLE_MAX) : '';
  const summary = typeof r.summary === 'string' ? oneLine(r.summary, SUMMARY_MAX) : '';
  return title && summary ? { title, summary } : null;
}

/** The answer checked: episodes asked about with a title and a summary; none of them is an unusable answer (throws). */
export function checkSummaries(json: unknown, ask: ReadonlySet<number>): Omit<EpisodeSummaries, 'usage'> {
  const a = (json ?? {}) as { session?: unknown; episodes?: unknown };
  const episodes = new Map<number, WrittenSummary>();
  for (const raw of Array.isArray(a.episodes) ? a.episodes : []) {
    const n = (raw as { n?: unknown } | null)?.n;
    if (typeof n !== 'number' || !Number.isInteger(n) || !ask.has(n - 1) || episodes.has(n - 1)) continue;
    const s = checked(raw);
    if (s) episodes.set(n - 1, s);
  }
  if (episodes.size === 0) throw new Error('the answer titles none of the episodes asked about');
  const session = checked(a.session);
  return { episodes, ...(session && { session }) };
}

/** One request: titles and summaries for the episodes `ask` names (indexes), and for the session. */
export async function summarizeEpisodes(llm: LlmProvider, spans: readonly EpisodeSpan[], ask: ReadonlySet<number>): Promise<EpisodeSummaries> {
  const res = await llm.complete({
    system: SYSTEM, prompt: summariesPrompt(spans, ask), schema: SUMMARIES_SCHEMA, schemaName: 'record_summaries', maxTokens: 512 + 200 * ask.size,
  });
  return { ...checkSummaries(res.json, ask), usage: { input_tokens: res.usage.inputTokens, output_tokens: res.usage.outputTokens } };
}
