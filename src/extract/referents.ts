// Learnings that stand alone: a rule said mid-conversation often points back ("don't give it a
// number"). A pronoun whose referent is not in the learning is resolved from the sentences just
// before it when one noun phrase there clearly is the referent, or the learning is not kept. And
// titles that are whole clauses: "X, that's why Y" gives Y, a long sentence its main clause.

import { isStopword } from '../retrieve/stopwords.js';
import { shorten } from './learning.js';

interface Token {
  /** The word as written, without the punctuation around it. */
  word: string;
  low: string;
  start: number;
  end: number;
  /** Punctuation right after the word ends a clause (",", ".", ";", ":", "?", "!"). */
  closes: boolean;
}

/** Words with their positions; a code span is one token. */
function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(/`[^`\n]+`|[^\s`]+/g)) {
    const raw = m[0];
    const lead = raw.startsWith('`') ? 0 : (/^[("'\u201c\u2018[]+/.exec(raw)?.[0].length ?? 0);
    const trail = raw.startsWith('`') ? 0 : (/[)"'\u201d\u2019\].,;:!?]+$/.exec(raw.slice(lead))?.[0].length ?? 0);
    const word = raw.slice(lead, raw.length - trail);
    if (!word) continue;
    const start = (m.index ?? 0) + lead;
    out.push({ word, low: word.toLowerCase().replace(/\u2019/g, "'"), start, end: start + word.length, closes: /[.,;:!?]/.test(raw.slice(raw.length - trail)) });
  }
  return out;
}

/** Words that open a noun phrase. */
const DETERMINER = new Set(['the', 'a', 'an', 'this', 'that', 'these', 'those', 'our', 'your', 'my', 'each', 'every']);
/** Verbs that often follow a subject noun phrase ("the build fails"): a noun phrase ends before them. */
const VERB = new Set(`is are was were be been has have had does do did can could will would should must may might
fails failed works worked runs ran breaks broke needs needed uses used returns returned takes took makes made gets got starts started
stops stopped crashes crashed hangs passes passed changes changed shows showed lists listed writes wrote reads calls called adds added
builds built looks seems seemed lives lived holds held keeps kept sends sent goes went comes came means meant contains handles expects`.split(/\s+/));
/** Head nouns too vague to be what a rule is about. */
const VAGUE = new Set(`thing things stuff way ways one ones same other others time times part bit lot kind sort case point idea option question
answer problem issue change changes approach version moment step steps rest whole end start`.split(/\s+/));
const EMPHASIS = new Set(['NEVER', 'ALWAYS', 'NOT', 'DO', 'DONT', 'IMPORTANT', 'MUST', 'NOTE', 'OK', 'PLEASE', 'STOP', 'NO', 'YES', 'I']);

/** A token that names a thing by its form: a code span, a path, a file, an identifier, an acronym. */
function named(t: Token): boolean {
  const w = t.word;
  return /^`.+`$/.test(w) || /[\w.-]\/[\w.-]/.test(w) || /^(?:[\w-]{2,})?\.[a-z][\w-]{0,12}$/i.test(w) || /^[a-z]+[A-Z]\w*$|^\w+_\w+$|^[A-Z][a-z]+[A-Z]\w*$/.test(w) || (/^[A-Z][A-Z0-9]{1,}$/.test(w) && !EMPHASIS.has(w));
}

interface Phrase {
  /** The noun phrase as a reader next month needs it ("the ADR", "`make lint`"). */
  text: string;
  plural: boolean;
  start: number;
}

/** The noun phrase that starts at token i, or null: a determiner and up to three content words, or a named token. */
function phraseAt(ts: Token[], i: number): Phrase | null {
  const t = ts[i];
  if (named(t)) return { text: t.word, plural: false, start: t.start };
  if (!DETERMINER.has(t.low) || t.closes) return null;
  const words: Token[] = [];
  for (let j = i + 1; j < ts.length && words.length < 3; j++) {
    const w = ts[j];
    if (isStopword(w.low) || VERB.has(w.low) || /ly$/.test(w.low) || !/^[\p{L}\p{N}`./~_-]/u.test(w.word)) break;
    words.push(w);
    if (w.closes) break;
  }
  if (words.length === 0) return null;
  const head = words[words.length - 1].low;
  if (VAGUE.has(head)) return null;
  // "this"/"that"/"your" point at the moment or the agent; next month it is "the".
  const det = ['our', 'each', 'every'].includes(t.low) ? t.low : 'the';
  const plural = ['these', 'those'].includes(t.low) || (/[^su]s$/.test(head) && !/[^aeiou]is$/.test(head));
  return { text: `${det} ${words.map((w) => w.word).join(' ')}`, plural, start: t.start };
}

/** Pronouns that stand for a thing said before: it (singular), they (plural). */
const SINGULAR = new Set(['it', 'its']);
const PLURAL = new Set(['they', 'them', 'their', "they're", "they've"]);
/** People: "ask him first" cannot be resolved from the words before it. */
const PERSON = new Set(['he', 'she', 'him', 'his', 'hers', "he's", "she's"]);
/** A demonstrative standing alone: an action or a whole statement ("don't do that"), never a single noun phrase. */
const DEMONSTRATIVE = new Set(['this', 'that', 'these', 'those']);

/** An "it" that stands for nothing: "it is worth …", "it's best to …", "it seems", "make it clear". */
const EMPTY_IT = /^(?:(?:it(?:'s| is| was| will be| would be| can be| may be)\s+(?:\w+\s+){0,2}?(?:to|that|whether|if|when|how|because)\b)|it(?:'s| is) (?:worth|best|better|fine|ok|okay|important|safe|easier|faster|possible|likely|unlikely|time)\b|it (?:seems|looks|turns out|depends|appears|makes sense|matters|helps|pays)\b)/i;
const CLEAR_IT = /\bmake it (?:clear|obvious|explicit)\b/i;

export interface Reference {
  /** The pronoun as written and where. */
  word: string;
  start: number;
  end: number;
  plural: boolean;
  /** No noun phrase can stand for it (a person, an action). */
  unresolvable: boolean;
}

/** A demonstrative used as a pronoun: at a clause's end, or before a verb or a preposition ("this is", "put this in"). */
function demonstrativeAlone(ts: Token[], i: number): boolean {
  const t = ts[i];
  if (!DEMONSTRATIVE.has(t.low)) return false;
  const next = ts[i + 1];
  if (t.closes || !next) return true;
  if (t.low === 'that') return /^(?:is|was|'s|does|did|will|would|should|can|could|means|breaks|works|happens|way)$/.test(next.low) || (i > 0 && /^(?:do|did|does|doing|done|undo|revert|change|try|fix|use|keep|remember)$/.test(ts[i - 1].low) && isStopword(next.low));
  return isStopword(next.low) || VERB.has(next.low);
}

/**
 * The first pronoun of a text that points outside it: "it"/"they" with no noun phrase before it in
 * the text (not an empty "it is worth …"), a person, or "this"/"that" standing alone. Null when
 * the text stands on its own.
 */
export function danglingReference(text: string): Reference | null {
  const ts = tokens(text);
  let phraseBefore = false;
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i];
    const rest = text.slice(t.start);
    const ref = (plural: boolean, unresolvable: boolean): Reference => ({ word: t.word, start: t.start, end: t.end, plural, unresolvable });
    if (SINGULAR.has(t.low) || t.low === "it's") {
      if (EMPTY_IT.test(rest) || (CLEAR_IT.test(text.slice(Math.max(0, t.start - 5))) && ts[i - 1]?.low === 'make')) continue;
      if (!phraseBefore) return ref(false, false);
    } else if (PLURAL.has(t.low)) {
      if (!phraseBefore) return ref(true, false);
    } else if (PERSON.has(t.low)) {
      return ref(false, true);
    } else if (demonstrativeAlone(ts, i)) {
      return ref(t.low === 'these' || t.low === 'those', true);
    }
    if (phraseAt(ts, i)) phraseBefore = true;
  }
  return null;
}

/**
 * The noun phrase a pronoun in the sentence after `before` stands for: the first noun phrase of the
 * nearest sentence before it (the subject, or the object of a request: the entity a next sentence
 * most likely continues with), agreeing in number. A sentence that mentions the referent only by
 * the same pronoun again ("write it in the context of …") passes the search to the one before.
 * Null when none is found within two sentences: then the learning is not kept.
 */
export function antecedent(before: readonly string[], plural: boolean): string | null {
  for (let j = before.length - 1; j >= Math.max(0, before.length - 3); j--) {
    const ts = tokens(before[j]);
    let found: Phrase | null = null;
    let chained = false;
    for (let i = 0; i < ts.length && !found && !chained; i++) {
      const t = ts[i];
      if ((plural ? PLURAL : SINGULAR).has(t.low) || (!plural && t.low === "it's")) {
        if (!EMPTY_IT.test(before[j].slice(t.start))) chained = true;
        continue;
      }
      const p = phraseAt(ts, i);
      if (p && p.plural === plural) found = p;
      else if (p && DETERMINER.has(t.low)) return null; // another thing comes first: not clear which is meant
    }
    if (found) return found.text;
    if (!chained) return null;
  }
  return null;
}

/** The text with the pronoun replaced by what it stands for ("its" → "the ADR's"). */
function substitute(text: string, ref: Reference, phrase: string): string {
  const low = ref.word.toLowerCase();
  let put = /^(?:its|their)$/.test(low) ? `${phrase}'s` : low === "it's" ? `${phrase} is` : /^they're$/.test(low) ? `${phrase} are` : /^they've$/.test(low) ? `${phrase} have` : phrase;
  if (/^[A-Z]/.test(ref.word)) put = put.charAt(0).toUpperCase() + put.slice(1);
  return `${text.slice(0, ref.start)}${put}${text.slice(ref.end)}`;
}

/**
 * The text made to stand alone: its first dangling pronoun replaced by the noun phrase it stands
 * for (later ones then point back within the text), or null when that cannot be done reliably.
 * `before`: the sentences said just before it, nearest last.
 */
export function standalone(text: string, before: readonly string[]): string | null {
  const ref = danglingReference(text);
  if (!ref) return text;
  if (ref.unresolvable) return null;
  const phrase = antecedent(before, ref.plural);
  if (!phrase) return null;
  const out = substitute(text, ref, phrase);
  return danglingReference(out) ? null : out;
}

// ---------------------------------------------------------------------------------------------
// Whole clauses as titles

/** "X, that's why Y" / "X, which is why Y": Y is the rule, X its reason. */
const THATS_WHY = /^(.+?)[,;]?\s+(?:and\s+)?(?:that'?s|that is|this is|which is) (?:why|the reason)\s+(.+)$/i;

/**
 * A title that is a whole clause within `max` characters: for "X, that's why Y", Y (with "because
 * X" when it fits); a sentence that fits, whole; else its main clause when that fits; else cut at a
 * clause or word boundary with an ellipsis. `whole` says which clauses can stand as a rule.
 */
export function clauseTitle(sentence: string, max: number, whole: (s: string) => boolean): string {
  const s = sentence.replace(/\s+/g, ' ').trim();
  const why = THATS_WHY.exec(s);
  if (why) {
    const result = why[2].replace(/[.!]+$/, '').trim();
    const reason = why[1].split(/\b(?:since|because|as)\s+/i).pop()!.replace(/[.,;]+$/, '').trim();
    const both = `${result} because ${reason}`;
    if (both.length <= max && whole(reason) && !danglingReference(reason)) return both;
    if (result.length <= max && whole(result)) return result;
  }
  if (s.length <= max) return s;
  const main = s.split(/\s*;\s+|\s+[\u2014\u2013]\s+|,\s+(?:so|but|which|although|though|and)\s+|\.\s+/i)[0].trim();
  if (main.length <= max && main !== s && whole(main)) return main;
  return shorten(s, max);
}
