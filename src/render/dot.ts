// The causal graph in Graphviz's DOT language (https://graphviz.org/doc/info/lang.html), for
// `dot -Tsvg`: every id and label a quoted string. Pure string building.

import type { CausalGraphView, ViewNode } from '../notes/graph-view.js';
import { cutLabel, graphSummary } from './mermaid.js';

/**
 * A DOT quoted string. Inside one only `\"` is an escape of the language, but a label reads
 * backslash sequences of its own (`\n`, `\l`, `\N` …), so a backslash is doubled as well; the
 * text is one line already (cutLabel), so no line break needs a continuation.
 */
export function dotString(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}

/** Shape, style and colours per note type (the colours of the mermaid picture). */
const NODE_ATTRS: Record<ViewNode['type'], string> = {
  pattern: 'shape=box, style="rounded,filled", fillcolor="#e6f4ea", color="#2e7d32", fontcolor="#1b5e20"',
  antipattern: 'shape=hexagon, style=filled, fillcolor="#fdecea", color="#c62828", fontcolor="#b71c1c"',
  outcome: 'shape=ellipse, style=filled, fillcolor="#e3f2fd", color="#1565c0", fontcolor="#0d47a1"',
  error: 'shape=cds, style=filled, fillcolor="#fff3e0", color="#ef6c00", fontcolor="#e65100"',
  decision: 'shape=parallelogram, style=filled, fillcolor="#f3e5f5", color="#6a1b9a", fontcolor="#4a148c"',
  event: 'shape=box, style=filled, fillcolor="#f5f5f5", color="#616161", fontcolor="#212121", peripheries=2',
  observation: 'shape=box, style=filled, fillcolor="#f5f5f5", color="#616161", fontcolor="#212121"',
  missing: 'shape=box, style=dashed, color="#9e9e9e", fontcolor="#757575"',
};

/** The view as a DOT digraph, left to right; the notes' ids as node ids, so the output reads back to the notes. */
export function dotGraph(view: CausalGraphView): string {
  const lines = [
    'digraph causal {',
    ...graphSummary(view).map((s) => `  // ${s}`),
    '  rankdir=LR;',
    '  node [fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=9, color="#555555"];',
  ];
  for (const n of view.nodes) lines.push(`  ${dotString(n.id)} [label=${dotString(cutLabel(n.label || n.id))}, ${NODE_ATTRS[n.type]}];`);
  const seen = new Set<string>();
  for (const e of view.edges) {
    const line = `  ${dotString(e.source)} -> ${dotString(e.target)} [label=${dotString(e.type)}${e.broken ? ', style=dashed' : ''}];`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
