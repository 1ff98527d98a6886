// The part of the causal graph a picture shows (`mem pattern graph`): every note, or the notes
// reachable from one within a depth; at most so many nodes; broken links as edges to placeholder
// nodes or left out. Plain sorted data, so the same notes always draw the same diagram. Pure.

import { MemError } from '../errors.js';
import type { CausalGraph, NodeType } from './graph.js';
import { kebab, type CausalType } from './pattern-note.js';

/** A node of the picture: a note of the graph, or a placeholder for a link no single note answers. */
export interface ViewNode {
  id: string;
  label: string;
  type: NodeType | 'missing';
  /** The note's file (null for a placeholder). */
  path: string | null;
}

export interface ViewEdge {
  source: string;
  /** A node id: the note the link leads to, or the placeholder of a broken link. */
  target: string;
  type: CausalType;
  /** True when no note, or more than one, answers to `target_text`. */
  broken: boolean;
  target_text: string;
  /** Where the edge is written. */
  path: string;
  line: number;
  /** The notes an ambiguous target could mean. */
  candidates?: string[];
}

export interface CausalGraphView {
  /** The id of the note the picture starts from (null: the whole graph). */
  from: string | null;
  /** How many steps from `from` (null: no limit). */
  depth: number | null;
  nodes: ViewNode[];
  edges: ViewEdge[];
  /** Notes that qualified (all of them, or those reachable from `from`), shown or not. */
  total_notes: number;
  /** Of those, left out by `max_nodes`. */
  omitted_notes: number;
  /** Broken links out of the notes shown, drawn or not. */
  broken_links: number;
  broken_shown: boolean;
}

export interface GraphViewOptions {
  /** The id of the note to start from (a node of the graph). */
  from?: string;
  /** At most this many steps from `from`. */
  depth?: number;
  /** At most this many notes (placeholders of broken links not counted). */
  maxNodes: number;
  /** Draw broken links (to a placeholder) rather than leave them out. */
  showBroken: boolean;
}

export const DEFAULT_MAX_NODES = 100;

/** Code-unit order, the same in every locale: the output is compared byte for byte. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The placeholder's id for a link target as written: targets that normalise alike share one. */
export function missingId(targetText: string): string {
  return `missing/${kebab(targetText) || targetText.trim().toLowerCase()}`;
}

/** The ids of the notes reachable from `from` along edges (direction kept), nearest first, ties by id. */
function reachable(graph: CausalGraph, from: string, depth: number | undefined): string[] {
  const out = new Map<string, string[]>();
  for (const e of graph.edges) {
    if (e.target === null) continue;
    const list = out.get(e.source);
    if (list) list.push(e.target);
    else out.set(e.source, [e.target]);
  }
  const order = [from];
  const seen = new Set(order);
  let frontier = [from];
  for (let d = 1; frontier.length > 0 && (depth === undefined || d <= depth); d++) {
    const next = [...new Set(frontier.flatMap((id) => out.get(id) ?? []))].filter((id) => !seen.has(id)).sort(cmp);
    for (const id of next) seen.add(id);
    order.push(...next);
    frontier = next;
  }
  return order;
}

/**
 * The notes and edges to draw. From a note: those reachable from it, nearest first when
 * `maxNodes` cuts. The whole graph: the most connected notes first when it cuts (ties by id), so
 * a cut picture keeps its hubs. Edges between shown notes, and broken links out of them.
 */
export function viewCausalGraph(graph: CausalGraph, opts: GraphViewOptions): CausalGraphView {
  if (!Number.isInteger(opts.maxNodes) || opts.maxNodes < 1) throw new MemError(`max nodes must be a whole number >= 1 (got ${opts.maxNodes})`, { exitCode: 2 });
  if (opts.depth !== undefined && opts.from === undefined) throw new MemError('a depth needs a note to start from', { exitCode: 2 });
  let ranked: string[];
  if (opts.from !== undefined) ranked = reachable(graph, opts.from, opts.depth);
  else {
    const degree = new Map<string, number>();
    for (const e of graph.edges) {
      degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
      if (e.target !== null && e.target !== e.source) degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
    }
    ranked = [...graph.nodes.keys()].sort((a, b) => (degree.get(b) ?? 0) - (degree.get(a) ?? 0) || cmp(a, b));
  }
  const shown = new Set(ranked.slice(0, opts.maxNodes));
  const nodes: ViewNode[] = [...shown].map((id) => {
    const n = graph.nodes.get(id)!;
    return { id, label: n.label, type: n.type, path: n.path };
  });
  const edges: ViewEdge[] = [];
  const missing = new Map<string, ViewNode>();
  let broken = 0;
  for (const e of graph.edges) {
    if (!shown.has(e.source)) continue;
    if (e.target !== null) {
      if (shown.has(e.target)) edges.push({ source: e.source, target: e.target, type: e.type, broken: false, target_text: e.target_text, path: e.path, line: e.line });
      continue;
    }
    broken++;
    if (!opts.showBroken) continue;
    const id = missingId(e.target_text);
    const why = e.candidates ? `ambiguous: ${e.candidates.length} notes` : 'no such note';
    if (!missing.has(id)) missing.set(id, { id, label: `${e.target_text.trim()} (${why})`, type: 'missing', path: null });
    edges.push({ source: e.source, target: id, type: e.type, broken: true, target_text: e.target_text, path: e.path, line: e.line, ...(e.candidates ? { candidates: e.candidates } : {}) });
  }
  nodes.push(...missing.values());
  nodes.sort((a, b) => cmp(a.id, b.id));
  edges.sort((a, b) => cmp(a.source, b.source) || cmp(a.target, b.target) || cmp(a.type, b.type) || cmp(a.path, b.path) || a.line - b.line);
  return {
    from: opts.from ?? null, depth: opts.from !== undefined ? (opts.depth ?? null) : null, nodes, edges,
    total_notes: ranked.length, omitted_notes: Math.max(0, ranked.length - opts.maxNodes), broken_links: broken, broken_shown: opts.showBroken,
  };
}

/** Node types in the order a legend lists them. */
export const NODE_TYPES: (NodeType | 'missing')[] = ['pattern', 'antipattern', 'outcome', 'error', 'decision', 'event', 'observation', 'missing'];
