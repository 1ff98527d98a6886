// Scoring extraction against labelled transcripts: label files (what a careful engineer would
// keep from a session, by key phrase, and the noise that must never appear) are checked here,
// and the learnings an extractor wrote are matched to them. Pure: no disk, no printing.

import { MemError } from '../errors.js';

/** A learning worth keeping, recognised by phrases its title or body must contain. */
export interface KeepLabel {
  id: string;
  /**
   * Every element must be found (case-insensitive, runs of white space as one space); "a|b"
   * means either a or b.
   */
  match: string[][];
  /** An explicit signal (remember / always / never / don't, a correction, a preference, a project failure later fixed) the offline heuristics must catch. */
  offline: boolean;
  why?: string;
}

export interface LabelFile {
  /** The label file, as named in messages. */
  file: string;
  /** The transcript path as written in the label file. */
  transcript: string;
  format?: string;
  keep: KeepLabel[];
  noise: string[];
}

export interface LearningText {
  title: string;
  body: string;
}

export interface NoiseHit {
  learning: string;
  phrase: string;
}

export interface TranscriptScore {
  written: number;
  /** Learnings that match at least one keep label; the rest count as not worth keeping. */
  matched: number;
  /** matched / written; null when nothing was written. */
  precision: number | null;
  labels: { offline: number; all: number };
  found: { offline: number; all: number };
  /** Share of the labels found; null when there are none. */
  recall: { offline: number | null; all: number | null };
  noise: NoiseHit[];
  misses: { id: string; offline: boolean; match: string; why?: string }[];
  unmatched: string[];
  /** Per learning title, the labels it matched. */
  matches: { learning: string; labels: string[] }[];
}

export type Totals = Omit<TranscriptScore, 'misses' | 'unmatched' | 'matches' | 'noise'> & { noise: number; transcripts: number };

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');

/** The searchable text of a learning: its title and body, lower-cased, white space folded. */
function haystack(l: LearningText): string {
  return norm(`${l.title}\n${l.body}`);
}

export function labelMatches(label: KeepLabel, l: LearningText): boolean {
  const text = haystack(l);
  return label.match.every((alts) => alts.some((a) => text.includes(norm(a))));
}

export function describeMatch(label: KeepLabel): string {
  return label.match.map((alts) => alts.join(' | ')).join(' + ');
}

// A tool call's JSON (Claude's tool_use/tool_result blocks, Codex function calls) copied into a learning.
const TOOL_JSON = /\{\s*"(?:type|tool_use_id|tool_use|input|name|call_id|arguments)"\s*:/;

/**
 * Noise in one learning: the label file's phrases, and what no learning may ever hold — a NUL,
 * raw tool-call JSON, the transcript's own path or file name.
 */
export function noiseIn(l: LearningText, phrases: readonly string[], transcriptPath?: string): string[] {
  const raw = `${l.title}\n${l.body}`;
  const text = norm(raw);
  const hits = phrases.filter((p) => text.includes(norm(p)));
  if (raw.includes('\u0000')) hits.push('a NUL character');
  if (TOOL_JSON.test(raw)) hits.push('raw tool-call JSON');
  if (transcriptPath) {
    const base = transcriptPath.split(/[\\/]/).pop()!;
    if (base && text.includes(norm(base))) hits.push(`the transcript's file name (${base})`);
  }
  return hits;
}

const ratio = (n: number, d: number): number | null => (d === 0 ? null : n / d);

export function scoreTranscript(labels: LabelFile, learnings: readonly LearningText[], transcriptPath?: string): TranscriptScore {
  const found = new Set<string>();
  const matches: TranscriptScore['matches'] = [];
  const unmatched: string[] = [];
  const noise: NoiseHit[] = [];
  for (const l of learnings) {
    const ids = labels.keep.filter((k) => labelMatches(k, l)).map((k) => k.id);
    for (const id of ids) found.add(id);
    matches.push({ learning: l.title, labels: ids });
    if (ids.length === 0) unmatched.push(l.title);
    for (const phrase of noiseIn(l, labels.noise, transcriptPath)) noise.push({ learning: l.title, phrase });
  }
  const offline = labels.keep.filter((k) => k.offline);
  const foundOffline = offline.filter((k) => found.has(k.id)).length;
  const matched = learnings.length - unmatched.length;
  return {
    written: learnings.length,
    matched,
    precision: ratio(matched, learnings.length),
    labels: { offline: offline.length, all: labels.keep.length },
    found: { offline: foundOffline, all: found.size },
    recall: { offline: ratio(foundOffline, offline.length), all: ratio(found.size, labels.keep.length) },
    noise,
    misses: labels.keep.filter((k) => !found.has(k.id)).map((k) => ({ id: k.id, offline: k.offline, match: describeMatch(k), ...(k.why ? { why: k.why } : {}) })),
    unmatched,
    matches,
  };
}

/** Micro-averaged over transcripts: every learning and every label weighs the same. */
export function totals(scores: readonly TranscriptScore[]): Totals {
  const sum = (f: (s: TranscriptScore) => number) => scores.reduce((n, s) => n + f(s), 0);
  const written = sum((s) => s.written);
  const matched = sum((s) => s.matched);
  const labels = { offline: sum((s) => s.labels.offline), all: sum((s) => s.labels.all) };
  const found = { offline: sum((s) => s.found.offline), all: sum((s) => s.found.all) };
  return {
    transcripts: scores.length, written, matched, precision: ratio(matched, written), labels, found,
    recall: { offline: ratio(found.offline, labels.offline), all: ratio(found.all, labels.all) },
    noise: sum((s) => s.noise.length),
  };
}

function strings(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/**
 * A label file's parsed YAML/JSON checked into a LabelFile; a wrong shape is one MemError naming
 * the file and the field, so a typo in a label never silently drops it.
 */
export function checkLabels(data: unknown, file: string): LabelFile {
  const bad = (what: string) => new MemError(`invalid labels: ${what}`, { where: { file }, hint: 'a label file has transcript: PATH, keep: [{id, match: [phrases], offline: true|false}], noise: [phrases]' });
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw bad('expected a mapping with transcript, keep and noise');
  const o = data as Record<string, unknown>;
  if (typeof o.transcript !== 'string' || o.transcript.trim() === '') throw bad('"transcript" must name the transcript file');
  if (o.format !== undefined && typeof o.format !== 'string') throw bad('"format" must be a string');
  const keepRaw = o.keep ?? [];
  if (!Array.isArray(keepRaw)) throw bad('"keep" must be a list');
  const noise = o.noise ?? [];
  if (!strings(noise) || noise.some((p) => p.trim() === '')) throw bad('"noise" must be a list of non-empty phrases');
  const ids = new Set<string>();
  const keep = keepRaw.map((k, i): KeepLabel => {
    const where = `keep[${i}]`;
    if (typeof k !== 'object' || k === null) throw bad(`${where} must be a mapping`);
    const r = k as Record<string, unknown>;
    const id = typeof r.id === 'string' && r.id.trim() ? r.id.trim() : `keep-${i + 1}`;
    if (ids.has(id)) throw bad(`${where}: the id "${id}" is used twice`);
    ids.add(id);
    const match = typeof r.match === 'string' ? [r.match] : r.match;
    if (!strings(match) || match.length === 0) throw bad(`${where} (${id}): "match" must be a phrase or a list of phrases`);
    const groups = match.map((m) => m.split('|').map((a) => a.trim()).filter(Boolean));
    if (groups.some((g) => g.length === 0)) throw bad(`${where} (${id}): an empty phrase in "match"`);
    if (typeof r.offline !== 'boolean') throw bad(`${where} (${id}): "offline" must be true or false`);
    if (r.why !== undefined && typeof r.why !== 'string') throw bad(`${where} (${id}): "why" must be a string`);
    return { id, match: groups, offline: r.offline, ...(typeof r.why === 'string' ? { why: r.why } : {}) };
  });
  return { file, transcript: o.transcript, ...(typeof o.format === 'string' ? { format: o.format } : {}), keep, noise };
}
