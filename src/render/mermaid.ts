// Mermaid diagrams of mem's data, as GitHub renders them in markdown: the causal graph as a
// flowchart (https://mermaid.js.org/syntax/flowchart.html) and a session's episodes as a gantt
// chart (https://mermaid.js.org/syntax/gantt.html). Pure string building; text of the
// repository's only ever inside labels, escaped so it can end no label and start no statement.

import type { Timeline } from '../episodes/recent.js';
import type { CausalGraphView, ViewNode } from '../notes/graph-view.js';
import { oneLine } from '../quote.js';

/** Labels longer than this are cut at a word boundary: a picture, not the note. */
export const MAX_LABEL = 60;

/** `text` on one line, at most `max` characters, cut after a whole word where there is one (then `…`). */
export function cutLabel(text: string, max = MAX_LABEL): string {
  const s = oneLine(text).replace(/\s+/g, ' ');
  const chars = [...s];
  if (chars.length <= max) return s;
  const head = chars.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  // A word boundary in the last two thirds keeps most of the text; else cut inside the one long word.
  // Punctuation left hanging before the ellipsis ("branch:…") goes too.
  return `${(space >= (max * 2) / 3 ? head.slice(0, space) : head).replace(/[\s:;,.\-\u2013\u2014]+$/u, '')}…`;
}

/** A character as mermaid's entity code (decimal). */
const entity = (c: string) => `#${c.codePointAt(0)};`;

/**
 * Text inside a quoted mermaid label. Mermaid reads `#…;` as an entity code (its documented
 * escape for a `"` in a label), so each character that could end the string (`"`), open an entity
 * (`#`), make a markdown string (a leading backtick), HTML (`<`, `>`, `&`: labels are rendered as
 * HTML) or a directive anywhere in the text (`%%{init: …}%%`) is written as its decimal code.
 */
export function mermaidLabel(text: string, max = MAX_LABEL): string {
  return cutLabel(text, max).replace(/["#`<>&%]/g, entity);
}


/** The opening and closing of each note type's shape. */
const SHAPES: Record<ViewNode['type'], [string, string]> = {
  pattern: ['(', ')'],
  antipattern: ['{{', '}}'],
  outcome: ['([', '])'],
  error: ['>', ']'],
  decision: ['[/', '/]'],
  event: ['[[', ']]'],
  observation: ['[', ']'],
  missing: ['[', ']'],
};

/** Fill, stroke and text colours by note type: light fills that read in GitHub's light and dark themes. */
const CLASSES: Record<ViewNode['type'], string> = {
  pattern: 'fill:#e6f4ea,stroke:#2e7d32,color:#1b5e20',
  antipattern: 'fill:#fdecea,stroke:#c62828,color:#b71c1c',
  outcome: 'fill:#e3f2fd,stroke:#1565c0,color:#0d47a1',
  error: 'fill:#fff3e0,stroke:#ef6c00,color:#e65100',
  decision: 'fill:#f3e5f5,stroke:#6a1b9a,color:#4a148c',
  event: 'fill:#f5f5f5,stroke:#616161,color:#212121',
  observation: 'fill:#f5f5f5,stroke:#616161,color:#212121',
  missing: 'fill:#ffffff,stroke:#9e9e9e,stroke-dasharray:5 5,color:#757575',
};

/** The diagram's counts as comment lines (numbers only: no text of the notes outside a label). */
export function graphSummary(view: CausalGraphView): string[] {
  const notes = view.nodes.filter((n) => n.type !== 'missing').length;
  const out = [`${notes} note${notes === 1 ? '' : 's'}, ${view.edges.length} link${view.edges.length === 1 ? '' : 's'}`];
  if (view.omitted_notes > 0) out.push(`${view.omitted_notes} more note${view.omitted_notes === 1 ? '' : 's'} not shown (max nodes)`);
  if (view.broken_links > 0) out.push(`${view.broken_links} broken link${view.broken_links === 1 ? '' : 's'}${view.broken_shown ? ' (dashed)' : ' not shown'}`);
  return out;
}

/**
 * The view as a mermaid flowchart, left to right. Node ids are `n1`, `n2`, … in the view's order
 * (never a mermaid keyword such as `end`, never a letter an edge could swallow); a shape and a
 * class per note type; edges labelled by relationship, dashed when broken; the same link written
 * twice is drawn once.
 */
export function mermaidFlowchart(view: CausalGraphView): string {
  const ids = new Map(view.nodes.map((n, i) => [n.id, `n${i + 1}`]));
  const lines = ['flowchart LR', ...graphSummary(view).map((s) => `  %% ${s}`)];
  for (const n of view.nodes) {
    const [open, close] = SHAPES[n.type];
    lines.push(`  ${ids.get(n.id)}${open}"${mermaidLabel(n.label || n.id)}"${close}`);
  }
  const seen = new Set<string>();
  for (const e of view.edges) {
    const line = `  ${ids.get(e.source)} ${e.broken ? '-.->' : '-->'}|${e.type}| ${ids.get(e.target)}`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  const byType = new Map<ViewNode['type'], string[]>();
  for (const n of view.nodes) {
    const list = byType.get(n.type);
    if (list) list.push(ids.get(n.id)!);
    else byType.set(n.type, [ids.get(n.id)!]);
  }
  for (const [type, style] of Object.entries(CLASSES) as [ViewNode['type'], string][]) {
    const members = byType.get(type);
    if (!members) continue;
    lines.push(`  classDef ${type} ${style}`, `  class ${members.join(',')} ${type}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A date-time as the gantt chart reads it (`YYYY-MM-DD HH:mm:ss`, UTC), or null. */
function ganttTime(iso: string | null): string | null {
  if (iso === null) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : new Date(t).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Text of a gantt line. Mermaid decodes entity codes in any diagram before parsing it, so the
 * flowchart's escape serves here too, and also codes what ends a gantt name (`:`) or title (`;`).
 */
export function ganttText(text: string, max = MAX_LABEL): string {
  return cutLabel(text, max).replace(/["#`<>&%:;]/g, entity);
}

/**
 * A session's episodes as a mermaid gantt chart: one bar per episode from its start to its end
 * (UTC), numbered in time order, key moments (surprise ≥ 0.7) marked `crit`, an episode with no
 * duration a milestone.
 */
export function mermaidGantt(t: Timeline): string {
  const rows = t.episodes.map((e) => ({ e, start: ganttTime(e.start_at)!, end: ganttTime(e.end_at) }));
  const first = rows[0]?.start ?? '';
  const last = rows.reduce((m, r) => ((r.end ?? r.start) > m ? (r.end ?? r.start) : m), first);
  const oneDay = first.slice(0, 10) === last.slice(0, 10);
  const lines = [
    'gantt',
    `  title ${ganttText(`Session ${t.session}`)} (UTC)`,
    '  dateFormat YYYY-MM-DD HH:mm:ss',
    `  axisFormat ${oneDay ? '%H:%M' : '%m-%d %H:%M'}`,
    '  todayMarker off',
  ];
  if (t.undated > 0) lines.push(`  %% ${t.undated} episode${t.undated === 1 ? '' : 's'} without a start time not shown`);
  rows.forEach(({ e, start, end }, i) => {
    const tags = [...(e.key_moment ? ['crit'] : []), ...(end === null || end <= start ? ['milestone'] : [])];
    const span = end === null || end <= start ? `${start}, 0m` : `${start}, ${end}`;
    // Numbered: a name that began with a word of the chart's own (section, click, excludes …, case
    // ignored) would be read as that statement; a digit starts none of them.
    lines.push(`  ${i + 1}. ${ganttText(e.title) || ganttText(e.id)} :${[...tags, span].join(', ')}`);
  });
  return `${lines.join('\n')}\n`;
}

/** A diagram in a fenced block of its language, for a markdown file or an issue. */
export function fenced(lang: 'mermaid' | 'dot', text: string): string {
  return `\`\`\`${lang}\n${text.endsWith('\n') ? text : `${text}\n`}\`\`\`\n`;
}
