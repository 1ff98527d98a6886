// Pattern and anti-pattern notes: `.mem/patterns/PATTERN-<kebab>.md` and `ANTIPATTERN-<kebab>.md`.
// Their data model, the one formatter and parser (note → data → note is byte-identical for notes
// mem wrote), their schema check, and the add_pattern upsert.

import fs from 'node:fs';
import path from 'node:path';
import { MemError, type Diagnostic } from '../errors.js';
import { realRoot, staysInside } from '../vault/boundary.js';
import { formatFrontmatter } from '../vault/frontmatter.js';
import { readRegular, readVaultText } from '../vault/read.js';
import { safeLine, safeText } from '../vault/safetext.js';
import type { RedactionReport } from '../secrets/redact.js';
import { frontmatterForCheck, findSection, lineAt, listItems, noteFiles, noteTexts, noteType, parseNote, sectionBody, setNoteFields, writeNote, type ParsedNote } from './note.js';

export const CAUSAL_TYPES = ['causes', 'enables', 'prevents', 'correlates'] as const;
export type CausalType = (typeof CAUSAL_TYPES)[number];

export interface CausalRelation {
  type: CausalType;
  target: string;
}

export interface NoteRelation {
  relation: string;
  target: string;
}

export interface PatternData {
  /** The kebab-case name: the file is `PATTERN-<name>.md` (or `ANTIPATTERN-`). */
  name: string;
  antipattern: boolean;
  title: string;
  permalink: string;
  tags: string[];
  trigger: string;
  success_rate: number;
  occurrences: number;
  /** YYYY-MM-DD. */
  last_validated: string;
  /** The Context section: when and why the pattern applies (add_pattern's description). */
  context: string;
  action: string;
  observations: string[];
  causal: CausalRelation[];
  /** Episode note names (`EPISODE-…`), linked from the Evidence Episodes section. */
  evidence: string[];
  /** The Anti-Pattern Warning section ('' when the note has none). */
  warning: string;
  relations: NoteRelation[];
}

export const PATTERNS_DIR = path.join('.mem', 'patterns');
export const PATTERN_TAGS = ['causal', 'pattern'] as const;
export const ANTIPATTERN_TAG = 'antipattern';
const MAX_NAME = 120;
/**
 * A file name is at most 255 bytes on common file systems: the name's UTF-8 stays within 200, so
 * `ANTIPATTERN-<name>.md` fits in any script (120 CJK characters are 360 bytes).
 */
const MAX_NAME_BYTES = 200;

/** `s` cut to at most `max` UTF-8 bytes, on a character boundary. */
function cutBytes(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) break;
    out += ch;
  }
  return out;
}

/** A name as its file and permalink spell it: lowercase words joined by `-` (letters of any script kept). */
export function kebab(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1-$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  // Cut by characters (never inside a surrogate pair), then by bytes.
  return cutBytes(Array.from(words).slice(0, MAX_NAME).join(''), MAX_NAME_BYTES).replace(/-+$/, '');
}

/** `PATTERN-x` / `ANTIPATTERN-x` (a given prefix is dropped first, so names round-trip). */
export function patternTitle(name: string, antipattern: boolean): string {
  return `${antipattern ? 'ANTIPATTERN' : 'PATTERN'}-${name}`;
}

export function patternPermalink(name: string, antipattern: boolean): string {
  return `patterns/${antipattern ? 'antipattern' : 'pattern'}-${name}`;
}

/** The kebab name of a user's name, without a PATTERN-/ANTIPATTERN- prefix; throws when nothing is left. */
export function patternName(raw: string): { name: string; antipattern?: boolean } {
  const m = /^\s*(anti-?pattern|pattern)[-_ ]+/i.exec(raw);
  const name = kebab(m ? raw.slice(m[0].length) : raw);
  if (name === '') throw new MemError(`pattern name ${JSON.stringify(raw.slice(0, 80))} has no letters or digits`, { hint: 'name it in kebab-case words: --name run-migrations-first' });
  return m ? { name, antipattern: /anti/i.test(m[1]) } : { name };
}

// ---- Text that goes into a section ------------------------------------------------------------

/**
 * Free text as a section body: line breaks kept, controls made visible, and a line that would
 * read as a heading or a code fence (which would hide the headings after it) escaped with a
 * backslash. One more backslash on lines that already start with backslashes before such a
 * marker makes the escape reversible (unescapeBlock), so data round-trips.
 */
const ESCAPABLE = /^([ \t]*)(\\*)(#|```|~~~|---[ \t]*$)/;

export function escapeBlock(text: string): string {
  return safeText(text).split('\n').map((l) => l.replace(ESCAPABLE, '$1\\$2$3')).join('\n').trim();
}

export function unescapeBlock(text: string): string {
  return text.split('\n').map((l) => l.replace(/^([ \t]*)\\(\\*(?:#|```|~~~|---[ \t]*$))/, '$1$2')).join('\n');
}

/** A wiki-link target: one line, and none of the characters that end or split a link. */
export function linkTarget(s: string): string {
  return safeLine(s.replace(/[[\]|#^]/g, ' '));
}

/** One list item's text: one line, and it cannot start a new item or heading. */
function itemText(s: string): string {
  return safeLine(s);
}

// ---- Formatter --------------------------------------------------------------------------------

/** The note's text (LF) for `d`. Sections are always written in the same order. */
export function formatPatternNote(d: PatternData): string {
  const title = safeLine(d.title);
  const trigger = safeLine(d.trigger);
  const fm = formatFrontmatter({
    title,
    type: 'pattern',
    tags: d.tags,
    permalink: d.permalink,
    trigger,
    success_rate: d.success_rate,
    occurrences: d.occurrences,
    last_validated: d.last_validated,
  });
  const section = (name: string, body: string) => `## ${name}\n${body === '' ? '' : `${body}\n`}\n`;
  const list = (items: string[]) => items.map((x) => `- ${x}`).join('\n');
  let out = `---\n${fm}---\n\n# ${title}\n\n`;
  out += section('Context', escapeBlock(d.context));
  out += section('Trigger', escapeBlock(trigger));
  out += section('Action', escapeBlock(d.action));
  out += section('Observations', list(d.observations.map(itemText)));
  out += section('Causal Relationships', list(d.causal.map((c) => `${c.type} [[${linkTarget(c.target)}]]`)));
  out += section('Evidence Episodes', list(d.evidence.map((e) => `[[${linkTarget(e)}]]`)));
  if (d.warning !== '') out += section('Anti-Pattern Warning', escapeBlock(d.warning));
  out += section('Relations', list(d.relations.map((r) => `${kebab(r.relation).replace(/-/g, '_') || 'relates_to'} [[${linkTarget(r.target)}]]`)));
  return out.replace(/\n\n$/, '\n');
}

// ---- Parser -----------------------------------------------------------------------------------

const CAUSAL_LINE = /^(causes|enables|prevents|correlates)[ \t]+\[\[([^\[\]|\n]+?)(?:\|[^\[\]\n]*)?\]\][ \t]*$/i;
export const RELATION_LINE = /^([\p{L}\p{N}_-]+)[ \t]+\[\[([^\[\]|\n]+?)(?:\|[^\[\]\n]*)?\]\]/u;

function text(note: ParsedNote, name: string): string {
  const body = sectionBody(note, name);
  return body === null ? '' : unescapeBlock(body.replace(/\r\n/g, '\n').trim());
}

/** A causal relationship line of a section (`causes [[X]]`), or null when the line is not one. */
export function parseCausalItem(item: string): CausalRelation | null {
  const m = CAUSAL_LINE.exec(item.trim());
  return m ? { type: m[1].toLowerCase() as CausalType, target: m[2].trim() } : null;
}

/** The causal relationships of a note, each with its 1-based file line; `bad` holds the lines that are not one. */
export function causalLines(note: ParsedNote): { rels: (CausalRelation & { line: number })[]; bad: { text: string; line: number }[] } {
  const s = findSection(note, 'Causal Relationships');
  const rels: (CausalRelation & { line: number })[] = [];
  const bad: { text: string; line: number }[] = [];
  if (!s) return { rels, bad };
  const body = note.text.slice(s.bodyStart, s.end);
  for (const it of listItems(body)) {
    const line = lineAt(note, s.bodyStart + it.offset);
    if (/^\(none\)$/i.test(it.text)) continue;
    const r = parseCausalItem(it.text);
    if (r) rels.push({ ...r, line });
    else bad.push({ text: it.text, line });
  }
  // A non-list, non-blank line in the section is a relationship mem cannot read either.
  let pos = 0;
  for (const raw of body.split('\n')) {
    const l = raw.replace(/\r$/, '');
    if (l.trim() !== '' && !/^(?:[-*+]|\d+[.)])[ \t]/.test(l) && !/^[ \t]/.test(l) && !/^#{3,}\s/.test(l) && !/^\(none\)$/i.test(l.trim())) {
      bad.push({ text: l.trim(), line: lineAt(note, s.bodyStart + pos) });
    }
    pos += raw.length + 1;
  }
  bad.sort((a, b) => a.line - b.line);
  return { rels, bad };
}

function linkOf(item: string): string | null {
  const m = /\[\[([^\[\]|\n]+?)(?:\|[^\[\]\n]*)?\]\]/.exec(item);
  return m ? m[1].trim() : null;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v);
}

/** The note's name: its file's, without prefix and `.md`; else from its title. */
function nameOf(fileName: string | undefined, title: string): { name: string; antipattern: boolean } {
  const base = (fileName ?? title).replace(/\.md$/i, '');
  const m = /^(ANTI-?PATTERN|PATTERN)-(.*)$/i.exec(base);
  if (m) return { name: m[2], antipattern: /anti/i.test(m[1]) };
  return { name: kebab(base), antipattern: false };
}

/** The data of a pattern note. Tolerant: missing parts read as empty; validatePatternNote says what is wrong. */
export function patternFromNote(note: ParsedNote, fileName?: string): PatternData {
  const fm = note.frontmatter?.data ?? {};
  const title = str(fm.title) || note.title?.text || (fileName ?? '').replace(/\.md$/i, '');
  const { name, antipattern } = nameOf(fileName, title);
  const tags = Array.isArray(fm.tags) ? fm.tags.map(str) : typeof fm.tags === 'string' ? fm.tags.split(/[,\s]+/).filter(Boolean) : [];
  const items = (section: string) => {
    const body = sectionBody(note, section);
    return body === null ? [] : listItems(body.replace(/\r\n/g, '\n')).map((i) => i.text).filter((t) => !/^\(none\)$/i.test(t));
  };
  const date = fm.last_validated instanceof Date ? fm.last_validated.toISOString().slice(0, 10) : str(fm.last_validated);
  return {
    name,
    antipattern: antipattern || tags.includes(ANTIPATTERN_TAG),
    title,
    permalink: str(fm.permalink),
    tags,
    trigger: str(fm.trigger) || text(note, 'Trigger'),
    success_rate: typeof fm.success_rate === 'number' ? fm.success_rate : Number.NaN,
    occurrences: typeof fm.occurrences === 'number' ? fm.occurrences : Number.NaN,
    last_validated: date,
    context: text(note, 'Context'),
    action: text(note, 'Action'),
    observations: items('Observations'),
    causal: causalLines(note).rels.map(({ type, target }) => ({ type, target })),
    evidence: items('Evidence Episodes').map(linkOf).filter((x): x is string => x !== null),
    warning: text(note, 'Anti-Pattern Warning'),
    relations: items('Relations').map((i) => RELATION_LINE.exec(i)).filter((m): m is RegExpExecArray => m !== null).map((m) => ({ relation: m[1], target: m[2].trim() })),
  };
}

export function parsePatternNote(raw: string, fileName?: string): PatternData {
  return patternFromNote(parseNote(raw), fileName);
}

// ---- Validation -------------------------------------------------------------------------------

const REQUIRED_SECTIONS = ['Context', 'Trigger', 'Action', 'Relations'];

/** Schema problems of a pattern note, each at its file line (`rel`: the path shown). */
export function validatePatternNote(note: ParsedNote, rel: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const err = (message: string, line?: number) => out.push({ severity: 'error', message, file: rel, line });
  const head = frontmatterForCheck(note, rel, 'a pattern note needs a YAML frontmatter (title, type: pattern, tags, permalink, trigger, success_rate, occurrences, last_validated)');
  if ('problems' in head) return head.problems;
  const { data: fm, keyLine } = head;
  if (noteType(fm) !== 'pattern') err(`type must be "pattern" (got ${JSON.stringify(fm.type ?? null)})`, keyLine('type'));
  for (const k of ['title', 'permalink', 'trigger']) {
    if (typeof fm[k] !== 'string' || (fm[k] as string).trim() === '') err(`${k} is missing or not text`, keyLine(k));
  }
  const tags = Array.isArray(fm.tags) ? fm.tags : null;
  if (!tags) err('tags must be a list that includes causal and pattern', keyLine('tags'));
  else for (const t of PATTERN_TAGS) if (!tags.includes(t)) err(`tags must include "${t}"`, keyLine('tags'));
  const rate = fm.success_rate;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 1) err(`success_rate must be a number from 0 to 1 (got ${JSON.stringify(rate ?? null)})`, keyLine('success_rate'));
  const occ = fm.occurrences;
  if (typeof occ !== 'number' || !Number.isInteger(occ) || occ < 1) err(`occurrences must be a whole number >= 1 (got ${JSON.stringify(occ ?? null)})`, keyLine('occurrences'));
  const lv = fm.last_validated instanceof Date ? fm.last_validated.toISOString().slice(0, 10) : fm.last_validated;
  if (typeof lv !== 'string' || !/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(lv) || Number.isNaN(Date.parse(lv.slice(0, 10)))) {
    err(`last_validated must be a date YYYY-MM-DD (got ${JSON.stringify(lv ?? null)})`, keyLine('last_validated'));
  }
  for (const s of REQUIRED_SECTIONS) if (!findSection(note, s)) err(`missing section "## ${s}"`, note.title?.line ?? 1);
  for (const b of causalLines(note).bad) err(`causal relationship not understood: ${JSON.stringify(b.text.slice(0, 80))} (write "- causes|enables|prevents|correlates [[Target]]")`, b.line);
  return out;
}

// ---- Upsert (add_pattern) ---------------------------------------------------------------------

export interface AddPatternInput {
  name: string;
  trigger?: string;
  action?: string;
  description?: string;
  /** Default 1.0. */
  success_rate?: number;
  evidence_episode?: string;
  causal_relationships?: CausalRelation[];
  is_antipattern?: boolean;
}

export interface AddPatternResult {
  action: 'created' | 'updated' | 'unchanged';
  title: string;
  permalink: string;
  path: string;
  occurrences: number;
  success_rate: number;
  last_validated: string;
  added_evidence: string[];
  added_relations: CausalRelation[];
  /** Credentials in the input, written as placeholders. */
  redacted?: RedactionReport;
}

/** The running average of a rate over n observations and one more: ((old × n + new) / (n + 1)), to 6 places. */
export function runningAverage(old: number, n: number, next: number): number {
  return Math.round(((old * n + next) / (n + 1)) * 1e6) / 1e6;
}

/** An episode reference as its note's name: `EPISODE-<session>`. */
export function episodeLink(ref: string): string {
  const t = linkTarget(ref);
  return /^episode-/i.test(t) && !/^EPISODE-/.test(t) ? `EPISODE-${t.slice(8)}` : /^EPISODE-/.test(t) ? t : `EPISODE-${t}`;
}

const norm = (s: string) => s.trim().toLowerCase();

/**
 * The text with `line` added as the last item of section `name` (a new section before Relations,
 * or at the end, when there is none). Everything else stays byte for byte.
 */
export function addSectionLine(note: ParsedNote, name: string, line: string): string {
  const eol = note.eol;
  const bom = note.bom ? '\ufeff' : '';
  const s = findSection(note, name);
  if (s) {
    const body = note.text.slice(s.bodyStart, s.end);
    // After the section's last non-blank line; the blank lines before the next heading stay.
    const m = /(?:\r?\n|^)[ \t]*(?:\r?\n[ \t]*)*$/.exec(body);
    let at = s.bodyStart + (m ? m.index : body.length);
    let prefix = '';
    if (at > s.bodyStart) {
      // Past the last line's end: the new line goes on the line after it.
      const nl = note.text.indexOf('\n', at);
      if (nl >= 0 && nl < s.end) at = nl + 1;
      else {
        at = s.end;
        prefix = eol;
      }
    }
    const insert = `${prefix}${line}${eol}`;
    return bom + note.text.slice(0, at) + insert + note.text.slice(at);
  }
  const rel = findSection(note, 'Relations');
  const block = `## ${name}${eol}${line}${eol}${eol}`;
  if (rel && norm(name) !== 'relations') return bom + note.text.slice(0, rel.start) + block + note.text.slice(rel.start);
  const sep = note.text === '' || note.text.endsWith('\n') ? '' : eol;
  const gap = note.text === '' || /\n\r?\n$/.test(note.text) ? '' : eol;
  return bom + note.text + sep + gap + block.slice(0, -eol.length);
}

interface FoundPattern {
  abs: string;
  file: string;
}

/** The existing note for a name: its file (prefix of the wanted kind first), else a note whose title matches. */
export function findPatternFile(root: string, name: string, antipattern: boolean): FoundPattern | null {
  const dir = path.join(root, PATTERNS_DIR);
  const files = notesDirInside(root, PATTERNS_DIR) === null ? [] : noteFiles(dir);
  const want = [patternTitle(name, antipattern), patternTitle(name, !antipattern)].map((t) => `${t}.md`.toLowerCase());
  for (const w of want) {
    const f = files.find((x) => x.toLowerCase() === w);
    if (f) return { abs: path.join(dir, f), file: f };
  }
  const titles = new Set([patternTitle(name, antipattern), patternTitle(name, !antipattern), name].map(norm));
  for (const f of files) {
    const raw = readRegular(path.join(dir, f));
    if (raw === null) continue;
    const n = parseNote(raw);
    if (noteType(n.frontmatter?.data) !== 'pattern') continue;
    const t = str(n.frontmatter?.data.title) || n.title?.text || '';
    if (titles.has(norm(t)) || titles.has(norm(kebab(t)))) return { abs: path.join(dir, f), file: f };
  }
  return null;
}

function checkInput(input: AddPatternInput): void {
  const rate = input.success_rate;
  if (rate !== undefined && (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 1)) {
    throw new MemError(`success_rate must be a number from 0 to 1 (got ${JSON.stringify(rate)})`);
  }
  for (const r of input.causal_relationships ?? []) {
    if (!(CAUSAL_TYPES as readonly string[]).includes(r.type)) throw new MemError(`unknown causal relationship type ${JSON.stringify(r.type)}`, { hint: `use one of: ${CAUSAL_TYPES.join(', ')}` });
    if (linkTarget(r.target) === '') throw new MemError('a causal relationship needs a target (TYPE:TARGET, e.g. causes:flaky-tests)');
  }
  if (input.evidence_episode !== undefined && linkTarget(input.evidence_episode) === '') throw new MemError('evidence_episode is empty');
}

/**
 * add_pattern: create the note, or update the existing one — occurrences + 1, running average
 * success rate, last_validated today, the evidence link and new causal relationships added once —
 * with byte-stable edits under the file's lock. `dryRun`: say what would happen, write nothing.
 */
export async function addPattern(root: string, raw: AddPatternInput, opts: { today: string; dryRun?: boolean }): Promise<AddPatternResult> {
  checkInput(raw);
  // Every field is redacted before anything (a name, a section line) is built from it.
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const clean = await redactDeep(raw);
  const input = clean.value;
  const redacted = redactionReport(clean.findings);
  const given = patternName(input.name);
  const anti = input.is_antipattern ?? given.antipattern ?? false;
  const name = given.name;
  const found = findPatternFile(root, name, anti);
  const dir = path.join(root, PATTERNS_DIR);
  const file = found?.file ?? `${patternTitle(name, anti)}.md`;
  const abs = found?.abs ?? path.join(dir, file);
  const display = path.posix.join('.mem', 'patterns', file);
  const rate = input.success_rate ?? 1;
  const evidence = input.evidence_episode !== undefined ? episodeLink(input.evidence_episode) : undefined;
  const rels = (input.causal_relationships ?? []).map((r) => ({ type: r.type, target: linkTarget(r.target) }));
  let result: AddPatternResult | null = null;
  const change = (current: ParsedNote | null): string | null => {
    if (current === null) {
      const trigger = safeLine(input.trigger ?? '');
      const action = input.action ?? '';
      if (trigger === '') throw new MemError('a new pattern needs a trigger (--trigger: the condition it applies to)');
      if (safeText(action).trim() === '') throw new MemError('a new pattern needs an action (--action: what to do)');
      const uniq: CausalRelation[] = [];
      for (const r of rels) if (!uniq.some((u) => u.type === r.type && norm(u.target) === norm(r.target))) uniq.push(r);
      const d: PatternData = {
        name, antipattern: anti, title: patternTitle(name, anti), permalink: patternPermalink(name, anti),
        tags: anti ? [...PATTERN_TAGS, ANTIPATTERN_TAG] : [...PATTERN_TAGS],
        trigger, success_rate: rate, occurrences: 1, last_validated: opts.today,
        context: input.description ?? '', action, observations: [], causal: uniq,
        evidence: evidence ? [evidence] : [],
        warning: anti ? `Avoid this: it has a poor track record when ${trigger}.` : '',
        relations: [],
      };
      result = { action: 'created', title: d.title, permalink: d.permalink, path: display, occurrences: 1, success_rate: rate, last_validated: opts.today, added_evidence: d.evidence, added_relations: uniq };
      return formatPatternNote(d);
    }
    if (current.conflict) throw new MemError(`${display}:${current.conflict.line}: unresolved merge conflict; not updating it`, { where: { file: display, line: current.conflict.line }, hint: 'resolve it (mem resolve, or by hand), then run the command again' });
    const fm = current.frontmatter?.data;
    if (!fm) throw new MemError(`${display}: the frontmatter does not parse; not updating it`, { where: { file: display, line: current.frontmatterError?.line }, hint: 'mem validate shows the problem' });
    const n = fm.occurrences;
    const old = fm.success_rate;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new MemError(`${display}: occurrences is not a whole number >= 1; not updating it`, { hint: 'fix it by hand (mem validate checks it)' });
    if (typeof old !== 'number' || !(old >= 0 && old <= 1)) throw new MemError(`${display}: success_rate is not a number from 0 to 1; not updating it`, { hint: 'fix it by hand (mem validate checks it)' });
    const next = { occurrences: n + 1, success_rate: runningAverage(old, n, rate), last_validated: opts.today };
    let textNow = setNoteFields(current, next);
    let note = parseNote(textNow);
    const addedEvidence: string[] = [];
    if (evidence) {
      const have = (sectionBody(note, 'Evidence Episodes') ?? '').split('\n').map(linkOf).filter((x): x is string => x !== null).map(norm);
      if (!have.includes(norm(evidence))) {
        textNow = addSectionLine(note, 'Evidence Episodes', `- [[${evidence}]]`);
        note = parseNote(textNow);
        addedEvidence.push(evidence);
      }
    }
    const addedRels: CausalRelation[] = [];
    for (const r of rels) {
      const have = causalLines(note).rels;
      if (have.some((h) => h.type === r.type && norm(h.target) === norm(r.target))) continue;
      textNow = addSectionLine(note, 'Causal Relationships', `- ${r.type} [[${r.target}]]`);
      note = parseNote(textNow);
      addedRels.push(r);
    }
    const data = patternFromNote(note, path.basename(abs));
    result = {
      action: 'updated', title: data.title, permalink: data.permalink, path: display, occurrences: next.occurrences, success_rate: next.success_rate,
      last_validated: opts.today, added_evidence: addedEvidence, added_relations: addedRels,
    };
    return textNow;
  };
  if (opts.dryRun) {
    let current: ParsedNote | null = null;
    if (fs.existsSync(abs)) {
      // As writeNote reads it: a regular file, valid text (a dry run says what the run would refuse).
      const r = readVaultText(abs);
      if ('error' in r) throw new MemError(`${display}: ${r.error}; not writing to it`, { where: { file: display, line: r.line } });
      current = parseNote((r.bom ? '\ufeff' : '') + r.text);
    }
    change(current);
  } else {
    writeNote(abs, display, change);
  }
  return redacted ? { ...result!, redacted } : result!;
}

// ---- Reading all pattern notes ----------------------------------------------------------------

/**
 * A folder of typed notes under the vault root, or null when it leads out of the vault through a
 * symlink: mem reads only what stays inside (files that are links are skipped by noteFiles).
 */
export function notesDirInside(root: string, rel: string): string | null {
  const dir = path.join(root, rel);
  return staysInside(dir, realRoot(root)).inside ? dir : null;
}

export interface PatternFile {
  /** Path from the vault root, with `/`. */
  path: string;
  file: string;
  note: ParsedNote;
  data: PatternData;
}

/** Every pattern note (frontmatter `type: pattern`) in `.mem/patterns/`, by file name. Unreadable files are skipped. */
export function readPatterns(root: string): PatternFile[] {
  const out: PatternFile[] = [];
  const dir = notesDirInside(root, PATTERNS_DIR);
  if (dir === null) return out;
  for (const { file: f, raw } of noteTexts(dir)) {
    const note = parseNote(raw);
    if (noteType(note.frontmatter?.data) !== 'pattern') continue;
    out.push({ path: `.mem/patterns/${f}`, file: f, note, data: patternFromNote(note, f) });
  }
  return out;
}
