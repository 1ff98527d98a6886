// Hybrid retrieval: the query's vector against the stored entry vectors (cosine top-N:
// src/embeddings/stored-vectors.ts nearestVectors), fused with the BM25 candidates by reciprocal rank fusion
// (k = 60) or the 0.7 × cosine + 0.3 × BM25 blend (TeaParty's weights), the vector share scaled by
// search.vector_weight (default 1). Filters apply to both lists. Loaded only when `embeddings:` is
// configured; the lexical path never sees this module.

import type { Db } from '../index/db.js';
import { entriesByRowid, type CandidateRow, type EntryFilter } from '../index/queries.js';
import { hasVectors, nearestVectors, type VectorSet } from '../embeddings/stored-vectors.js';
import type { HybridHook, HybridParts } from './search.js';
import type { EmbedSettings } from '../embeddings/query.js';

export const RRF_K = 60;
export const BLEND_VECTOR = 0.7;
export const BLEND_BM25 = 0.3;
/** A search waits this long for the query's vector, with no retry, then answers lexically. */
export const QUERY_TIMEOUT_MS = 10_000;

export type Fusion = 'rrf' | 'blend';

/**
 * Fused scores for the union of two candidate lists. `lexical` is in BM25 relevance order, best
 * first, with relevance in [0, ∞); `vector` best first by cosine. Ranks are 1-based.
 * `vectorWeight` (search.vector_weight) scales the vector list's share: w / (60 + rank) under RRF,
 * w × 0.7 × cosine under blend. 1 is the plain formula; below 1 a weak embedding model adds
 * candidates without pushing BM25's best out of the top; 0 leaves BM25's order as it is.
 */
export function fuse(lexical: { key: number; relevance: number }[], vector: { key: number; cosine: number }[], fusion: Fusion, vectorWeight = 1): Map<number, HybridParts> {
  const out = new Map<number, HybridParts>();
  const get = (key: number) => {
    let p = out.get(key);
    if (!p) out.set(key, (p = { vector: null, vector_rank: null, bm25_rank: null, fused: 0 }));
    return p;
  };
  const topLex = Math.max(0, ...lexical.map((l) => l.relevance)) || 1;
  lexical.forEach((l, i) => {
    const p = get(l.key);
    p.bm25_rank = i + 1;
    p.fused += fusion === 'rrf' ? 1 / (RRF_K + i + 1) : BLEND_BM25 * (l.relevance / topLex);
  });
  vector.forEach((v, i) => {
    const p = get(v.key);
    p.vector_rank = i + 1;
    p.vector = v.cosine;
    p.fused += vectorWeight * (fusion === 'rrf' ? 1 / (RRF_K + i + 1) : BLEND_VECTOR * Math.max(0, v.cosine));
  });
  return out;
}

/** The hook runSearch calls: the vector candidates of one query vector, fused with its BM25 ones. */
export function hybridHook(query: Float32Array, model: string, fusion: Fusion, cache = new Map<string, VectorSet>(), vectorWeight = 1): HybridHook {
  return {
    fuse(db: Db, filter: EntryFilter, n: number, lexical: CandidateRow[], relevance: number[]) {
      const vector = nearestVectors(db, model, query, filter, n, cache);
      // BM25 candidates in their relevance order (stable: ties keep BM25's order).
      const lexOrder = lexical.map((r, i) => ({ key: r.rowid, relevance: relevance[i] })).sort((a, b) => b.relevance - a.relevance);
      const parts = fuse(lexOrder, vector, fusion, vectorWeight);
      const known = new Set(lexical.map((r) => r.rowid));
      const extra = entriesByRowid(db, [...parts.keys()].filter((id) => !known.has(id))).map((r) => ({ ...r, bm25: 0, own: false }));
      const rows = [...lexical, ...extra];
      const max = Math.max(...[...parts.values()].map((p) => p.fused)) || 1;
      return { rows, relevance: rows.map((r) => parts.get(r.rowid)!.fused / max), parts: rows.map((r) => parts.get(r.rowid)!) };
    },
  };
}

export interface HybridSetup {
  /** One hook per query (undefined: that query stays lexical), or none (lexical) with `warning` saying why. */
  hooks: (HybridHook | undefined)[] | null;
  warning?: string;
}

/**
 * Embed the queries (one batched request per batch) for hybrid search. The endpoint down, or no
 * vectors stored for the configured model yet: no hooks, and a one-line warning — the caller
 * answers lexically, never fails.
 */
export async function prepareHybrid(db: Db, settings: EmbedSettings, queries: string[], env: NodeJS.ProcessEnv): Promise<HybridSetup> {
  const { embedQueries, modelKey } = await import('../embeddings/query.js');
  const key = modelKey(settings);
  if (!hasVectors(db, key)) {
    return { hooks: null, warning: `no vectors stored for embedding model ${key} yet (run \`mem index --embed\`); lexical results only` };
  }
  // A query with no letter or digit has nothing to search for: it is not embedded (an endpoint
  // may refuse "" and fail the whole batch) and stays lexical, which finds nothing for it.
  const asked = queries.map((q, i) => ({ q, i })).filter(({ q }) => /[\p{L}\p{N}]/u.test(q));
  if (asked.length === 0) return { hooks: queries.map(() => undefined) };
  try {
    // One request for all the queries, no retry: a search does not wait long (and not for the SDK's load).
    const vecs = await embedQueries(settings, asked.map(({ q }) => q), env, Math.min(settings.timeoutMs, QUERY_TIMEOUT_MS));
    const cache = new Map<string, VectorSet>();
    const hooks: (HybridHook | undefined)[] = queries.map(() => undefined);
    asked.forEach(({ i }, n) => (hooks[i] = hybridHook(vecs[n], key, settings.fusion, cache, settings.vectorWeight)));
    return { hooks };
  } catch (err) {
    return { hooks: null, warning: `embeddings unavailable: ${err instanceof Error ? err.message : String(err)}; lexical results only` };
  }
}
