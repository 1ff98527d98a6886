// Diversity by maximal marginal relevance (Carbonell & Goldstein, SIGIR 1998) with Jaccard
// similarity over body tokens, and budget packing that skips a result too big for what is left and
// keeps going.

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
  body: string;
  /** Characters the item takes from a budget. */
  size: number;
}

export interface MmrPick {
  index: number;
  mmr: number;
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
  const tok = (i: number) => (tokens[i] ??= tokenSet(items[i].body));
  const maxSim = new Float64Array(n);
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
        if (s > maxSim[i]) maxSim[i] = s;
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
    picks.push({ index: best, mmr: bestVal });
    pickTokens.push(tok(best));
  }
  return picks;
}
