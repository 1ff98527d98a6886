// Import of the ai-agents project's causal graph (rjmurillo/ai-agents `causal-graph.json`:
// version, updated, nodes, edges, patterns) into pattern notes, one per pattern. Its
// quirks are tolerated: a BOM, nulls, 7-digit fractional seconds. Re-importing changes no byte.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { MEMORY_FILE_LIMIT, readRegularText } from '../vault/read.js';
import { safeLine } from '../vault/safetext.js';
import { parseNote, writeNote, type ParsedNote } from './note.js';
import type { RedactionReport } from '../secrets/redact.js';
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
  notes: GraphImportNote[];
  /** Edges from a pattern to a node that is no pattern: kept as observations of the pattern. */
  observations: number;
  /** Nodes that are not patterns (errors, decisions, outcomes): no note of their own. */
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

/** The pattern notes (as data) a causal graph describes, with what could not be carried over. */
export function patternsFromGraph(graph: Obj, today: string): { notes: PatternData[]; observations: number; otherNodes: number; warnings: string[] } {
  const warnings: string[] = [];
  const nodes = arr(graph.nodes).filter(isObj);
  const edges = arr(graph.edges).filter(isObj);
  const nodeById = new Map(nodes.map((n) => [str(n.id), n]));
  const updated = dateOf(graph.updated);
  const seen = new Map<string, string>();
  const patterns: { p: Obj; name: string }[] = [];
  arr(graph.patterns).forEach((p, i) => {
    if (!isObj(p)) return void warnings.push(`patterns[${i}] is not an object; skipped`);
    const name = kebab(str(p.name));
    if (name === '') return void warnings.push(`patterns[${i}] has no usable name; skipped`);
    if (seen.has(name)) return void warnings.push(`patterns[${i}] "${safeLine(str(p.name))}" has the same note name as "${seen.get(name)}"; skipped`);
    seen.set(name, safeLine(str(p.name)));
    patterns.push({ p, name });
  });
  // A node whose label is a pattern's name stands for that pattern (the file's only link between
  // the two lists).
  const patternOfLabel = new Map<string, string>();
  for (const { p, name } of patterns) patternOfLabel.set(safeLine(str(p.name)).toLowerCase(), name);
  // Each edge under its source node's label, once: a pattern then reads only its own edges (a
  // graph of thousands of patterns and edges would otherwise cost patterns × edges).
  const edgesByLabel = new Map<string, Obj[]>();
  for (const e of edges) {
    const src = nodeById.get(str(e.source));
    if (!src) continue;
    const key = safeLine(str(src.label)).toLowerCase();
    const list = edgesByLabel.get(key);
    if (list) list.push(e);
    else edgesByLabel.set(key, [e]);
  }
  let observations = 0;
  const out: PatternData[] = [];
  for (const { p, name } of patterns) {
    const label = safeLine(str(p.name)).toLowerCase();
    const causal: CausalRelation[] = [];
    const seenRel = new Set<string>();
    const obs: string[] = [];
    for (const e of edgesByLabel.get(label) ?? []) {
      const tnode = nodeById.get(str(e.target));
      // A foreign label is text, never a link: `[[`/`]]` in it are split.
      const tlabel = safeLine(str(tnode?.label) || str(e.target)).replace(/\[\[/g, '[ [').replace(/\]\]/g, '] ]');
      const type = str(e.type).toLowerCase();
      const target = patternOfLabel.get(tlabel.toLowerCase());
      if (target && (CAUSAL_TYPES as readonly string[]).includes(type)) {
        const t = patternTitle(target, false);
        if (!seenRel.has(`${type} ${t}`)) {
          seenRel.add(`${type} ${t}`);
          causal.push({ type: type as CausalType, target: t });
        }
      } else if (tlabel !== '') {
        // A cause or effect that is no pattern (an error, a decision): kept as evidence text.
        obs.push(`[${safeLine(type) || 'relates'}] ${tlabel} #causal-graph`);
        observations++;
      }
    }
    const rate = typeof p.success_rate === 'number' && p.success_rate >= 0 && p.success_rate <= 1 ? p.success_rate : null;
    // Unknown: 0.5 claims neither a proven pattern (> 0.7, shown by mem context) nor an anti-pattern (<= 0.3).
    if (rate === null) warnings.push(`pattern "${safeLine(str(p.name))}": success_rate ${JSON.stringify(p.success_rate ?? null)} is not a number from 0 to 1; written as 0.5 (unknown)`);
    const occ = typeof p.occurrences === 'number' && Number.isInteger(p.occurrences) && p.occurrences >= 1 ? p.occurrences : 1;
    const trigger = safeLine(str(p.trigger)) || NOT_RECORDED;
    const action = str(p.action).trim() || NOT_RECORDED;
    const id = safeLine(str(p.id));
    out.push({
      name, antipattern: false, title: patternTitle(name, false), permalink: patternPermalink(name, false), tags: [...PATTERN_TAGS],
      trigger, success_rate: rate ?? 0.5, occurrences: occ, last_validated: dateOf(p.last_used) ?? updated ?? today,
      context: str(p.description).trim() || 'Migrated from the ai-agents causal graph.',
      action, observations: [...obs, `[migrated] from ai-agents ${GRAPH_FILE}${id ? ` (pattern ${id})` : ''} #migration`],
      causal, evidence: [], warning: '', relations: [],
    });
  }
  const otherNodes = nodes.filter((n) => !patternOfLabel.has(safeLine(str(n.label)).toLowerCase())).length;
  return { notes: out, observations, otherNodes, warnings };
}

/**
 * Import `causal-graph.json` (from `dirOrFile`, a folder holding it or the file itself) into
 * `.mem/patterns/`. A new pattern gets its note; an existing note keeps its text and counts (mem
 * pattern add maintains those) and only gains the causal relationships it lacks. Re-running
 * changes nothing.
 */
export async function importAiAgentsGraph(root: string, dirOrFile: string, opts: { today: string; dryRun?: boolean; display?: string }): Promise<GraphImportReport> {
  let file = dirOrFile;
  const isDir = fs.existsSync(dirOrFile) && fs.statSync(dirOrFile).isDirectory();
  if (isDir) file = path.join(dirOrFile, GRAPH_FILE);
  const report: GraphImportReport = { file: null, dry_run: Boolean(opts.dryRun), notes: [], observations: 0, other_nodes: 0, warnings: [] };
  if (isDir && !fs.existsSync(file)) return report;
  report.file = file;
  // Redacted as read: names, triggers and actions are all built from it.
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const clean = await redactDeep(readGraph(file, opts.display ?? (isDir ? path.join(path.basename(dirOrFile), GRAPH_FILE) : path.basename(file))));
  const graph = clean.value;
  const redacted = redactionReport(clean.findings);
  if (redacted) report.redacted = redacted;
  const { notes, observations, otherNodes, warnings } = patternsFromGraph(graph, opts.today);
  Object.assign(report, { observations, other_nodes: otherNodes });
  report.warnings.push(...warnings);
  const dir = path.join(root, PATTERNS_DIR);
  for (const d of notes) {
    const name = `${d.title}.md`;
    const abs = path.join(dir, name);
    const display = `.mem/patterns/${name}`;
    let action: GraphImportNote['action'] = 'unchanged';
    const change = (current: ParsedNote | null): string | null => {
      if (current === null) {
        action = 'created';
        return formatPatternNote(d);
      }
      // The relationships the note lacks, added in one edit (one parse, however many there are).
      const have = new Set(causalLines(current).rels.map((h) => `${h.type} ${h.target.toLowerCase()}`));
      const missing = d.causal.filter((r) => !have.has(`${r.type} ${r.target.toLowerCase()}`));
      if (missing.length === 0) return null;
      action = 'updated';
      return addSectionLine(current, 'Causal Relationships', missing.map((r) => `- ${r.type} [[${r.target}]]`).join(current.eol));
    };
    if (opts.dryRun) change(fs.existsSync(abs) ? parseNote(readRegularText(abs, { maxBytes: MEMORY_FILE_LIMIT, display })) : null);
    else writeNote(abs, display, change);
    report.notes.push({ title: d.title, path: display, action, relationships: d.causal.length });
  }
  return report;
}
