// Whether two nearly identical learnings state different facts: a negation on one side only, a
// number or version that changed, or one name put in place of another. Compaction keeps such
// pairs apart (merging would silently drop one fact); consolidation reports them.

import { STOPWORDS } from '../retrieve/stopwords.js';
import { ENTRY_TYPES, type Entry } from '../vault/entry.js';

export type ConflictKind = 'negation' | 'number' | 'name';

export interface Conflict {
  kind: ConflictKind;
  /** For people: "differ in a number: 18 vs 20", "negation: \"never\" in one only", … */
  reason: string;
}

const WORD = 0;
const NUM = 1;
const NEG = 2;

interface Tok {
  /** What two tokens are compared by: a stem for words, the exact value for numbers. */
  key: string;
  /** The token as written (lowercase), for reasons. */
  text: string;
  cls: typeof WORD | typeof NUM | typeof NEG;
  /** Looks like a name: a code span, a path or dotted/hyphenated identifier, a capital inside a sentence. */
  name: boolean;
}

/** The tokens of a learning that carry its meaning, in order (stopwords out, negations kept). */
export interface FactProfile {
  toks: Tok[];
  negations: number;
  /** Equal keys: same meaningful tokens in the same order, so the two never conflict. */
  key: string;
}

// Words (with inner apostrophes), numbers and versions ("v1.2.3", "3.11", "2026-11-25", "10:30"),
// paths and identifiers ("src/app.ts", "us-east-1", "node.js") are each one token.
const TOKEN = /[\p{L}\p{N}]+(?:['\u2019][\p{L}]+|[._/:-]+[\p{L}\p{N}]+)*/gu;
const JOINED = /[._/:-]/;
/**
 * Numbers, versions, dates, sizes, times, regions: a token that starts with a digit (or "v" and a
 * digit) or has a digit after a dot, dash, slash or colon ("us-east-1", "python3.11"). A word that
 * merely ends in digits ("utf8", "node18") is a name.
 */
const NUMERIC = /^v?\p{N}|[._/:-]\p{N}/u;
const UPPER = /\p{Lu}/u;

/**
 * Negation cues. Most are stopwords for search (and so invisible to the Jaccard that finds
 * near-duplicates), which is why "Don't use yarn" and "Use yarn" look identical to it.
 */
const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nothing', 'nobody', 'nowhere', 'neither', 'nor', 'cannot', 'without',
  'avoid', 'avoids', 'avoided', 'avoiding', 'stop', 'stops', 'stopped', 'stopping', 'forbid', 'forbids', 'forbidden',
  'prohibit', 'prohibits', 'prohibited', 'disallow', 'disallows', 'disallowed',
  'dont', 'doesnt', 'didnt', 'isnt', 'arent', 'wasnt', 'werent', 'wont', 'cant', 'shouldnt', 'mustnt', 'couldnt', 'wouldnt',
  'hasnt', 'havent', 'hadnt', 'neednt', 'shant']);

function isNegation(w: string): boolean {
  return NEGATIONS.has(w) || w.endsWith("n't");
}

/** True when the token at `at` starts a sentence (a capital there says nothing about names). */
function sentenceStart(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = text[i];
    if (c === '\n' || c === '.' || c === '!' || c === '?' || c === ':' || c === ';') return true;
    if (!/[\s*_#>"'\u201c\u2018(\[-]/.test(c)) return false;
  }
  return true;
}

/**
 * A word's key for comparison: endings that only inflect ("runs", "running", "configured",
 * "retries", "uses") come off, so a change of ending is never read as another word.
 */
export function wordKey(w: string): string {
  let s = w;
  if (s.length > 4 && s.endsWith('ies')) s = `${s.slice(0, -3)}y`;
  else if (s.length > 4 && s.endsWith('ing')) s = s.slice(0, -3);
  else if (s.length > 3 && s.endsWith('ed')) s = s.slice(0, -1);
  else if (s.length > 3 && s.endsWith('s') && !s.endsWith('ss')) s = s.slice(0, -1);
  if (s.length >= 3 && s.endsWith('e')) s = s.slice(0, -1);
  const last = s[s.length - 1];
  if (s.length > 3 && last === s[s.length - 2] && !'aeiou'.includes(last)) s = s.slice(0, -1);
  return s;
}

const TYPE_PREFIX = new RegExp(`^(?:${ENTRY_TYPES.join('|')})\\s*:\\s*`, 'i');

/** The text a learning states: its heading title (without the "Procedural:" type word) and body. */
export function factText(e: Pick<Entry, 'title' | 'body' | 'titleFromHeading'>): string {
  if (!e.titleFromHeading) return e.body || e.title;
  const title = e.title.replace(TYPE_PREFIX, '');
  // A title that is the body's first sentence adds nothing (and would count its numbers twice).
  const flat = (t: string) => t.replace(/\s+/g, ' ').trim();
  if (!e.body || flat(e.body).replace(/^[#>*\s-]+/, '').startsWith(flat(title).replace(/\u2026$/, ''))) return e.body || title;
  return `${title}\n${e.body}`;
}

export function factProfile(text: string): FactProfile {
  const toks: Tok[] = [];
  let negations = 0;
  for (const m of text.matchAll(TOKEN)) {
    const raw = m[0];
    const low = raw.toLowerCase().replace(/\u2019/g, "'");
    if (isNegation(low)) {
      negations++;
      toks.push({ key: `!${low}`, text: low, cls: NEG, name: false });
      continue;
    }
    if (NUMERIC.test(low)) {
      // A version range or bound keeps its operator: "^1.2" and "~1.2", ">=18" and "18" differ.
      const at = m.index ?? 0;
      const op = at > 0 && '~^<>='.includes(text[at - 1]) ? /[~^<>=]*$/.exec(text.slice(Math.max(0, at - 2), at))![0] : '';
      const v = `${op}${low}`;
      toks.push({ key: `#${op}${low.replace(/^v(?=\p{N})/u, '')}`, text: v, cls: NUM, name: true });
      continue;
    }
    if (STOPWORDS.has(low)) continue;
    const at = m.index ?? 0;
    const before = at > 0 ? text[at - 1] : '';
    const name = JOINED.test(low) || before === '`' || before === '-' || UPPER.test(raw.slice(1)) || (UPPER.test(raw[0]) && !sentenceStart(text, at));
    toks.push({ key: wordKey(low.replace(/['._/:-]/g, '')), text: low, cls: WORD, name });
  }
  return { toks, negations, key: toks.map((t) => t.key).join(' ') };
}

interface Hunk {
  a: Tok[];
  b: Tok[];
}

/** Above this many cells, the differing middle is taken as one change instead of aligned word by word. */
const MAX_CELLS = 1 << 18;

/** The changed runs between two token sequences (longest common subsequence of their keys). */
function hunks(x: Tok[], y: Tok[]): Hunk[] {
  let s = 0;
  while (s < x.length && s < y.length && x[s].key === y[s].key) s++;
  let ex = x.length;
  let ey = y.length;
  while (ex > s && ey > s && x[ex - 1].key === y[ey - 1].key) {
    ex--;
    ey--;
  }
  const n = ex - s;
  const m = ey - s;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return [{ a: x.slice(s, ex), b: y.slice(s, ey) }];
  // lcs[i][j]: common subsequence length of x[s+i..ex) and y[s+j..ey).
  const w = m + 1;
  const lcs = new Int32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = x[s + i].key === y[s + j].key ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out: Hunk[] = [];
  let cur: Hunk | null = null;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[s + i].key === y[s + j].key) {
      cur = null;
      i++;
      j++;
      continue;
    }
    if (!cur) out.push((cur = { a: [], b: [] }));
    if (j >= m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])) cur.a.push(x[s + i++]);
    else cur.b.push(y[s + j++]);
  }
  return out;
}

/** Multiset difference of negation cues: the ones `x` has beyond `y`. */
function extraCues(x: FactProfile, y: FactProfile): string[] {
  const left = new Map<string, number>();
  for (const t of y.toks) if (t.cls === NEG) left.set(t.text, (left.get(t.text) ?? 0) + 1);
  const out: string[] = [];
  for (const t of x.toks) {
    if (t.cls !== NEG) continue;
    const k = left.get(t.text) ?? 0;
    if (k > 0) left.set(t.text, k - 1);
    else out.push(t.text);
  }
  return out;
}

const quote = (ws: string[]) => ws.map((w) => `"${w}"`).join(', ');

/**
 * Whether two learnings that read almost the same state different facts:
 * - negation: one has more negation cues than the other ("Use yarn" / "Never use yarn", "Do not …");
 * - number: a changed run of words holds a number, version, date, port, size or region (NUMERIC)
 *   ("Node 18" / "Node 20", "v1.2.3" / "v1.3", "5432" / "6543"), added, dropped or replaced;
 * - name: a word stands in for another at the same place ("yarn" / "pnpm", "main" / "master":
 *   a run of 1 to 3 content words replaced by as many), or both sides of a change hold a name
 *   (a code span, a path or dotted identifier, a capitalised word inside a sentence).
 * Stopwords, case, punctuation, whitespace and word endings ("test" / "tests") are no difference,
 * and an added or reworded clause of plain words is not a conflict: those stay duplicates.
 * A cue moved elsewhere ("not npm" / "not yarn") is a negation conflict too; two different cues
 * in different places with the same count ("to avoid broken builds" / "so builds don't break") are not.
 */
export function conflictBetween(x: FactProfile, y: FactProfile, opts: { only?: boolean } = {}): Conflict | null {
  if (x.key === y.key) return null;
  const hs = !opts.only && x.negations !== y.negations ? [] : hunks(x.toks, y.toks);
  // `only`: every change must be one of the kinds below — the same statement but for a number, a
  // name or a negation, which says so even for short texts that share few words.
  if (opts.only && !hs.every(explained)) return null;
  if (x.negations !== y.negations) {
    const more = x.negations > y.negations ? extraCues(x, y) : extraCues(y, x);
    return { kind: 'negation', reason: `negation: ${quote(more)} in one only` };
  }
  // The same cue taken out in one place and put back in another: "Use yarn, not npm" / "Use npm, not yarn".
  const removed = new Map<string, number>();
  hs.forEach((h, i) => h.a.forEach((t) => t.cls === NEG && removed.set(t.key, i)));
  for (let i = 0; i < hs.length; i++) {
    const moved = hs[i].b.find((t) => t.cls === NEG && removed.has(t.key) && removed.get(t.key) !== i);
    if (moved) return { kind: 'negation', reason: `negation: "${moved.text}" moved to another part` };
  }
  const numA: string[] = [];
  const numB: string[] = [];
  for (const h of hs) {
    for (const t of h.a) if (t.cls === NUM) numA.push(t.text);
    for (const t of h.b) if (t.cls === NUM) numB.push(t.text);
  }
  if (numA.length > 0 || numB.length > 0) {
    const list = (ns: string[]) => [...new Set(ns)].join(', ') || '(none)';
    return { kind: 'number', reason: `differ in a number: ${list(numA)} vs ${list(numB)}` };
  }
  for (const h of hs) {
    if (nameSwap(h)) {
      const words = (ts: Tok[]) => ts.filter((t) => t.cls === WORD).map((t) => t.text).join(' ');
      return { kind: 'name', reason: `differ in a name: ${words(h.a)} vs ${words(h.b)}` };
    }
  }
  return null;
}

/** 1 to 3 content words replaced by as many, or a name on both sides of the change. */
function nameSwap(h: Hunk): boolean {
  const wa = h.a.filter((t) => t.cls === WORD);
  const wb = h.b.filter((t) => t.cls === WORD);
  if (wa.length === 0 || wb.length === 0) return false;
  return (wa.length === wb.length && wa.length <= 3) || (wa.some((t) => t.name) && wb.some((t) => t.name));
}

/**
 * A change that is only a negation added or dropped, a number added, as many tokens put in place
 * of as many (1 to 3, number for number, word for word), or names for names.
 */
function explained(h: Hunk): boolean {
  const a = h.a.filter((t) => t.cls !== NEG);
  const b = h.b.filter((t) => t.cls !== NEG);
  if (a.length === 0 || b.length === 0) return [...a, ...b].every((t) => t.cls === NUM);
  if (a.length === b.length && a.length <= 3) return a.every((t, i) => t.cls === b[i].cls);
  return a.every((t) => t.name) && b.every((t) => t.name);
}

/** conflictBetween over two texts. */
export function textsConflict(a: string, b: string): Conflict | null {
  return conflictBetween(factProfile(a), factProfile(b));
}
