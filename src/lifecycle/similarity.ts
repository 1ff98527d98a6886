// Near-duplicate detection in sub-quadratic time: Jaccard similarity over normalised body
// tokens, with candidate pairs from prefix filtering (exact: no pair at or above the threshold
// is missed) and each candidate pair confirmed by exact Jaccard.

import { isStopword } from '../retrieve/stopwords.js';

const WORD = /[\p{L}\p{N}]+/gu;

/** Normalised tokens of a body: lowercase words of 2+ characters, stopwords dropped, deduplicated. */
export function normTokens(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (w.length > 1 && !isStopword(w)) out.add(w);
  }
  return [...out];
}

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

export interface SimilarPair {
  a: number;
  b: number;
  jaccard: number;
}

/**
 * All pairs (a < b) of token sets with Jaccard ≥ `threshold` (or > it when `strict`), among
 * items that `canPair` allows. Tokens are ranked rarest first so prefixes are short and selective.
 */
export function similarPairs(sets: string[][], threshold: number, opts: { strict?: boolean; canPair?: (a: number, b: number) => boolean } = {}): SimilarPair[] {
  const freq = new Map<string, number>();
  for (const s of sets) for (const t of s) freq.set(t, (freq.get(t) ?? 0) + 1);
  const rank = new Map<string, number>();
  [...freq.entries()].sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1)).forEach(([t], i) => rank.set(t, i));
  const ranked = sets.map((s) => Int32Array.from(s.map((t) => rank.get(t)!)).sort());
  // Process by size so the size filter (|small| ≥ t·|large|) can bound the index lookups.
  const order = ranked.map((_, i) => i).filter((i) => ranked[i].length > 0).sort((x, y) => ranked[x].length - ranked[y].length);
  const index = new Map<number, number[]>();
  const pairs: SimilarPair[] = [];
  const seenWith = new Int32Array(sets.length).fill(-1);
  for (const x of order) {
    const sx = ranked[x];
    const prefix = sx.length - Math.ceil(threshold * sx.length) + 1;
    const minSize = Math.ceil(threshold * sx.length);
    for (let p = 0; p < prefix; p++) {
      const list = index.get(sx[p]);
      if (!list) continue;
      for (const y of list) {
        if (seenWith[y] === x) continue;
        seenWith[y] = x;
        if (ranked[y].length < minSize) continue;
        if (opts.canPair && !opts.canPair(x, y)) continue;
        const j = jaccardSorted(sx, ranked[y]);
        if (opts.strict ? j > threshold : j >= threshold) pairs.push({ a: Math.min(x, y), b: Math.max(x, y), jaccard: j });
      }
    }
    for (let p = 0; p < prefix; p++) {
      const list = index.get(sx[p]);
      if (list) list.push(x);
      else index.set(sx[p], [x]);
    }
  }
  return pairs;
}

/** Connected components of `n` items joined by `pairs` (union-find); singletons included. */
export function clusters(n: number, pairs: SimilarPair[]): number[][] {
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (const { a, b } of pairs) {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    const g = groups.get(r);
    if (g) g.push(i);
    else groups.set(r, [i]);
  }
  return [...groups.values()];
}
