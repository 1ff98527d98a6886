// search.vector_weight: the weighted fuse (src/retrieve/hybrid.ts) and its config validation.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fuse } from '../../src/retrieve/hybrid.js';
import { loadConfig, DEFAULT_CONFIG } from '../../src/vault/config.js';
import { MemError } from '../../src/errors.js';
import { cleanup, tempVault } from '../helpers.js';

afterEach(cleanup);

/** A seeded generator, so the lists are the same on every run. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Two overlapping candidate lists over keys 0..pool-1: BM25 in relevance order, vector by cosine. */
function lists(seed: number, pool = 80, n = 40) {
  const r = rng(seed);
  const pick = () => {
    const keys = Array.from({ length: pool }, (_, i) => i).sort(() => r() - 0.5);
    return keys.slice(0, n);
  };
  const lexical = pick().map((key, i) => ({ key, relevance: 10 - i * 0.2 }));
  const vector = pick().map((key, i) => ({ key, cosine: 0.9 - i * 0.01 }));
  return { lexical, vector };
}

/** Keys best first by fused score; ties keep first-seen order (BM25's, then the vector list's). */
const order = (m: ReturnType<typeof fuse>) => [...m.entries()].sort((a, b) => b[1].fused - a[1].fused).map(([k]) => k);

describe('fuse with a vector weight', () => {
  for (const fusion of ['rrf', 'blend'] as const) {
    it(`${fusion}: weight 1 gives exactly the unweighted scores and parts`, () => {
      for (const seed of [1, 2, 3]) {
        const { lexical, vector } = lists(seed);
        expect(fuse(lexical, vector, fusion, 1)).toEqual(fuse(lexical, vector, fusion));
      }
    });

    it(`${fusion}: weight 0 leaves BM25's order as it is, vector-only entries after it, ranks and cosine still shown`, () => {
      const { lexical, vector } = lists(4);
      const f = fuse(lexical, vector, fusion, 0);
      const lexKeys = lexical.map((l) => l.key);
      expect(order(f).slice(0, lexKeys.length)).toEqual(lexKeys);
      for (const [key, p] of f) {
        if (!lexKeys.includes(key)) expect(p.fused).toBe(0);
        const vi = vector.findIndex((v) => v.key === key);
        expect(p.vector_rank).toBe(vi === -1 ? null : vi + 1);
        expect(p.vector).toBe(vi === -1 ? null : vector[vi].cosine);
      }
    });
  }

  it('rrf: each vector rank adds weight / (60 + rank)', () => {
    const f = fuse([{ key: 1, relevance: 3 }, { key: 2, relevance: 1 }], [{ key: 2, cosine: 0.8 }, { key: 3, cosine: 0.5 }], 'rrf', 0.3);
    expect(f.get(1)!.fused).toBeCloseTo(1 / 61, 12);
    expect(f.get(2)!.fused).toBeCloseTo(1 / 62 + 0.3 / 61, 12);
    expect(f.get(3)!.fused).toBeCloseTo(0.3 / 62, 12);
  });

  it('blend: the vector share is weight × 0.7 × cosine, BM25 keeps 0.3', () => {
    const f = fuse([{ key: 1, relevance: 2 }, { key: 2, relevance: 1 }], [{ key: 2, cosine: 0.5 }, { key: 3, cosine: -0.4 }], 'blend', 0.5);
    expect(f.get(1)!.fused).toBeCloseTo(0.3, 12);
    expect(f.get(2)!.fused).toBeCloseTo(0.5 * 0.7 * 0.5 + 0.3 * 0.5, 12);
    expect(f.get(3)!.fused).toBe(0);
  });

  it('a lower weight never moves a vector-only entry above a BM25 candidate it was below', () => {
    for (const seed of [5, 6, 7]) {
      const { lexical, vector } = lists(seed);
      const lexKeys = new Set(lexical.map((l) => l.key));
      const pos = (o: number[]) => new Map(o.map((k, i) => [k, i]));
      const hi = pos(order(fuse(lexical, vector, 'rrf', 1)));
      const lo = pos(order(fuse(lexical, vector, 'rrf', 0.3)));
      for (const v of vector.map((x) => x.key).filter((k) => !lexKeys.has(k))) {
        for (const l of lexKeys) if (hi.get(v)! > hi.get(l)!) expect(lo.get(v)!).toBeGreaterThan(lo.get(l)!);
      }
    }
  });
});

describe('search.vector_weight in .mem/config.yaml', () => {
  const load = (yaml: string) => {
    const v = tempVault();
    fs.mkdirSync(path.join(v.root, '.mem'), { recursive: true });
    fs.writeFileSync(path.join(v.root, '.mem', 'config.yaml'), yaml);
    return loadConfig(v.root);
  };

  it('defaults to 1 and reads 0..2', async () => {
    expect(DEFAULT_CONFIG.embeddings.vectorWeight).toBe(1);
    expect((await load('search:\n  limit: 5\n')).embeddings.vectorWeight).toBe(1);
    expect((await load('search:\n  vector_weight: 0.3\n')).embeddings.vectorWeight).toBe(0.3);
    expect((await load('search:\n  vector_weight: 0\n')).embeddings.vectorWeight).toBe(0);
    expect((await load('search: {vector_weight: 2, fusion: blend}\n')).embeddings).toMatchObject({ vectorWeight: 2, fusion: 'blend' });
  });

  for (const bad of ['-0.1', '2.5', '"half"', 'true', '[1]', '.nan']) {
    it(`refuses vector_weight: ${bad}, naming the file`, async () => {
      const err = await load(`search:\n  vector_weight: ${bad}\n`).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(MemError);
      expect((err as MemError).message).toMatch(/^search\.vector_weight must be a number from 0 to 2 \(got .+\)$/);
      expect(JSON.stringify((err as MemError).where)).toContain('.mem/config.yaml');
    });
  }
});
