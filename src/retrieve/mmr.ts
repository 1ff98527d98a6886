// Diversity by maximal marginal relevance (Carbonell & Goldstein, SIGIR 1998) with Jaccard
// similarity over the tokens of each entry's title and body, and budget packing that skips a
// result too big for what is left and keeps going.

import { words } from './terms.js';
import { isStopword } from './stopwords.js';

export const MMR_LAMBDA = 0.7;

export function tokenSet(text: string): Set<string> {
  const s = new Set<string>();
  for (const w of words(text)) if (w.length > 1 && !isStopword(w)) s.add(w);
  return s;
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const t of small) if (large.has(t)) inter++;
  return inter / (a.size + b.size - inter);
}

export interface MmrItem {
  score: number;
  /**
   * The text compared for similarity: an entry's title and body. A one-line learning has its
   * words in its title and an empty body; bodies alone made all such entries look unalike.
   */
  text: string;
  /** Characters the item takes from a budget. */
  size: number;
}

export interface MmrPick {
  index: number;
  /** Its MMR value: λ · score / best score − (1 − λ) · its greatest similarity to an earlier pick. Never rises from one pick to the next. */
  mmr: number;
  /** The earlier pick (index into the picks) it is most like, when it is like any; null for the first and for one unlike all. */
  like: number | null;
}

/**
 * A pick's MMR value in the items' score units: its score less the diversity penalty, so a pick
 * unlike every earlier one keeps its score, and the picks' values fall in their order.
 */
export function mmrScore(mmr: number, topScore: number, lambda = MMR_LAMBDA): number {
  return (mmr * (topScore || 1)) / lambda;
}

/**
 * Greedy MMR selection of up to `limit` items. With `maxChars`, an item that does not fit the
 * remaining budget is skipped and selection goes on with the next best.
 *
 * Lazy greedy, the same picks as the plain loop: an item's similarity to the picks only grows,
 * so its value computed against fewer picks is an upper bound; an item whose bound cannot beat
 * the best value found so far is not compared (nor tokenised), and when items come best first,
 * the scan stops at the first whose score alone cannot. A search compares a few dozen pairs, not
 * every candidate with every pick.
 */
export function selectMmr(items: MmrItem[], limit: number, maxChars?: number, lambda = MMR_LAMBDA): MmrPick[] {
  const n = items.length;
  if (n === 0 || limit <= 0) return [];
  const top = Math.max(...items.map((i) => i.score)) || 1;
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) if (items[i].score > items[i - 1].score) sorted = false;
  const tokens: (Set<string> | undefined)[] = new Array(n);
  const tok = (i: number) => (tokens[i] ??= tokenSet(items[i].text));
  const maxSim = new Float64Array(n);
  /** The pick each item is most like (-1: none yet). */
  const simTo = new Int32Array(n).fill(-1);
  /** How many of the picks each item has been compared with. */
  const seen = new Int32Array(n);
  const done = new Uint8Array(n);
  const picks: MmrPick[] = [];
  const pickTokens: Set<string>[] = [];
  let budget = maxChars ?? Infinity;
  while (picks.length < limit) {
    let best = -1;
    let bestVal = -Infinity;
    for (let i = 0; i < n; i++) {
      const rel = lambda * (items[i].score / top);
      if (sorted && rel <= bestVal) break;
      if (done[i] || rel - (1 - lambda) * maxSim[i] <= bestVal) continue;
      for (; seen[i] < pickTokens.length; seen[i]++) {
        const s = jaccard(tok(i), pickTokens[seen[i]]);
        if (s > maxSim[i]) {
          maxSim[i] = s;
          simTo[i] = seen[i];
        }
      }
      const val = rel - (1 - lambda) * maxSim[i];
      if (val > bestVal) {
        bestVal = val;
        best = i;
      }
    }
    if (best === -1) break;
    done[best] = 1;
    if (items[best].size > budget) continue;
    budget -= items[best].size;
    picks.push({ index: best, mmr: bestVal, like: simTo[best] >= 0 ? simTo[best] : null });
    pickTokens.push(tok(best));
  }
  return picks;
}
