// The int8 sidecar and its search (src/embeddings/quantized.ts, stored-vectors.ts nearestBySidecar): the
// SIMD kernel against the plain loop, the shortlist, and recall of the vector top-50 against the
// exact cosine scan on a real index, for random and clustered vectors, filtered and not.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { closeSidecar, exactDots, makeKernel, openSidecar, quantize, scanSidecar } from '../../src/embeddings/quantized.js';
import { nearestBySidecar, nearestExact, putVectors, prepareVectors, writeSnapshot } from '../../src/embeddings/stored-vectors.js';
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
  it('the WebAssembly SIMD kernel gives the plain loop\'s answers (extremes included), and both are right', () => {
    const r = rng(7);
    for (const stride of [16, 48, 784]) {
      const wasm = makeKernel(stride, 37);
      const js = makeKernel(stride, 37, 'js');
      expect(wasm.kind).toBe('wasm');
      expect(js.kind).toBe('js');
      for (let i = 0; i < stride; i++) wasm.query[i] = i % 5 === 0 ? -127 : Math.round(r() * 254) - 127;
      for (let i = 0; i < 37 * stride; i++) wasm.rows[i] = i % 7 === 0 ? (i % 2 ? 127 : -127) : Math.round(r() * 254) - 127;
      for (let i = 0; i < 37; i++) wasm.scales[i] = i === 5 ? NaN : r() / 100;
      js.query.set(wasm.query);
      js.rows.set(wasm.rows);
      js.scales.set(wasm.scales);
      // By hand: every row's score, in float32.
      const want = Array.from({ length: 37 }, (_, row) => {
        let dot = 0;
        for (let i = 0; i < stride; i++) dot += js.query[i] * js.rows[row * stride + i];
        return Math.fround(Math.fround(dot) * js.scales[row]);
      });
      const hits = (k: typeof js, floor: number) => {
        const n = k.run(37, floor, 1000);
        return Array.from({ length: n }, (_, j) => [k.hitRows[2 * j], k.hitScores[2 * j + 1]]);
      };
      const all = want.map((s, row) => [1000 + row, s]).filter(([, s]) => !Number.isNaN(s));
      expect(all).toHaveLength(36);
      expect(hits(wasm, -Infinity)).toEqual(all);
      expect(hits(js, -Infinity)).toEqual(all);
      // A floor: only the rows at or above it (equal counts), in row order.
      const floor = [...all].sort((a, b) => b[1] - a[1])[9][1];
      const above = all.filter(([, s]) => s >= floor);
      expect(above.length).toBeGreaterThanOrEqual(10);
      expect(hits(wasm, floor)).toEqual(above);
      expect(hits(js, floor)).toEqual(above);
    }
  });

  it('exactDots: the WebAssembly dots are the JavaScript loop\'s to the bit, unaligned blobs included', () => {
    const r = rng(13);
    for (const dims of [1, 7, 768]) {
      const q = normalize(Float32Array.from({ length: dims }, () => gauss(r)));
      const blobs = Array.from({ length: 9 }, (_, k) => {
        const v = normalize(Float32Array.from({ length: dims }, () => gauss(r)));
        const b = Buffer.alloc(v.byteLength + (k % 2));
        Buffer.from(v.buffer).copy(b, k % 2);
        return b.subarray(k % 2);
      });
      const js = exactDots(q, blobs, 'js');
      const want = blobs.map((b) => {
        const v = new Float32Array(new Uint8Array(b).buffer);
        let s = 0;
        for (let i = 0; i < dims; i++) s += q[i] * v[i];
        return s;
      });
      expect(Array.from(js)).toEqual(want);
      expect(Array.from(exactDots(q, blobs))).toEqual(want);
    }
    expect(exactDots(new Float32Array(0), [])).toHaveLength(0);
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

  it('the scan\'s shortlist is the head of a full sort of its scores, and its estimates are close to the exact cosines', async () => {
    const r = rng(29);
    await withVectors(() => Float32Array.from({ length: DIMS }, () => gauss(r)), (db) => {
      const s = openSidecar(`${db.name}-vec`)!;
      try {
        expect(s.n).toBe(FILES * PER_FILE);
        const q = queries(rng(31))[0];
        const all = scanSidecar(s, q, s.n);
        expect(all).toHaveLength(s.n);
        const sorted = [...all].sort((a, b) => b.score - a.score || a.row - b.row);
        expect(all).toEqual(sorted);
        for (const m of [1, 50, 333]) {
          expect(scanSidecar(s, q, m)).toEqual(sorted.slice(0, m));
          expect(scanSidecar(s, q, m, 'js')).toEqual(sorted.slice(0, m));
        }
        const exact = nearestExact(db, 'm', q, {}, 1)[0];
        // The int8 estimate of the best row's cosine is within 1% of the exact one.
        expect(Math.abs(all[0].score - exact.cosine)).toBeLessThan(0.01);
      } finally {
        closeSidecar(s);
      }
    });
  });
});
