// Episode notes in the vault (store_episode, query_episodes, get_decision_sequence): the
// store_episode input checked field by field, the note written or updated under its lock, and the
// notes listed and read back. The CLI (`mem episode …`) and the MCP tools call these.
//
// Writing a session's note again replaces what mem generates — its frontmatter keys and the six
// sections of EPISODE_SECTIONS — and keeps every other byte: other frontmatter keys, the title
// line, and any section a person added. The same input twice changes nothing.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { MemError } from '../errors.js';
import { parseMemoryFile, updateBlockMeta } from '../vault/format.js';
import { readVaultText } from '../vault/read.js';
import { rewriteFile } from '../vault/edit.js';
import { staysInside, writeTarget } from '../vault/boundary.js';
import { timeBound } from '../vault/origin.js';
import type { RedactionReport } from '../secrets/redact.js';
import {
  DECISION_TYPES, EPISODE_SECTIONS, EVENT_TYPES, OUTCOMES, episodeFields, episodePermalink, episodeSlug, episodeTitle, formatEpisodeNote,
  isTimestamp, parseEpisodeNote, sanitizeEpisode, sectionLines, sectionText, type EpisodeData, type EpisodeDecision, type Outcome,
} from './episode-note.js';
import { findSection, noteFiles, parseNote, replaceSection, setNoteFields, writeNote, type ParsedNote } from './note.js';

export const EPISODE_NOTES_DIR = '.mem/episodes';

export function episodeNotePath(root: string, session: string): { abs: string; rel: string } {
  const rel = `${EPISODE_NOTES_DIR}/${episodeTitle(session)}.md`;
  return { abs: path.join(root, ...rel.split('/')), rel };
}

// ---- the store_episode input ----

const text = (what: string) => z.string({ error: `${what} must be text` }).trim().min(1, `${what} must not be empty`).max(20_000, `${what} is longer than 20000 characters`);
const when = z.string({ error: 'must be an ISO 8601 time' }).trim().refine(isTimestamp, 'must be an ISO 8601 time (2026-01-21T10:00:00Z)');
const id = z.string({ error: 'must be an id' }).trim().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be an id of letters, digits, "_", "-" or "." (d001, e002)');
const count = z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be >= 0').max(1e9);
const opt = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);

const decisionSchema = z.strictObject({
  id,
  title: opt(text('title')),
  timestamp: when,
  type: z.enum(DECISION_TYPES, { error: `must be one of ${DECISION_TYPES.join(', ')}` }),
  context: text('context'),
  options: opt(z.array(text('option')).max(50)),
  chosen: text('chosen'),
  rationale: opt(text('rationale')),
  outcome: z.enum(OUTCOMES, { error: `must be one of ${OUTCOMES.join(', ')}` }),
  effects: opt(z.array(id).max(100)),
});

const eventSchema = z.strictObject({
  id,
  timestamp: when,
  type: z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(', ')}` }),
  content: text('content'),
  caused_by: opt(z.array(id).max(100)),
  leads_to: opt(z.array(id).max(100)),
});

export const storeEpisodeSchema = z.strictObject({
  session_id: z.string({ error: 'must be text' }).trim().min(1, 'must not be empty').max(200, 'is longer than 200 characters'),
  task: text('task'),
  outcome: z.enum(OUTCOMES, { error: `must be one of ${OUTCOMES.join(', ')}` }),
  decisions: opt(z.array(decisionSchema).max(500)),
  events: opt(z.array(eventSchema).max(2000)),
  lessons: opt(z.array(text('lesson')).max(200)),
  metrics: opt(z.strictObject({
    duration_minutes: opt(z.number({ error: 'must be a number' }).min(0, 'must be >= 0').max(1e7)),
    tool_calls: opt(count), errors: opt(count), recoveries: opt(count), commits: opt(count), files_changed: opt(count),
  })),
  project: opt(text('project')),
  // Optional parts an episode record alone does not carry: the note's free-text parts and its start
  // time.
  context: opt(z.string().max(20_000)),
  observations: opt(z.array(z.strictObject({ category: text('category'), text: text('text'), tags: opt(z.array(z.string()).max(20)) })).max(500)),
  relations: opt(z.array(z.strictObject({ type: text('type'), target: text('target') })).max(200)),
  tags: opt(z.array(z.string()).max(20)),
  created_at: opt(when),
});

export type StoreEpisodeInput = z.input<typeof storeEpisodeSchema>;

/** The store_episode input checked; the first problem is one line naming the field. */
export function checkEpisodeInput(raw: unknown): z.output<typeof storeEpisodeSchema> {
  const r = storeEpisodeSchema.safeParse(raw);
  if (r.success) {
    const v = r.data;
    const ids = new Set<string>();
    for (const [i, d] of (v.decisions ?? []).entries()) {
      if (ids.has(d.id)) throw new MemError(`invalid episode: decisions[${i}].id: "${d.id}" is used twice`);
      ids.add(d.id);
    }
    for (const [i, e] of (v.events ?? []).entries()) {
      if (ids.has(e.id)) throw new MemError(`invalid episode: events[${i}].id: "${e.id}" is used twice`);
      ids.add(e.id);
    }
    for (const [i, d] of (v.decisions ?? []).entries()) {
      for (const [k, e] of (d.effects ?? []).entries()) if (!ids.has(e)) throw new MemError(`invalid episode: decisions[${i}].effects[${k}]: "${e}" is not the id of a decision or event of this episode`);
    }
    return v;
  }
  const issue = r.error.issues[0];
  const where = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || 'input';
  const msg = issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
  const expectsObject = issue.path.length === 0 && issue.code === 'invalid_type';
  throw new MemError(`invalid episode: ${expectsObject ? 'the input must be a JSON object' : `${where}: ${msg}`}`, {
    hint: 'fields: session_id, task, outcome (success|partial|failure), decisions[], events[], lessons[], metrics{}, project; see mem episode add --help',
  });
}

/** The note's data from checked input (`now`: the start time when the input gives none). */
export function episodeFromInput(v: z.output<typeof storeEpisodeSchema>, now: string): EpisodeData {
  const times = [...(v.decisions ?? []).map((d) => d.timestamp), ...(v.events ?? []).map((e) => e.timestamp)]
    .map((t) => ({ t, ms: Date.parse(t.replace(' ', 'T')) })).sort((a, b) => a.ms - b.ms);
  const metrics = { ...(v.metrics ?? {}) };
  const duration = metrics.duration_minutes;
  delete metrics.duration_minutes;
  return sanitizeEpisode({
    session_id: v.session_id,
    task: v.task,
    outcome: v.outcome,
    created_at: v.created_at ?? times[0]?.t ?? now,
    duration_minutes: duration,
    metrics,
    project: v.project,
    tags: v.tags ?? [],
    // The task is the context a note needs first (and the words a search should find it by).
    context: v.context ?? `Task: ${v.task}`,
    observations: (v.observations ?? []).map((o) => ({ category: o.category, text: o.text, tags: o.tags ?? [] })),
    decisions: (v.decisions ?? []).map((d) => ({
      id: d.id, title: d.title ?? d.chosen, timestamp: d.timestamp, type: d.type, context: d.context, options: d.options ?? [], chosen: d.chosen,
      rationale: d.rationale, outcome: d.outcome, effects: d.effects ?? [],
    })),
    events: (v.events ?? []).map((e) => ({ id: e.id, timestamp: e.timestamp, type: e.type, content: e.content, caused_by: e.caused_by ?? [], leads_to: e.leads_to ?? [] })),
    lessons: v.lessons ?? [],
    relations: (v.relations ?? []).map((r) => ({ type: r.type, target: r.target })),
    extra: {},
  });
}

// ---- writing ----

/** The note's text for `data`: new, or `current` with mem's keys and sections replaced. */
export function renderEpisodeNote(current: ParsedNote | null, data: EpisodeData, display: string, opts: { keepCreatedAt?: boolean } = {}): string {
  if (!current) return formatEpisodeNote(data);
  if (current.conflict) {
    throw new MemError(`${display}:${current.conflict.line}: unresolved merge conflict; not rewriting it`, { where: { file: display, line: current.conflict.line }, hint: 'resolve it (mem resolve, or by hand), then run the command again' });
  }
  if (!current.frontmatter) {
    throw new MemError(`${display} exists but its frontmatter cannot be read${current.frontmatterError ? ` (${current.frontmatterError.message})` : ''}; not rewriting it`, {
      where: { file: display, line: current.frontmatterError?.line }, hint: 'fix the frontmatter by hand (mem validate shows the problem) or remove the file',
    });
  }
  const fields = episodeFields(data);
  const old = current.frontmatter.data;
  // Two session ids can make the same file name (`a/b` and `a-b`): never write one over the other.
  if (typeof old.session_id === 'string' && old.session_id !== data.session_id) {
    throw new MemError(`${display} is the episode note of session "${old.session_id}", not "${data.session_id}"; not rewriting it`, {
      where: { file: display }, hint: 'the two session ids make the same file name; use a session id of letters, digits, ".", "_" and "-"',
    });
  }
  // Keys mem writes but this data leaves out (duration, metrics, project) are removed.
  for (const k of ['created_at', 'duration_minutes', 'metrics', 'project']) if (fields[k] === undefined && k in old) fields[k] = undefined;
  for (const k of Object.keys(fields)) if (fields[k] === undefined && !(k in old)) delete fields[k];
  // An input that does not say when the session started keeps the start the note already has.
  if (opts.keepCreatedAt && old.created_at !== undefined) delete fields.created_at;
  let note = parseNote(setNoteFields(current, fields));
  const secs = sectionLines(data);
  for (const name of EPISODE_SECTIONS) {
    const s = findSection(note, name);
    const last = s ? s.end === note.text.length : true;
    note = parseNote(replaceSection(note, s?.name ?? name, sectionText(secs[name], last)));
  }
  return (note.bom ? '\ufeff' : '') + note.text;
}

/** Ids of the session's segment episodes (mem segment's `.mem/episodes/<session>.md`). */
export function segmentIds(root: string, session: string): string[] {
  const rel = `${EPISODE_NOTES_DIR}/${episodeSlug(session)}.md`;
  const abs = path.join(root, ...rel.split('/'));
  // A segment file that leads out of the vault through a link is not read (its ids would be links).
  if (!fs.existsSync(abs) || !staysInside(abs, root).inside) return [];
  const r = readVaultText(abs);
  if ('error' in r) return [];
  return parseMemoryFile(r.text, rel).entries.filter((e) => e.meta.kind === 'episode').map((e) => e.id);
}

/** Relations with one `has_segment` link per segment episode of the session (and no stale ones). */
export function withSegmentLinks(data: EpisodeData, ids: string[]): EpisodeData {
  const rest = data.relations.filter((r) => r.type !== 'has_segment');
  return { ...data, relations: [...rest, ...ids.map((target) => ({ type: 'has_segment', target }))] };
}

export interface StoredEpisode {
  path: string;
  title: string;
  permalink: string;
  session_id: string;
  created: boolean;
  changed: boolean;
  dry_run: boolean;
  /** Credentials in the note's fields, written as placeholders. */
  redacted?: RedactionReport;
}

/**
 * Write (or update) the session's episode note; the segment episodes get linked both ways. Every
 * writer of an episode note comes through here, so every field is redacted here.
 */
export async function storeEpisode(root: string, given: EpisodeData, opts: { dryRun?: boolean; keepCreatedAt?: boolean } = {}): Promise<StoredEpisode> {
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const clean = await redactDeep(given);
  const data = clean.value;
  const redacted = redactionReport(clean.findings);
  const { abs, rel } = episodeNotePath(root, data.session_id);
  writeTarget(abs, rel, root);
  const linked = withSegmentLinks(data, segmentIds(root, data.session_id));
  const base = { path: rel, title: episodeTitle(data.session_id), permalink: episodePermalink(data.session_id), session_id: data.session_id, dry_run: Boolean(opts.dryRun), ...(redacted && { redacted }) };
  if (opts.dryRun) {
    const exists = fs.existsSync(abs);
    let changed = true;
    if (exists) {
      const r = readVaultText(abs);
      if (!('error' in r)) {
        const cur = parseNote((r.bom ? '\ufeff' : '') + r.text);
        changed = renderEpisodeNote(cur, linked, rel, opts) !== (cur.bom ? '\ufeff' : '') + cur.text;
      }
    }
    return { ...base, created: !exists, changed };
  }
  const res = writeNote(abs, rel, (cur) => renderEpisodeNote(cur, linked, rel, opts));
  linkSegments(root, data.session_id);
  return { ...base, ...res };
}

/**
 * Each segment episode of the session gets `episode_note: EPISODE-<session>` in its header (when
 * the note exists), through the entry writer: only that key's line changes.
 */
export function linkSegments(root: string, session: string): boolean {
  const rel = `${EPISODE_NOTES_DIR}/${episodeSlug(session)}.md`;
  const abs = path.join(root, ...rel.split('/'));
  if (!fs.existsSync(abs) || !fs.existsSync(episodeNotePath(root, session).abs) || !staysInside(abs, root).inside) return false;
  const title = episodeTitle(session);
  return rewriteSegments(abs, rel, title);
}

function rewriteSegments(abs: string, rel: string, title: string): boolean {
  return rewriteFile(abs, rel, (file) => {
    let changed = false;
    const blocks = file.blocks.map((b) => {
      if (!b.entry || !b.header || b.entry.meta.kind !== 'episode' || b.entry.meta.episode_note === title) return b;
      changed = true;
      return updateBlockMeta(b, { episode_note: title });
    });
    return changed ? { ...file, blocks } : null;
  });
}

// ---- reading ----

export interface EpisodeSummary {
  id: string;
  title: string;
  permalink: string;
  session_id: string;
  path: string;
  outcome: Outcome;
  task: string;
  created_at: string | null;
  duration_minutes: number | null;
  metrics: EpisodeData['metrics'];
  decisions: number;
  events: number;
  lessons: string[];
  /** The session's segment episodes (mem segment), from the note's has_segment relations. */
  segments: string[];
}

export interface LoadedEpisode {
  rel: string;
  note: ParsedNote;
  data: EpisodeData;
  mtimeMs: number;
}

/** Every episode note (`type: episode` in `.mem/episodes/`); unreadable ones are skipped. */
export function loadEpisodeNotes(root: string): LoadedEpisode[] {
  const dir = path.join(root, ...EPISODE_NOTES_DIR.split('/'));
  const out: LoadedEpisode[] = [];
  // Only notes inside the vault: a folder linked elsewhere is not listed.
  if (!fs.existsSync(dir) || !staysInside(dir, root).inside) return out;
  for (const name of noteFiles(dir)) {
    const abs = path.join(dir, name);
    const r = readVaultText(abs);
    if ('error' in r) continue;
    const note = parseNote(r.text);
    if (note.frontmatter?.data.type !== 'episode') continue;
    const rel = `${EPISODE_NOTES_DIR}/${name}`;
    let mtimeMs = 0;
    try {
      mtimeMs = fs.statSync(abs).mtimeMs;
    } catch {
      // gone since the listing
    }
    out.push({ rel, note, data: parseEpisodeNote(note, rel).data, mtimeMs });
  }
  return out;
}

function whenMs(e: LoadedEpisode): number {
  const c = e.data.created_at;
  const ms = c ? Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(c) ? `${c}T00:00:00Z` : c.replace(' ', 'T')) : NaN;
  return Number.isNaN(ms) ? e.mtimeMs : ms;
}

export function summaryOf(e: LoadedEpisode): EpisodeSummary {
  const d = e.data;
  return {
    id: d.session_id, title: episodeTitle(d.session_id), permalink: episodePermalink(d.session_id), session_id: d.session_id, path: e.rel,
    outcome: d.outcome, task: d.task, created_at: d.created_at ?? null, duration_minutes: d.duration_minutes ?? null, metrics: d.metrics,
    decisions: d.decisions.length, events: d.events.length, lessons: d.lessons,
    segments: d.relations.filter((r) => r.type === 'has_segment').map((r) => r.target),
  };
}

export interface EpisodeQuery {
  outcome?: Outcome;
  /** Substring of the task, case-insensitive. */
  task?: string;
  /** Only episodes that started on or after this date/time. */
  since?: string;
  project?: string;
  limit?: number;
}

export const DEFAULT_EPISODE_LIMIT = 20;
export const MAX_EPISODE_LIMIT = 100;

/** query_episodes: filtered, newest first, at most `limit` (default 20, max 100). */
export function queryEpisodes(root: string, q: EpisodeQuery): EpisodeSummary[] {
  const limit = Math.min(MAX_EPISODE_LIMIT, Math.max(1, q.limit ?? DEFAULT_EPISODE_LIMIT));
  let since: number | null = null;
  if (q.since !== undefined) {
    // Read as --after and --before are: UTC unless the time names its offset.
    since = timeBound(q.since);
    if (since === null) throw new MemError(`--since must be an ISO 8601 date or time (got "${q.since}")`, { exitCode: 2 });
  }
  const needle = q.task?.toLowerCase();
  return loadEpisodeNotes(root)
    .filter((e) => (q.outcome === undefined || e.data.outcome === q.outcome)
      && (needle === undefined || e.data.task.toLowerCase().includes(needle))
      && (q.project === undefined || e.data.project === q.project)
      && (since === null || whenMs(e) >= since))
    .sort((a, b) => whenMs(b) - whenMs(a) || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0))
    .slice(0, limit)
    .map(summaryOf);
}

/** The episode an id names: its session id, permalink, note name (with or without .md), or a segment id. */
export function findEpisode(root: string, ref: string): LoadedEpisode {
  const want = ref.trim().replace(/\.md$/i, '').replace(/^.*\//, '').toLowerCase();
  const all = loadEpisodeNotes(root);
  const hit = all.find((e) => {
    const d = e.data;
    const names = [d.session_id, episodeSlug(d.session_id), episodeTitle(d.session_id), episodePermalink(d.session_id).replace(/^.*\//, ''), `episode-${d.session_id}`];
    return names.some((n) => n.toLowerCase() === want) || d.relations.some((r) => r.type === 'has_segment' && r.target.toLowerCase() === want);
  });
  if (!hit) {
    throw new MemError(`no episode note "${ref}"`, { hint: all.length > 0 ? 'mem episode list shows the episodes (use a session id, EPISODE-… name or permalink)' : 'mem episode add or mem extract writes episode notes' });
  }
  return hit;
}

/** get_decision_sequence: the note's decisions, sorted by timestamp (the note's order on ties). */
export function decisionSequence(root: string, ref: string): { episode: EpisodeSummary; decisions: EpisodeDecision[] } {
  const e = findEpisode(root, ref);
  const ms = (t: string) => {
    const v = Date.parse(t.replace(' ', 'T'));
    return Number.isNaN(v) ? Infinity : v;
  };
  const decisions = e.data.decisions.map((d, i) => ({ d, i })).sort((a, b) => ms(a.d.timestamp) - ms(b.d.timestamp) || a.i - b.i).map((x) => x.d);
  return { episode: summaryOf(e), decisions };
}


/** store_episode: the raw input (JSON) checked, turned into a note and written. */
export async function addEpisode(root: string, raw: unknown, opts: { now: string; dryRun?: boolean }): Promise<StoredEpisode> {
  const v = checkEpisodeInput(raw);
  const timed = v.created_at !== undefined || (v.decisions ?? []).length > 0 || (v.events ?? []).length > 0;
  return storeEpisode(root, episodeFromInput(v, opts.now), { dryRun: opts.dryRun, keepCreatedAt: !timed });
}
