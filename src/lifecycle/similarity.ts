// Near-duplicate detection in sub-quadratic time: Jaccard similarity over normalised body
// tokens, with candidate pairs from prefix filtering (PPJoin: exact, no pair at or above the
// threshold is missed) and each candidate pair confirmed by exact Jaccard.

import { STOPWORDS, isStopword } from '../retrieve/stopwords.js';

const WORD = /[\p{L}\p{N}]+/gu;

/** Normalised tokens of a body: lowercase words of 2+ characters, stopwords dropped, deduplicated. */
export function normTokens(text: string): string[] {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(WORD) ?? []) {
    if (w.length > 1 && !isStopword(w)) out.add(w);
  }
  return [...out];
}

/**
 * Token sets for the similarity searches: the distinct words of normTokens, as sorted small
 * integer ids from one vocabulary. The text is scanned once, hashing each word's characters
 * as it goes; the id comes from an open-addressing table keyed by two 32-bit hashes of the word
 * (a collision of both, among a million distinct words, has a chance of about 1 in 30 million).
 * No string per word and no Map: on the 100k-entry bench vault, 0.55 s for every body, where
 * normTokens took 0.75 s and mapping its strings to ids another 0.5 s; and the searches index
 * arrays by the ids.
 */
export type TokenSet = Int32Array;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SEED2 = 0x9747b28c;
const STOP = -1;
/** ASCII letters and digits, lowercased; 0 for every other ASCII character. */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : (c >= 97 && c <= 122) || (c >= 48 && c <= 57) ? c : 0));

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A growable buffer of word hash pairs. */
export interface WordHashes {
  a: Int32Array;
}

function put(out: WordHashes, k: number, h1: number, h2: number): number {
  if (k + 2 > out.a.length) {
    const bigger = new Int32Array(Math.max(64, out.a.length * 2));
    bigger.set(out.a);
    out.a = bigger;
  }
  out.a[k] = h1;
  out.a[k + 1] = h2;
  return k + 2;
}

/**
 * The words of normTokens(text) before stopwords are dropped (lowercase, 2+ characters, repeats
 * kept), as pairs of 32-bit hashes in text order, written to `out.a` from `at` on (grown as
 * needed); returns where they end. ASCII text is scanned directly, other text through the regex.
 * Pure: a worker thread can hash the texts while TokenVocab.ofHashes gives the ids on the main
 * thread.
 */
export function wordHashes(text: string, out: WordHashes, at = 0): number {
  const n = text.length;
  let k = at;
  let h1 = FNV_OFFSET;
  let h2 = SEED2;
  let len = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    if (c >= 128) return unicodeWordHashes(text, out, at);
    const l = ASCII_WORD[c];
    if (l !== 0) {
      h1 = Math.imul(h1 ^ l, FNV_PRIME);
      h2 = Math.imul(h2 ^ l, 0x5bd1e995) ^ (h2 >>> 15);
      len++;
      continue;
    }
    if (len > 1) k = put(out, k, h1, h2);
    h1 = FNV_OFFSET;
    h2 = SEED2;
    len = 0;
  }
  return k;
}

function unicodeWordHashes(text: string, out: WordHashes, at: number): number {
  let k = at;
  for (const w of text.toLowerCase().match(WORD) ?? []) {
    if (w.length < 2) continue;
    const [h1, h2] = wordHash(w);
    k = put(out, k, h1, h2);
  }
  return k;
}

/** The two hashes of one (lowercase) word, as wordHashes takes them. */
function wordHash(w: string): [number, number] {
  let h1 = FNV_OFFSET;
  let h2 = SEED2;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, FNV_PRIME);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  return [h1, h2];
}

export class TokenVocab {
  private keys1 = new Int32Array(1 << 12);
  private keys2 = new Int32Array(1 << 12);
  /** id + 2 per slot (0 = empty; a stopword's STOP is 1). */
  private vals = new Int32Array(1 << 12);
  private count = 0;
  /** Number of distinct words given an id. */
  size = 0;
  private buf = new Int32Array(256);
  /**
   * With `pooled`, token sets are views into shared blocks rather than arrays of their own: a
   * million separate typed arrays cost about three times their contents in bookkeeping.
   */
  private readonly pooled: boolean;
  private pool = new Int32Array(0);
  private poolUsed = 0;

  constructor(opts: { pooled?: boolean } = {}) {
    this.pooled = opts.pooled === true;
    for (const w of STOPWORDS) this.idOfWord(w, STOP);
  }

  /** The id of a word from its two hashes; a new word gets the next id (or `assign`). */
  private idOf(h1: number, h2: number, assign?: number): number {
    let mask = this.keys1.length - 1;
    let i = fmix32(h1) & mask;
    for (;;) {
      const v = this.vals[i];
      if (v === 0) break;
      if (this.keys1[i] === h1 && this.keys2[i] === h2) return v - 2;
      i = (i + 1) & mask;
    }
    const id = assign ?? this.size++;
    if (++this.count * 2 > this.keys1.length) {
      this.grow();
      mask = this.keys1.length - 1;
      i = fmix32(h1) & mask;
      while (this.vals[i] !== 0) i = (i + 1) & mask;
    }
    this.keys1[i] = h1;
    this.keys2[i] = h2;
    this.vals[i] = id + 2;
    return id;
  }

  private grow(): void {
    const [k1, k2, v] = [this.keys1, this.keys2, this.vals];
    const cap = k1.length * 2;
    this.keys1 = new Int32Array(cap);
    this.keys2 = new Int32Array(cap);
    this.vals = new Int32Array(cap);
    for (let j = 0; j < k1.length; j++) {
      if (v[j] === 0) continue;
      let i = fmix32(k1[j]) & (cap - 1);
      while (this.vals[i] !== 0) i = (i + 1) & (cap - 1);
      this.keys1[i] = k1[j];
      this.keys2[i] = k2[j];
      this.vals[i] = v[j];
    }
  }

  private idOfWord(w: string, assign?: number): number {
    const [h1, h2] = wordHash(w);
    return this.idOf(h1, h2, assign);
  }

  /** The words of normTokens(text) as a token set (wordHashes, then ofHashes). */
  ofText(text: string): TokenSet {
    const n = wordHashes(text, this.hashes);
    return this.ofHashes(this.hashes.a, 0, n);
  }

  private hashes: WordHashes = { a: new Int32Array(512) };

  /**
   * The token set of the words whose hash pairs (wordHashes) are `h[from..to)`: the same set, with
   * the same ids given in the same order, as ofText of their text. wordHashes may run elsewhere (a
   * worker thread); the ids must be given here, in the order the texts come.
   */
  ofHashes(h: Int32Array, from: number, to: number): TokenSet {
    const n = (to - from) >> 1;
    if (this.buf.length < n) this.buf = new Int32Array(n);
    const buf = this.buf;
    let k = 0;
    for (let j = from; j < to; j += 2) {
      const id = this.idOf(h[j], h[j + 1]);
      if (id !== STOP) buf[k++] = id;
    }
    return this.finish(k);
  }

  /** A token set of tokens already chosen (none is dropped, stopwords included). */
  ofTokens(tokens: readonly string[]): TokenSet {
    if (this.buf.length < tokens.length) this.buf = new Int32Array(tokens.length);
    let k = 0;
    for (const t of tokens) {
      const id = this.idOfWord(t);
      this.buf[k++] = id === STOP ? this.idOfWord(`\u0000${t}`) : id;
    }
    return this.finish(k);
  }

  /** The first k ids of the buffer, sorted and without repeats. */
  private finish(k: number): TokenSet {
    const a = this.buf;
    // Insertion sort for the usual few dozen words (no subarray to make); the library sort beyond.
    if (k > 64) a.subarray(0, k).sort();
    else insertionSort(a, k);
    let n = 0;
    for (let i = 0; i < k; i++) if (n === 0 || a[i] !== a[n - 1]) a[n++] = a[i];
    if (!this.pooled) return a.slice(0, n);
    if (this.poolUsed + n > this.pool.length) {
      this.pool = new Int32Array(Math.max(1 << 18, n));
      this.poolUsed = 0;
    }
    const out = this.pool.subarray(this.poolUsed, this.poolUsed + n);
    out.set(a.subarray(0, n));
    this.poolUsed += n;
    return out;
  }
}

function insertionSort(a: Int32Array, k: number): void {
  for (let i = 1; i < k; i++) {
    const x = a[i];
    let j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

/** Sets of tokens already chosen (none is dropped) as token sets of one vocabulary. */
export function tokenSets(sets: readonly (readonly string[])[]): TokenSet[] {
  const vocab = new TokenVocab();
  return sets.map((s) => vocab.ofTokens(s));
}

/** Jaccard similarity of two sorted sets without repeats. */
export function jaccardSorted(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  const union = a.length + b.length - inter;
  return union === 0 ? 0 : inter / union;
}

/**
 * The smallest overlap k of two sets of sizes la and lb whose Jaccard, k / (la + lb - k), passes
 * `ok` (a test that a larger Jaccard passes whenever a smaller one does); min(la, lb) + 1 when
 * none does.
 */
function minOverlap(la: number, lb: number, ok: (j: number) => boolean): number {
  const most = la < lb ? la : lb;
  const s = la + lb;
  let lo = 0;
  let hi = most + 1;
  // Binary search: k / (s - k) grows with k, in floating point as well.
  while (lo < hi) {
    const k = (lo + hi) >>> 1;
    if (k <= most && ok(k / (s - k))) hi = k;
    else lo = k + 1;
  }
  return lo;
}

/**
 * jaccardSorted(a, b), or -1 as soon as the two cannot share `need` tokens (the tokens left on
 * the shorter side bound what the overlap can still gain).
 */
function jaccardAtLeast(a: Int32Array, b: Int32Array, need: number): number {
  const la = a.length;
  const lb = b.length;
  if (need > la || need > lb) return -1;
  // Each token passed over without a match lowers the most the overlap can reach by one.
  let slackA = la - need;
  let slackB = lb - need;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < la && j < lb) {
    const x = a[i];
    const y = b[j];
    if (x === y) {
      inter++;
      i++;
      j++;
    } else if (x < y) {
      if (--slackA < 0) return -1;
      i++;
    } else {
      if (--slackB < 0) return -1;
      j++;
    }
  }
  const union = la + lb - inter;
  return union === 0 ? 0 : inter / union;
}

export interface SimilarPair {
  a: number;
  b: number;
  jaccard: number;
}

/**
 * All pairs (a < b) of token sets with Jaccard ≥ `threshold` (or > it when `strict`), among
 * items that `canPair` allows. PPJoin: tokens ranked rarest first; sets processed by size; a set
 * probes with its prefix and is indexed with the shorter indexing prefix; candidate overlaps are
 * accumulated with a positional upper bound that drops hopeless candidates early; survivors are
 * confirmed by exact Jaccard. Exact: no qualifying pair is missed.
 */
export function similarPairs(sets: TokenSet[], threshold: number, opts: { strict?: boolean; canPair?: (a: number, b: number) => boolean } = {}): SimilarPair[] {
  const t = threshold;
  let vocab = 0;
  for (const s of sets) for (let i = 0; i < s.length; i++) if (s[i] >= vocab) vocab = s[i] + 1;
  const local = sets;
  const freq = new Int32Array(vocab);
  for (const s of local) for (let i = 0; i < s.length; i++) freq[s[i]]++;
  const byRarity = Int32Array.from({ length: vocab }, (_, i) => i).sort((x, y) => freq[x] - freq[y] || x - y);
  const rankOf = new Int32Array(vocab);
  byRarity.forEach((tok, i) => (rankOf[tok] = i));
  const ranked = local.map((s) => s.map((tok) => rankOf[tok]).sort());
  const order = ranked.map((_, i) => i).filter((i) => ranked[i].length > 0).sort((x, y) => ranked[x].length - ranked[y].length || x - y);
  // Inverted index of indexing prefixes: per token, the items and the token's position in them.
  const postItems: number[][] = Array.from({ length: vocab }, () => []);
  const postPos: number[][] = Array.from({ length: vocab }, () => []);
  const start = new Int32Array(vocab);
  const overlap = new Int32Array(sets.length);
  const pruned = new Uint8Array(sets.length);
  const touched: number[] = [];
  const pairs: SimilarPair[] = [];
  const eps = 1e-9;
  for (const x of order) {
    const sx = ranked[x];
    const lx = sx.length;
    const minSize = Math.ceil(t * lx - eps);
    const probe = lx - Math.ceil(t * lx - eps) + 1;
    for (let i = 0; i < probe && i < lx; i++) {
      const tok = sx[i];
      const items = postItems[tok];
      const pos = postPos[tok];
      // Lists grow in size order, so entries too small for x (and every later x) are skipped for good.
      while (start[tok] < items.length && ranked[items[start[tok]]].length < minSize) start[tok]++;
      for (let k = start[tok]; k < items.length; k++) {
        const y = items[k];
        if (pruned[y]) continue;
        const ly = ranked[y].length;
        const alpha = Math.ceil((t / (1 + t)) * (lx + ly) - eps);
        const bound = 1 + Math.min(lx - i - 1, ly - pos[k] - 1);
        if (overlap[y] === 0) touched.push(y);
        if (overlap[y] + bound >= alpha) overlap[y]++;
        else pruned[y] = 1;
      }
    }
    for (const y of touched) {
      if (!pruned[y] && (!opts.canPair || opts.canPair(x, y))) {
        const j = jaccardSorted(sx, ranked[y]);
        if (opts.strict ? j > t : j >= t - eps) pairs.push({ a: Math.min(x, y), b: Math.max(x, y), jaccard: j });
      }
      overlap[y] = 0;
      pruned[y] = 0;
    }
    touched.length = 0;
    const indexPrefix = lx - Math.ceil(((2 * t) / (1 + t)) * lx - eps) + 1;
    for (let i = 0; i < indexPrefix && i < lx; i++) {
      postItems[sx[i]].push(x);
      postPos[sx[i]].push(i);
    }
  }
  return pairs;
}

/** Disjoint sets over the items 0..n-1 (union-find with path halving). */
export class DisjointSets {
  private readonly parent: Int32Array;

  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }

  find(i: number): number {
    const parent = this.parent;
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  }

  /** Join two roots; the smaller stays the root, and is returned. */
  joinRoots(ra: number, rb: number): number {
    const [root, child] = ra < rb ? [ra, rb] : [rb, ra];
    this.parent[child] = root;
    return root;
  }

  /** Every set, singletons included, each in item order. */
  groups(): number[][] {
    const groups = new Map<number, number[]>();
    for (let i = 0; i < this.parent.length; i++) {
      const r = this.find(i);
      const g = groups.get(r);
      if (g) g.push(i);
      else groups.set(r, [i]);
    }
    return [...groups.values()];
  }
}

/** Connected components of `n` items joined by `pairs`; singletons included. */
export function clusters(n: number, pairs: SimilarPair[]): number[][] {
  const sets = new DisjointSets(n);
  for (const { a, b } of pairs) {
    const ra = sets.find(a);
    const rb = sets.find(b);
    if (ra !== rb) sets.joinRoots(ra, rb);
  }
  return sets.groups();
}

/** Below this many items, near-duplicate search is exact (PPJoin); above it, MinHash LSH. */
export const EXACT_LIMIT = 20_000;
const HASHES = 144;
const BANDS = 24;
const ROWS = HASHES / BANDS;
const BUCKET_ALL_PAIRS = 40;

/**
 * Edges joining items whose Jaccard is above `threshold` (≥, or > when `strict`), enough to
 * form the same clusters as all such pairs. Exact (PPJoin) for up to EXACT_LIMIT items; beyond
 * that, candidates come from MinHash LSH (144 hashes in 24 bands of 6: a pair at Jaccard 0.8 is a
 * candidate with probability 0.9993, at 0.85 with 0.99999; a pair at 0.15 with 0.0003) and every
 * edge is confirmed by exact Jaccard. With `share`, from `shareMin` sets (SHARE_MIN) half of them
 * are sketched on another thread; the edges and their order are the same.
 */
export function similarEdges(sets: TokenSet[], threshold: number, opts: { strict?: boolean; canPair?: (a: number, b: number) => boolean; exactLimit?: number; share?: SketchSharing; shareMin?: number } = {}): SimilarPair[] {
  if (sets.length <= (opts.exactLimit ?? EXACT_LIMIT)) return similarPairs(sets, threshold, opts);
  const ok = (j: number) => (opts.strict ? j > threshold : j >= threshold - 1e-9);
  const n = sets.length;
  // The second half of the sets may be sketched on another thread meanwhile (the same hashes:
  // a token's bin and value depend on its id alone).
  const half = n >> 1;
  const share = opts.share && n >= (opts.shareMin ?? SHARE_MIN) && opts.share.start(sets, half) ? opts.share : null;
  const sketch = new Sketcher(sets);
  // Band hashes, band-major: bands[b * n + s].
  const bands = new Uint32Array(BANDS * n);
  for (let s = 0, upto = share ? half : n; s < upto; s++) sketch.bandsOf(sets[s], bands, s, n);
  if (share) {
    const there = share.result();
    share.end();
    const m = n - half;
    if (there) for (let b = 0; b < BANDS; b++) bands.set(there.subarray(b * m, (b + 1) * m), b * n + half);
    else for (let s = half; s < n; s++) sketch.bandsOf(sets[s], bands, s, n);
  }
  const edges: SimilarPair[] = [];
  const seen = new PairSet();
  const sizes = new Int32Array(n);
  for (let s = 0; s < n; s++) sizes[s] = sets[s].length;
  // Most candidates fail, and each check below gives the answer a pair would get, so they come
  // before the set of pairs seen (which they keep small): a pair whose sizes differ too much
  // cannot qualify (its Jaccard is at most the smaller size over the larger), nor one `canPair`
  // refuses, and the exact Jaccard stops as soon as the overlap left cannot reach the threshold.
  // A pair refused here is refused again whenever it comes back, as if it had been seen.
  const tryPair = (a: number, b: number): boolean => {
    const x = a < b ? a : b;
    const y = a < b ? b : a;
    const lx = sizes[x];
    const ly = sizes[y];
    if (!ok(lx < ly ? lx / ly : ly / lx)) return false;
    if (opts.canPair && !opts.canPair(x, y)) return false;
    if (!seen.add(x, y)) return false;
    const j = jaccardAtLeast(sets[x], sets[y], minOverlap(lx, ly, ok));
    if (j < 0 || !ok(j)) return false;
    edges.push({ a: x, b: y, jaccard: j });
    return true;
  };
  const members: number[] = [];
  const flush = () => {
    if (members.length < 2) return;
    if (members.length <= BUCKET_ALL_PAIRS) {
      for (let i = 0; i < members.length; i++) for (let k = i + 1; k < members.length; k++) tryPair(members[i], members[k]);
      return;
    }
    // A big bucket (many copies of one text): compare each member with a few leaders, which is
    // enough to connect the cluster without checking every pair.
    const leaders: number[] = [];
    for (const m of members) {
      let joined = false;
      for (const l of leaders) if (tryPair(l, m)) joined = true;
      if (!joined && leaders.length < BUCKET_ALL_PAIRS) leaders.push(m);
    }
  };
  // The items of each band's buckets (equal band hash), chained through an open-addressing table
  // keyed by the hash, in item order: no sort of 24 key arrays (a third of the time before). A
  // slot holds its key and its chain's head side by side (one cache line per probe), and a chain
  // of one item is marked by a negative head, -(item + 2), so that the buckets with a pair are
  // found without reading their items.
  const cap = 1 << Math.ceil(Math.log2(2 * n + 2));
  const mask = cap - 1;
  const slots = new Int32Array(2 * cap);
  const next = new Int32Array(n);
  for (let b = 0; b < BANDS; b++) {
    slots.fill(-1);
    const base = b * n;
    for (let s = n - 1; s >= 0; s--) {
      if (sizes[s] === 0) continue; // empty sets never pair
      const h = bands[base + s];
      const key = h | 0;
      let i = fmix32(h) & mask;
      let head = slots[2 * i + 1];
      while (head !== -1 && slots[2 * i] !== key) {
        i = (i + 1) & mask;
        head = slots[2 * i + 1];
      }
      if (head === -1) {
        slots[2 * i] = key;
        slots[2 * i + 1] = -(s + 2);
        next[s] = -1;
      } else {
        next[s] = head < 0 ? -(head + 2) : head;
        slots[2 * i + 1] = s;
      }
    }
    for (let i = 0; i < cap; i++) {
      const first = slots[2 * i + 1];
      if (first < 0) continue;
      members.length = 0;
      for (let s = first; s !== -1; s = next[s]) members.push(s);
      flush();
    }
  }
  return edges;
}

/** Below this many sets the sketches are made on one thread (a worker's start would cost more). */
const SHARE_MIN = 200_000;

/**
 * Sketching of some sets on another thread (similarEdges' `share`): `start` hands over the sets
 * from `from` on and says whether the other thread took them; `result` waits for their band
 * hashes (as bandHashes gives them), or gives null when the other thread failed (they are then
 * sketched here); `end` lets it go.
 */
export interface SketchSharing {
  start(sets: TokenSet[], from: number): boolean;
  result(): Uint32Array | null;
  end(): void;
}

/** The band hashes of `sets`, band-major (out[b * sets.length + s]), as similarEdges makes them. */
export function bandHashes(sets: TokenSet[]): Uint32Array {
  const sketch = new Sketcher(sets);
  const out = new Uint32Array(BANDS * sets.length);
  for (let s = 0; s < sets.length; s++) sketch.bandsOf(sets[s], out, s, sets.length);
  return out;
}

/**
 * One-permutation MinHash with optimal densification, cut into BANDS band hashes: each token lands
 * in one of HASHES bins (keeping the smallest value per bin); an empty bin borrows from the first
 * non-empty bin of a fixed hash sequence, the same for every set, so two sets collide in a bin
 * with probability ≈ Jaccard. Token ids are distinct integers, so fmix32 (a bijection) hashes
 * them without collisions.
 */
class Sketcher {
  /** Each token's bin (HASHES is at most 256). */
  private readonly tokBin: Uint8Array;
  /**
   * Each token's value with its top bit flipped: signed order is then the values' unsigned order,
   * and the values stay small integers for V8 (a Uint32Array's values above 2^31 are doubles,
   * which made this loop about a fifth slower).
   */
  private readonly tokVal: Int32Array;
  /** Per bin, the fixed sequence of bins an empty bin borrows from. */
  private readonly probes: Uint8Array;
  private readonly raw = new Int32Array(HASHES);
  constructor(sets: TokenSet[]) {
    let vocab = 0;
    for (const s of sets) for (let i = 0; i < s.length; i++) if (s[i] >= vocab) vocab = s[i] + 1;
    this.tokBin = new Uint8Array(vocab);
    this.tokVal = new Int32Array(vocab);
    for (let id = 0; id < vocab; id++) {
      const h = fmix32(Math.imul(id + 1, 0x9e3779b1));
      this.tokBin[id] = fmix32(h) % HASHES;
      this.tokVal[id] = fmix32(h ^ 0x5bd1e995) ^ FLIP;
    }
    this.probes = new Uint8Array(HASHES * PROBES);
    for (let i = 0; i < HASHES; i++) for (let k = 0; k < PROBES; k++) this.probes[i * PROBES + k] = fmix32(Math.imul(i + 1, 0x9e3779b1) + k + 1) % HASHES;
  }

  /** The band hashes of a set into out[b * stride + at]. */
  bandsOf(set: TokenSet, out: Uint32Array, at: number, stride: number): void {
    const raw = this.raw;
    const { tokBin, tokVal, probes } = this;
    raw.fill(EMPTY);
    for (let t = 0; t < set.length; t++) {
      const tok = set[t];
      const bin = tokBin[tok];
      const v = tokVal[tok];
      if (v < raw[bin]) raw[bin] = v;
    }
    for (let b = 0; b < BANDS; b++) {
      let h = b + 1;
      for (let r = 0; r < ROWS; r++) {
        const i = b * ROWS + r;
        let v = raw[i];
        if (v === EMPTY) {
          const p = i * PROBES;
          for (let k = 0; k < PROBES && v === EMPTY; k++) v = raw[probes[p + k]];
          for (let k = 0; k < HASHES && v === EMPTY; k++) v = raw[k];
        }
        // (v ^ FLIP) has the value's bits back; `^` reads both sides as 32-bit integers either way.
        h = fmix32((h ^ (v ^ FLIP)) + r);
      }
      out[b * stride + at] = h;
    }
  }
}

const PROBES = 4 * HASHES;
const FLIP = -0x80000000;
/** An empty bin: the largest value (0xffffffff) with its top bit flipped. */
const EMPTY = 0x7fffffff;

/** A set of item pairs (x < y) in an open-addressing typed array (x + 1 and y side by side). */
class PairSet {
  private slots = new Int32Array(1 << 17);
  private count = 0;
  /** False when the pair was there already. */
  add(x: number, y: number): boolean {
    let mask = (this.slots.length >> 1) - 1;
    let i = fmix32(Math.imul(x + 1, 0x9e3779b1) ^ y) & mask;
    for (;;) {
      const sx = this.slots[2 * i];
      if (sx === 0) break;
      if (sx === x + 1 && this.slots[2 * i + 1] === y) return false;
      i = (i + 1) & mask;
    }
    if (++this.count * 4 > this.slots.length) {
      this.grow();
      mask = (this.slots.length >> 1) - 1;
      i = fmix32(Math.imul(x + 1, 0x9e3779b1) ^ y) & mask;
      while (this.slots[2 * i] !== 0) i = (i + 1) & mask;
    }
    this.slots[2 * i] = x + 1;
    this.slots[2 * i + 1] = y;
    return true;
  }
  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    const mask = (this.slots.length >> 1) - 1;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j] === 0) continue;
      let i = fmix32(Math.imul(old[j], 0x9e3779b1) ^ old[j + 1]) & mask;
      while (this.slots[2 * i] !== 0) i = (i + 1) & mask;
      this.slots[2 * i] = old[j];
      this.slots[2 * i + 1] = old[j + 1];
    }
  }
}
