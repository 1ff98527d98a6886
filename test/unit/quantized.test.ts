// The int8 sidecar and its search (src/embeddings/quantized.ts, store.ts nearestBySidecar): the
// SIMD kernel against the plain loop, the shortlist, and recall of the vector top-50 against the
// exact cosine scan on a real index, for random and clustered vectors, filtered and not.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { makeKernel, openSidecar, closeSidecar, quantize, scanSidecar } from '../../src/embeddings/quantized.js';
import { nearestBySidecar, nearestExact, putVectors, prepareVectors, topIndices, writeSnapshot } from '../../src/embeddings/store.js';
import { normalize } from '../../src/embeddings/vectors.js';
import { withIndex } from '../../src/index/open.js';
import type { Db } from '../../src/index/db.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';

afterEach(cleanup);

function rng(seed: number) {
  return () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** A standard normal sample (Box–Muller). */
function gauss(r: () => number) {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

describe('the int8 kernel', () => {
  it('the WebAssembly SIMD kernel gives the plain loop\'s integers, extremes included', () => {
    const r = rng(7);
    for (const stride of [16, 48, 784]) {
      const wasm = makeKernel(stride, 37);
      const js = makeKernel(stride, 37, 'js');
      expect(wasm.kind).toBe('wasm');
      expect(js.kind).toBe('js');
      for (const k of [wasm, js]) {
        for (let i = 0; i < stride; i++) k.query[i] = i % 5 === 0 ? -127 : Math.round(r() * 254) - 127;
        for (let i = 0; i < 37 * stride; i++) k.rows[i] = i % 7 === 0 ? (i % 2 ? 127 : -127) : Math.round(r() * 254) - 127;
      }
      js.query.set(wasm.query);
      js.rows.set(wasm.rows);
      const a = Array.from(wasm.run(37));
      const b = Array.from(js.run(37));
      expect(a).toEqual(b);
      // And the loop is right: one row by hand.
      let s = 0;
      for (let i = 0; i < stride; i++) s += js.query[i] * js.rows[3 * stride + i];
      expect(b[3]).toBe(s);
      expect(Array.from(wasm.run(5)).slice(0, 5)).toEqual(a.slice(0, 5));
    }
  });

  it('quantize keeps the sign and the largest component at ±127, and a zero vector at 0', () => {
    const out = new Int8Array(4);
    const scale = quantize(Float32Array.of(0.5, -0.3, 0, -0.1), out);
    expect(Array.from(out)).toEqual([127, -76, 0, -25]);
    expect(scale).toBeCloseTo(0.5 / 127, 9);
    expect(quantize(new Float32Array(4), out)).toBe(0);
    expect(Array.from(out)).toEqual([0, 0, 0, 0]);
  });
});

describe('topIndices', () => {
  it('is the head of a full sort (score down, index up), NaN left out', () => {
    const r = rng(3);
    const scores = Float32Array.from({ length: 5000 }, (_, i) => (i % 97 === 0 ? NaN : Math.round(r() * 300) / 300));
    const ref = Array.from(scores.keys()).filter((i) => !Number.isNaN(scores[i])).sort((a, b) => scores[b] - scores[a] || a - b);
    for (const m of [1, 10, 64, 999, 5000]) expect(topIndices(scores, m)).toEqual(ref.slice(0, m));
    expect(topIndices(Float32Array.of(1, 1, 1), 2)).toEqual([0, 1]);
    expect(topIndices(new Float32Array(0), 3)).toEqual([]);
  });
});

const DIMS = 96;
const FILES = 10;
const PER_FILE = 300;

/** A vault of FILES × PER_FILE entries, indexed, with one vector per entry from `make`. */
async function withVectors(make: (i: number) => Float32Array, fn: (db: Db, hashes: string[]) => void) {
  const v = tempVault();
  for (let f = 0; f < FILES; f++) {
    const body = Array.from({ length: PER_FILE }, (_, k) => entry(`e-${f}-${k}`, `# Entry ${f} ${k}\nText number ${f * PER_FILE + k}.`)).join('');
    v.write(`memory/part-${f}.md`, `# Part ${f}\n\n${body}`);
  }
  const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
  await withIndex(vault, {}, (ix) => {
    const missing = prepareVectors(ix.db, 'm');
    expect(missing).toHaveLength(FILES * PER_FILE);
    putVectors(ix.db, 'm', missing.map((m, i) => ({ hash: m.hash, vec: normalize(make(i)) })));
    writeSnapshot(ix.db, 'm');
    expect(fs.existsSync(`${vault.dbPath}-vec`)).toBe(true);
    fn(ix.db, missing.map((m) => m.hash));
  });
}

/** Recall of `got` against `exact` (as key sets), and that every shared key has the exact cosine. */
function check(got: { key: number; cosine: number }[], exact: { key: number; cosine: number }[]) {
  const want = new Map(exact.map((h) => [h.key, h.cosine]));
  for (const h of got) if (want.has(h.key)) expect(Math.abs(h.cosine - want.get(h.key)!)).toBeLessThan(1e-6);
  return got.filter((h) => want.has(h.key)).length / exact.length;
}

describe('vector search through the sidecar: recall of the top 50 against the exact scan', () => {
  const queries = (r: () => number, centre?: (i: number) => Float32Array) =>
    Array.from({ length: 12 }, (_, i) => normalize(centre ? centre(i).map((x) => x + 0.02 * gauss(r)) : Float32Array.from({ length: DIMS }, () => gauss(r))));

  it('random vectors: ≥ 0.99, unfiltered and with a filter passing one file in ten', async () => {
    const r = rng(11);
    await withVectors(() => Float32Array.from({ length: DIMS }, () => gauss(r)), (db) => {
      let sum = 0;
      let sumFiltered = 0;
      const qs = queries(rng(5));
      for (const q of qs) {
        const got = nearestBySidecar(db, 'm', q, {}, 50);
        expect(got).not.toBeNull();
        sum += check(got!, nearestExact(db, 'm', q, {}, 50));
        const filter = { paths: ['memory/part-3.md'] };
        const f = nearestBySidecar(db, 'm', q, filter, 50)!;
        expect(f.length).toBe(50);
        sumFiltered += check(f, nearestExact(db, 'm', q, filter, 50));
      }
      expect(sum / qs.length).toBeGreaterThanOrEqual(0.99);
      expect(sumFiltered / qs.length).toBeGreaterThanOrEqual(0.99);
    });
  });

  it('clustered vectors (tight clusters, near-equal cosines): ≥ 0.99, with the plain-loop kernel too', async () => {
    const r = rng(19);
    const centres = Array.from({ length: 20 }, () => normalize(Float32Array.from({ length: DIMS }, () => gauss(r))));
    await withVectors((i) => centres[i % centres.length].map((x) => x + 0.03 * gauss(r)), (db) => {
      let sum = 0;
      let sumJs = 0;
      const qs = queries(rng(23), (i) => centres[(i * 7) % centres.length]);
      for (const q of qs) {
        const exact = nearestExact(db, 'm', q, {}, 50);
        sum += check(nearestBySidecar(db, 'm', q, {}, 50)!, exact);
        sumJs += check(nearestBySidecar(db, 'm', q, {}, 50, 'js')!, exact);
      }
      expect(sum / qs.length).toBeGreaterThanOrEqual(0.99);
      expect(sumJs / qs.length).toBeGreaterThanOrEqual(0.99);
    });
  });

  it('the scan itself ranks like the exact cosine (approximately), so the shortlist holds the answers', async () => {
    const r = rng(29);
    await withVectors(() => Float32Array.from({ length: DIMS }, () => gauss(r)), (db) => {
      const s = openSidecar(`${db.name}-vec`)!;
      try {
        expect(s.n).toBe(FILES * PER_FILE);
        const q = queries(rng(31))[0];
        const scan = scanSidecar(s, q, 100);
        expect(scan.top).toEqual(topIndices(scan.scores, 100));
        const exact = nearestExact(db, 'm', q, {}, 1)[0];
        // The int8 estimate of the best row's cosine is within 1% of the exact one.
        expect(Math.abs(scan.scores[scan.top[0]] - exact.cosine)).toBeLessThan(0.01);
      } finally {
        closeSidecar(s);
      }
    });
  });
});
