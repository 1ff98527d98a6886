// The causal graph over pattern notes (get_causal_path): one node per pattern note, one edge per
// line of its Causal Relationships section; finding a node by name, and the shortest path between
// two nodes by breadth-first search. Computed on demand from the notes: pure.

import { MemError } from '../errors.js';
import { shownLine } from '../vault/safetext.js';
import { causalLines, type CausalType, type PatternFile } from './pattern-note.js';

export interface CausalNode {
  /** The permalink when the note has one, else `patterns/<file name without .md, lowercased>`. */
  id: string;
  label: string;
  name: string;
  type: 'pattern' | 'antipattern';
  success_rate: number;
  occurrences: number;
  path: string;
}

export interface CausalEdge {
  source: string;
  /** The target node's id, or null when no pattern note answers to `target_text`. */
  target: string | null;
  target_text: string;
  type: CausalType;
  /** Where the edge is written. */
  path: string;
  line: number;
}

export interface CausalGraph {
  nodes: Map<string, CausalNode>;
  edges: CausalEdge[];
  /** Lowercased name, title, permalink and file name → node ids (several when notes share a key). */
  keys: Map<string, string[]>;
}

export const DEFAULT_MAX_DEPTH = 5;
export const MAX_DEPTH = 10;

const low = (s: string) => s.trim().toLowerCase();

function nodeKeys(n: CausalNode, file: string): string[] {
  const base = file.replace(/\.md$/i, '');
  return [...new Set([n.name, n.label, n.id, base].filter(Boolean).map(low))];
}

/** The graph of the given pattern notes; edge targets resolved by exact name/title/permalink, case ignored. */
export function buildCausalGraph(patterns: PatternFile[]): CausalGraph {
  const nodes = new Map<string, CausalNode>();
  const keys = new Map<string, string[]>();
  const idOf = new Map<PatternFile, string>();
  for (const p of patterns) {
    let id = p.data.permalink.trim() || `patterns/${p.file.replace(/\.md$/i, '').toLowerCase()}`;
    // Two notes claiming one permalink stay two nodes (mem validate is where that gets fixed).
    if (nodes.has(id)) id = `${id}#${p.file}`;
    idOf.set(p, id);
    const node: CausalNode = {
      id, label: p.data.title, name: p.data.name, type: p.data.antipattern ? 'antipattern' : 'pattern',
      success_rate: p.data.success_rate, occurrences: p.data.occurrences, path: p.path,
    };
    nodes.set(id, node);
    for (const k of nodeKeys(node, p.file)) keys.set(k, [...(keys.get(k) ?? []), id]);
  }
  const edges: CausalEdge[] = [];
  for (const p of patterns) {
    for (const r of causalLines(p.note).rels) {
      // Then by bare name: PATTERN-x and ANTIPATTERN-x name one pattern (as add_pattern's upsert has it).
      const hit = keys.get(low(r.target)) ?? keys.get(low(r.target.replace(/^(anti-?)?pattern-/i, '')));
      edges.push({ source: idOf.get(p)!, target: hit?.[0] ?? null, target_text: r.target, type: r.type, path: p.path, line: r.line });
    }
  }
  return { nodes, edges, keys };
}

/**
 * The node a user means: an exact name, title, permalink or file name (case ignored), else the
 * one node whose keys contain the text. None or several → a MemError saying so (with the candidates).
 */
export function findNode(graph: CausalGraph, query: string): CausalNode {
  const q = low(query);
  if (q === '') throw new MemError('empty pattern name');
  const exact = graph.keys.get(q);
  if (exact && exact.length === 1) return graph.nodes.get(exact[0])!;
  const candidates = exact && exact.length > 1
    ? exact.map((id) => graph.nodes.get(id)!)
    : [...graph.nodes.values()].filter((n) => [n.name, n.label, n.id].some((k) => low(k).includes(q)));
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    throw new MemError(`no pattern matches "${shownLine(query)}"`, { hint: graph.nodes.size === 0 ? 'there are no pattern notes yet (mem pattern add)' : 'mem pattern list shows the patterns' });
  }
  // Labels are the notes' titles, text of the repository's: controls shown as pictures, never acted on by a terminal.
  const shown = candidates.slice(0, 10).map((n) => shownLine(n.label)).join(', ');
  throw new MemError(`"${shownLine(query)}" matches ${candidates.length} patterns: ${shown}${candidates.length > 10 ? ', …' : ''}`, { hint: 'give more of the name' });
}

export interface PathStep {
  id: string;
  label: string;
  type: 'pattern' | 'antipattern';
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
  for (const e of graph.edges) if (e.target !== null) out.set(e.source, [...(out.get(e.source) ?? []), e]);
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
