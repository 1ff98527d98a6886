// Retrieval metrics over ranked id lists: recall@k, MRR and nDCG@k (binary relevance).

export interface Judged {
  ranked: string[];
  relevant: string[];
  category?: string;
}

/** Share of the relevant ids found in the top k; a query with no relevant ids counts 1. */
export function recallAt(j: Judged, k: number): number {
  if (j.relevant.length === 0) return 1;
  const top = new Set(j.ranked.slice(0, k));
  return j.relevant.filter((r) => top.has(r)).length / j.relevant.length;
}

export function reciprocalRank(j: Judged): number {
  if (j.relevant.length === 0) return 1;
  const rel = new Set(j.relevant);
  const i = j.ranked.findIndex((id) => rel.has(id));
  return i === -1 ? 0 : 1 / (i + 1);
}

export function ndcgAt(j: Judged, k: number): number {
  if (j.relevant.length === 0) return 1;
  const rel = new Set(j.relevant);
  let dcg = 0;
  j.ranked.slice(0, k).forEach((id, i) => {
    if (rel.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, rel.size); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

export interface Scores {
  queries: number;
  recall: Record<string, number>;
  mrr: number;
  ndcg: Record<string, number>;
}

export function score(list: Judged[], ks: number[]): Scores {
  const n = list.length || 1;
  const mean = (f: (j: Judged) => number) => list.reduce((s, j) => s + f(j), 0) / n;
  return {
    queries: list.length,
    recall: Object.fromEntries(ks.map((k) => [String(k), mean((j) => recallAt(j, k))])),
    mrr: mean(reciprocalRank),
    ndcg: Object.fromEntries(ks.map((k) => [String(k), mean((j) => ndcgAt(j, k))])),
  };
}
