// `mem extract`'s episode note: the session's note written from its transcript (extract-episode.ts
// counts and judges), with the model's outcome and decisions when the extraction request asked
// for them (EPISODE_PROMPT, withEpisodeSchema) and the answer checks out. Re-running on the same
// transcript writes the same bytes; lessons of earlier runs stay.

import fs from 'node:fs';
import path from 'node:path';
import type { LoadedTranscript } from '../extract/source.js';
import { usableSessionId } from '../extract/session-id.js';
import { fallbackSession } from '../episodes/segment-transcript.js';
import type { Vault } from '../vault/vault.js';
import { DECISION_TYPES, OUTCOMES, parseEpisodeNote, type EpisodeDecision, type Outcome } from './episode-note.js';
import { episodeFromTranscript } from './extract-episode.js';
import { EPISODE_NOTES_DIR, episodeNotePath, storeEpisode } from './episodes.js';
import { episodeSlug } from './episode-note.js';
import { parseNote } from './note.js';
import { readVaultText } from '../vault/read.js';

export const MAX_MODEL_DECISIONS = 8;

export const EPISODE_PROMPT = `Also fill "episode" for the session as a whole: its outcome (success = the task was done; partial = some of it; failure = not done, or it ended broken) and its key decisions (at most ${MAX_MODEL_DECISIONS}, in the order they were made; none when there were none): what was decided (title), its type (design, implementation, test, recovery, routing), the situation (context), the options considered, the option chosen, why (rationale), how it turned out (outcome), and evidence: the exact words from the transcript where it was decided.`;

/** The learnings schema with the `episode` answer added (strict-mode compatible: every property required). */
export function withEpisodeSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const str = (description: string) => ({ type: 'string', description });
  return {
    ...schema,
    required: [...((schema.required as string[] | undefined) ?? []), 'episode'],
    properties: {
      ...props,
      episode: {
        type: 'object',
        additionalProperties: false,
        required: ['outcome', 'decisions'],
        properties: {
          outcome: { type: 'string', enum: [...OUTCOMES] },
          decisions: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['title', 'type', 'context', 'options', 'chosen', 'rationale', 'outcome', 'evidence'],
              properties: {
                title: str('what was decided, under 90 characters'),
                type: { type: 'string', enum: [...DECISION_TYPES] },
                context: str('the situation that called for the decision, one sentence'),
                options: { type: 'array', items: { type: 'string' } },
                chosen: str('the option taken'),
                rationale: str('why, one sentence'),
                outcome: { type: 'string', enum: [...OUTCOMES] },
                evidence: str('the exact words from the transcript where it was decided'),
              },
            },
          },
        },
      },
    },
  };
}

const oneLine = (v: unknown, max: number): string => (typeof v === 'string' ? v.replace(/\s+/g, ' ').trim().slice(0, max) : '');

/** The model's episode answer checked: its outcome and the decisions that are complete (timed from their evidence). */
export function modelEpisode(answer: unknown, loaded: LoadedTranscript, start: string): { outcome?: Outcome; decisions: EpisodeDecision[]; dropped: number } {
  if (typeof answer !== 'object' || answer === null) return { decisions: [], dropped: 0 };
  const a = answer as { outcome?: unknown; decisions?: unknown };
  const outcome = (OUTCOMES as readonly unknown[]).includes(a.outcome) ? (a.outcome as Outcome) : undefined;
  const decisions: EpisodeDecision[] = [];
  let dropped = 0;
  const messages = loaded.transcript.messages;
  for (const raw of Array.isArray(a.decisions) ? a.decisions : []) {
    const d = (raw ?? {}) as Record<string, unknown>;
    const title = oneLine(d.title, 120);
    const chosen = oneLine(d.chosen, 500);
    const context = oneLine(d.context, 500);
    if (!title || !chosen || !context || !(DECISION_TYPES as readonly unknown[]).includes(d.type) || decisions.length >= MAX_MODEL_DECISIONS) {
      dropped++;
      continue;
    }
    // When: the time of the message that holds the evidence, else the session's start.
    const ev = oneLine(d.evidence, 300).toLowerCase().slice(0, 60);
    const at = ev.length >= 8 ? messages.find((m) => m.timestamp && m.text.replace(/\s+/g, ' ').toLowerCase().includes(ev))?.timestamp : undefined;
    decisions.push({
      id: `d${String(decisions.length + 1).padStart(3, '0')}`, title, timestamp: at ?? start, type: d.type as EpisodeDecision['type'], context,
      options: Array.isArray(d.options) ? d.options.map((o) => oneLine(o, 200)).filter(Boolean).slice(0, 10) : [], chosen,
      ...(oneLine(d.rationale, 500) !== '' && { rationale: oneLine(d.rationale, 500) }),
      outcome: (OUTCOMES as readonly unknown[]).includes(d.outcome) ? (d.outcome as Outcome) : 'success', effects: [],
    });
  }
  return { outcome, decisions, dropped };
}

export interface SessionEpisodeResult {
  summary: { path: string; outcome: string; metrics: Record<string, number>; decisions: number; written: boolean };
  /** Files written (the note, and the segment file its links went into). */
  touched: string[];
  warning?: string;
}

/** The Context line that holds a model's title and summary of the session. */
const SUMMARY_LINE = /^Summary: \S/;

/**
 * Write the session's episode note from its transcript. `summary`: the session's title and summary
 * by a model (the episodes' request); without one, the summary an earlier run wrote stays.
 */
export async function writeSessionEpisode(vault: Vault, loaded: LoadedTranscript, opts: { sessionId?: string; task: string; lessons: string[]; now: string; modelAnswer?: unknown; summary?: { title: string; summary: string }; dryRun?: boolean }): Promise<SessionEpisodeResult> {
  const t = loaded.transcript;
  const session = opts.sessionId ?? usableSessionId(t.sessionId) ?? fallbackSession(loaded);
  const { abs, rel } = episodeNotePath(vault.root, session);
  // What an earlier run wrote: its lessons stay, and its decisions when this run has no model.
  let previous: ReturnType<typeof parseEpisodeNote>['data'] | null = null;
  if (fs.existsSync(abs)) {
    const r = readVaultText(abs);
    if (!('error' in r)) previous = parseEpisodeNote(parseNote(r.text), rel).data;
  }
  const start = t.messages.find((m) => m.timestamp)?.timestamp ?? opts.now;
  const model = modelEpisode(opts.modelAnswer, loaded, start);
  const seen = new Set<string>();
  const lessons = [...(previous?.lessons ?? []), ...opts.lessons].filter((l) => {
    const k = l.toLowerCase().replace(/\s+/g, ' ').trim();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const data = episodeFromTranscript(t, {
    sessionId: session, task: opts.task, lessons,
    decisions: opts.modelAnswer !== undefined ? model.decisions : previous?.decisions ?? [],
    outcome: model.outcome, source: loaded.path === '-' ? 'stdin' : path.basename(loaded.path), now: opts.now,
    summary: opts.summary ? `Summary: ${opts.summary.title} — ${opts.summary.summary}` : previous?.context.split('\n').find((l) => SUMMARY_LINE.test(l)),
  });
  const stored = await storeEpisode(vault.root, data, { dryRun: opts.dryRun });
  const segmentRel = `${EPISODE_NOTES_DIR}/${episodeSlug(session)}.md`;
  return {
    summary: { path: rel, outcome: data.outcome, metrics: { ...data.metrics, ...(data.duration_minutes !== undefined && { duration_minutes: data.duration_minutes }) }, decisions: data.decisions.length, written: stored.changed && !opts.dryRun },
    touched: [rel, ...(fs.existsSync(path.join(vault.root, ...segmentRel.split('/'))) ? [segmentRel] : [])],
    ...(model.dropped > 0 && { warning: `${model.dropped} decision(s) from the model were incomplete and left out` }),
  };
}
