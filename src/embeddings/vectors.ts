// Vector arithmetic for hybrid search: unit vectors, Float32 blobs, and the exact top-N scan by
// cosine (a dot product of unit vectors) over a typed array — no native extension needed.

export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A stored blob as floats; copied when SQLite's buffer is not 4-byte aligned. */
export function fromBlob(b: Uint8Array): Float32Array {
  if (b.byteOffset % 4 === 0) return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  return new Float32Array(new Uint8Array(b).buffer);
}

export interface Scored {
  index: number;
  score: number;
}

/**
 * The `n` rows of `matrix` (row-major, `dims` wide, unit rows) closest to unit `query`, best first;
 * ties by index; rows whose `mask` byte is 0 are skipped. Exact: every row is scored, and a
 * bounded sorted list keeps the best n.
 */
export function topByCosine(query: Float32Array, matrix: Float32Array, dims: number, n: number, mask: Uint8Array | null = null): Scored[] {
  const rows = Math.floor(matrix.length / dims);
  const best: Scored[] = [];
  let floor = -Infinity;
  for (let r = 0; r < rows; r++) {
    if (mask !== null && mask[r] === 0) continue;
    let s = 0;
    const off = r * dims;
    for (let i = 0; i < dims; i++) s += query[i] * matrix[off + i];
    // A stored NaN or Infinity (a damaged row) is no candidate: NaN would break the ordering.
    if (!Number.isFinite(s)) continue;
    if (best.length >= n && s <= floor) continue;
    let at = best.length;
    while (at > 0 && best[at - 1].score < s) at--;
    best.splice(at, 0, { index: r, score: s });
    if (best.length > n) best.pop();
    floor = best[best.length - 1].score;
  }
  return best;
}
