// Observation notes: the nodes of a causal graph that are no pattern (an outcome, an error, a
// decision, an event), `.mem/patterns/OUTCOME-<kebab>.md` and so on beside the pattern notes, so
// that causal relationships lead into them and out of them. Their data, formatter, parser (note →
// data → note is byte-identical for notes mem wrote), schema check, and reading them with the patterns.

import path from 'node:path';
import type { Diagnostic } from '../errors.js';
import { formatFrontmatter } from '../vault/frontmatter.js';
import { safeLine } from '../vault/safetext.js';
import { frontmatterForCheck, listItems, noteTexts, noteType, parseNote, sectionBody, type ParsedNote } from './note.js';
import {
  causalLines, escapeBlock, kebab, linkTarget, notesDirInside, patternFromNote, PATTERNS_DIR, RELATION_LINE, unescapeBlock,
  type CausalRelation, type NoteRelation, type PatternFile,
} from './pattern-note.js';

/** The node types of the ai-agents causal graph that are no pattern; anything else is an `observation`. */
export const OBSERVATION_KINDS = ['outcome', 'error', 'decision', 'event', 'observation'] as const;
export type ObservationKind = (typeof OBSERVATION_KINDS)[number];

export interface ObservationData {
  /** The kebab-case name: the file is `<KIND>-<name>.md`. */
  name: string;
  kind: ObservationKind;
  title: string;
  permalink: string;
  tags: string[];
  /** The Context section: the node as its source wrote it (its label). */
  context: string;
  observations: string[];
  causal: CausalRelation[];
  relations: NoteRelation[];
}

export const OBSERVATION_TAGS = ['causal', 'observation'] as const;

/** The kind a node type names (case ignored); an unknown or missing type is `observation`. */
export function observationKind(type: string): ObservationKind {
  const t = type.trim().toLowerCase();
  return (OBSERVATION_KINDS as readonly string[]).includes(t) ? (t as ObservationKind) : 'observation';
}

export function observationTitle(name: string, kind: ObservationKind): string {
  return `${kind.toUpperCase()}-${name}`;
}

export function observationPermalink(name: string, kind: ObservationKind): string {
  return `patterns/${kind}-${name}`;
}

/** The note's text (LF) for `d`. Sections are always written in the same order. */
export function formatObservationNote(d: ObservationData): string {
  const title = safeLine(d.title);
  const fm = formatFrontmatter({ title, type: 'observation', kind: d.kind, tags: d.tags, permalink: d.permalink });
  const section = (name: string, body: string) => `## ${name}\n${body === '' ? '' : `${body}\n`}\n`;
  const list = (items: string[]) => items.map((x) => `- ${x}`).join('\n');
  let out = `---\n${fm}---\n\n# ${title}\n\n`;
  out += section('Context', escapeBlock(d.context));
  out += section('Observations', list(d.observations.map((o) => safeLine(o))));
  out += section('Causal Relationships', list(d.causal.map((c) => `${c.type} [[${linkTarget(c.target)}]]`)));
  out += section('Relations', list(d.relations.map((r) => `${kebab(r.relation).replace(/-/g, '_') || 'relates_to'} [[${linkTarget(r.target)}]]`)));
  return out.replace(/\n\n$/, '\n');
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));

/** The data of an observation note. Tolerant: missing parts read as empty; validateObservationNote says what is wrong. */
export function observationFromNote(note: ParsedNote, fileName?: string): ObservationData {
  const fm = note.frontmatter?.data ?? {};
  const title = str(fm.title) || note.title?.text || (fileName ?? '').replace(/\.md$/i, '');
  const kind = observationKind(str(fm.kind));
  const base = (fileName ?? title).replace(/\.md$/i, '');
  const m = /^([a-z]+)-(.*)$/i.exec(base);
  const name = m && m[1].toLowerCase() === kind ? m[2] : kebab(base);
  const items = (section: string) => {
    const body = sectionBody(note, section);
    return body === null ? [] : listItems(body.replace(/\r\n/g, '\n')).map((i) => i.text).filter((t) => !/^\(none\)$/i.test(t));
  };
  const context = sectionBody(note, 'Context');
  const tags = Array.isArray(fm.tags) ? fm.tags.map(str) : typeof fm.tags === 'string' ? fm.tags.split(/[,\s]+/).filter(Boolean) : [];
  return {
    name, kind, title, permalink: str(fm.permalink), tags,
    context: context === null ? '' : unescapeBlock(context.replace(/\r\n/g, '\n').trim()),
    observations: items('Observations'),
    causal: causalLines(note).rels.map(({ type, target }) => ({ type, target })),
    relations: items('Relations').map((i) => RELATION_LINE.exec(i)).filter((x): x is RegExpExecArray => x !== null).map((x) => ({ relation: x[1], target: x[2].trim() })),
  };
}

/** Schema problems of an observation note, each at its file line (`rel`: the path shown). */
export function validateObservationNote(note: ParsedNote, rel: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const err = (message: string, line?: number) => out.push({ severity: 'error', message, file: rel, line });
  const head = frontmatterForCheck(note, rel, 'an observation note needs a YAML frontmatter (title, type: observation, kind, tags, permalink)');
  if ('problems' in head) return head.problems;
  const { data: fm, keyLine } = head;
  for (const k of ['title', 'permalink']) {
    if (typeof fm[k] !== 'string' || (fm[k] as string).trim() === '') err(`${k} is missing or not text`, keyLine(k));
  }
  if (fm.kind !== undefined && !(OBSERVATION_KINDS as readonly unknown[]).includes(fm.kind)) {
    err(`kind must be one of ${OBSERVATION_KINDS.join(', ')} (got ${JSON.stringify(fm.kind)})`, keyLine('kind'));
  }
  for (const b of causalLines(note).bad) err(`causal relationship not understood: ${JSON.stringify(b.text.slice(0, 80))} (write "- causes|enables|prevents|correlates [[Target]]")`, b.line);
  return out;
}

export interface ObservationFile {
  /** Path from the vault root, with `/`. */
  path: string;
  file: string;
  note: ParsedNote;
  data: ObservationData;
}

/**
 * The notes of the causal graph in `.mem/patterns/`, read once: pattern notes (`type: pattern`)
 * and observation notes (`type: observation`), by file name. Unreadable files are skipped.
 */
export function readCausalNotes(root: string): { patterns: PatternFile[]; observations: ObservationFile[] } {
  const patterns: PatternFile[] = [];
  const observations: ObservationFile[] = [];
  const dir = notesDirInside(root, PATTERNS_DIR);
  if (dir === null) return { patterns, observations };
  for (const { file, raw } of noteTexts(dir)) {
    const note = parseNote(raw);
    const type = noteType(note.frontmatter?.data);
    const rel = `${PATTERNS_DIR.split(path.sep).join('/')}/${file}`;
    if (type === 'pattern') patterns.push({ path: rel, file, note, data: patternFromNote(note, file) });
    else if (type === 'observation') observations.push({ path: rel, file, note, data: observationFromNote(note, file) });
  }
  return { patterns, observations };
}
