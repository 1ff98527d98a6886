// The causal graph over the notes of .mem/patterns/ (get_causal_path): one node per pattern note
// and per observation note (an outcome, error, decision or event), one edge per line of a note's
// Causal Relationships section; finding a node by a name as a user writes it, and the shortest
// path between two nodes by breadth-first search. Computed on demand from the notes: pure.

import { MemError } from '../errors.js';
import { shownLine } from '../vault/safetext.js';
import type { ParsedNote } from './note.js';
import type { ObservationFile, ObservationKind } from './observation-note.js';
import { causalLines, kebab, type CausalType, type PatternFile } from './pattern-note.js';

/** What a node stands for: a pattern, an anti-pattern, or the kind of an observation note. */
export type NodeType = 'pattern' | 'antipattern' | ObservationKind;

export interface CausalNode {
  /** The permalink when the note has one, else `patterns/<file name without .md, lowercased>`. */
  id: string;
  label: string;
  name: string;
  type: NodeType;
  /** NaN for an observation note (it has no track record of its own). */
  success_rate: number;
  occurrences: number;
  path: string;
}

export interface CausalEdge {
  source: string;
  /** The target node's id, or null when no note (or more than one) answers to `target_text`. */
  target: string | null;
  target_text: string;
  type: CausalType;
  /** Where the edge is written. */
  path: string;
  line: number;
  /** The notes an ambiguous target could mean (then `target` is null). */
  candidates?: string[];
}

export interface CausalGraph {
  nodes: Map<string, CausalNode>;
  edges: CausalEdge[];
  /** Lowercased name, title, permalink and file name → node ids (several when notes share a key). */
  keys: Map<string, string[]>;
  /** The same keys normalised as pattern names are (kebab-case) → node ids. */
  norm: Map<string, string[]>;
  /** Every normalised key with its node id, sorted by key: a prefix's matches are one run of it. */
  sorted: [string, string][];
}

export const DEFAULT_MAX_DEPTH = 5;
export const MAX_DEPTH = 10;

const low = (s: string) => s.trim().toLowerCase();

/** The note-kind prefixes a name may carry (`PATTERN-x`, `OUTCOME-x`): dropped to compare bare names. */
const KIND_PREFIX = /^\s*(?:anti-?pattern|pattern|outcome|error|decision|event|observation)[-_]+/i;

/**
 * A name in the form `mem pattern add` gives it (kebab-case), with and without a kind prefix:
 * "Stop old job before cutover", "PATTERN-stop-old-job-before-cutover" and
 * "PATTERN-stop-old-job-before-cutover.md" name the same note.
 */
export function normalForms(name: string): string[] {
  // A file name as a shell completes it names its note too.
  const bare = name.trim().replace(/\.md$/i, '');
  const m = KIND_PREFIX.exec(bare);
  return [...new Set([kebab(bare), m ? kebab(bare.slice(m[0].length)) : ''].filter((k) => k !== ''))];
}

/** A note as the graph reads it. */
interface GraphNote {
  path: string;
  file: string;
  note: ParsedNote;
  name: string;
  title: string;
  permalink: string;
  type: NodeType;
  success_rate: number;
  occurrences: number;
}

function fromPattern(p: PatternFile): GraphNote {
  const d = p.data;
  return { path: p.path, file: p.file, note: p.note, name: d.name, title: d.title, permalink: d.permalink, type: d.antipattern ? 'antipattern' : 'pattern', success_rate: d.success_rate, occurrences: d.occurrences };
}

function fromObservation(o: ObservationFile): GraphNote {
  const d = o.data;
  return { path: o.path, file: o.file, note: o.note, name: d.name, title: d.title, permalink: d.permalink, type: d.kind, success_rate: Number.NaN, occurrences: Number.NaN };
}

function push(map: Map<string, string[]>, key: string, id: string): void {
  const ids = map.get(key);
  if (!ids) map.set(key, [id]);
  else if (!ids.includes(id)) ids.push(id);
}

/** The first index of `sorted` whose key is >= `key` (binary search). */
function lowerBound(sorted: [string, string][], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid][0] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The nodes a name means, by the first rule that matches anything: the name exactly (case
 * ignored); the name normalised as `mem pattern add` does; a normalised name that starts with it
 * at a word boundary ("stop-old-job" → stop-old-job-before-cutover); and, when `loose` (a name a
 * user typed, not a link in a note), a note whose name contains it. One id: found; several: ambiguous.
 */
export function resolveName(graph: CausalGraph, query: string, loose: boolean): string[] {
  const exact = graph.keys.get(low(query));
  if (exact) return exact;
  // The name as given before the name without its kind prefix: "error-handling" is the note of
  // that name when there is one, not a note named "handling".
  const forms = normalForms(query);
  for (const f of forms) {
    const hit = graph.norm.get(f);
    if (hit) return hit;
  }
  const ids = new Set<string>();
  for (const f of forms) {
    for (let i = lowerBound(graph.sorted, `${f}-`); i < graph.sorted.length && graph.sorted[i][0].startsWith(`${f}-`); i++) ids.add(graph.sorted[i][1]);
    if (ids.size > 0) return [...ids];
  }
  if (!loose) return [];
  const q = low(query);
  for (const n of graph.nodes.values()) {
    if ([n.name, n.label, n.id].some((k) => low(k).includes(q)) || forms.some((f) => kebab(n.name).includes(f) || kebab(n.label).includes(f))) ids.add(n.id);
  }
  return [...ids];
}

function nodeKeys(n: GraphNote, id: string): string[] {
  const base = n.file.replace(/\.md$/i, '');
  return [...new Set([n.name, n.title, id, base].filter(Boolean))];
}

/**
 * The graph of the given notes (pattern notes, and the observation notes the other nodes of an
 * imported graph became); edge targets resolved as resolveName does for a link in a note.
 */
export function buildCausalGraph(patterns: PatternFile[], observations: ObservationFile[] = []): CausalGraph {
  const notes = [...patterns.map(fromPattern), ...observations.map(fromObservation)];
  const nodes = new Map<string, CausalNode>();
  const keys = new Map<string, string[]>();
  const norm = new Map<string, string[]>();
  const idOf = new Map<GraphNote, string>();
  for (const p of notes) {
    let id = p.permalink.trim() || `patterns/${p.file.replace(/\.md$/i, '').toLowerCase()}`;
    // Two notes claiming one permalink stay two nodes (mem validate is where that gets fixed).
    if (nodes.has(id)) id = `${id}#${p.file}`;
    idOf.set(p, id);
    nodes.set(id, { id, label: p.title, name: p.name, type: p.type, success_rate: p.success_rate, occurrences: p.occurrences, path: p.path });
    for (const k of nodeKeys(p, id)) {
      push(keys, low(k), id);
      const n = kebab(k);
      if (n !== '') push(norm, n, id);
    }
  }
  const sorted: [string, string][] = [];
  for (const [k, ids] of norm) for (const id of ids) sorted.push([k, id]);
  sorted.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const graph: CausalGraph = { nodes, edges: [], keys, norm, sorted };
  for (const p of notes) {
    for (const r of causalLines(p.note).rels) {
      const hit = resolveName(graph, r.target, false);
      const edge: CausalEdge = { source: idOf.get(p)!, target: hit.length === 1 ? hit[0] : null, target_text: r.target, type: r.type, path: p.path, line: r.line };
      if (hit.length > 1) edge.candidates = hit.map((id) => nodes.get(id)!.label);
      graph.edges.push(edge);
    }
  }
  return graph;
}

const isPattern = (n: CausalNode) => n.type === 'pattern' || n.type === 'antipattern';

/**
 * The node a user means (resolveName, loose). None or several → a MemError saying so (with the
 * candidates).
 */
export function findNode(graph: CausalGraph, query: string): CausalNode {
  if (low(query) === '') throw new MemError('empty pattern name');
  const candidates = resolveName(graph, query, true).map((id) => graph.nodes.get(id)!);
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    throw new MemError(`no pattern matches "${shownLine(query)}"`, { hint: graph.nodes.size === 0 ? 'there are no pattern notes yet (mem pattern add)' : 'mem pattern list shows the patterns' });
  }
  // Labels are the notes' titles, text of the repository's: controls shown as pictures, never acted on by a terminal.
  const shown = candidates.slice(0, 10).map((n) => shownLine(n.label)).join(', ');
  const noun = candidates.every(isPattern) ? 'patterns' : 'notes';
  throw new MemError(`"${shownLine(query)}" matches ${candidates.length} ${noun}: ${shown}${candidates.length > 10 ? ', …' : ''}`, { hint: 'give more of the name' });
}

export interface PathStep {
  id: string;
  label: string;
  type: NodeType;
  /** The edge taken to reach this node (absent on the first). */
  via?: CausalType;
}

export interface CausalPath {
  found: boolean;
  from: CausalNode;
  to: CausalNode;
  max_depth: number;
  path: PathStep[];
  /** Edges on the path (path.length - 1), or null when none was found. */
  depth: number | null;
  /** Why no path, in words (when found is false). */
  reason?: string;
}

/** The depth a user asked for, checked: default 5, from 1 to 10. */
export function checkDepth(d: number | undefined): number {
  if (d === undefined) return DEFAULT_MAX_DEPTH;
  if (!Number.isInteger(d) || d < 1 || d > MAX_DEPTH) throw new MemError(`max depth must be a whole number from 1 to ${MAX_DEPTH} (got ${d})`, { exitCode: 2 });
  return d;
}

/** The shortest path from `from` to `to` along causal edges (direction kept), at most `maxDepth` edges. */
export function bfsPath(graph: CausalGraph, from: CausalNode, to: CausalNode, maxDepth: number): CausalPath {
  const step = (n: CausalNode, via?: CausalType): PathStep => ({ id: n.id, label: n.label, type: n.type, ...(via ? { via } : {}) });
  if (from.id === to.id) return { found: true, from, to, max_depth: maxDepth, path: [step(from)], depth: 0 };
  const out = new Map<string, CausalEdge[]>();
  for (const e of graph.edges) {
    if (e.target === null) continue;
    const list = out.get(e.source);
    if (list) list.push(e);
    else out.set(e.source, [e]);
  }
  const prev = new Map<string, { from: string; via: CausalType }>();
  const seen = new Set([from.id]);
  let frontier = [from.id];
  let reachable = false;
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const e of out.get(id) ?? []) {
        if (seen.has(e.target!)) continue;
        seen.add(e.target!);
        prev.set(e.target!, { from: id, via: e.type });
        if (e.target === to.id) {
          reachable = true;
          if (depth <= maxDepth) {
            const steps: PathStep[] = [];
            for (let cur: string | undefined = to.id; cur !== undefined; ) {
              const p = prev.get(cur);
              steps.unshift(step(graph.nodes.get(cur)!, p?.via));
              cur = p?.from;
            }
            return { found: true, from, to, max_depth: maxDepth, path: steps, depth: steps.length - 1 };
          }
        }
        next.push(e.target!);
      }
    }
    if (reachable) break;
    frontier = next;
  }
  const reason = reachable
    ? `${to.label} is reachable from ${from.label}, but only in more than ${maxDepth} step${maxDepth === 1 ? '' : 's'} (raise --max-depth, at most ${MAX_DEPTH})`
    : `no chain of causal relationships leads from ${from.label} to ${to.label}`;
  return { found: false, from, to, max_depth: maxDepth, path: [], depth: null, reason };
}

/** A found path as one line: `A —causes→ B —prevents→ C`. */
export function pathLine(p: CausalPath): string {
  return p.path.map((s) => (s.via ? ` —${s.via}→ ${s.label}` : s.label)).join('');
}
