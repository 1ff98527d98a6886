// Event segmentation: a transcript's conversation split into episodes. Rules first (short sessions,
// time gaps, a size cap), then the surprise channel — 1 − cos(event model, new message) over
// lexical TF-IDF vectors, or embeddings when given, calibrated against the session's own distances
// — and the topic channel's boundaries when given. Pure: no disk, no clock.

import type { Transcript } from '../extract/transcript.js';
import { STOPWORDS } from '../retrieve/stopwords.js';

export interface SegmentConfig {
  /** Fewer messages than this: the whole conversation is one episode. */
  minMessages: number;
  /** A gap between two messages longer than this (minutes) is a boundary. */
  gapMinutes: number;
  /** An episode never holds more messages than this. */
  maxMessages: number;
  /** A human message whose surprise is above this opens a new episode. */
  surpriseThreshold: number;
  /** An episode shorter than this (messages) is never cut by surprise or topic: one odd word is not a new event. */
  minEpisodeMessages: number;
  /** A message with fewer distinct terms than this is too short to surprise (its surprise is 0). */
  minTerms: number;
}

export const DEFAULT_SEGMENT_CONFIG: SegmentConfig = {
  minMessages: 5,
  gapMinutes: 15,
  maxMessages: 50,
  surpriseThreshold: 0.7,
  minEpisodeMessages: 4,
  minTerms: 4,
};

export { KEY_MOMENT } from './detail.js';

/** One message of the conversation as segmentation sees it. */
export interface ConversationMessage {
  /** Position in the conversation (0-based, over the kept messages only). */
  index: number;
  role: 'user' | 'assistant';
  text: string;
  timestamp?: string;
}

export type BoundaryReason = 'start' | 'gap' | 'max' | 'surprise' | 'topic';

export interface EpisodeSpan {
  /** Index of the first and last message (inclusive) in the conversation. */
  first: number;
  last: number;
  messages: ConversationMessage[];
  /** What opened this episode. */
  reason: BoundaryReason;
  /** Highest surprise of a message inside (the one that opened it included), 0–1, 3 decimals. */
  surprise: number;
  startAt: string | null;
  endAt: string | null;
  title: string;
  summary: string;
  /** Who wrote the title and summary when a model did (provider:model); absent: extractive. */
  summaryBy?: string;
}

/**
 * The conversation: what the human typed and what the agent answered, in order. Harness text
 * (`instruction`), thinking, tool calls and results and sidechains are left out; the blocks of
 * one response (Claude writes each on its own line, sharing the message id) are one message.
 */
export function conversationOf(t: Transcript): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  let lastId: string | undefined;
  for (const m of t.messages) {
    if (m.instruction || m.isSidechain || m.kind !== 'text') continue;
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const text = m.text.trim();
    // A bare interruption marker is the harness's, not something said.
    if (text === '' || /^\[Request interrupted by user[^\]]*\]$/.test(text)) continue;
    const prev = out[out.length - 1];
    // The same words twice in a row (a prompt re-sent, a record written twice) are one message.
    if (prev && prev.role === m.role && prev.text === text) continue;
    if (prev && prev.role === m.role && m.id !== undefined && m.id === lastId) {
      prev.text += `\n\n${text}`;
      continue;
    }
    out.push({ index: out.length, role: m.role, text, timestamp: m.timestamp });
    lastId = m.id;
  }
  return out;
}

const WORD = /[\p{L}\p{N}_][\p{L}\p{N}_'-]*/gu;

/** Lowercase terms of a message, stopwords and one- or two-letter words dropped. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0].replace(/['-]+$/, '');
    if (w.length < 3 || STOPWORDS.has(w) || /^\d+$/.test(w)) continue;
    out.push(w);
  }
  return out;
}

type Vec = Map<string, number>;

/** TF-IDF vectors (unit length) of the messages; idf over the conversation's messages. */
export function tfidfVectors(texts: string[]): Vec[] {
  const tfs = texts.map((t) => {
    const tf: Vec = new Map();
    for (const w of terms(t)) tf.set(w, (tf.get(w) ?? 0) + 1);
    return tf;
  });
  const df = new Map<string, number>();
  for (const tf of tfs) for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = texts.length;
  return tfs.map((tf) => {
    const v: Vec = new Map();
    let norm = 0;
    for (const [w, c] of tf) {
      const x = (1 + Math.log(c)) * (Math.log((n + 1) / ((df.get(w) ?? 0) + 1)) + 1);
      v.set(w, x);
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [w, x] of v) v.set(w, x / norm);
    return v;
  });
}

function cosine(a: Vec, b: Vec): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  for (const [w, x] of small) dot += x * (large.get(w) ?? 0);
  for (const x of a.values()) na += x * x;
  for (const x of b.values()) nb += x * x;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function addTo(sum: Vec, v: Vec): void {
  for (const [w, x] of v) sum.set(w, (sum.get(w) ?? 0) + x);
}

/** The vectors the surprise channel compares: sparse TF-IDF maps offline, dense embeddings when configured. */
interface Space<V> {
  empty(): V;
  add(sum: V, v: V): void;
  cos(a: V, b: V): number;
}

const SPARSE: Space<Vec> = { empty: () => new Map(), add: addTo, cos: cosine };

function denseSpace(dims: number): Space<Float32Array> {
  return {
    empty: () => new Float32Array(dims),
    add(sum, v) {
      for (let i = 0; i < dims; i++) sum[i] += v[i] ?? 0;
    },
    cos(a, b) {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < dims; i++) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
      }
      return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
    },
  };
}

/**
 * A message with the agent's answers up to the next human message: the new event as a whole.
 * A short question alone shares too few words with anything to be compared fairly. (For an
 * agent's message, the message alone.)
 */
function turnVector<V>(messages: ConversationMessage[], vecs: V[], space: Space<V>, i: number): V {
  const sum = space.empty();
  space.add(sum, vecs[i]);
  if (messages[i].role === 'user') for (let j = i + 1; j < messages.length && messages[j].role !== 'user'; j++) space.add(sum, vecs[j]);
  return sum;
}

function ms(ts: string | undefined): number | null {
  if (!ts) return null;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? null : t;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** What the optional channels bring (src/episodes/channels.ts computes them). */
export interface SegmentChannels {
  /** One embedding per message, in order: the surprise channel then compares these, not TF-IDF. */
  vectors?: Float32Array[];
  /** Messages a language model says open a new topic (the topic channel), already validated. */
  topics?: ReadonlySet<number>;
}

/** Whether a gap longer than the rule's separates message i from the one before. */
function gapBefore(messages: ConversationMessage[], i: number, cfg: SegmentConfig): boolean {
  if (i === 0) return false;
  return (ms(messages[i].timestamp) ?? NaN) - (ms(messages[i - 1].timestamp) ?? NaN) > cfg.gapMinutes * 60_000;
}

/**
 * How the session's distances are spread: the median and a robust spread (1.4826 × the median
 * absolute deviation, never under MIN_SPREAD) of every message's distance to its event model,
 * the episodes cut by the rules alone. Null with fewer than MIN_SAMPLES distances: too few to
 * say what is ordinary for this session.
 */
export function distanceScale(distances: number[]): { median: number; spread: number } | null {
  if (distances.length < MIN_SAMPLES) return null;
  const med = median(distances);
  return { median: med, spread: Math.max(MIN_SPREAD, 1.4826 * median(distances.map((d) => Math.abs(d - med)))) };
}

/**
 * distanceScale of `xs` without xs[i], for every i — the same numbers as calling it on each
 * leave-one-out list, in O(n log n) instead of a sort per element (a 100k-message transcript took
 * minutes): the sorted list without one value is the sorted list read around that value's place,
 * and the median leaving one out takes at most three values, each with its own sorted deviations.
 */
export function leaveOneOutScales(xs: number[]): ({ median: number; spread: number } | null)[] {
  if (xs.length - 1 < MIN_SAMPLES) return xs.map(() => null);
  const sorted = Float64Array.from(xs).sort();
  const devsFor = new Map<number, Float64Array>();
  return xs.map((x) => {
    const med = medianWithout(sorted, x);
    let devs = devsFor.get(med);
    if (!devs) devsFor.set(med, (devs = Float64Array.from(xs, (d) => Math.abs(d - med)).sort()));
    return { median: med, spread: Math.max(MIN_SPREAD, 1.4826 * medianWithout(devs, Math.abs(x - med))) };
  });
}

/** The median of sorted `s` with one instance of `v` (which it holds) taken out. */
function medianWithout(s: Float64Array, v: number): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  const at = (k: number) => (k < lo ? s[k] : s[k + 1]);
  const n = s.length - 1;
  const m = n >> 1;
  return n % 2 ? at(m) : (at(m - 1) + at(m)) / 2;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const MIN_SAMPLES = 3;
const MIN_SPREAD = 0.05;
/**
 * The calibrated surprise of a distance d = 1 − cos (new message against the event model), judged
 * against what is ordinary in this session, so that it means the same over word vectors (distances
 * mostly 0.5–1) and over embeddings (whose cosines crowd together: distances mostly 0.1–0.5). z,
 * the robust deviations of d above the session's median, maps through a logistic curve placed on
 * the scale the thresholds use: an ordinary distance (z = 0) ≈ 0.22 ("minor information gain"), 2.5
 * deviations out = 0.7 (key moment), 3.5 ≈ 0.85 (flashbulb). It is never more than 2·d: a small
 * distance stays a small surprise however uniform the session (the same words again surprise no
 * one), while an embedding's distance of 0.35 — a change of subject for most models — may reach a
 * key moment. Without enough distances to judge (a short session), a distance counts as ordinary:
 * at most 0.22.
 */
export function calibratedSurprise(d: number, scale: { median: number; spread: number } | null): number {
  const z = scale ? (d - scale.median) / scale.spread : 0;
  return Math.max(0, Math.min(logistic(z), scale ? 2 * d : d));
}

function logistic(z: number): number {
  return 1 / (1 + Math.exp(-(z - Z_MID) / Z_WIDTH));
}
const Z_MID = 1.5;
const Z_WIDTH = 1 / Math.log(0.7 / 0.3);

/** Messages the event model remembers: the recent stretch of the current event, not all of it. */
export const MODEL_WINDOW = 10;

/**
 * The distance (1 − cos) of each message to the event model before it — the sum of the vectors of
 * the last MODEL_WINDOW messages since the last time gap — for messages with enough words to
 * judge (others: null). A message after a gap is measured against the stretch before it: a return
 * after an hour to something else is a surprise too. Episode boundaries do not move the model, so
 * a cut never makes the next message look surprising.
 */
function distances<V>(messages: ConversationMessage[], vecs: V[], space: Space<V>, cfg: SegmentConfig, eligible: boolean[]): (number | null)[] {
  const d: (number | null)[] = messages.map(() => null);
  let from = 0;
  for (let i = 0; i < messages.length; i++) {
    if (i > from && eligible[i]) {
      const model = space.empty();
      for (let j = Math.max(from, i - MODEL_WINDOW); j < i; j++) space.add(model, vecs[j]);
      d[i] = Math.max(0, 1 - space.cos(model, turnVector(messages, vecs, space, i)));
    }
    if (gapBefore(messages, i, cfg)) from = i;
  }
  return d;
}

/**
 * Split the conversation into episodes. Boundaries: the rules (gap, size cap), then a human
 * message whose calibrated surprise is above the threshold, or that the topic channel names —
 * either only once the episode holds `minEpisodeMessages`. Surprise: 1 − cos(event model, the
 * turn), calibrated against the session's own distances (calibratedSurprise). Only the human's
 * messages open episodes: they bring new events, while the agent's answers restate them (and
 * their lexical novelty — code, paths, tool output — is noise). Every threshold comes from `cfg`.
 */
export function segment(messages: ConversationMessage[], cfg: SegmentConfig = DEFAULT_SEGMENT_CONFIG, channels: SegmentChannels = {}): EpisodeSpan[] {
  if (messages.length === 0) return [];
  const lexical = tfidfVectors(messages.map((m) => m.text));
  // A message with too few words to say anything new cannot surprise (in either space).
  const eligible = lexical.map((v) => v.size >= cfg.minTerms);
  const dense = channels.vectors && channels.vectors.length === messages.length ? channels.vectors : null;
  const d = dense
    ? distances(messages, dense, denseSpace(dense[0].length), cfg, eligible)
    : distances(messages, lexical, SPARSE, cfg, eligible);
  return spans(messages, lexical, cut(messages, d, cfg, channels.topics));
}

/**
 * The surprise of each human message — its distance judged against the other human messages'
 * (leave one out: an outlier must not widen its own yardstick, which matters in a short session)
 * — and the episodes' starts: the rules (gap, size cap), then surprise and topic boundaries.
 */
function cut(messages: ConversationMessage[], d: (number | null)[], cfg: SegmentConfig, topics?: ReadonlySet<number>) {
  const pool = d.map((x, i) => (x !== null && messages[i].role === 'user' ? x : null));
  const measured = pool.filter((x): x is number => x !== null);
  const scales = leaveOneOutScales(measured);
  let k = 0;
  const surprise = pool.map((x) => (x === null ? 0 : round3(calibratedSurprise(x, scales[k++]))));
  const starts = [0];
  const reasons: BoundaryReason[] = ['start'];
  const short = messages.length < cfg.minMessages;
  let inEpisode = 1;
  for (let i = 1; i < messages.length; i++) {
    let reason: BoundaryReason | null = short ? null : gapBefore(messages, i, cfg) ? 'gap' : inEpisode >= cfg.maxMessages ? 'max' : null;
    if (!reason && !short && messages[i].role === 'user' && inEpisode >= cfg.minEpisodeMessages) {
      if (surprise[i] > cfg.surpriseThreshold) reason = 'surprise';
      else if (topics?.has(i)) reason = 'topic';
    }
    if (reason) {
      starts.push(i);
      reasons.push(reason);
      inEpisode = 0;
    }
    inEpisode++;
  }
  return { starts, reasons, surprise };
}

function spans(messages: ConversationMessage[], vecs: Vec[], r: { starts: number[]; reasons: BoundaryReason[]; surprise: number[] }): EpisodeSpan[] {
  return r.starts.map((first, k) => {
    const last = (r.starts[k + 1] ?? messages.length) - 1;
    const msgs = messages.slice(first, last + 1);
    const stamps = msgs.map((m) => m.timestamp).filter((t): t is string => ms(t) !== null);
    const epVecs = vecs.slice(first, last + 1);
    return {
      first,
      last,
      messages: msgs,
      reason: r.reasons[k],
      surprise: r.surprise.slice(first, last + 1).reduce((m, x) => Math.max(m, x), 0),
      startAt: stamps[0] ?? null,
      endAt: stamps[stamps.length - 1] ?? null,
      title: titleOf(msgs, epVecs),
      summary: summaryOf(msgs, epVecs),
    };
  });
}

/** Text fit for a title or summary: code blocks, markup and links out, whitespace squeezed. */
function plain(text: string): string {
  return text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/<[^>\n]{1,200}>/g, ' ')
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
    .replace(/[`*_#>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function sentences(text: string): string[] {
  return plain(text).split(/(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'(])/u).map((s) => s.trim()).filter((s) => s.length > 0);
}

function words(s: string): string[] {
  return s.split(/\s+/).filter((w) => w !== '');
}

/** The centroid's heaviest terms, for a title too short to say what the episode is about. */
function keyTerms(vecs: Vec[], n: number, skip: Set<string>): string[] {
  const sum: Vec = new Map();
  for (const v of vecs) addTo(sum, v);
  return [...sum.entries()].filter(([w]) => !skip.has(w)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n).map(([w]) => w);
}

/**
 * A 5–15 word title, extractive: the first sentence the human wrote in the episode (the agent's
 * when the human said nothing worth a title), cut to 15 words; under 5 words, the episode's key
 * terms are added after a dash.
 */
export function titleOf(msgs: ConversationMessage[], vecs: Vec[]): string {
  const pick = (role: 'user' | 'assistant') => {
    for (const m of msgs) {
      if (m.role !== role) continue;
      const s = sentences(m.text).find((x) => terms(x).length >= 2);
      if (s) return s;
    }
    return null;
  };
  const first = pick('user') ?? pick('assistant') ?? sentences(msgs[0]?.text ?? '')[0] ?? '';
  let ws = words(first);
  if (ws.length > 15) ws = ws.slice(0, 15);
  let title = ws.join(' ').replace(/[,;:\u2013\u2014-]+$/, '');
  if (ws.length < 5) {
    const have = new Set(terms(title));
    const extra = keyTerms(vecs, 5 - ws.length + 1, have);
    title = ws.length === 0 ? extra.join(' ') : `${title} — ${extra.join(' ')}`;
    if (words(title).length < 5) title = `${title} (conversation episode)`.trim();
  }
  return title.replace(/\s+/g, ' ').trim();
}

const SUMMARY_SENTENCES = 3;
const SUMMARY_CHARS = 600;

/**
 * An extractive summary: the sentences closest to the episode's event model (its centroid),
 * up to three, in the order they were said, each from a different message.
 */
export function summaryOf(msgs: ConversationMessage[], vecs: Vec[]): string {
  const centroid: Vec = new Map();
  for (const v of vecs) addTo(centroid, v);
  const cands: { msg: number; pos: number; text: string; score: number }[] = [];
  msgs.forEach((m, mi) => {
    sentences(m.text).slice(0, 6).forEach((s, pos) => {
      if (s.length < 20 || s.length > 300 || terms(s).length < 3) return;
      const tf: Vec = new Map();
      for (const w of terms(s)) tf.set(w, (tf.get(w) ?? 0) + 1);
      cands.push({ msg: mi, pos, text: s, score: cosine(centroid, tf) + (m.role === 'user' ? 0.05 : 0) });
    });
  });
  const chosen: typeof cands = [];
  for (const c of [...cands].sort((a, b) => b.score - a.score || a.msg - b.msg || a.pos - b.pos)) {
    if (chosen.length >= SUMMARY_SENTENCES) break;
    if (chosen.some((x) => x.msg === c.msg || x.text === c.text)) continue;
    chosen.push(c);
  }
  chosen.sort((a, b) => a.msg - b.msg || a.pos - b.pos);
  let out = '';
  for (const c of chosen) {
    const next = out === '' ? c.text : `${out} ${c.text}`;
    if (next.length > SUMMARY_CHARS && out !== '') break;
    out = next.length > SUMMARY_CHARS ? `${next.slice(0, SUMMARY_CHARS - 1).trimEnd()}…` : next;
  }
  return out || plain(msgs[0]?.text ?? '').slice(0, 200);
}

/**
 * Initial FSRS stability (days) for a new episode: FSRS-6's stability after a first Good (2.3065)
 * × (1 + 0.5 × surprise), so a surprising episode fades more slowly.
 */
export function initialStability(surprise: number): number {
  return Math.round(2.3065 * (1 + 0.5 * surprise) * 10000) / 10000;
}

/** Initial FSRS difficulty for a new episode: FSRS-6's difficulty after a first Good. */
export const INITIAL_DIFFICULTY = 2.118;
