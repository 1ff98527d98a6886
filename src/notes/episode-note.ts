// Episode notes: the data of one session's episode ↔ its markdown note
// `.mem/episodes/EPISODE-<session>.md`. `sanitizeEpisode` makes any input safe to write (one-line
// fields, no wiki links or headings smuggled in through text); `formatEpisodeNote` and
// `parseEpisodeNote` are exact inverses on sanitized data; `validateEpisodeNote` reports schema
// problems with file:line for `mem validate`.

import type { Diagnostic } from '../errors.js';
import { formatFrontmatter } from '../vault/frontmatter.js';
import { safeLine, safeText } from '../vault/safetext.js';
import { conflictDiagnostic, findSection, lineAt, type ParsedNote } from './note.js';

export const OUTCOMES = ['success', 'partial', 'failure'] as const;
export const DECISION_TYPES = ['design', 'implementation', 'test', 'recovery', 'routing'] as const;
export const EVENT_TYPES = ['tool_call', 'error', 'milestone', 'handoff', 'commit', 'test'] as const;
export const METRIC_KEYS = ['tool_calls', 'errors', 'recoveries', 'commits', 'files_changed'] as const;

export type Outcome = (typeof OUTCOMES)[number];
export type DecisionType = (typeof DECISION_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

export interface EpisodeDecision {
  id: string;
  /** The `### d001: title` heading's title (store_episode has none: the chosen option). */
  title: string;
  timestamp: string;
  type: DecisionType;
  context: string;
  options: string[];
  chosen: string;
  rationale?: string;
  outcome: Outcome;
  /** Ids of the decisions (`d…`) and events (`e…`) this one caused. */
  effects: string[];
}

export interface EpisodeEvent {
  /** `e001`, `e002`, …: the event's place in the timeline. */
  id: string;
  timestamp: string;
  type: EventType;
  content: string;
  caused_by: string[];
  leads_to: string[];
}

export interface EpisodeMetrics {
  tool_calls?: number;
  errors?: number;
  recoveries?: number;
  commits?: number;
  files_changed?: number;
}

export interface Observation {
  category: string;
  text: string;
  tags: string[];
}

export interface Relation {
  type: string;
  target: string;
}

export interface EpisodeData {
  session_id: string;
  task: string;
  outcome: Outcome;
  /** When the session started (ISO), for listing newest first and `--since`. */
  created_at?: string;
  duration_minutes?: number;
  metrics: EpisodeMetrics;
  project?: string;
  /** Tags besides `episodic` (which every episode note has, first). */
  tags: string[];
  context: string;
  observations: Observation[];
  decisions: EpisodeDecision[];
  events: EpisodeEvent[];
  lessons: string[];
  relations: Relation[];
  /** Frontmatter keys mem does not write, in their order (kept from a hand-edited note). */
  extra: Record<string, unknown>;
}

/** The section names, in the order mem writes them. */
export const EPISODE_SECTIONS = ['Context', 'Observations', 'Decisions', 'Events Timeline', 'Lessons Learned', 'Relations'] as const;

/** A session id as a file name: safe characters only, never empty (the same rule as segment files). */
export function episodeSlug(session: string): string {
  return session.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 96) || 'session';
}

export function episodeTitle(session: string): string {
  return `EPISODE-${episodeSlug(session)}`;
}

export function episodePermalink(session: string): string {
  return `episodes/episode-${episodeSlug(session)}`;
}

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function isTimestamp(s: string): boolean {
  return TIMESTAMP.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T')));
}

// ---- sanitizing: any text → text that cannot break the note's structure ----

/** One line, with `[[` neutralised (`[\[`): text never becomes a wiki link. */
export function safeField(s: string): string {
  return noLinks(safeLine(s));
}

/** Every `[` followed by another `[` gets a backslash after it: `[[x]]` → `[\\[x]]`, never a link. */
function noLinks(s: string): string {
  return s.replace(/\[(?=\[)/g, '[\\');
}

/** Multi-line free text (Context): no line can open a heading, a fence or a frontmatter rule. */
export function safeBlock(s: string): string {
  return noLinks(safeText(s))
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .map((l) => (/^[ \t]*(#|```|~~~|---|===)/.test(l) ? `\\${l.trimStart()}` : l))
    .join('\n')
    .replace(/^\n+|\n+$/g, '')
    .replace(/\n{3,}/g, '\n\n');
}

/** Text before trailing `#tags`: a word starting with `#` is escaped so it stays text. */
function hashSafe(s: string): string {
  return safeField(s).replace(/(^|\s)#/g, '$1\\#');
}

/** A tag / category / relation word: letters, digits, `_`, `-`, `:`, `.` only. */
export function safeWord(s: string, fallback: string): string {
  const w = safeLine(s).replace(/[^\p{L}\p{N}_:.-]+/gu, '_').replace(/^_+|_+$/g, '');
  return w || fallback;
}

/** A link target: one line, no brackets or pipe. */
function safeTarget(s: string): string {
  return safeLine(s).replace(/[[\]|]/g, '').trim() || 'unnamed';
}

/** An id (`d001`, a session id): safe characters only. */
export function safeId(s: string, fallback: string): string {
  return safeLine(s).replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || fallback;
}

function nonNegInt(n: number | undefined): number | undefined {
  return n === undefined || !Number.isFinite(n) ? undefined : Math.max(0, Math.round(n));
}

/** Data made safe to write (idempotent): what formatEpisodeNote expects. */
export function sanitizeEpisode(d: EpisodeData): EpisodeData {
  const metrics: EpisodeMetrics = {};
  for (const k of METRIC_KEYS) {
    const v = nonNegInt(d.metrics[k]);
    if (v !== undefined) metrics[k] = v;
  }
  const dur = d.duration_minutes === undefined || !Number.isFinite(d.duration_minutes) ? undefined : Math.max(0, Math.round(d.duration_minutes));
  // Events are numbered by their place in the timeline (e001, e002, …): links to the ids the
  // input gave them are renamed along.
  const renamed = new Map<string, string>();
  d.events.forEach((e, i) => {
    const id = safeId(e.id, '');
    if (id && !renamed.has(id)) renamed.set(id, `e${String(i + 1).padStart(3, '0')}`);
  });
  const link = (x: string) => {
    const id = safeId(x, 'x');
    return renamed.get(id) ?? id;
  };
  const events = d.events.map((e, i) => ({
    id: `e${String(i + 1).padStart(3, '0')}`, timestamp: safeLine(e.timestamp), type: e.type, content: safeField(e.content) || '(no text)',
    caused_by: e.caused_by.map(link), leads_to: e.leads_to.map(link),
  }));
  return {
    session_id: safeLine(d.session_id),
    task: safeField(d.task),
    outcome: d.outcome,
    ...(d.created_at !== undefined && { created_at: safeLine(d.created_at) }),
    ...(dur !== undefined && { duration_minutes: dur }),
    metrics,
    ...(d.project !== undefined && safeLine(d.project) !== '' && { project: safeLine(d.project) }),
    tags: [...new Set(d.tags.map((t) => safeWord(t, '')).filter((t) => t !== '' && t !== 'episodic'))],
    context: safeBlock(d.context),
    observations: d.observations.map((o) => ({ category: safeWord(o.category, 'note'), text: hashSafe(o.text) || '(no text)', tags: o.tags.map((t) => safeWord(t, '')).filter(Boolean) })),
    decisions: d.decisions.map((x) => ({
      id: safeId(x.id, 'd'), title: safeField(x.title) || safeField(x.chosen) || '(untitled)', timestamp: safeLine(x.timestamp), type: x.type,
      context: safeField(x.context), options: x.options.map(safeField).filter(Boolean), chosen: safeField(x.chosen),
      ...(x.rationale !== undefined && safeField(x.rationale) !== '' && { rationale: safeField(x.rationale) }),
      outcome: x.outcome, effects: x.effects.map(link),
    })),
    events,
    lessons: d.lessons.map(safeField).filter(Boolean),
    relations: d.relations.map((r) => ({ type: safeWord(r.type, 'relates_to'), target: safeTarget(r.target) })),
    extra: d.extra,
  };
}

// ---- formatting ----

function frontmatterOf(d: EpisodeData): Record<string, unknown> {
  const metrics: Record<string, number> = {};
  for (const k of METRIC_KEYS) if (d.metrics[k] !== undefined) metrics[k] = d.metrics[k]!;
  const fm: Record<string, unknown> = {
    title: episodeTitle(d.session_id),
    type: 'episode',
    tags: ['episodic', ...d.tags],
    permalink: episodePermalink(d.session_id),
    session_id: d.session_id,
    created_at: d.created_at,
    outcome: d.outcome,
    task: d.task,
    duration_minutes: d.duration_minutes,
    metrics: Object.keys(metrics).length > 0 ? metrics : undefined,
    project: d.project,
  };
  for (const [k, v] of Object.entries(d.extra)) if (!(k in fm)) fm[k] = v;
  return fm;
}

/** The frontmatter keys mem writes (a rewrite sets these and keeps any other); undefined: absent. */
export function episodeFields(d: EpisodeData): Record<string, unknown> {
  return frontmatterOf({ ...d, extra: {} });
}

function decisionLines(x: EpisodeDecision): string[] {
  const out = [`### ${x.id}: ${x.title}`, `- **Timestamp**: ${x.timestamp}`, `- **Type**: ${x.type}`, `- **Context**: ${x.context}`];
  if (x.options.length > 0) out.push('- **Options**:', ...x.options.map((o) => `  - ${o}`));
  out.push(`- **Chosen**: ${x.chosen}`);
  if (x.rationale !== undefined) out.push(`- **Rationale**: ${x.rationale}`);
  out.push(`- **Outcome**: ${x.outcome}`);
  if (x.effects.length > 0) out.push(`- **Effects**: ${x.effects.map((e) => `[[${e}]]`).join(', ')}`);
  return out;
}

function eventLine(e: EpisodeEvent, n: number): string {
  const links = [...e.caused_by.map((x) => ` ← [[${x}]]`), ...e.leads_to.map((x) => ` → [[${x}]]`)].join('');
  return `${n + 1}. [${e.timestamp}] ${e.content}${links} #${e.type}`;
}

/** Each section's body lines (no trailing blank line), from sanitized data. */
export function sectionLines(d: EpisodeData): Record<(typeof EPISODE_SECTIONS)[number], string[]> {
  return {
    Context: d.context === '' ? [] : d.context.split('\n'),
    Observations: d.observations.map((o) => `- [${o.category}] ${o.text}${o.tags.map((t) => ` #${t}`).join('')}`),
    Decisions: d.decisions.flatMap((x, i) => [...(i > 0 ? [''] : []), ...decisionLines(x)]),
    'Events Timeline': d.events.map(eventLine),
    'Lessons Learned': d.lessons.map((l) => `- ${l}`),
    Relations: d.relations.map((r) => `- ${r.type} [[${r.target}]]`),
  };
}

/** A section's body as the note holds it: its lines, then a blank line unless it ends the file. */
export function sectionText(lines: string[], last: boolean): string {
  const body = lines.length > 0 ? `${lines.join('\n')}\n` : '';
  return last ? body : `${body}\n`;
}

/** The whole note (LF line endings) for sanitized data. */
export function formatEpisodeNote(d: EpisodeData): string {
  const fm = formatFrontmatter(frontmatterOf(d));
  const secs = sectionLines(d);
  let out = `---\n${fm}---\n\n# ${episodeTitle(d.session_id)}\n\n`;
  EPISODE_SECTIONS.forEach((name, i) => {
    out += `## ${name}\n${sectionText(secs[name], i === EPISODE_SECTIONS.length - 1)}`;
  });
  return out;
}

// ---- parsing ----

export interface ParsedEpisode {
  data: EpisodeData;
  diagnostics: Diagnostic[];
  /** 1-based line of each decision heading, by decision index. */
  decisionLines: number[];
}

const KNOWN_FM = new Set(['title', 'type', 'tags', 'permalink', 'session_id', 'created_at', 'outcome', 'task', 'duration_minutes', 'metrics', 'project']);
/** A decision's heading, `### <id>: <title>`; its id is what `[[id]]` links of the same note name. */
export const DECISION_HEAD = /^###[ \t]+([A-Za-z0-9_.-]+):[ \t]*(.*?)[ \t]*$/;
const DECISION_LINE = /^- \*\*([A-Za-z ]+)\*\*:[ \t]?(.*)$/;
const EVENT_LINE = /^(\d+)\.[ \t]+\[([^\]]*)\][ \t]+(.*)$/;
const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/**
 * The ` ← [[e001]]` / ` → [[d002]]` links at the end of an event line, read backwards in one pass
 * (a regex anchored at the end, run once per link, costs links × line length: a hand-made line of
 * 60,000 links took minutes). `text`: the line without them.
 */
export function linkTails(line: string): { text: string; links: { arrow: '←' | '→'; id: string }[] } {
  const links: { arrow: '←' | '→'; id: string }[] = [];
  let end = line.length;
  while (end >= 4 && line.startsWith(']]', end - 2)) {
    const open = line.lastIndexOf('[[', end - 4);
    if (open < 0) break;
    const id = line.slice(open + 2, end - 2);
    if (id === '' || /[[\]]/.test(id)) break;
    let j = open;
    while (j > 0 && isBlank(line[j - 1])) j--;
    const arrow = line[j - 1];
    if (j === open || (arrow !== '\u2190' && arrow !== '\u2192')) break;
    let t = j - 1;
    while (t > 0 && isBlank(line[t - 1])) t--;
    if (t === j - 1) break;
    links.push({ arrow: arrow as '←' | '→', id });
    end = t;
  }
  // Read from the end, so reversed once here (an unshift per tail made 100k tails quadratic).
  return { text: line.slice(0, end), links: links.reverse() };
}

/** An event line's text after its time: the content, its `#type` ('' when none) and its ← / → links. */
export function eventParts(raw: string): { content: string; type: string; caused: string[]; leads: string[] } {
  let text = raw;
  let type = '';
  const t = /[ \t]+#([A-Za-z_]+)$/.exec(text);
  if (t) {
    type = t[1];
    text = text.slice(0, t.index);
  }
  const tails = linkTails(text);
  const caused: string[] = [];
  const leads: string[] = [];
  for (const k of tails.links) (k.arrow === '←' ? caused : leads).push(k.id);
  return { content: tails.text, type, caused, leads };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v instanceof Date ? v.toISOString() : '';
}

/** Read an episode note into its data; problems (for `mem validate`) go to `diagnostics`. */
export function parseEpisodeNote(note: ParsedNote, rel: string): ParsedEpisode {
  const diags: Diagnostic[] = [];
  const err = (line: number | undefined, message: string, severity: Diagnostic['severity'] = 'error') => diags.push({ severity, message, file: rel, ...(line !== undefined && { line }) });
  const fm = note.frontmatter?.data ?? {};
  if (note.frontmatterError) err(note.frontmatterError.line, `frontmatter: ${note.frontmatterError.message}`);
  else if (!note.frontmatter) err(1, 'an episode note needs a frontmatter block (---)');
  const fmLine = (key: string): number => {
    if (!note.frontmatter) return 1;
    const idx = note.frontmatter.yaml.split('\n').findIndex((l) => l.startsWith(`${key}:`));
    return idx < 0 ? 1 : lineAt(note, note.frontmatter.yamlStart) + idx;
  };
  const outcome = str(fm.outcome);
  if (note.frontmatter) {
    if (fm.type !== 'episode') err(fmLine('type'), `type must be "episode" (got ${JSON.stringify(fm.type ?? null)})`);
    if (!Array.isArray(fm.tags) || !fm.tags.includes('episodic')) err(fmLine('tags'), 'tags must include "episodic"');
    if (!(OUTCOMES as readonly string[]).includes(outcome)) err(fmLine('outcome'), `outcome must be one of ${OUTCOMES.join(', ')} (got ${JSON.stringify(fm.outcome ?? null)})`);
    if (str(fm.task).trim() === '') err(fmLine('task'), 'task is missing or empty');
    if (fm.created_at !== undefined && !isTimestamp(str(fm.created_at))) err(fmLine('created_at'), `created_at must be an ISO 8601 date or time (got ${JSON.stringify(fm.created_at)})`);
    if (fm.duration_minutes !== undefined && (typeof fm.duration_minutes !== 'number' || fm.duration_minutes < 0)) err(fmLine('duration_minutes'), 'duration_minutes must be a number >= 0');
    if (fm.metrics !== undefined) {
      if (typeof fm.metrics !== 'object' || fm.metrics === null || Array.isArray(fm.metrics)) err(fmLine('metrics'), 'metrics must be a mapping');
      else for (const [k, v] of Object.entries(fm.metrics)) {
        if (!(METRIC_KEYS as readonly string[]).includes(k)) err(fmLine('metrics'), `metrics: unknown key "${k}" (known: ${METRIC_KEYS.join(', ')})`, 'warning');
        else if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) err(fmLine('metrics'), `metrics.${k} must be an integer >= 0 (got ${JSON.stringify(v)})`);
      }
    }
  }
  const metrics: EpisodeMetrics = {};
  if (typeof fm.metrics === 'object' && fm.metrics !== null) {
    for (const k of METRIC_KEYS) {
      const v = (fm.metrics as Record<string, unknown>)[k];
      if (typeof v === 'number') metrics[k] = v;
    }
  }
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fm)) if (!KNOWN_FM.has(k)) extra[k] = v;
  const session = str(fm.session_id) || str(fm.title).replace(/^EPISODE-/, '') || rel.replace(/^.*\/EPISODE-|\.md$/g, '');

  // Each section's lines, with their file lines.
  const lines = (name: string): { text: string; line: number }[] => {
    const s = findSection(note, name);
    if (!s) return [];
    const first = lineAt(note, s.bodyStart);
    const body = note.text.slice(s.bodyStart, s.end).replace(/\r\n/g, '\n').replace(/\n+$/, '');
    return body === '' ? [] : body.split('\n').map((text, i) => ({ text, line: first + i }));
  };

  const observations: Observation[] = [];
  for (const l of lines('Observations')) {
    if (l.text.trim() === '') continue;
    const m = /^- \[([^\]]*)\][ \t]+(.*)$/.exec(l.text);
    if (!m) {
      err(l.line, 'observation must read "- [category] text #tag"', 'warning');
      continue;
    }
    let text = m[2];
    const tags: string[] = [];
    for (let t = /[ \t]+#([\p{L}\p{N}_:.-]+)$/u.exec(text); t; t = /[ \t]+#([\p{L}\p{N}_:.-]+)$/u.exec(text)) {
      tags.unshift(t[1]);
      text = text.slice(0, t.index);
    }
    observations.push({ category: m[1], text, tags });
  }

  const decisions: EpisodeDecision[] = [];
  const decisionLineNos: number[] = [];
  let cur: (EpisodeDecision & { seen: Set<string> }) | null = null;
  let inOptions = false;
  const finish = () => {
    if (!cur) return;
    const at = decisionLineNos[decisionLineNos.length - 1];
    for (const key of ['timestamp', 'type', 'context', 'chosen', 'outcome']) if (!cur.seen.has(key)) err(at, `decision ${cur.id}: missing **${key[0].toUpperCase()}${key.slice(1)}** line`);
    const { seen: _s, ...d } = cur;
    decisions.push(d);
    cur = null;
  };
  for (const l of lines('Decisions')) {
    if (l.text.trim() === '') {
      inOptions = false;
      continue;
    }
    const h = DECISION_HEAD.exec(l.text);
    if (h) {
      finish();
      decisionLineNos.push(l.line);
      cur = { id: h[1], title: h[2], timestamp: '', type: 'implementation', context: '', options: [], chosen: '', outcome: 'success', effects: [], seen: new Set() };
      inOptions = false;
      continue;
    }
    if (l.text.startsWith('###')) {
      err(l.line, 'decision heading must read "### d001: title"');
      continue;
    }
    if (!cur) {
      err(l.line, 'text in Decisions before the first "### d001: title" heading', 'warning');
      continue;
    }
    const opt = /^[ \t]+- (.*)$/.exec(l.text);
    if (opt && inOptions) {
      cur.options.push(opt[1]);
      continue;
    }
    const m = DECISION_LINE.exec(l.text);
    if (!m) {
      err(l.line, `decision ${cur.id}: line must read "- **Field**: value"`);
      continue;
    }
    const key = m[1].trim().toLowerCase();
    const value = m[2];
    inOptions = false;
    cur.seen.add(key);
    switch (key) {
      case 'timestamp':
        cur.timestamp = value;
        if (!isTimestamp(value)) err(l.line, `decision ${cur.id}: Timestamp is not an ISO 8601 time (got ${JSON.stringify(value)})`);
        break;
      case 'type':
        if (!(DECISION_TYPES as readonly string[]).includes(value)) err(l.line, `decision ${cur.id}: Type must be one of ${DECISION_TYPES.join(', ')} (got ${JSON.stringify(value)})`);
        cur.type = value as DecisionType;
        break;
      case 'context':
        cur.context = value;
        break;
      case 'options':
        inOptions = true;
        if (value.trim() !== '') cur.options.push(...value.split(/[ \t]*;[ \t]*/).filter(Boolean));
        break;
      case 'chosen':
        cur.chosen = value;
        break;
      case 'rationale':
        cur.rationale = value;
        break;
      case 'outcome':
        if (!(OUTCOMES as readonly string[]).includes(value)) err(l.line, `decision ${cur.id}: Outcome must be one of ${OUTCOMES.join(', ')} (got ${JSON.stringify(value)})`);
        cur.outcome = value as Outcome;
        break;
      case 'effects': {
        const rest = value.replace(/\[\[([^\[\]]+)\]\]/g, (_m, id: string) => {
          cur!.effects.push(id.trim());
          return '';
        });
        if (rest.replace(/[,\s]/g, '') !== '') err(l.line, `decision ${cur.id}: Effects must be [[d002]] / [[e003]] links, comma-separated`);
        break;
      }
      default:
        err(l.line, `decision ${cur.id}: unknown field "${m[1]}"`, 'warning');
    }
  }
  finish();

  const events: EpisodeEvent[] = [];
  const eventLineNos: number[] = [];
  for (const l of lines('Events Timeline')) {
    if (l.text.trim() === '') continue;
    const m = EVENT_LINE.exec(l.text);
    if (!m) {
      err(l.line, 'event must read "1. [ISO time] text #event_type"');
      continue;
    }
    if (!isTimestamp(m[2])) err(l.line, `event time is not an ISO 8601 time (got ${JSON.stringify(m[2])})`);
    const { content, type, caused, leads } = eventParts(m[3]);
    if (!(EVENT_TYPES as readonly string[]).includes(type)) err(l.line, `event type must be one of ${EVENT_TYPES.map((x) => `#${x}`).join(', ')} (got ${type ? `#${type}` : 'none'})`);
    eventLineNos.push(l.line);
    events.push({ id: `e${String(events.length + 1).padStart(3, '0')}`, timestamp: m[2], type: type as EventType, content, caused_by: caused, leads_to: leads });
  }

  const lessons: string[] = [];
  for (const l of lines('Lessons Learned')) {
    if (l.text.trim() === '') continue;
    const m = /^[-*] (.*)$/.exec(l.text);
    if (m) lessons.push(m[1]);
    else err(l.line, 'lesson must be a list item "- text"', 'warning');
  }

  const relations: Relation[] = [];
  for (const l of lines('Relations')) {
    if (l.text.trim() === '') continue;
    const m = /^- ([^\s[]+)[ \t]+\[\[([^\]|]+)\]\]$/.exec(l.text);
    if (m) relations.push({ type: m[1], target: m[2] });
    else err(l.line, 'relation must read "- relation [[Target]]"', 'warning');
  }

  // Effects and event links point to ids in this note.
  const ids = new Set([...decisions.map((d) => d.id), ...events.map((e) => e.id)]);
  const seenIds = new Set<string>();
  decisions.forEach((d, i) => {
    if (seenIds.has(d.id)) err(decisionLineNos[i], `duplicate decision id ${d.id}`);
    seenIds.add(d.id);
    for (const e of d.effects) if (!ids.has(e)) err(decisionLineNos[i], `decision ${d.id}: effect [[${e}]] is not a decision or event of this note`);
  });
  events.forEach((e, i) => {
    for (const x of [...e.caused_by, ...e.leads_to]) if (!ids.has(x)) err(eventLineNos[i], `event ${e.id}: link [[${x}]] is not a decision or event of this note`);
  });
  for (const want of ['Context', 'Decisions', 'Events Timeline', 'Lessons Learned']) {
    if (!findSection(note, want)) err(undefined, `missing section "## ${want}"`, 'warning');
  }

  const tags = Array.isArray(fm.tags) ? fm.tags.map(str).filter((t) => t !== '' && t !== 'episodic') : [];
  const contextLines = lines('Context').map((l) => l.text);
  const data: EpisodeData = {
    session_id: session,
    task: str(fm.task),
    outcome: ((OUTCOMES as readonly string[]).includes(outcome) ? outcome : 'partial') as Outcome,
    ...(fm.created_at !== undefined && { created_at: str(fm.created_at) }),
    ...(typeof fm.duration_minutes === 'number' && { duration_minutes: fm.duration_minutes }),
    metrics,
    ...(fm.project !== undefined && fm.project !== null && { project: str(fm.project) }),
    tags,
    context: contextLines.join('\n'),
    observations, decisions, events, lessons, relations, extra,
  };
  return { data, diagnostics: diags, decisionLines: decisionLineNos };
}

/** Schema problems of an episode note, file:line (for `mem validate`). */
export function validateEpisodeNote(note: ParsedNote, rel: string): Diagnostic[] {
  const conflict = conflictDiagnostic(note, rel);
  return conflict ? [conflict] : parseEpisodeNote(note, rel).diagnostics;
}
