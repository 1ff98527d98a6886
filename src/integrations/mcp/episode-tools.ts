// The episode-note tools of `mem mcp` (store_episode, query_episodes, get_decision_sequence),
// calling the same functions as `mem episode add|list|decisions`.

import { z } from 'zod';
import type { ToolSpec } from './tool-spec.js';
import { redactedOutput, toolResult } from './results.js';

const outcome = z.enum(['success', 'partial', 'failure']);
const item = z.looseObject({});

const storeEpisodeTool: ToolSpec = {
  name: 'store_episode',
  title: 'Store a session episode',
  description: 'Record a work session as its episode note (.mem/episodes/EPISODE-<session_id>.md): task, outcome, key decisions, events, lessons, metrics. '
    + 'Call it once at the end of a session; a second call for the same session replaces the note.',
  inputSchema: {
    session_id: z.string().describe('e.g. 2026-01-21-session-42'),
    task: z.string().describe('the session\'s high-level task'),
    outcome,
    decisions: z.array(item).optional().describe('{id d001…, timestamp, type design|implementation|test|recovery|routing, context, options?, chosen, rationale?, outcome, effects?: ids it caused}'),
    events: z.array(item).optional().describe('{id e001…, timestamp, type tool_call|error|milestone|handoff|commit|test, content, caused_by?, leads_to?}'),
    lessons: z.array(z.string()).optional().describe('one sentence each'),
    metrics: item.optional().describe('{duration_minutes, tool_calls, errors, recoveries, commits, files_changed}'),
    project: z.string().optional(),
    context: z.string().optional().describe('the note\'s Context section (default: the task)'),
  },
  outputSchema: { path: z.string(), title: z.string(), permalink: z.string(), session_id: z.string(), created: z.boolean(), changed: z.boolean(), dry_run: z.boolean(), redacted: redactedOutput },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(a, env) {
    const vault = await env.openVault();
    const { addEpisode } = await import('../../notes/episodes.js');
    // Undefined optional fields are not sent to the strict schema.
    const input = Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined));
    const res = await addEpisode(vault.root, input, { now: new Date(env.now()).toISOString() });
    return toolResult({ ...res });
  },
};

const queryEpisodesTool: ToolSpec = {
  name: 'query_episodes',
  title: 'Find past episodes',
  description: 'Earlier sessions\' episode notes, newest first: task, outcome, metrics, lessons. '
    + 'See how similar tasks went (outcome failure: what broke), then get_decision_sequence for one episode.',
  inputSchema: {
    outcome: outcome.optional(),
    task: z.string().max(1000).optional().describe('task contains this (case ignored)'),
    since: z.string().max(64).optional().describe('started on or after this ISO 8601 date or time'),
    limit: z.number().int().min(1).max(100).optional().describe('default 20'),
    project: z.string().max(200).optional(),
  },
  outputSchema: { episodes: z.array(item) },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as { outcome?: 'success' | 'partial' | 'failure'; task?: string; since?: string; limit?: number; project?: string };
    const vault = await env.openVault();
    const { queryEpisodes } = await import('../../notes/episodes.js');
    return toolResult({ episodes: queryEpisodes(vault.root, args) as unknown as Record<string, unknown>[] });
  },
};

const decisionSequenceTool: ToolSpec = {
  name: 'get_decision_sequence',
  title: 'Decisions of an episode',
  description: 'The decisions of one episode note in time order: what was decided, the options, the choice, why, how it turned out and what it caused.',
  inputSchema: {
    episode_id: z.string().trim().min(1, 'episode_id is empty: give a session id, EPISODE-… name or permalink').max(300).describe('session id, EPISODE-… name or permalink'),
    project: z.string().max(200).optional().describe('ignored: the vault is the project'),
  },
  outputSchema: { episode: z.string(), permalink: z.string(), path: z.string(), decisions: z.array(item) },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const vault = await env.openVault();
    const { decisionSequence } = await import('../../notes/episodes.js');
    const res = decisionSequence(vault.root, (a as { episode_id: string }).episode_id);
    return toolResult({ episode: res.episode.title, permalink: res.episode.permalink, path: res.episode.path, decisions: res.decisions as unknown as Record<string, unknown>[] });
  },
};

export const EPISODE_TOOLS: ToolSpec[] = [storeEpisodeTool, queryEpisodesTool, decisionSequenceTool];
