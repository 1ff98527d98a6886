// A model's judgement of how a session used the memories it retrieved, as FSRS ratings: one
// request with the entries (id, title, an excerpt of the body) and the condensed session, a JSON
// answer {ratings: [{id, rating, reason}]}. The caller falls back on the offline rule (used →
// good, ignored → again) for any id the answer leaves out, and for all of them when it fails.

import { RATINGS, type ReviewRating } from '../fsrs/state.js';
import { ProviderError, type LlmProvider } from '../llm/provider.js';
import { condense } from './condense.js';
import type { TranscriptMessage } from './transcript.js';

/** Characters of an entry's body shown to the model: enough to recognise it in the session. */
const BODY_EXCERPT = 600;

export interface RetrievedMemory {
  id: string;
  title: string;
  body: string;
}

export interface UsageRating {
  rating: ReviewRating;
  reason: string;
}

export interface UsageRatings {
  ratings: Map<string, UsageRating>;
  usage: { input_tokens: number; output_tokens: number };
}

const SYSTEM = 'You review how a coding agent used memories it retrieved during a session, to schedule when each memory should come back (spaced repetition). '
  + 'For each memory, rate its use in the session: "again" = not used, irrelevant, or wrong/misleading (the agent or the human had to go another way); '
  + '"hard" = used only in part, or it needed correcting or much effort to apply; "good" = used and it helped; '
  + '"easy" = it settled the matter at once, applied directly as written. Judge from the session only. Answer only with the JSON object asked for.';

export const RATINGS_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['ratings'],
  properties: {
    ratings: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'rating', 'reason'],
        properties: {
          id: { type: 'string', description: 'the memory\'s id, as given' },
          rating: { type: 'string', enum: [...RATINGS] },
          reason: { type: 'string', description: 'why, one short sentence' },
        },
      },
    },
  },
};

function excerpt(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n)}…` : t;
}

export function ratingsPrompt(memories: readonly RetrievedMemory[], session: string): string {
  return [
    'Memories the agent retrieved in this session:',
    ...memories.map((m) => `- id: ${m.id}\n  title: ${excerpt(m.title, 200)}\n  body: ${excerpt(m.body, BODY_EXCERPT)}`),
    '',
    'The session (condensed; [… n messages left out …] marks gaps):',
    session,
    '',
    'Answer {"ratings": [{"id", "rating", "reason"}]}, one for each memory above.',
  ].join('\n');
}

/**
 * The answer checked: ratings of ids that were asked about, with a known rating; the first of an
 * id wins. An answer with none of them is unusable (a ProviderError, as a provider's bad answer).
 */
export function checkRatings(json: unknown, asked: ReadonlySet<string>, who: string): Map<string, UsageRating> {
  const list = (json as { ratings?: unknown } | null)?.ratings;
  const out = new Map<string, UsageRating>();
  for (const raw of Array.isArray(list) ? list : []) {
    const r = (raw ?? {}) as Record<string, unknown>;
    if (typeof r.id !== 'string' || !asked.has(r.id) || out.has(r.id)) continue;
    if (!(RATINGS as readonly unknown[]).includes(r.rating)) continue;
    out.set(r.id, { rating: r.rating as ReviewRating, reason: typeof r.reason === 'string' ? excerpt(r.reason, 300) : '' });
  }
  if (out.size === 0) throw new ProviderError(`${who} rated none of the retrieved memories`, 'invalid-answer');
  return out;
}

/** Ask the model how the session used each memory (one request). Throws on any failure. */
export async function rateUsage(llm: LlmProvider, memories: readonly RetrievedMemory[], messages: TranscriptMessage[], budget: number): Promise<UsageRatings> {
  const res = await llm.complete({
    system: SYSTEM,
    prompt: ratingsPrompt(memories, condense(messages, budget).text),
    schema: RATINGS_SCHEMA,
    schemaName: 'record_ratings',
    maxTokens: 256 + 80 * memories.length,
  });
  const ratings = checkRatings(res.json, new Set(memories.map((m) => m.id)), `${llm.config.name} (${llm.config.model})`);
  return { ratings, usage: { input_tokens: res.usage.inputTokens, output_tokens: res.usage.outputTokens } };
}
