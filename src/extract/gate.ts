// The learning quality gate every provider's output passes (the offline heuristics and a model's
// answer alike): a learning is kept only when it names its subject, is a whole sentence, is not the
// agent's tool mechanics, is not copied from an instruction file, and is new to its target file.

import type { Entry } from '../vault/entry.js';
import { MERGE_THRESHOLD, similarityText } from '../lifecycle/compact.js';
import { conflictBetween, factProfile, factText, wordKey, type FactProfile } from '../lifecycle/conflict.js';
import { TokenVocab, jaccardSorted, normTokens, type TokenSet } from '../lifecycle/similarity.js';
import { isStopword } from '../retrieve/stopwords.js';
import { splitEvidence, type Learning } from './learning.js';
import type { TranscriptMessage } from './transcript.js';

export const REJECT_REASONS = ['tool-mechanics', 'transcript-path', 'instruction-text', 'fragment', 'no-subject', 'duplicate'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export interface Rejection {
  reason: RejectReason;
  /** Why, in a few words (the rule that fired, or the entry it repeats). */
  detail: string;
  /** For a duplicate: the file that holds the entry it repeats, when the check knows it. */
  file?: string;
}

/** What the gate knows of the session: the text instruction files injected, and what the human typed. */
export interface GateContext {
  instruction: Set<string>;
  human: Set<string>;
  /** Paths of the transcript file itself: a learning never quotes them. */
  transcriptPaths: string[];
}

// ---- copied text: word 4-grams ----

const SHINGLE = 4;
/** Share of a text's 4-grams found in instruction text above which it counts as copied. */
const COPIED = 0.6;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function shingles(text: string): string[] {
  const w = words(text);
  const out: string[] = [];
  for (let i = 0; i + SHINGLE <= w.length; i++) out.push(w.slice(i, i + SHINGLE).join(' '));
  return out;
}

function shareIn(text: string, set: Set<string>): number {
  const s = shingles(text);
  if (s.length === 0 || set.size === 0) return 0;
  return s.filter((x) => set.has(x)).length / s.length;
}

export function gateContext(messages: readonly TranscriptMessage[], transcriptPaths: string[] = []): GateContext {
  const ctx: GateContext = { instruction: new Set(), human: new Set(), transcriptPaths: transcriptPaths.filter((p) => p.length > 3 && p !== '-') };
  for (const m of messages) {
    const into = m.instruction ? ctx.instruction : m.role === 'user' && m.kind === 'text' ? ctx.human : null;
    if (into) for (const s of shingles(m.text)) into.add(s);
  }
  return ctx;
}

// ---- tool mechanics ----

/**
 * The agent's own tool protocol, not the project: an edit whose old text was not found, a patch
 * that did not apply, the harness's sandbox or approval refusing a command, a tool-use error.
 */
const MECHANICS: [RegExp, string][] = [
  [/string (?:to replace )?(?:was )?not found in (?:the )?file|string to replace (?:was )?not found|failed to apply edit|\bold_string\b|\bnew_string\b|no (?:exact )?match(?:es)? (?:was |were )?found for (?:the )?(?:old|search) (?:string|text)/i, 'an edit tool\'s text was not found'],
  [/\bapply_patch\b|failed to find (?:the )?expected lines|patch (?:did not|does not|didn'?t|doesn'?t|failed to) apply|failed to (?:apply|parse) (?:the )?patch|invalid (?:patch|hunk)\b|unexpected line found in update hunk|\bhunk #?\d* ?failed/i, 'a patch did not apply'],
  [/\bsandbox(?:ed|ing)?\b[^.\n]{0,80}\b(?:den(?:y|ied)|fail\w*|block\w*|refus\w*|not (?:allowed|permitted)|restrict\w*|escalat\w*)|\b(?:den(?:y|ied)|fail\w*|block\w*|refus\w*|not (?:allowed|permitted))\b[^.\n]{0,40}\bsandbox/i, 'the sandbox refused a command'],
  [/requires? (?:user )?approval|approval[_ ]polic|escalated[_ ]permissions|permission to use \S+ (?:was |has been )?denied|the user doesn'?t want to (?:proceed|take this)|request interrupted by user|tool use was (?:rejected|denied)/i, 'the harness asked for or refused approval'],
  [/<\/?tool_use_error>|\btool_use_error\b|\btool_use_id\b|InputValidationError|has not been read yet|(?:file|it) has been modified since (?:it was )?read|must (?:read|view) the file (?:first|before)/i, 'a tool-use error'],
];

/** Keys only a tool call's JSON has (Claude, Codex, Gemini, OpenAI function calls); `name(` before a brace is a call too. */
const TOOL_KEYS = new Set(['tool_use_id', 'call_id', 'function_call', 'arguments', 'command', 'cmd', 'file_path', 'old_string', 'new_string', 'workdir', 'patch', 'tool_name', 'tool_input']);

/** A raw tool-call JSON object: quoted keys after a brace, one of them a tool call's. */
function rawToolJson(text: string): boolean {
  for (const m of text.matchAll(/(\w\(\s*)?\{\s*"[\w-]+"\s*:/g)) {
    // The keys of the object (and its nested ones) near the brace: enough to tell a tool call.
    const keys = [...text.slice(m.index ?? 0, (m.index ?? 0) + 400).matchAll(/"([\w-]+)"\s*:/g)].map((k) => k[1]);
    if (keys.some((k) => TOOL_KEYS.has(k)) && (keys.length >= 2 || m[1])) return true;
  }
  return false;
}

export function toolMechanics(text: string): string | null {
  for (const [re, why] of MECHANICS) if (re.test(text)) return why;
  if (rawToolJson(text)) return 'a raw tool-call JSON blob';
  return null;
}

// ---- whole sentences ----

/** Words that join a sentence to one before it: a text opening with one was cut from its context. */
const CONTINUATION = new Set(['and', 'or', 'but', 'nor', 'so', 'yet', 'then', 'because', 'which', 'whereas', 'although', 'though', 'unless', 'until', 'while', 'than', 'whose', 'plus']);
/** The same, only when written in lowercase (a capitalised "Then …" or "Unless …" may open a sentence). */
const ALWAYS_CONTINUATION = new Set(['and', 'or', 'but', 'nor', 'which', 'whereas', 'than', 'whose', 'plus']);
const PREPOSITION = new Set(['in', 'on', 'at', 'of', 'into', 'onto', 'from', 'with', 'by', 'for', 'to', 'about', 'after', 'before', 'during', 'within', 'without', 'under', 'over', 'through']);
/** Words a whole sentence does not end on. */
const DANGLING = new Set(['the', 'a', 'an', 'and', 'or', 'but', 'nor', 'to', 'of', 'in', 'on', 'at', 'into', 'onto', 'from', 'by', 'for', 'than', 'that', 'which', 'because', 'if', 'when', 'while', 'unless', 'until', 'is', 'are', 'was', 'were', 'be', 'my', 'your', 'our', 'their', 'its', 'his', 'her', 'this', 'these', 'those', 'so']);
/** Lead words of a rule before its verb ("Please don't ever …"). */
const RULE_LEAD = new Set(['please', 'do', 'don', 't', 'dont', 'not', 'never', 'always', 'ever', 'just', 'now', 'also', 'then', 'stop', 'keep', 'you', 'should', 'must', 'we']);

function firstWord(text: string): string {
  return text.trim().replace(/^[^\p{L}\p{N}`]+/u, '').match(/^[\p{L}']+/u)?.[0] ?? '';
}

function sentencesOf(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter(Boolean);
}

/** Why a text reads as a piece of a sentence, or null. */
function fragmentOf(text: string, what: string): string | null {
  const t = text.trim();
  if (!t) return null;
  const first = firstWord(t);
  const low = first.toLowerCase();
  if (ALWAYS_CONTINUATION.has(low) || (CONTINUATION.has(low) && first === low)) return `${what} starts mid-sentence ("${first} …")`;
  // A leading prepositional phrase joined by "and"/"or" to what follows, never closed by a comma:
  // the clause it belonged to was cut off ("In the config and restart until …").
  const head = sentencesOf(t)[0] ?? t;
  const w = head.split(/\s+/);
  if (PREPOSITION.has(low) && !head.includes(',')) {
    const j = w.slice(1, 5).findIndex((x) => /^(?:and|or)$/i.test(x));
    if (j >= 0) return `${what} starts with a phrase cut from its sentence ("${w.slice(0, j + 3).join(' ')} …")`;
  }
  if (/\u2026$|\.\.\.$/.test(t)) return null; // cut on purpose (a long quote or title): not dangling
  if (/[,;:(\-\u2013]$/.test(t)) return `${what} ends mid-sentence ("…${t.slice(-20)}")`;
  const last = (t.match(/([\p{L}']+)[^\p{L}\p{N}]*$/u)?.[1] ?? '').toLowerCase();
  if (DANGLING.has(last) && !/`$/.test(t.replace(/[.!?]+$/, ''))) return `${what} ends on "${last}"`;
  return null;
}

/** True when the text is a bare verb with no object ("Don't deploy.", "Always verify!"). */
function verbOnly(text: string): boolean {
  const w = words(text);
  let i = 0;
  while (i < w.length && RULE_LEAD.has(w[i])) i++;
  return w.length > 0 && w.length - i <= 1;
}

const MIN_CONTENT_WORDS = 2;

export function fragment(l: Pick<Learning, 'title' | 'body'>): string | null {
  const { rule } = splitEvidence(l.body);
  const stated = `${l.title}\n${rule}`;
  if (normTokens(stated).length < MIN_CONTENT_WORDS) return 'too few words to say anything';
  if (/\?["')\]]*$/.test(l.title.trim())) return 'a question, not a statement';
  if (verbOnly(l.title.replace(/\u2026$/, '')) && (!rule || verbOnly(rule) || rule.trim() === l.title.trim())) return 'a verb without an object';
  return fragmentOf(l.title, 'the title') ?? fragmentOf(rule, 'the text');
}

// ---- a named subject ----

/** Content words too vague to be what a learning is about. */
const VAGUE = new Set(`thing things stuff something anything everything nothing way ways one ones same other others again now later first next last time times
step steps part bit lot lots kind sort work done finished complete completed full fully good better best bad right wrong correct careful sure ready fine ok okay
yes yeah really actually basically instead never always sometimes often maybe please thanks thank whole rest else everyone someone anyone place case point
here there today tomorrow properly carefully quickly exactly harder anymore much many less little enough well still even already soon`.split(/\s+/).filter(Boolean));
const EMPHASIS = new Set(['NEVER', 'ALWAYS', 'NOT', 'DO', 'DONT', 'IMPORTANT', 'MUST', 'NOTE', 'OK', 'PLEASE', 'STOP', 'NO', 'YES']);

/** Tokens that name a thing by their form: code, paths, files, flags, identifiers, constants, names. */
const NAMED: RegExp[] = [
  /`[^`\n]+`/, // a code span
  /(?:^|[\s("'])(?:~|\.{1,2})?\/?[\w.@-]+\/[\w.@/-]+/, // a path
  /\b[\w-]{2,}\.[a-z][a-z0-9]{0,5}\b/i, // a file name or dotted name
  /(?:^|\s)--?[a-z][\w-]*/i, // a flag
  /\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Za-z0-9]+_[A-Za-z0-9_]+\b/, // camelCase, snake_case
  /\b[a-z]+\d+[a-z\d]*\b|\b\d+[a-z]{1,4}\b/i, // node20, v2, 5s, 512mb
  /\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b(?=\s+(?:run|test|build|install|exec|start|command|script|hook|package|flag|option|file|folder|service|branch))/i, // pre-commit hook
];

/** The words of a text, marking those that open a sentence. */
function tokensOf(text: string): { word: string; opens: boolean }[] {
  const out: { word: string; opens: boolean }[] = [];
  for (const s of sentencesOf(text)) {
    let opens = true;
    for (const m of s.matchAll(/[\p{L}\p{N}']+/gu)) {
      out.push({ word: m[0], opens });
      // Lead words ("Please", "Never", "Don't") keep the next word in the opening position.
      if (!(opens && RULE_LEAD.has(m[0].toLowerCase().replace(/'.*$/, '')))) opens = false;
    }
  }
  return out;
}

/** What the text names, or null when it names nothing (only pronouns, verbs and vague words). */
export function subjectOf(text: string): string | null {
  for (const re of NAMED) {
    const m = text.match(re);
    if (m) return m[0].trim();
  }
  const toks = tokensOf(text);
  for (const [i, t] of toks.entries()) {
    const w = t.word;
    const low = w.toLowerCase();
    // An acronym or constant (CI, API, SQL), not shouting.
    if (/^[A-Z][A-Z0-9]{1,}$/.test(w) && !EMPHASIS.has(w) && !isStopword(low)) return w;
    // A capitalised word inside a sentence: a product, a service, a person.
    if (!t.opens && /^[A-Z][a-z]/.test(w) && i > 0 && !isStopword(low)) return w;
    // A content word that is not the sentence's opening verb, not an adverb or participle, not vague.
    if (!t.opens && low.length > 2 && !isStopword(low) && !VAGUE.has(low) && !/(?:ly|ed)$/.test(low)) return w;
  }
  return null;
}

/** Pronouns that always stand for something said before. */
const PRONOUN = new Set(['it', 'they', 'he', 'she', 'them']);
const DEMONSTRATIVE = new Set(['this', 'that', 'these', 'those']);

/**
 * A title that opens by pointing back ("This means …", "It somehow …", "That breaks …"): its
 * subject is in a message the reader will not see. "This repo …" names its subject; "It is
 * worth …" / "It's best to …" (an empty "it") is fine.
 */
function pointsBack(title: string): string | null {
  const w: string[] = title.trim().match(/[\p{L}\p{N}']+/gu) ?? [];
  if (w.length < 2) return null;
  const [a, b] = [w[0].toLowerCase(), w[1].toLowerCase()];
  const to = (i: number) => (w[i] ?? '').toLowerCase() === 'to';
  if ((a === 'it' && (b === 'is' || b === 'was') && to(3)) || (a === "it's" && to(2))) return null; // an empty "it"
  // "This means" / "These are": a verb or function word after the demonstrative ("This class" and
  // "These endpoints" are nouns: a plural after these/those, a singular in -ss/-us/-is after this/that).
  const verbish = isStopword(b) || /(?:ed|ly)$/.test(b) || ((a === 'this' || a === 'that') && /[^su]s$/.test(b) && !/is$/.test(b));
  if (PRONOUN.has(a) || a === "it's" || (DEMONSTRATIVE.has(a) && verbish)) return `refers back to something unsaid ("${w[0]} ${w[1]} …")`;
  return null;
}

export function noSubject(l: Pick<Learning, 'title' | 'body'>): string | null {
  const back = pointsBack(l.title);
  if (back) return back;
  const { rule } = splitEvidence(l.body);
  return subjectOf(`${l.title.replace(/\u2026$/, '')}.\n${rule}`) ? null : 'names no command, file, tool or thing';
}

// ---- instruction text, the transcript's path ----

/** Why a learning is text an instruction file injected (not the human's words), or null. */
export function instructionText(l: Pick<Learning, 'title' | 'body'>, ctx: GateContext): string | null {
  if (ctx.instruction.size === 0) return null;
  const { rule, evidence } = splitEvidence(l.body);
  for (const [what, text] of [['the title', l.title], ['the text', rule], ...evidence.map((e) => ['the evidence', e])] as const) {
    if (shareIn(text, ctx.instruction) >= COPIED && shareIn(text, ctx.human) < COPIED) return `${what} is copied from an instruction file or harness text`;
  }
  return null;
}

/** A learning that quotes the transcript file's own path (a reader next month cannot open it; it is no knowledge). */
function quotesTranscript(l: Pick<Learning, 'title' | 'body'>, ctx: GateContext): string | null {
  const all = `${l.title}\n${l.body}`;
  for (const p of ctx.transcriptPaths) if (all.includes(p)) return 'quotes the transcript file\'s path';
  return null;
}

// ---- the gate ----

/** The first reason a learning fails the gate (every rule but `duplicate`), or null when it passes. */
export function checkLearning(l: Pick<Learning, 'title' | 'body'>, ctx: GateContext): Rejection | null {
  const all = `${l.title}\n${l.body}`;
  const checks: [RejectReason, () => string | null][] = [
    ['tool-mechanics', () => toolMechanics(all)],
    ['transcript-path', () => quotesTranscript(l, ctx)],
    ['instruction-text', () => instructionText(l, ctx)],
    ['fragment', () => fragment(l)],
    ['no-subject', () => noSubject(l)],
  ];
  for (const [reason, check] of checks) {
    const detail = check();
    if (detail) return { reason, detail };
  }
  return null;
}

/** The learnings that pass every rule but `duplicate` (checked against the target file when it is written), and the rest with why. */
export function gateLearnings<T extends Pick<Learning, 'title' | 'body'>>(learnings: readonly T[], ctx: GateContext): { kept: T[]; rejected: (Rejection & { learning: T })[] } {
  const kept: T[] = [];
  const rejected: (Rejection & { learning: T })[] = [];
  for (const l of learnings) {
    const r = checkLearning(l, ctx);
    if (r) rejected.push({ ...r, learning: l });
    else kept.push(l);
  }
  return { kept, rejected };
}

/** An entry's title without mem's "[date] Type: " prefix or a cut-off last word. */
export function bareTitle(title: string): string {
  return title.replace(/^\[[^\]]*\]\s*/, '').replace(/^\w+:\s*/, '').replace(/\s*\S*\u2026$/, '').trim();
}

interface Known {
  title: string;
  bare: string;
  tokens: TokenSet;
  fact: string;
  profile?: FactProfile;
  /** The file it is in, when the check spans several. */
  file?: string;
  terms?: Terms;
}

// ---- the same rule in other words ----

/** A learning's key terms: of its title, and of its title and text together (evidence quotes left out). */
interface Terms {
  title: Set<string>;
  all: Set<string>;
  negated: boolean;
  titleProfile: FactProfile;
  /** Numbers, versions and ports the learning states. */
  numbers: Set<string>;
  /** The commands of its code spans: of the title, and of title and text together. */
  titleCommands: string[];
  commands: string[];
}

/** Share of a learning's title terms the other learning states too, above which the two may say the same. */
const COVERED = 0.75;

/**
 * A word's key for comparing wordings: its inflection off (conflict.ts), then "-ation", "-ion" and
 * "-ate", so "migration", "migrations" and "migrate" are one term, as are "configure" and
 * "configuration".
 */
function termKey(w: string): string {
  const k = wordKey(w);
  const cut = k.replace(/(?:ation|ion|at)$/, '');
  return cut.length >= 4 ? cut : k;
}

/**
 * The terms of a text: content words by their key; a code span by the command it names (its words
 * up to the first flag or "--", at most three): `npm run db:migrate -- --env test` and `npm run
 * db:migrate` name one command, their arguments only narrow it.
 */
function termsOf(text: string): Set<string> {
  const plain = text.replace(/`([^`\n]+)`/g, (_, code: string) => commandOf(code));
  const out = new Set<string>();
  for (const w of plain.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) if (w.length > 1 && !isStopword(w)) out.add(termKey(w));
  return out;
}

/** A code span's command: its words up to the first flag or "--", at most three. */
function commandOf(code: string): string {
  return code.split(/\s+/).filter(Boolean).slice(0, 3).join(' ').split(/\s+-/)[0];
}

function termsOfLearning(title: string, body: string): Terms {
  const { rule } = splitEvidence(body);
  const titleTerms = termsOf(title);
  const profile = factProfile(title);
  const text = `${title}\n${rule}`;
  return {
    title: titleTerms, all: new Set([...titleTerms, ...termsOf(rule)]), negated: profile.negations > 0, titleProfile: profile,
    numbers: new Set(text.match(/(?<![\w.])v?\d[\d.:]*(?:[a-z]{1,3})?(?![\w])/gi) ?? []),
    titleCommands: commandsOf(title),
    commands: commandsOf(text),
  };
}

function commandsOf(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => commandOf(m[1]));
}

/** Each side has one the other lacks: one value put in place of another. */
function swapped<T>(a: Iterable<T>, b: Iterable<T>, has: (xs: Iterable<T>, x: T) => boolean): boolean {
  const onlyA = [...a].some((x) => !has(b, x));
  const onlyB = [...b].some((x) => !has(a, x));
  return onlyA && onlyB;
}
const inSet = <T>(xs: Iterable<T>, x: T) => (xs as Set<T>).has(x);
/** A command the other names too, or names more narrowly ("npm test" and "npm test -- checkout"). */
const sameCommand = (xs: Iterable<string>, x: string) => [...xs].some((y) => y === x || y.startsWith(`${x} `) || x.startsWith(`${y} `));

function coveredBy(a: Set<string>, b: Set<string>): { share: number; missing: number } {
  let hit = 0;
  for (const t of a) if (b.has(t)) hit++;
  return { share: a.size === 0 ? 0 : hit / a.size, missing: a.size - hit };
}

/**
 * Two learnings that state the same rule in other words: most of each title's terms (COVERED) are
 * stated by the other learning; no term of one title is swapped for another term of the other
 * ("the unit tests" / "the integration tests": each title has a term the other lacks); titles of
 * the same polarity ("Always …" / "Never …"); and no number, name or negation changed between the
 * titles (conflict.ts), nor a number or a command of one learning put in place of one of the
 * other's. A longer restatement of the same rule is a duplicate; a rule that differs in what it
 * acts on is not.
 */
function sameRule(a: Terms, b: Terms): boolean {
  if (a.title.size < 2 || b.title.size < 2 || a.negated !== b.negated) return false;
  const ab = coveredBy(a.title, b.all);
  const ba = coveredBy(b.title, a.all);
  if (ab.share < COVERED || ba.share < COVERED || (ab.missing > 0 && ba.missing > 0)) return false;
  if (swapped(a.numbers, b.numbers, inSet)) return false;
  // A command a title names that the other learning never mentions, both ways: another rule.
  if (a.titleCommands.some((c) => !sameCommand(b.commands, c)) && b.titleCommands.some((c) => !sameCommand(a.commands, c))) return false;
  return conflictBetween(a.titleProfile, b.titleProfile, { only: true }) === null;
}

/**
 * Duplicates of what memory already holds, by the measure compaction merges on (compact.ts):
 * Jaccard of similarityText's tokens above MERGE_THRESHOLD, with no conflicting fact (a number, a
 * name, a negation) between the two; or the same title; or the same rule in other words
 * (sameRule). Entries of several files may be known (the target file and the files read beside it
 * for the same project); new learnings join the known set as they pass.
 */
export class DuplicateCheck {
  private readonly vocab = new TokenVocab();
  private readonly known: Known[] = [];

  constructor(entries: readonly Pick<Entry, 'title' | 'body' | 'titleFromHeading'>[] = [], file?: string) {
    this.add(entries, file);
  }

  /** Entries of one more file to check against. */
  add(entries: readonly Pick<Entry, 'title' | 'body' | 'titleFromHeading'>[], file?: string): void {
    for (const e of entries) this.remember(bareTitle(e.title), e.body, factText(e), file);
  }

  private remember(title: string, body: string, fact: string, file?: string): void {
    this.known.push({ title, bare: title.toLowerCase(), tokens: this.vocab.ofText(similarityText({ title, body })), fact, file });
  }

  /** The entry a learning repeats (its title, and its file when it is not `into`), or null; a learning that is new is remembered (as in `into`). */
  check(l: Pick<Learning, 'title' | 'body'>, into?: string): Rejection | null {
    const bare = l.title.toLowerCase();
    const tokens = this.vocab.ofText(similarityText(l));
    const fact = factText({ title: l.title, body: l.body, titleFromHeading: true });
    let profile: FactProfile | undefined;
    let terms: Terms | undefined;
    for (const k of this.known) {
      const where = k.file && k.file !== into ? ` in ${k.file}` : '';
      if (k.bare === bare) return { reason: 'duplicate', detail: `same title as "${k.title}"${where}`, file: k.file };
      if (tokens.length > 0) {
        const j = jaccardSorted(tokens, k.tokens);
        if (j > MERGE_THRESHOLD) {
          profile ??= factProfile(fact);
          k.profile ??= factProfile(k.fact);
          if (!conflictBetween(profile, k.profile)) return { reason: 'duplicate', detail: `repeats "${k.title}"${where} (similarity ${j.toFixed(2)})`, file: k.file };
        }
      }
      terms ??= termsOfLearning(bareTitle(l.title), l.body);
      k.terms ??= termsOfLearning(k.title, k.fact);
      if (sameRule(terms, k.terms)) return { reason: 'duplicate', detail: `states the same rule as "${k.title}"${where}`, file: k.file };
    }
    this.remember(l.title, l.body, fact, into);
    return null;
  }
}

export function emptyCounts(): Record<RejectReason, number> {
  return Object.fromEntries(REJECT_REASONS.map((r) => [r, 0])) as Record<RejectReason, number>;
}
