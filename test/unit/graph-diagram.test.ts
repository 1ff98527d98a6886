import { describe, expect, it } from 'vitest';
import type { RecentEpisode } from '../../src/episodes/recent.js';
import { timelineOf } from '../../src/episodes/recent.js';
import { buildCausalGraph } from '../../src/notes/graph.js';
import { viewCausalGraph } from '../../src/notes/graph-view.js';
import { parseNote } from '../../src/notes/note.js';
import { formatObservationNote, observationFromNote, type ObservationFile, type ObservationKind } from '../../src/notes/observation-note.js';
import { formatPatternNote, patternFromNote, type CausalRelation, type PatternFile } from '../../src/notes/pattern-note.js';
import { dotGraph, dotString } from '../../src/render/dot.js';
import { cutLabel, fenced, ganttText, mermaidFlowchart, mermaidGantt, mermaidLabel } from '../../src/render/mermaid.js';

function pat(name: string, causal: CausalRelation[], opts: { anti?: boolean; title?: string } = {}): PatternFile {
  const kind = opts.anti ? 'ANTIPATTERN' : 'PATTERN';
  const file = `${kind}-${name}.md`;
  const text = formatPatternNote({
    name, antipattern: Boolean(opts.anti), title: opts.title ?? `${kind}-${name}`, permalink: `patterns/${kind.toLowerCase()}-${name}`, tags: ['causal', 'pattern'], trigger: 't',
    success_rate: 1, occurrences: 1, last_validated: '2026-11-01', context: '', action: 'a', observations: [], causal, evidence: [], warning: '', relations: [],
  });
  const note = parseNote(text);
  return { path: `.mem/patterns/${file}`, file, note, data: patternFromNote(note, file) };
}

function obs(name: string, kind: ObservationKind, causal: CausalRelation[] = []): ObservationFile {
  const title = `${kind.toUpperCase()}-${name}`;
  const text = formatObservationNote({ name, kind, title, permalink: `patterns/${kind}-${name}`, tags: ['causal', 'observation', kind], context: name, observations: [], causal, relations: [] });
  const note = parseNote(text);
  return { path: `.mem/patterns/${title}.md`, file: `${title}.md`, note, data: observationFromNote(note, `${title}.md`) };
}

/** A job cutover: one pattern, an anti-pattern, an outcome, an error, a decision; one broken link. */
function cutover() {
  return buildCausalGraph(
    [
      pat('stop-old-job', [{ type: 'causes', target: 'OUTCOME-no-duplicates' }, { type: 'prevents', target: 'ERROR-duplicate-emails' }]),
      pat('run-both-jobs', [{ type: 'causes', target: 'ERROR-duplicate-emails' }, { type: 'causes', target: 'Angry customers' }], { anti: true }),
    ],
    [obs('no-duplicates', 'outcome'), obs('duplicate-emails', 'error', [{ type: 'prevents', target: 'OUTCOME-no-duplicates' }]), obs('keep-both', 'decision', [{ type: 'enables', target: 'ANTIPATTERN-run-both-jobs' }])],
  );
}

const all = (g: ReturnType<typeof cutover>, more: Partial<Parameters<typeof viewCausalGraph>[1]> = {}) => viewCausalGraph(g, { maxNodes: 100, showBroken: true, ...more });

/** Every quoted label of a mermaid node line, as the text between its quotes. */
const mermaidLabels = (text: string) => [...text.matchAll(/^ {2}n\d+[^"]*"([^"]*)"[^"]*$/gm)].map((m) => m[1]);

/**
 * The flowchart grammar this renderer may emit, line by line (no mermaid parser runs headless on
 * Node 20 for flowcharts, so the tests hold the output to this strictly): the header, `%%`
 * comments, one node per line with its label in one pair of quotes and nothing but entity codes
 * for the characters mermaid reads, edges between defined nodes, class definitions.
 */
function checkFlowchart(text: string): void {
  const lines = text.split('\n');
  expect(lines[0]).toBe('flowchart LR');
  expect(lines.at(-1)).toBe('');
  const defined = new Set<string>();
  const SHAPE = /^ {2}(n\d+)(\(|\{\{|\(\[|>|\[\/|\[\[|\[)"((?:[^"#`<>&%\n]|#\d+;)*)"(\)|\}\}|\]\)|\]|\/\]|\]\])$/;
  for (const line of lines.slice(1, -1)) {
    const node = SHAPE.exec(line);
    if (node) {
      const pairs: Record<string, string> = { '(': ')', '{{': '}}', '([': '])', '>': ']', '[/': '/]', '[[': ']]', '[': ']' };
      expect(pairs[node[2]]).toBe(node[4]);
      expect(defined.has(node[1])).toBe(false);
      defined.add(node[1]);
      continue;
    }
    const edge = /^ {2}(n\d+) (-->|-\.->)\|(causes|enables|prevents|correlates)\| (n\d+)$/.exec(line);
    if (edge) {
      expect(defined.has(edge[1]) && defined.has(edge[4])).toBe(true);
      continue;
    }
    expect(line).toMatch(/^ {2}(%% [\w ,()]+|classDef [a-z]+ [a-z-]+:[#\w ]+(,[a-z-]+:[#\w ]+)*|class n\d+(,n\d+)* [a-z]+)$/);
  }
}

describe('the view of the causal graph', () => {
  it('keeps every note and edge, sorted, with a placeholder for a broken link', () => {
    const v = all(cutover());
    expect(v.nodes.map((n) => [n.id, n.type])).toEqual([
      ['missing/angry-customers', 'missing'],
      ['patterns/antipattern-run-both-jobs', 'antipattern'],
      ['patterns/decision-keep-both', 'decision'],
      ['patterns/error-duplicate-emails', 'error'],
      ['patterns/outcome-no-duplicates', 'outcome'],
      ['patterns/pattern-stop-old-job', 'pattern'],
    ]);
    expect(v.nodes[0]).toMatchObject({ label: 'Angry customers (no such note)', path: null });
    expect(v.edges.map((e) => `${e.source} ${e.type} ${e.target}${e.broken ? ' broken' : ''}`)).toEqual([
      'patterns/antipattern-run-both-jobs causes missing/angry-customers broken',
      'patterns/antipattern-run-both-jobs causes patterns/error-duplicate-emails',
      'patterns/decision-keep-both enables patterns/antipattern-run-both-jobs',
      'patterns/error-duplicate-emails prevents patterns/outcome-no-duplicates',
      'patterns/pattern-stop-old-job prevents patterns/error-duplicate-emails',
      'patterns/pattern-stop-old-job causes patterns/outcome-no-duplicates',
    ]);
    expect(v).toMatchObject({ from: null, depth: null, total_notes: 5, omitted_notes: 0, broken_links: 1, broken_shown: true });
    // Left out: counted, no placeholder.
    const hidden = all(cutover(), { showBroken: false });
    expect(hidden.nodes.some((n) => n.type === 'missing')).toBe(false);
    expect(hidden.edges).toHaveLength(5);
    expect(hidden).toMatchObject({ broken_links: 1, broken_shown: false });
  });

  it('starts from a note: what it reaches, within the depth, nearest first when cut', () => {
    const g = cutover();
    const from = all(g, { from: 'patterns/decision-keep-both' });
    expect(from.nodes.map((n) => n.id)).toEqual(['missing/angry-customers', 'patterns/antipattern-run-both-jobs', 'patterns/decision-keep-both', 'patterns/error-duplicate-emails', 'patterns/outcome-no-duplicates']);
    // The anti-pattern's broken link comes with it: it is a link out of a note shown.
    expect(all(g, { from: 'patterns/decision-keep-both', depth: 1 }).nodes.map((n) => n.id)).toEqual(['missing/angry-customers', 'patterns/antipattern-run-both-jobs', 'patterns/decision-keep-both']);
    expect(all(g, { from: 'patterns/decision-keep-both', depth: 0 }).nodes.map((n) => n.id)).toEqual(['patterns/decision-keep-both']);
    const cut = all(g, { from: 'patterns/decision-keep-both', maxNodes: 2 });
    expect(cut.nodes.map((n) => n.id)).toEqual(['patterns/antipattern-run-both-jobs', 'missing/angry-customers', 'patterns/decision-keep-both'].sort());
    expect(cut).toMatchObject({ total_notes: 4, omitted_notes: 2 });
    // The outcome is a sink: it reaches only itself.
    expect(all(g, { from: 'patterns/outcome-no-duplicates' }).nodes).toHaveLength(1);
    expect(() => viewCausalGraph(g, { depth: 2, maxNodes: 10, showBroken: true })).toThrow(/start from/);
  });

  it('cuts the whole graph to its most connected notes, ties by id', () => {
    const v = all(cutover(), { maxNodes: 2, showBroken: false });
    // Degrees: error 3, antipattern 3 (one broken), outcome 2, pattern 2, decision 1.
    expect(v.nodes.map((n) => n.id)).toEqual(['patterns/antipattern-run-both-jobs', 'patterns/error-duplicate-emails']);
    expect(v.edges.map((e) => e.type)).toEqual(['causes']);
    expect(v).toMatchObject({ total_notes: 5, omitted_notes: 3 });
  });
});

const HOSTILE = [
  'Quote "this" and \'that\'',
  'brackets [x] (y) {z} {{w}} >v] [/u/]',
  'arrow --> n1 -.-> n2 ==> x | pipe |causes|',
  'line one\nline two\r\nline three\u2028four',
  '%%{init: {"theme": "dark"}}%% directive',
  '`markdown` **bold** _it_ <b>html</b> <script>alert(1)</script> &amp;',
  'entity #quot; #35; C# end; style n1 fill:red',
  'end',
  'A very long label that goes on and on about a pattern that nobody will ever read in full anyway',
];

describe('mermaid text', () => {
  it('cuts long labels at a word boundary, on one line', () => {
    expect(cutLabel('short')).toBe('short');
    expect(cutLabel('a\nb\tc')).toBe('a b c');
    const long = cutLabel(HOSTILE[8]);
    expect(long).toBe('A very long label that goes on and on about a pattern that…');
    expect([...long].length).toBeLessThanOrEqual(60);
    // One long word: cut inside it.
    expect(cutLabel('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
    // Characters, not UTF-16 units: an emoji is never split.
    expect(cutLabel('😀'.repeat(20), 10)).toBe(`${'😀'.repeat(9)}…`);
  });

  it('escapes every character mermaid reads inside a label as an entity code', () => {
    expect(mermaidLabel('say "hi" <b> & 50% #1 `x`')).toBe('say #34;hi#34; #60;b#62; #38; 50#37; #35;1 #96;x#96;');
    for (const h of HOSTILE) {
      const l = mermaidLabel(h);
      expect(l).not.toMatch(/["`<>&%\n\r\u2028]/);
      // A # only ever opens one of our entity codes.
      expect(l.replace(/#\d+;/g, '')).not.toContain('#');
    }
  });

  it('draws the view as a flowchart: shapes and classes by type, edges by relationship, broken dashed', () => {
    const text = mermaidFlowchart(all(cutover()));
    expect(text).toBe(`flowchart LR
  %% 5 notes, 6 links
  %% 1 broken link (dashed)
  n1["Angry customers (no such note)"]
  n2{{"ANTIPATTERN-run-both-jobs"}}
  n3[/"DECISION-keep-both"/]
  n4>"ERROR-duplicate-emails"]
  n5(["OUTCOME-no-duplicates"])
  n6("PATTERN-stop-old-job")
  n2 -.->|causes| n1
  n2 -->|causes| n4
  n3 -->|enables| n2
  n4 -->|prevents| n5
  n6 -->|prevents| n4
  n6 -->|causes| n5
  classDef pattern fill:#e6f4ea,stroke:#2e7d32,color:#1b5e20
  class n6 pattern
  classDef antipattern fill:#fdecea,stroke:#c62828,color:#b71c1c
  class n2 antipattern
  classDef outcome fill:#e3f2fd,stroke:#1565c0,color:#0d47a1
  class n5 outcome
  classDef error fill:#fff3e0,stroke:#ef6c00,color:#e65100
  class n4 error
  classDef decision fill:#f3e5f5,stroke:#6a1b9a,color:#4a148c
  class n3 decision
  classDef missing fill:#ffffff,stroke:#9e9e9e,stroke-dasharray:5 5,color:#757575
  class n1 missing
`);
    checkFlowchart(text);
    expect(fenced('mermaid', text)).toBe(`\`\`\`mermaid\n${text}\`\`\`\n`);
  });

  it('keeps hostile titles and link targets inside their labels', () => {
    const notes = HOSTILE.map((title, i) => pat(`h${i}`, [{ type: 'causes', target: `PATTERN-h${(i + 1) % HOSTILE.length}` }, { type: 'enables', target: `${title.replace(/\n/g, ' ')} missing` }], { title }));
    const view = all(buildCausalGraph(notes));
    const text = mermaidFlowchart(view);
    checkFlowchart(text);
    // Every title, decoded, is the title on one line (cut where long): nothing was lost or added.
    const decoded = mermaidLabels(text).map((l) => l.replace(/#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d))));
    for (const n of view.nodes) expect(decoded).toContain(cutLabel(n.label));
    expect(text.match(/^ {2}n\d+ -->/gm)).toHaveLength(HOSTILE.length);
    expect(text.match(/^ {2}n\d+ -\.->/gm)).toHaveLength(HOSTILE.length);
    // The same input draws the same bytes whatever the order of the notes.
    expect(mermaidFlowchart(all(buildCausalGraph([...notes].reverse())))).toBe(text);
  });

  it('notes a cut picture in a comment', () => {
    const text = mermaidFlowchart(all(cutover(), { maxNodes: 2 }));
    expect(text).toContain('  %% 3 more notes not shown (max nodes)\n');
    checkFlowchart(text);
  });
});

/** A DOT quoted string's text: `\"` is a quote, `\\` a backslash (as a label shows it). */
const undot = (s: string) => s.replace(/\\(["\\])/g, '$1');

describe('DOT', () => {
  it('quotes ids and labels so that no text ends a string', () => {
    expect(dotString('a "b" \\ c')).toBe('"a \\"b\\" \\\\ c"');
    expect(dotString('end\\')).toBe('"end\\\\"');
    const notes = HOSTILE.map((title, i) => pat(`h${i}`, [{ type: 'causes', target: `PATTERN-h${(i + 1) % HOSTILE.length}` }, { type: 'prevents', target: `${title} \\ missing` }], { title }));
    const view = all(buildCausalGraph(notes));
    const text = dotGraph(view);
    const lines = text.split('\n');
    expect(lines[0]).toBe('digraph causal {');
    expect(lines.at(-2)).toBe('}');
    const STR = '"((?:[^"\\\\\\n]|\\\\["\\\\])*)"';
    const labels: string[] = [];
    for (const line of lines.slice(1, -2)) {
      const node = new RegExp(`^ {2}${STR} \\[label=${STR}, [a-z]+=[^"\\n]*(?:"[^"\\\\\\n]*"[^"\\n]*)*\\];$`).exec(line);
      if (node) {
        labels.push(undot(node[2]));
        continue;
      }
      if (new RegExp(`^ {2}${STR} -> ${STR} \\[label="(causes|enables|prevents|correlates)"(, style=dashed)?\\];$`).test(line)) continue;
      expect(line).toMatch(/^ {2}(\/\/ [\w ,()]+|rankdir=LR;|(node|edge) \[[^\]]*\];)$/);
    }
    for (const n of view.nodes) expect(labels).toContain(cutLabel(n.label));
    expect(text.match(/ -> /g)).toHaveLength(2 * HOSTILE.length);
  });
});

function episode(n: number, title: string, start: string | null, end: string | null, key = false): RecentEpisode {
  return { id: `ep-s-${String(n).padStart(3, '0')}`, title, session_id: 's', start_at: start, end_at: end, surprise: key ? 0.8 : 0.1, key_moment: key, path: '.mem/episodes/s.md', line: 1, summary: '' };
}

describe('a session timeline as a gantt chart', () => {
  it('puts episodes in time order, UTC, key moments crit, instants as milestones', () => {
    const t = timelineOf('s42', [
      episode(3, 'Deploy: the fix', '2026-11-20T11:00:00+01:00', '2026-11-20T10:30:00Z', true),
      episode(1, 'section of the code that fails', '2026-11-20T09:00:00Z', '2026-11-20T09:20:00Z'),
      episode(2, 'Click here #1; 100% done %%{init: {}}%%', '2026-11-20T09:25:00.500Z', '2026-11-20T09:25:00.500Z'),
      episode(4, 'no start', null, '2026-11-20T12:00:00Z'),
    ]);
    expect(t.undated).toBe(1);
    expect(mermaidGantt(t)).toBe(`gantt
  title Session s42 (UTC)
  dateFormat YYYY-MM-DD HH:mm:ss
  axisFormat %H:%M
  todayMarker off
  %% 1 episode without a start time not shown
  1. section of the code that fails :2026-11-20 09:00:00, 2026-11-20 09:20:00
  2. Click here #35;1#59; 100#37; done #37;#37;{init#58; {}}#37;#37; :milestone, 2026-11-20 09:25:00, 0m
  3. Deploy#58; the fix :crit, 2026-11-20 10:00:00, 2026-11-20 10:30:00
`);
  });

  it('shows the day on the axis when a session spans days; no text of a title ends its name', () => {
    const t = timelineOf('s:1', [episode(1, 'a', '2026-11-20T23:00:00Z', '2026-11-21T01:00:00Z'), episode(2, 'b\nc', '2026-11-21T02:00:00Z', '2026-11-21T03:00:00Z')]);
    const text = mermaidGantt(t);
    expect(text).toContain('  axisFormat %m-%d %H:%M\n');
    expect(text).toContain('  title Session s#58;1 (UTC)\n');
    expect(text).toContain('  2. b c :2026-11-21 02:00:00, 2026-11-21 03:00:00\n');
    for (const h of HOSTILE) {
      const g = ganttText(h);
      // Nothing but entity codes: no `:`, `;`, `#` or `%` of the title's own, decoded back to the title.
      expect(g.replace(/#\d+;/g, '')).not.toMatch(/[:#;%"`<>&\n]/);
      expect(g.replace(/#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))).toBe(cutLabel(h));
    }
  });
});
