// Reading the pattern notes for answers (query_patterns, get_antipatterns, get_causal_path, and
// the proven patterns `mem context` starts a session with): the one place the CLI and the
// MCP tools get them from, as plain JSON-ready objects.

import { MemError } from '../errors.js';
import { bfsPath, buildCausalGraph, checkDepth, findNode, type CausalPath } from './graph.js';
import { DEFAULT_MAX_NODES, viewCausalGraph, type CausalGraphView } from './graph-view.js';
import { readCausalNotes } from './observation-note.js';
import { readPatterns, type CausalRelation, type PatternFile } from './pattern-note.js';

export interface PatternSummary {
  title: string;
  name: string;
  kind: 'pattern' | 'antipattern';
  permalink: string;
  path: string;
  trigger: string;
  action: string;
  success_rate: number | null;
  occurrences: number | null;
  last_validated: string;
  evidence: string[];
  causal: CausalRelation[];
}

export const DEFAULT_PATTERN_LIMIT = 20;
export const MAX_PATTERN_LIMIT = 100;

const num = (n: number) => (Number.isFinite(n) ? n : null);

export function summary(p: PatternFile): PatternSummary {
  const d = p.data;
  return {
    title: d.title, name: d.name, kind: d.antipattern ? 'antipattern' : 'pattern', permalink: d.permalink, path: p.path,
    trigger: d.trigger, action: d.action, success_rate: num(d.success_rate), occurrences: num(d.occurrences),
    last_validated: d.last_validated, evidence: d.evidence, causal: d.causal,
  };
}

/** Best first: success rate, then occurrences, then title (a note with unreadable numbers last). */
function byBest(a: PatternSummary, b: PatternSummary): number {
  return (b.success_rate ?? -1) - (a.success_rate ?? -1) || (b.occurrences ?? -1) - (a.occurrences ?? -1) || a.title.localeCompare(b.title);
}

export interface PatternQuery {
  /** Case-insensitive substring of the trigger. */
  trigger?: string;
  min_success_rate?: number;
  min_occurrences?: number;
  limit?: number;
}

function checkLimit(limit: number | undefined): number {
  const l = limit ?? DEFAULT_PATTERN_LIMIT;
  if (!Number.isInteger(l) || l < 1 || l > MAX_PATTERN_LIMIT) throw new MemError(`limit must be a whole number from 1 to ${MAX_PATTERN_LIMIT} (got ${limit})`, { exitCode: 2 });
  return l;
}

/** query_patterns: notes filtered by trigger, success rate and occurrences. */
export function queryPatterns(root: string, q: PatternQuery): { patterns: PatternSummary[]; total: number } {
  const limit = checkLimit(q.limit);
  const t = q.trigger?.trim().toLowerCase();
  const all = readPatterns(root).map(summary).filter((p) =>
    (!t || p.trigger.toLowerCase().includes(t))
    && (q.min_success_rate === undefined || (p.success_rate ?? -1) >= q.min_success_rate)
    && (q.min_occurrences === undefined || (p.occurrences ?? -1) >= q.min_occurrences));
  all.sort(byBest);
  return { patterns: all.slice(0, limit), total: all.length };
}

export const ANTIPATTERN_MAX_RATE = 0.3;
export const ANTIPATTERN_MIN_OCCURRENCES = 2;

/**
 * get_antipatterns: notes with a success rate at most `max_success_rate` (0.3) seen at
 * least `min_occurrences` times (2: one failure is a fluke, not a pattern), worst first. Any
 * pattern note qualifies by its numbers, whether or not it was written as an ANTIPATTERN.
 */
export function antipatterns(root: string, q: { max_success_rate?: number; min_occurrences?: number; limit?: number }): { patterns: PatternSummary[]; total: number } {
  const limit = checkLimit(q.limit);
  const max = q.max_success_rate ?? ANTIPATTERN_MAX_RATE;
  const min = q.min_occurrences ?? ANTIPATTERN_MIN_OCCURRENCES;
  const all = readPatterns(root).map(summary).filter((p) => p.success_rate !== null && p.success_rate <= max && (p.occurrences ?? 0) >= min);
  all.sort((a, b) => a.success_rate! - b.success_rate! || b.occurrences! - a.occurrences! || a.title.localeCompare(b.title));
  return { patterns: all.slice(0, limit), total: all.length };
}

export interface CausalPathAnswer {
  found: boolean;
  from: string;
  to: string;
  max_depth: number;
  depth: number | null;
  path: { id: string; label: string; type: string; via?: string }[];
  reason?: string;
}

/**
 * get_causal_path: the shortest chain of causal edges between two notes of the graph (patterns,
 * and the outcomes, errors, decisions and events an import made notes of), each named as a user
 * writes it (findNode). Unknown or ambiguous names throw (MemError naming the candidates).
 */
export function causalPath(root: string, from: string, to: string, maxDepth?: number): CausalPathAnswer {
  const depth = checkDepth(maxDepth);
  const { patterns, observations } = readCausalNotes(root);
  const graph = buildCausalGraph(patterns, observations);
  const a = findNode(graph, from);
  const b = findNode(graph, to);
  const p: CausalPath = bfsPath(graph, a, b, depth);
  return { found: p.found, from: a.label, to: b.label, max_depth: p.max_depth, depth: p.depth, path: p.path, ...(p.reason ? { reason: p.reason } : {}) };
}

/**
 * The causal graph to draw (`mem pattern graph`): every note, or those reachable from `from` (named
 * as `mem pattern path` names it) within `depth` steps; at most `max_nodes` notes (100).
 */
export function causalGraphView(root: string, q: { from?: string; depth?: number; max_nodes?: number; show_broken?: boolean }): CausalGraphView {
  const { patterns, observations } = readCausalNotes(root);
  const graph = buildCausalGraph(patterns, observations);
  const from = q.from !== undefined ? findNode(graph, q.from).id : undefined;
  return viewCausalGraph(graph, { from, depth: q.depth, maxNodes: q.max_nodes ?? DEFAULT_MAX_NODES, showBroken: q.show_broken ?? true });
}

export const PROVEN_MIN_RATE = 0.7;
export const PROVEN_LIMIT = 5;

/** Whether a note is one to avoid: written as an ANTIPATTERN, or a pattern that mostly failed (as get_antipatterns counts). */
export function isToAvoid(p: PatternSummary): boolean {
  return p.kind === 'antipattern' || (p.success_rate !== null && p.success_rate <= ANTIPATTERN_MAX_RATE && (p.occurrences ?? 0) >= ANTIPATTERN_MIN_OCCURRENCES);
}

/** The best `limit` that fit in `maxChars` (title + trigger + action text), and how many of `all` are left out. */
function fitted(all: PatternSummary[], maxChars: number, limit: number): { patterns: PatternSummary[]; omitted: number } {
  const out: PatternSummary[] = [];
  let left = maxChars;
  for (const p of all.slice(0, limit)) {
    const size = p.title.length + p.trigger.length + p.action.length;
    if (size > left) continue;
    left -= size;
    out.push(p);
  }
  return { patterns: out, omitted: all.length - out.length };
}

/** What a session starts with from the pattern notes: what has worked, and what to avoid. */
export interface SessionPatterns {
  proven: { patterns: PatternSummary[]; omitted: number };
  avoid: { patterns: PatternSummary[]; omitted: number };
  /** Every note to avoid, shown or not: never presented as a learning. */
  avoidPaths: string[];
}

/**
 * The pattern notes a session starts with, each in one section. Proven: pattern notes (never an
 * ANTIPATTERN) with a success rate above 0.7, best first (ties: more occurrences). To avoid:
 * ANTIPATTERN notes, whatever their numbers, and patterns that mostly failed (success rate at
 * most 0.3 over at least 2 occurrences), most seen first. At most 5 each, each section within
 * `maxChars` (trigger + action text).
 */
export function sessionPatterns(root: string, opts: { maxChars: number; limit?: number }): SessionPatterns {
  const all = readPatterns(root).map(summary);
  const limit = opts.limit ?? PROVEN_LIMIT;
  const proven = all.filter((p) => !isToAvoid(p) && p.success_rate !== null && p.success_rate > PROVEN_MIN_RATE).sort(byBest);
  const avoid = all.filter(isToAvoid)
    .sort((a, b) => (b.occurrences ?? -1) - (a.occurrences ?? -1) || (a.success_rate ?? 2) - (b.success_rate ?? 2) || a.title.localeCompare(b.title));
  return { proven: fitted(proven, opts.maxChars, limit), avoid: fitted(avoid, opts.maxChars, limit), avoidPaths: avoid.map((p) => p.path) };
}
