// `mem validate` (and one source of `mem lint`): the typed notes of the vault (.mem/episodes/,
// .mem/patterns/) checked against their schemas, their [[links]] resolved, and the causal graph's
// edges checked for targets that exist. Findings are Diagnostics with file:line.

import path from 'node:path';
import type { Diagnostic } from '../errors.js';
import { parseMemoryFile, type ParsedFile } from '../vault/format.js';
import { readVaultText } from '../vault/read.js';
import { discoverFiles, type Vault } from '../vault/vault.js';
import { DECISION_HEAD, validateEpisodeNote } from './episode-note.js';
import { buildCausalGraph, normalForms } from './graph.js';
import { conflictDiagnostic, findSection, listItems, noteFiles, noteType, parseNote, wikiLinks, type NoteType, type ParsedNote } from './note.js';
import { observationFromNote, validateObservationNote, type ObservationFile } from './observation-note.js';
import { kebab, notesDirInside, patternFromNote, validatePatternNote, type PatternFile } from './pattern-note.js';

export type NoteValidator = (note: ParsedNote, rel: string) => Diagnostic[];

// ==== Schema validators, one per note type ======================================================
// Each typed note is checked by the validators of its frontmatter `type`. To add a type's
// checks (e.g. `validateEpisodeNote` from episode-note.ts), add one line here.
export const NOTE_VALIDATORS: { type: NoteType; validate: NoteValidator }[] = [
  { type: 'episode', validate: validateEpisodeNote },
  { type: 'pattern', validate: validatePatternNote },
  { type: 'observation', validate: validateObservationNote },
];
// =================================================================================================

/** The folders of typed notes, from the vault root. */
export const TYPED_NOTE_DIRS = [path.join('.mem', 'episodes'), path.join('.mem', 'patterns')];

export interface TypedNote {
  /** Path from the vault root, with `/`. */
  path: string;
  file: string;
  note: ParsedNote;
  type: NoteType | null;
}

/** Which type a file claims by its name, for a note whose frontmatter does not say (or does not parse). */
function typeByName(file: string): NoteType | null {
  if (/^(ANTI-?)?PATTERN-/i.test(file)) return 'pattern';
  if (/^EPISODE-/i.test(file)) return 'episode';
  return null;
}

/**
 * The typed notes: every `.md` in the typed-note folders whose frontmatter `type` is a note type,
 * and those named like one (`PATTERN-…`, `EPISODE-…`) whatever their frontmatter says. Other
 * files there (the segment episodes of `mem segment`) are not typed notes.
 */
export function readTypedNotes(root: string): { notes: TypedNote[]; unreadable: Diagnostic[] } {
  const notes: TypedNote[] = [];
  const unreadable: Diagnostic[] = [];
  for (const dir of TYPED_NOTE_DIRS) {
    if (notesDirInside(root, dir) === null) {
      unreadable.push({ severity: 'warning', message: 'not read: the folder leads out of the vault through a symlink', file: dir.split(path.sep).join('/') });
      continue;
    }
    for (const file of noteFiles(path.join(root, dir))) {
      const rel = `${dir.split(path.sep).join('/')}/${file}`;
      const r = readVaultText(path.join(root, dir, file));
      if ('error' in r) {
        if (typeByName(file)) unreadable.push({ severity: 'error', message: `cannot read the note: ${r.error}`, file: rel });
        continue;
      }
      const note = parseNote(r.text);
      const type = noteType(note.frontmatter?.data) ?? typeByName(file);
      if (type) notes.push({ path: rel, file, note, type });
    }
  }
  return { notes, unreadable };
}

/** Link targets that exist outside the typed notes: other markdown files' names, entry ids and titles. */
export function vaultLinkTargets(files: { path: string; text: string }[]): string[] {
  const out: string[] = [];
  // One by one, not spread: a file of a hundred thousand entries would pass too many arguments.
  for (const f of files) for (const t of linkTargetsOf(f.path, parseMemoryFile(f.text, f.path))) out.push(t);
  return out;
}

/** vaultLinkTargets of one file, from its parse. */
export function linkTargetsOf(filePath: string, parsed: Pick<ParsedFile, 'entries'>): string[] {
  const base = filePath.slice(filePath.lastIndexOf('/') + 1);
  const out = [base, base.replace(/\.md$/i, ''), filePath, filePath.replace(/\.md$/i, '')];
  for (const e of parsed.entries) {
    out.push(e.id);
    if (e.title !== '') out.push(e.title);
  }
  return out;
}

const low = (s: string) => s.trim().toLowerCase();

/** The names a typed note answers to: file name (with and without .md), titles, permalink, a pattern's bare name. */
function namesOf(n: TypedNote): string[] {
  const fm = n.note.frontmatter?.data ?? {};
  const names = [n.file, n.file.replace(/\.md$/i, ''), n.path, n.path.replace(/\.md$/i, '')];
  if (typeof fm.title === 'string') names.push(fm.title);
  if (typeof fm.permalink === 'string') names.push(fm.permalink);
  if (n.note.title) names.push(n.note.title.text);
  if (n.type === 'pattern') names.push(patternFromNote(n.note, n.file).name);
  if (n.type === 'observation') names.push(observationFromNote(n.note, n.file).name);
  return names;
}

/** `[[d001]]` / `[[e003]]`: a decision heading (`### d001: …`) of the same note, or an event by its place in the timeline. */
function localIds(note: ParsedNote): Set<string> {
  const ids = new Set<string>();
  for (const m of note.text.matchAll(/^###[ \t]+([a-z]+\d+)\b/gim)) ids.add(low(m[1]));
  // Any id mem writes (store_episode takes letters, digits, `_`, `-`, `.`: `pick-db`), as the episode parser reads it.
  const dec = findSection(note, 'Decisions');
  if (dec) {
    for (const line of note.text.slice(dec.bodyStart, dec.end).split('\n')) {
      const h = DECISION_HEAD.exec(line.replace(/\r$/, ''));
      if (h) ids.add(low(h[1]));
    }
  }
  const ev = findSection(note, 'Events Timeline');
  if (ev) {
    const items = listItems(note.text.slice(ev.bodyStart, ev.end));
    items.forEach((it, i) => {
      ids.add(`e${String(i + 1).padStart(3, '0')}`);
      const own = /\b(e\d+)\b/i.exec(it.text);
      if (own) ids.add(low(own[1]));
    });
  }
  return ids;
}

/** How many notes of one type there are, and how many have no error. */
export interface NoteTally {
  total: number;
  valid: number;
}

/** A causal edge whose target names no note (or several). */
export interface BrokenLink {
  /** The title of the note the edge is written in. */
  source: string;
  /** The target as written. */
  target: string;
  type: string;
  file: string;
  line: number;
  /** The notes an ambiguous target could mean. */
  candidates?: string[];
}

export interface ValidateReport {
  /** How many typed notes were checked. */
  notes: number;
  diagnostics: Diagnostic[];
  /** The totals a migration report gives: notes per type that pass their checks, and the causal graph's edges. */
  episodes: NoteTally;
  patterns: NoteTally;
  observations: NoteTally;
  graph_integrity: { total_edges: number; valid_edges: number; broken_links: BrokenLink[] };
}

/**
 * Check every typed note: its schema (NOTE_VALIDATORS), its [[links]] (a note name, title or
 * permalink, also as `mem pattern add` normalises names; an entry id or title from `known`; a
 * decision/event id of the same note), and its causal edges (the target must name one pattern or
 * observation note, as the causal graph resolves it). Sorted by file and line; with the totals
 * per note type and of the graph's edges.
 */
export function validateTypedNotes(root: string, opts: { known?: Iterable<string> } = {}): ValidateReport {
  const { notes, unreadable } = readTypedNotes(root);
  const diags: Diagnostic[] = [...unreadable];
  const known = new Set<string>([...(opts.known ?? [])].map(low));
  // A typed note also answers to its names as `mem pattern add` normalises them ("Stop old job" → stop-old-job).
  const knownNorm = new Set<string>();
  for (const n of notes) {
    for (const name of namesOf(n)) {
      known.add(low(name));
      const k = kebab(name);
      if (k !== '') knownNorm.add(k);
    }
  }
  const patterns: PatternFile[] = notes.filter((n) => n.type === 'pattern' && n.note.frontmatter).map((n) => ({ path: n.path, file: n.file, note: n.note, data: patternFromNote(n.note, n.file) }));
  const observations: ObservationFile[] = notes.filter((n) => n.type === 'observation' && n.note.frontmatter).map((n) => ({ path: n.path, file: n.file, note: n.note, data: observationFromNote(n.note, n.file) }));
  const graph = buildCausalGraph(patterns, observations);
  const causalAt = new Set<string>();
  const broken: BrokenLink[] = [];
  for (const e of graph.edges) {
    causalAt.add(`${e.path}:${e.line}`);
    if (e.target !== null) continue;
    const source = graph.nodes.get(e.source)?.label ?? e.source;
    broken.push({ source, target: e.target_text, type: e.type, file: e.path, line: e.line, ...(e.candidates ? { candidates: e.candidates } : {}) });
    const why = e.candidates
      ? `matches ${e.candidates.length} notes: ${e.candidates.slice(0, 10).join(', ')}${e.candidates.length > 10 ? ', …' : ''} (give more of the name)`
      : 'no pattern or observation note has that name, title or permalink';
    diags.push({ severity: 'error', message: `causal edge "${e.type} [[${e.target_text}]]": ${why}`, file: e.path, line: e.line });
  }
  for (const n of notes) {
    const validators = NOTE_VALIDATORS.filter((v) => v.type === n.type);
    if (validators.length === 0 && n.type && noteType(n.note.frontmatter?.data) !== n.type) {
      diags.push({ severity: 'error', message: `a ${n.type} note needs "type: ${n.type}" in its frontmatter`, file: n.path, line: 1 });
    }
    const own = validators.flatMap((v) => v.validate(n.note, n.path));
    // One by one: a note of 200,000 link tails has as many problems, more than a call's arguments can be.
    for (const d of own) diags.push(d);
    // Both sides' text is in the file: its links are checked once it is resolved.
    if (n.note.conflict) {
      if (validators.length === 0) diags.push(conflictDiagnostic(n.note, n.path)!);
      continue;
    }
    // A link a schema check already reported (an effect that is no decision or event) is said once.
    const said = new Set(own.flatMap((d) => [...d.message.matchAll(/\[\[([^\]]+)\]\]/g)].map((m) => low(m[1].trim()))));
    const local = localIds(n.note);
    // Lines of note.text are the file's lines: the BOM it drops is not a line.
    const lines = n.note.text.split('\n');
    for (const link of wikiLinks(n.note.text)) {
      const line = link.line;
      // `- migrated_from [[X]]` (written by `mem import ai-agents`) names where the note came from,
      // outside the vault.
      if (/^\s*[-*+]\s+migrated_from\s+\[\[/i.test(lines[line - 1] ?? '')) continue;
      // A causal edge's link was checked above, against pattern notes only.
      if (causalAt.has(`${n.path}:${line}`)) continue;
      const t = low(link.target);
      if (known.has(t) || known.has(`${t}.md`) || local.has(t) || said.has(t)) continue;
      if (normalForms(link.target).some((f) => knownNorm.has(f))) continue;
      diags.push({ severity: 'error', message: `broken link [[${link.target}]]: no note, entry, decision or event has that name`, file: n.path, line });
    }
  }
  diags.sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0));
  const withErrors = new Set(diags.filter((d) => d.severity === 'error').map((d) => d.file));
  const tally = (type: NoteType): NoteTally => {
    const of = notes.filter((n) => n.type === type);
    return { total: of.length, valid: of.filter((n) => !withErrors.has(n.path)).length };
  };
  return {
    notes: notes.length, diagnostics: diags, episodes: tally('episode'), patterns: tally('pattern'), observations: tally('observation'),
    graph_integrity: { total_edges: graph.edges.length, valid_edges: graph.edges.length - broken.length, broken_links: broken },
  };
}

/** validateTypedNotes for a whole vault: the link targets of its other files included. */
export function validateVault(vault: Vault): ValidateReport {
  const files: { path: string; text: string }[] = [];
  for (const f of discoverFiles(vault)) {
    const r = readVaultText(f.abs);
    if (!('error' in r)) files.push({ path: f.path, text: r.text });
  }
  return validateTypedNotes(vault.root, { known: vaultLinkTargets(files) });
}
