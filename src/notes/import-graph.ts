// Import of the ai-agents project's causal graph (rjmurillo/ai-agents `causal-graph.json`:
// version, updated, nodes, edges, patterns) into notes: one pattern note per pattern, one
// observation note per other node (an outcome, error, decision or event), and every edge between
// two nodes as a causal relationship of its source's note. Its quirks are tolerated: a BOM, nulls,
// 7-digit fractional seconds. Re-importing changes no byte.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { MEMORY_FILE_LIMIT, readRegularText } from '../vault/read.js';
import { safeLine } from '../vault/safetext.js';
import { parseNote, writeNote, type ParsedNote } from './note.js';
import type { RedactionReport } from '../secrets/redact.js';
import {
  formatObservationNote, OBSERVATION_TAGS, observationKind, observationPermalink, observationTitle, type ObservationData,
} from './observation-note.js';
import {
  addSectionLine, causalLines, CAUSAL_TYPES, formatPatternNote, kebab, PATTERN_TAGS, PATTERNS_DIR, patternPermalink, patternTitle,
  type CausalRelation, type CausalType, type PatternData,
} from './pattern-note.js';

export const GRAPH_FILE = 'causal-graph.json';
const NOT_RECORDED = '(not recorded in causal-graph.json)';

export interface GraphImportNote {
  title: string;
  path: string;
  action: 'created' | 'updated' | 'unchanged';
  relationships: number;
}

export interface GraphImportReport {
  /** The file read, or null when the folder has none. */
  file: string | null;
  dry_run: boolean;
  /** The pattern notes. */
  notes: GraphImportNote[];
  /** The observation notes of the nodes that are no pattern (outcomes, errors, decisions, events). */
  other_notes: GraphImportNote[];
  /** Edges kept as observation text: their target is no node of the graph, or their type is no causal one. */
  observations: number;
  /** Nodes that got no note (no usable label). */
  other_nodes: number;
  warnings: string[];
  /** Credentials in the graph, written as placeholders. */
  redacted?: RedactionReport;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A YYYY-MM-DD from an ai-agents timestamp (`2026-01-02T22:18:26.5643068-06:00`: the date as written), or null. */
export function dateOf(v: unknown): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(str(v).trim());
  if (!m) return null;
  const d = new Date(`${m[1]}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === m[1] ? m[1] : null;
}

/** A causal graph export larger than this is not read. */
const GRAPH_LIMIT = 64 << 20;

function readGraph(file: string, display: string): Obj {
  // The file the user named: a regular file only (a FIFO or a device is refused, never opened for a read).
  const raw = readRegularText(file, { maxBytes: GRAPH_LIMIT, display, within: [] });
  let data: unknown;
  try {
    data = JSON.parse(raw.replace(/^\ufeff/, ''));
  } catch (err) {
    throw new MemError(`${display} is not JSON: ${(err as Error).message}`);
  }
  if (!isObj(data)) throw new MemError(`${display}: expected a JSON object with nodes, edges and patterns`);
  for (const k of ['nodes', 'edges', 'patterns']) {
    if (data[k] !== undefined && data[k] !== null && !Array.isArray(data[k])) throw new MemError(`${display}: "${k}" must be a list`);
  }
  return data;
}

export interface GraphNotes {
  notes: PatternData[];
  others: ObservationData[];
  observations: number;
  otherNodes: number;
  warnings: string[];
}

/** A foreign label as text, never a link: `[[`/`]]` in it are split. */
const asText = (s: string) => safeLine(s).replace(/\[\[/g, '[ [').replace(/\]\]/g, '] ]');

/** The notes (as data) a causal graph describes, with what could not be carried over. */
export function patternsFromGraph(graph: Obj, today: string): GraphNotes {
  const warnings: string[] = [];
  const nodes = arr(graph.nodes).filter(isObj);
  const edges = arr(graph.edges);
  const nodeById = new Map(nodes.map((n) => [str(n.id), n]));
  const updated = dateOf(graph.updated);
  const seen = new Map<string, string>();
  const patterns: { p: Obj; name: string }[] = [];
  const addPattern = (p: Obj, where: string) => {
    const name = kebab(str(p.name));
    if (name === '') return void warnings.push(`${where} has no usable name; skipped`);
    if (seen.has(name)) return void warnings.push(`${where} "${safeLine(str(p.name))}" has the same note name as "${seen.get(name)}"; skipped`);
    seen.set(name, safeLine(str(p.name)));
    patterns.push({ p, name });
  };
  arr(graph.patterns).forEach((p, i) => {
    if (!isObj(p)) return void warnings.push(`patterns[${i}] is not an object; skipped`);
    addPattern(p, `patterns[${i}]`);
  });
  // A node whose label is a pattern's name stands for that pattern (the file's only link between
  // the two lists).
  const label = (n: Obj) => safeLine(str(n.label)).toLowerCase();
  const patternOfLabel = new Map<string, string>();
  for (const { p, name } of patterns) patternOfLabel.set(safeLine(str(p.name)).toLowerCase(), name);
  // A pattern node the patterns list lacks is a pattern all the same: its numbers are the node's.
  for (const n of nodes) {
    if (str(n.type).toLowerCase() !== 'pattern' || patternOfLabel.has(label(n)) || seen.has(kebab(str(n.label)))) continue;
    const before = patterns.length;
    addPattern({ id: n.id, name: n.label, success_rate: n.success_rate, occurrences: n.frequency }, `node ${JSON.stringify(safeLine(str(n.id)))}`);
    if (patterns.length > before) patternOfLabel.set(label(n), patterns[patterns.length - 1].name);
  }

  // Every other node becomes an observation note; nodes whose labels give one name share it.
  interface Other { d: ObservationData; ids: string[]; episodes: string[]; metrics: string[] }
  const others = new Map<string, Other>();
  const titleOf = new Map<string, string>();
  let otherNodes = 0;
  for (const n of nodes) {
    const id = str(n.id);
    const k = kebab(str(n.label));
    const pat = patternOfLabel.get(label(n)) ?? (str(n.type).toLowerCase() === 'pattern' && seen.has(k) ? k : undefined);
    if (pat !== undefined) {
      titleOf.set(id, patternTitle(pat, false));
      continue;
    }
    const kind = observationKind(str(n.type));
    let name = kebab(str(n.label)) || kebab(id);
    // "Outcome: success …" of kind outcome is OUTCOME-success-…, not OUTCOME-outcome-success-….
    if (name.startsWith(`${kind}-`) && name.length > kind.length + 1) name = name.slice(kind.length + 1);
    if (name === '') {
      otherNodes++;
      warnings.push(`node ${JSON.stringify(safeLine(id))} has no usable label; not imported`);
      continue;
    }
    const title = observationTitle(name, kind);
    titleOf.set(id, title);
    let o = others.get(title);
    if (o) {
      warnings.push(`node ${JSON.stringify(safeLine(id))} "${asText(str(n.label))}" has the same note name as node ${JSON.stringify(o.ids[0])}; both are ${title}`);
    } else {
      o = {
        d: {
          name, kind, title, permalink: observationPermalink(name, kind),
          tags: kind === 'observation' ? [...OBSERVATION_TAGS] : [...OBSERVATION_TAGS, kind],
          context: asText(str(n.label)) || asText(id), observations: [], causal: [], relations: [],
        },
        ids: [], episodes: [], metrics: [],
      };
      others.set(title, o);
    }
    if (id !== '') o.ids.push(safeLine(id));
    for (const e of arr(n.episodes)) if (str(e).trim() !== '' && !o.episodes.includes(asText(str(e)))) o.episodes.push(asText(str(e)));
    const freq = typeof n.frequency === 'number' && Number.isFinite(n.frequency) ? `frequency ${n.frequency}` : '';
    const rate = typeof n.success_rate === 'number' && n.success_rate >= 0 && n.success_rate <= 1 ? `success rate ${n.success_rate}` : '';
    if (freq || rate) o.metrics.push([freq, rate].filter(Boolean).join(', '));
  }

  // Each edge on its source's note: a causal relationship to the target's note, or (no such
  // node, or a type that is no causal relationship) a line of text, so nothing is lost.
  const causalOf = new Map<string, { rels: CausalRelation[]; keys: Set<string>; text: string[] }>();
  let observations = 0;
  edges.forEach((e, i) => {
    if (!isObj(e)) return void warnings.push(`edges[${i}] is not an object; skipped`);
    const src = titleOf.get(str(e.source));
    if (src === undefined) {
      const why = nodeById.has(str(e.source)) ? 'has no note' : 'is not in the graph';
      return void warnings.push(`edges[${i}]: its source node ${JSON.stringify(safeLine(str(e.source)))} ${why}; skipped`);
    }
    let c = causalOf.get(src);
    if (!c) causalOf.set(src, (c = { rels: [], keys: new Set(), text: [] }));
    const type = str(e.type).toLowerCase();
    const target = titleOf.get(str(e.target));
    if (target !== undefined && (CAUSAL_TYPES as readonly string[]).includes(type)) {
      if (!c.keys.has(`${type} ${target}`)) {
        c.keys.add(`${type} ${target}`);
        c.rels.push({ type: type as CausalType, target });
      }
      return;
    }
    const tlabel = asText(str(nodeById.get(str(e.target))?.label) || str(e.target));
    if (tlabel === '') return;
    c.text.push(`[${safeLine(type) || 'relates'}] ${tlabel} #causal-graph`);
    observations++;
  });

  const out: PatternData[] = [];
  for (const { p, name } of patterns) {
    const title = patternTitle(name, false);
    const c = causalOf.get(title);
    const rate = typeof p.success_rate === 'number' && p.success_rate >= 0 && p.success_rate <= 1 ? p.success_rate : null;
    // Unknown: 0.5 claims neither a proven pattern (> 0.7, shown by mem context) nor an anti-pattern (<= 0.3).
    if (rate === null) warnings.push(`pattern "${safeLine(str(p.name))}": success_rate ${JSON.stringify(p.success_rate ?? null)} is not a number from 0 to 1; written as 0.5 (unknown)`);
    const occ = typeof p.occurrences === 'number' && Number.isInteger(p.occurrences) && p.occurrences >= 1 ? p.occurrences : 1;
    const trigger = safeLine(str(p.trigger)) || NOT_RECORDED;
    const action = str(p.action).trim() || NOT_RECORDED;
    const id = safeLine(str(p.id));
    out.push({
      name, antipattern: false, title, permalink: patternPermalink(name, false), tags: [...PATTERN_TAGS],
      trigger, success_rate: rate ?? 0.5, occurrences: occ, last_validated: dateOf(p.last_used) ?? updated ?? today,
      context: str(p.description).trim() || 'Migrated from the ai-agents causal graph.',
      action, observations: [...(c?.text ?? []), `[migrated] from ai-agents ${GRAPH_FILE}${id ? ` (pattern ${id})` : ''} #migration`],
      causal: c?.rels ?? [], evidence: [], warning: '', relations: [],
    });
  }
  const notes: ObservationData[] = [];
  for (const o of others.values()) {
    const c = causalOf.get(o.d.title);
    const ids = o.ids.length > 0 ? ` (node ${o.ids.join(', ')})` : '';
    notes.push({
      ...o.d,
      causal: c?.rels ?? [],
      observations: [
        ...(c?.text ?? []),
        ...o.metrics.map((m) => `[evidence] ${m} #metrics`),
        ...o.episodes.map((e) => `[episode] ${e} #causal-graph`),
        `[migrated] from ai-agents ${GRAPH_FILE}${ids} #migration`,
      ],
    });
  }
  return { notes: out, others: notes, observations, otherNodes, warnings };
}

/**
 * Import `causal-graph.json` (from `dirOrFile`, a folder holding it or the file itself) into
 * `.mem/patterns/`. A new pattern or other node gets its note; an existing note keeps its text
 * and counts (mem pattern add maintains those) and only gains the causal relationships it lacks.
 * Re-running changes nothing.
 */
export async function importAiAgentsGraph(root: string, dirOrFile: string, opts: { today: string; dryRun?: boolean; display?: string }): Promise<GraphImportReport> {
  let file = dirOrFile;
  const isDir = fs.existsSync(dirOrFile) && fs.statSync(dirOrFile).isDirectory();
  if (isDir) file = path.join(dirOrFile, GRAPH_FILE);
  const report: GraphImportReport = { file: null, dry_run: Boolean(opts.dryRun), notes: [], other_notes: [], observations: 0, other_nodes: 0, warnings: [] };
  if (isDir && !fs.existsSync(file)) return report;
  report.file = file;
  // Redacted as read: names, triggers and actions are all built from it.
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const clean = await redactDeep(readGraph(file, opts.display ?? (isDir ? path.join(path.basename(dirOrFile), GRAPH_FILE) : path.basename(file))));
  const graph = clean.value;
  const redacted = redactionReport(clean.findings);
  if (redacted) report.redacted = redacted;
  const { notes, others, observations, otherNodes, warnings } = patternsFromGraph(graph, opts.today);
  Object.assign(report, { observations, other_nodes: otherNodes });
  report.warnings.push(...warnings);
  const dir = path.join(root, PATTERNS_DIR);
  // A note that exists keeps its text (mem pattern add maintains a pattern's counts) and only
  // gains the causal relationships it lacks, in one edit (one parse, however many there are).
  const put = (title: string, text: () => string, causal: CausalRelation[]): GraphImportNote => {
    const name = `${title}.md`;
    const abs = path.join(dir, name);
    const display = `.mem/patterns/${name}`;
    let action: GraphImportNote['action'] = 'unchanged';
    const change = (current: ParsedNote | null): string | null => {
      if (current === null) {
        action = 'created';
        return text();
      }
      const have = new Set(causalLines(current).rels.map((h) => `${h.type} ${h.target.toLowerCase()}`));
      const missing = causal.filter((r) => !have.has(`${r.type} ${r.target.toLowerCase()}`));
      if (missing.length === 0) return null;
      action = 'updated';
      return addSectionLine(current, 'Causal Relationships', missing.map((r) => `- ${r.type} [[${r.target}]]`).join(current.eol));
    };
    if (opts.dryRun) change(fs.existsSync(abs) ? parseNote(readRegularText(abs, { maxBytes: MEMORY_FILE_LIMIT, display })) : null);
    else writeNote(abs, display, change);
    return { title, path: display, action, relationships: causal.length };
  };
  for (const d of notes) report.notes.push(put(d.title, () => formatPatternNote(d), d.causal));
  for (const d of others) report.other_notes.push(put(d.title, () => formatObservationNote(d), d.causal));
  return report;
}
