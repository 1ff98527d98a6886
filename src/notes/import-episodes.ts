// `mem import ai-agents DIR`, the episodes: the `episode-*.json` files of the ai-agents project's
// memory (rjmurillo/ai-agents; id, session, timestamp, outcome, task, decisions, events, metrics,
// lessons) → episode notes, each marked `migrated_from [[ai-agents episodic memory]]`.
// Tolerated: decisions given as plain strings, 7-digit fractional seconds (.NET), nulls anywhere,
// a UTF-8 BOM. Importing again writes the same bytes.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { DECISION_TYPES, EVENT_TYPES, OUTCOMES, isTimestamp, sanitizeEpisode, type EpisodeData, type EpisodeDecision, type EpisodeEvent, type EpisodeMetrics, type Outcome } from './episode-note.js';
import { storeEpisode } from './episodes.js';
import { readRegularText } from '../vault/read.js';

/** One episode's JSON larger than this is not read. */
const EPISODE_FILE_LIMIT = 16 << 20;
import type { RedactionReport } from '../secrets/redact.js';

export interface ImportedEpisode {
  /** The JSON file, relative to DIR. */
  file: string;
  session_id?: string;
  path?: string;
  action: 'created' | 'updated' | 'unchanged' | 'error';
  error?: string;
  /** What was tolerated and how (a plain-string decision, a missing time, …). */
  notes: string[];
  /** Credentials in the episode, written as placeholders. */
  redacted?: RedactionReport;
}

export interface ImportOptions {
  dryRun?: boolean;
}

const MAX_DEPTH = 4;

/** `episode-*.json` files under `dir` (symlinks not followed), sorted. */
export function episodeJsonFiles(dir: string): string[] {
  return filesUnder(dir, /^episode-.*\.json$/i);
}

/** Files under `dir` whose name matches (folders up to 4 down; hidden ones, node_modules and symlinks not followed), sorted. */
export function filesUnder(dir: string, name: RegExp): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory() && depth < MAX_DEPTH && !d.name.startsWith('.') && d.name !== 'node_modules') walk(r, depth + 1);
      else if (d.isFile() && name.test(d.name)) out.push(r);
    }
  };
  walk('', 0);
  return out.sort();
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(text).filter((s) => s.trim() !== '') : []);

function outcomeOf(v: unknown, fallback: Outcome | null): Outcome | null {
  const o = text(v).trim().toLowerCase();
  if ((OUTCOMES as readonly string[]).includes(o)) return o as Outcome;
  const alias: Record<string, Outcome> = { succeeded: 'success', successful: 'success', failed: 'failure', fail: 'failure', partial_success: 'partial' };
  return alias[o] ?? fallback;
}

/** An ai-agents episode JSON → the note's data; throws a MemError for what cannot be read. */
export function fromAiAgents(raw: unknown, notes: string[]): EpisodeData {
  if (!isObj(raw)) throw new MemError('not a JSON object');
  const session = text(raw.session).trim() || text(raw.id).trim().replace(/^episode-/, '');
  if (!session) throw new MemError('no "session" (or "id") to name the note by');
  const start = text(raw.timestamp).trim();
  if (start && !isTimestamp(start)) throw new MemError(`"timestamp" is not an ISO 8601 time (${JSON.stringify(start)})`);
  if (!start) notes.push('no timestamp: the note has no start time');
  const outcome = outcomeOf(raw.outcome, null);
  if (!outcome) throw new MemError(`"outcome" must be success, partial or failure (got ${JSON.stringify(raw.outcome ?? null)})`);
  const task = text(raw.task).trim() || '(no task recorded)';
  if (!text(raw.task).trim()) notes.push('no task');
  const when = (v: unknown, what: string): string => {
    const t = text(v).trim();
    if (t && isTimestamp(t)) return t;
    notes.push(`${what}: ${t ? `time ${JSON.stringify(t)} is not ISO 8601` : 'no time'}; the episode's start is used`);
    return start || '1970-01-01T00:00:00Z';
  };
  const decisions: EpisodeDecision[] = [];
  (Array.isArray(raw.decisions) ? raw.decisions : []).forEach((d, i) => {
    const id = `d${String(i + 1).padStart(3, '0')}`;
    if (typeof d === 'string') {
      if (d.trim() === '') return;
      notes.push(`decisions[${i}] is plain text: kept as ${id}'s title and choice`);
      decisions.push({ id, title: d, timestamp: start || '1970-01-01T00:00:00Z', type: 'implementation', context: '(recorded as plain text by ai-agents)', options: [], chosen: d, outcome, effects: [] });
      return;
    }
    if (!isObj(d)) return;
    const type = text(d.type).trim().toLowerCase();
    const chosen = text(d.chosen).trim() || text(d.decision).trim() || text(d.title).trim();
    if (!chosen) {
      notes.push(`decisions[${i}] has no "chosen": left out`);
      return;
    }
    // A missing or repeated id gets the decision's place (d003) instead.
    const given = text(d.id).trim().replace(/[^A-Za-z0-9_.-]+/g, '-');
    decisions.push({
      id: given && !decisions.some((x) => x.id === given) ? given : id, title: text(d.title).trim() || chosen, timestamp: when(d.timestamp, `decisions[${i}]`),
      type: (DECISION_TYPES as readonly string[]).includes(type) ? (type as EpisodeDecision['type']) : 'implementation',
      context: text(d.context).trim() || '(not recorded)', options: strings(d.options), chosen,
      ...(text(d.rationale).trim() !== '' && { rationale: text(d.rationale) }),
      outcome: outcomeOf(d.outcome, outcome) ?? outcome, effects: strings(d.effects),
    });
  });
  const events: EpisodeEvent[] = [];
  (Array.isArray(raw.events) ? raw.events : []).forEach((e, i) => {
    if (!isObj(e) || text(e.content).trim() === '') return;
    const type = text(e.type).trim().toLowerCase();
    events.push({
      id: text(e.id).trim() || `e${i + 1}`, timestamp: when(e.timestamp, `events[${i}]`),
      type: (EVENT_TYPES as readonly string[]).includes(type) ? (type as EpisodeEvent['type']) : 'milestone',
      content: (EVENT_TYPES as readonly string[]).includes(type) || !type ? text(e.content) : `${text(e.content)} (${type})`,
      caused_by: strings(e.caused_by), leads_to: strings(e.leads_to),
    });
  });
  const metrics: EpisodeMetrics = {};
  let duration: number | undefined;
  if (isObj(raw.metrics)) {
    for (const [k, v] of Object.entries(raw.metrics)) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) continue;
      if (k === 'duration_minutes') duration = v;
      else if (['tool_calls', 'errors', 'recoveries', 'commits', 'files_changed'].includes(k)) metrics[k as keyof EpisodeMetrics] = Math.round(v);
    }
  }
  // Links to ids no decision or event has (ai-agents did not check) would be broken links.
  const ids = new Set([...decisions.map((d) => d.id), ...events.map((e) => e.id)]);
  for (const d of decisions) {
    for (const x of d.effects) if (!ids.has(x)) notes.push(`${d.id}: effect "${x}" names no decision or event; left out`);
    d.effects = d.effects.filter((x) => ids.has(x));
  }
  for (const e of events) {
    e.caused_by = e.caused_by.filter((x) => ids.has(x));
    e.leads_to = e.leads_to.filter((x) => ids.has(x));
  }
  const data = sanitizeEpisode({
    session_id: session, task, outcome, ...(start && { created_at: start }), ...(duration !== undefined && { duration_minutes: duration }), metrics,
    tags: ['memory', `session-${session.split('-').pop()}`],
    context: 'Migrated from ai-agents episodic memory.',
    // Each decision and event also as an observation, so the note's Observations list them too.
    observations: [
      ...decisions.map((d) => ({ category: `decision:${d.id}`, text: d.chosen, tags: [d.type] })),
      ...events.map((e) => ({ category: `event:${e.id}`, text: e.content, tags: [e.type] })),
    ],
    decisions, events, lessons: strings(raw.lessons),
    relations: [{ type: 'migrated_from', target: 'ai-agents episodic memory' }],
    extra: {},
  });
  // Observations name events by their place in the timeline, as the note does.
  data.observations = data.observations.map((o, i) => (i >= decisions.length ? { ...o, category: `event:${data.events[i - decisions.length].id}` } : o));
  return data;
}

/** Import every `episode-*.json` under `dir` into the vault at `root`. */
export async function importAiAgentsEpisodes(root: string, dir: string, opts: ImportOptions = {}): Promise<ImportedEpisode[]> {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new MemError(`${dir}: no such folder`);
  }
  if (!st.isDirectory()) throw new MemError(`${dir} is not a folder`, { hint: 'give the folder that holds the episode-*.json files' });
  const out: ImportedEpisode[] = [];
  for (const file of episodeJsonFiles(dir)) {
    const notes: string[] = [];
    try {
      let raw: string;
      try {
        raw = readRegularText(path.join(dir, ...file.split('/')), { maxBytes: EPISODE_FILE_LIMIT, within: [] });
      } catch (err) {
        throw new MemError(`cannot read it (${(err as Error).message})`);
      }
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (err) {
        throw new MemError(`not valid JSON (${(err as Error).message})`);
      }
      const data = fromAiAgents(json, notes);
      const r = await storeEpisode(root, data, { dryRun: opts.dryRun });
      out.push({ file, session_id: r.session_id, path: r.path, action: !r.changed ? 'unchanged' : r.created ? 'created' : 'updated', notes, ...(r.redacted && { redacted: r.redacted }) });
    } catch (err) {
      if (!(err instanceof MemError)) throw err;
      out.push({ file, action: 'error', error: err.message, notes });
    }
  }
  return out;
}
