// The int8 sidecar of the vector table (`.memory.db-vec`, derived like the index): every vector
// of the model quantised to int8 with its own scale, read in chunks and scored by a WebAssembly
// SIMD dot product (a plain loop where WebAssembly is missing), to pick the candidates that the
// caller then re-ranks with the exact float vectors from SQLite.
//
// Why a file and not a blob in .memory.db: SQLite hands a large blob over page by page (measured
// at 100k × 768-d: 0.9 s for the float snapshot), while a file streams into one reused buffer at
// memory speed (77 MB of int8 read and scored in ~10 ms, with ~2 MB resident).

import fs from 'node:fs';
import path from 'node:path';

const MAGIC = 'MEMVEC01';
/** Rows scored per read: the buffer is reused, so memory stays flat whatever the vault's size. */
const CHUNK_ROWS = 1024;

export interface SidecarHeader {
  /** Unique per write; .memory.db's meta holds the token of the sidecar that belongs to it. */
  token: string;
  model: string;
  dims: number;
  /** Bytes per row: dims rounded up to 16 (the SIMD width), zero-padded. */
  stride: number;
  n: number;
  /** Highest vector id (table `vectors`) the sidecar holds: rows above it are scored exactly. */
  maxId: number;
  hashLen: number;
}

export interface Sidecar extends SidecarHeader {
  fd: number;
  scales: Float32Array;
  hashes: Buffer;
  matrixAt: number;
}

const align16 = (x: number) => Math.ceil(x / 16) * 16;

/** A unit vector as int8 (±127) and the scale that turns its integers back into floats. */
export function quantize(v: Float32Array, out: Int8Array): number {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  out.fill(0);
  if (max === 0) return 0;
  const k = 127 / max;
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i] * k);
  return max / 127;
}

/** Where each part of the file starts, for a header whose JSON is `jsonLen` bytes. */
function layout(h: SidecarHeader, jsonLen: number): { scalesAt: number; hashesAt: number; matrixAt: number; size: number } {
  const scalesAt = align16(12 + jsonLen);
  const hashesAt = scalesAt + 4 * h.n;
  const matrixAt = align16(hashesAt + h.hashLen * h.n);
  return { scalesAt, hashesAt, matrixAt, size: matrixAt + h.stride * h.n };
}

/**
 * Write the sidecar for `rows` (id order) to a fresh temporary file beside `file`, then rename it
 * over `file`: a reader sees the old file or the new one, and a symlink in the way is replaced,
 * never written through. Returns the new token.
 */
export function writeSidecar(file: string, model: string, rows: Iterable<[number, string, Uint8Array]>): string | null {
  let dims = -1;
  let hashLen = -1;
  let n = 0;
  let maxId = 0;
  let stride = 0;
  let matrix = new Int8Array(0);
  let scales = new Float32Array(0);
  let hashes = Buffer.alloc(0);
  for (const [id, hash, blob] of rows) {
    if (dims === -1) {
      dims = blob.byteLength / 4;
      hashLen = Buffer.byteLength(hash, 'latin1');
      stride = align16(dims);
    }
    if (blob.byteLength !== dims * 4 || hash.length !== hashLen) continue;
    if (n === scales.length) {
      const cap = Math.max(1024, n * 2);
      const m = new Int8Array(cap * stride);
      m.set(matrix);
      matrix = m;
      const s = new Float32Array(cap);
      s.set(scales);
      scales = s;
      const h = Buffer.alloc(cap * hashLen);
      hashes.copy(h);
      hashes = h;
    }
    const vec = blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, dims) : new Float32Array(new Uint8Array(blob).buffer);
    scales[n] = quantize(vec, matrix.subarray(n * stride, n * stride + dims));
    hashes.write(hash, n * hashLen, 'latin1');
    maxId = Math.max(maxId, id);
    n++;
  }
  if (n === 0) return null;
  // Unique per write; not a secret (node:crypto is not loaded for it: this module is on the
  // indexer's import path, which every command's freshness check takes).
  const token = `${process.pid.toString(16)}${Date.now().toString(16)}${Math.floor(Math.random() * 2 ** 32).toString(16)}`;
  const h: SidecarHeader = { token, model, dims, stride, n, maxId, hashLen };
  const json = Buffer.from(JSON.stringify(h));
  const { scalesAt, hashesAt, matrixAt } = layout(h, json.length);
  const head = Buffer.alloc(scalesAt);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(json.length, 8);
  json.copy(head, 12);
  const tmp = path.join(path.dirname(file), `${path.basename(file)}.${process.pid}.${token}.tmp`);
  // 'wx': a file (or a link) already at the temporary name is an error, never followed.
  const fd = fs.openSync(tmp, 'wx');
  try {
    fs.writeSync(fd, head, 0, head.length, 0);
    fs.writeSync(fd, new Uint8Array(scales.buffer, 0, n * 4), 0, n * 4, scalesAt);
    fs.writeSync(fd, hashes, 0, n * hashLen, hashesAt);
    fs.writeSync(fd, new Uint8Array(matrix.buffer, 0, n * stride), 0, n * stride, matrixAt);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
  } catch (err) {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed
    }
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return token;
}

/**
 * The sidecar at `file`, checked from its header to its size; null when it is missing, not a
 * regular file, or does not add up (then the caller scans the exact vectors). Close it with
 * closeSidecar.
 */
export function openSidecar(file: string): Sidecar | null {
  let fd: number;
  try {
    // Non-blocking: a FIFO in its place must not hang the search.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size < 12) throw new Error('not a sidecar');
    const pre = Buffer.alloc(12);
    fs.readSync(fd, pre, 0, 12, 0);
    const jsonLen = pre.readUInt32LE(8);
    if (pre.toString('latin1', 0, 8) !== MAGIC || jsonLen > 4096) throw new Error('not a sidecar');
    const json = Buffer.alloc(jsonLen);
    fs.readSync(fd, json, 0, jsonLen, 12);
    const h = JSON.parse(json.toString('utf8')) as SidecarHeader;
    const ints = [h.dims, h.stride, h.n, h.hashLen];
    if (typeof h.token !== 'string' || typeof h.model !== 'string' || !ints.every((x) => Number.isInteger(x) && x > 0) || h.stride !== align16(h.dims) || !Number.isInteger(h.maxId)) {
      throw new Error('bad header');
    }
    const { scalesAt, hashesAt, matrixAt, size } = layout(h, jsonLen);
    if (size !== st.size) throw new Error('wrong size');
    const scales = new Float32Array(h.n);
    fs.readSync(fd, new Uint8Array(scales.buffer), 0, h.n * 4, scalesAt);
    const hashes = Buffer.allocUnsafe(h.n * h.hashLen);
    fs.readSync(fd, hashes, 0, hashes.length, hashesAt);
    return { ...h, fd, scales, hashes, matrixAt };
  } catch {
    fs.closeSync(fd);
    return null;
  }
}

export function closeSidecar(s: Sidecar): void {
  fs.closeSync(s.fd);
}

export function hashAt(s: Sidecar, row: number): string {
  return s.hashes.toString('latin1', row * s.hashLen, (row + 1) * s.hashLen);
}

/**
 * The per-row work of a scan, for one int8 query against rows of int8 vectors `stride` bytes
 * apart: each row's score is its integer dot product with the query times the row's scale, and
 * the rows scoring at least `floor` are reported (row number and score), so no per-row work is
 * left to JavaScript.
 */
export interface Kernel {
  kind: 'wasm' | 'js';
  /** Where a chunk of rows is read to (chunk × stride bytes), and their scales. */
  rows: Int8Array;
  scales: Float32Array;
  query: Int8Array;
  /** Hit j: row `hitRows[2j]`, score `hitScores[2j + 1]` (one interleaved buffer). */
  hitRows: Int32Array;
  hitScores: Float32Array;
  /** Score the first `count` rows (numbered from `base`); returns how many scored ≥ `floor`. */
  run(count: number, floor: number, base: number): number;
}

function jsKernel(stride: number, chunk: number): Kernel {
  const rows = new Int8Array(chunk * stride);
  const query = new Int8Array(stride);
  const scales = new Float32Array(chunk);
  const hits = new ArrayBuffer(chunk * 8);
  const hitRows = new Int32Array(hits);
  const hitScores = new Float32Array(hits);
  return {
    kind: 'js', rows, scales, query, hitRows, hitScores,
    run(count, floor, base) {
      let n = 0;
      const f = Math.fround(floor);
      for (let r = 0; r < count; r++) {
        const o = r * stride;
        let dot = 0;
        for (let i = 0; i < stride; i++) dot += query[i] * rows[o + i];
        // In float32, as the WebAssembly kernel computes it.
        const score = Math.fround(Math.fround(dot) * scales[r]);
        if (score >= f) {
          hitRows[2 * n] = base + r;
          hitScores[2 * n + 1] = score;
          n++;
        }
      }
      return n;
    },
  };
}

// The WebAssembly module, assembled here (a few hundred bytes, nothing to build or ship):
//   scan(q, d, rows, stride, scales, floor, hits, base) → count. Per row: Σ q[i]·d[i] over int8
//   lanes, 16 at a time — i16x8.extmul_{low,high}_i8x16_s, their i16 sum (|2·127·127| < 2^15),
//   i32x4.extadd_pairwise, accumulated in an i32x4 and summed across lanes — then as f32 times
//   the row's scale; at least `floor`: (row, score) appended to `hits`.
const leb = (n: number): number[] => {
  const o: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    o.push(b);
  } while (n);
  return o;
};
const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
const vec = (items: number[][]) => [...leb(items.length), ...items.flat()];
const name = (s: string) => [...leb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const simd = (op: number, ...imm: number[]) => [0xfd, ...leb(op), ...imm];

function wasmModule(): Uint8Array<ArrayBuffer> {
  const I32 = 0x7f;
  const F32 = 0x7d;
  const V128 = 0x7b;
  // Parameters, then locals.
  const [q, d, rows, stride, scales, floor, hits, base, i, cnt, r, score, acc, x, y] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
  const get = (l: number) => [0x20, l];
  const set = (l: number) => [0x21, l];
  const tee = (l: number) => [0x22, l];
  const addTo = (l: number, k: number) => [...get(l), 0x41, ...leb(k), 0x6a, ...set(l)];
  const load = simd(0x00, 0, 0);
  const lane = (k: number) => [...get(acc), ...simd(0x1b, k)];
  const hitAt = [...get(hits), ...get(cnt), 0x41, 3, 0x74, 0x6a]; // hits + cnt × 8
  const body = [
    ...vec([[...leb(3), I32], [...leb(1), F32], [...leb(3), V128]]),
    ...get(base), ...set(r),
    0x02, 0x40, ...get(rows), 0x45, 0x0d, 0, // block; no rows: out
    0x03, 0x40, // loop per row
    ...simd(0x0c, ...new Array<number>(16).fill(0)), ...set(acc),
    0x41, 0, ...set(i),
    0x03, 0x40, // loop per 16 lanes
    ...get(d), ...get(i), 0x6a, ...load, ...set(x),
    ...get(q), ...get(i), 0x6a, ...load, ...set(y),
    ...get(acc),
    ...get(x), ...get(y), ...simd(0x9c), ...get(x), ...get(y), ...simd(0x9d), ...simd(0x8e), ...simd(0x7e), ...simd(0xae), ...set(acc),
    ...get(i), 0x41, 16, 0x6a, ...tee(i), ...get(stride), 0x49, 0x0d, 0, // i += 16; again while i < stride
    0x0b,
    ...lane(0), ...lane(1), 0x6a, ...lane(2), 0x6a, ...lane(3), 0x6a, // the dot product
    0xb2, ...get(scales), 0x2a, 2, 0, 0x94, ...tee(score), // f32(dot) * scale
    ...get(floor), 0x60, 0x04, 0x40, // at least floor: record it
    ...hitAt, ...get(r), 0x36, 2, 0,
    ...hitAt, ...get(score), 0x38, 2, 4,
    ...addTo(cnt, 1),
    0x0b,
    ...addTo(scales, 4), ...addTo(r, 1),
    ...get(d), ...get(stride), 0x6a, ...set(d),
    ...get(rows), 0x41, 1, 0x6b, ...tee(rows), 0x0d, 0, // rows -= 1; again while rows != 0
    0x0b, 0x0b,
    ...get(cnt), 0x0b,
  ];
  // dots(q, v, dims, count, out): out[r] = Σ f64(q[i]) · f64(v[r·dims + i]) over float32 vectors,
  // summed in order in f64: the very arithmetic of the exact scan in JavaScript, so the re-ranked
  // cosines are the exact path's to the bit.
  const [fq, fv, fdims, fcount, fout, fi, fs] = [0, 1, 2, 3, 4, 5, 6];
  const F64 = 0x7c;
  const at = (base: number) => [...get(base), ...get(fi), 0x41, 2, 0x74, 0x6a, 0x2a, 2, 0, 0xbb]; // f64(f32[base + 4i])
  const dots = [
    ...vec([[...leb(1), I32], [...leb(1), F64]]),
    0x02, 0x40, ...get(fcount), 0x45, 0x0d, 0,
    0x03, 0x40,
    0x44, 0, 0, 0, 0, 0, 0, 0, 0, ...set(fs),
    0x41, 0, ...set(fi),
    0x03, 0x40,
    ...get(fs), ...at(fq), ...at(fv), 0xa2, 0xa0, ...set(fs),
    ...get(fi), 0x41, 1, 0x6a, ...tee(fi), ...get(fdims), 0x49, 0x0d, 0,
    0x0b,
    ...get(fout), ...get(fs), 0x39, 3, 0,
    ...addTo(fout, 8),
    ...get(fv), ...get(fdims), 0x41, 2, 0x74, 0x6a, ...set(fv),
    ...get(fcount), 0x41, 1, 0x6b, ...tee(fcount), 0x0d, 0,
    0x0b, 0x0b, 0x0b,
  ];
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, vec([
      [0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [F32], [I32], [I32]]), ...vec([[I32]])],
      [0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0],
    ])),
    ...section(2, vec([[...name('m'), ...name('mem'), 0x02, 0x00, 1]])),
    ...section(3, vec([[0], [1]])),
    ...section(7, vec([[...name('scan'), 0x00, 0], [...name('dots'), 0x00, 1]])),
    ...section(10, vec([[...leb(body.length), ...body], [...leb(dots.length), ...dots]])),
  ]);
}

function wasmKernel(stride: number, chunk: number): Kernel {
  // Memory: the query, the chunk of rows, their scales, the hits.
  const rowsAt = stride;
  const scalesAt = rowsAt + chunk * stride;
  const hitsAt = scalesAt + chunk * 4;
  const memory = new WebAssembly.Memory({ initial: Math.ceil((hitsAt + chunk * 8) / 65536) });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(wasmModule()), { m: { mem: memory } });
  const scan = instance.exports.scan as (q: number, d: number, rows: number, stride: number, scales: number, floor: number, hits: number, base: number) => number;
  return {
    kind: 'wasm',
    query: new Int8Array(memory.buffer, 0, stride),
    rows: new Int8Array(memory.buffer, rowsAt, chunk * stride),
    scales: new Float32Array(memory.buffer, scalesAt, chunk),
    hitRows: new Int32Array(memory.buffer, hitsAt, chunk * 2),
    hitScores: new Float32Array(memory.buffer, hitsAt, chunk * 2),
    run: (count, floor, base) => scan(0, rowsAt, count, stride, scalesAt, floor, hitsAt, base),
  };
}

/** The SIMD kernel, or the plain loop where WebAssembly (or its SIMD) is not available. */
export function makeKernel(stride: number, chunk = CHUNK_ROWS, kind: 'auto' | 'js' = 'auto'): Kernel {
  if (kind === 'auto' && typeof WebAssembly === 'object') {
    try {
      return wasmKernel(stride, chunk);
    } catch {
      // e.g. node --jitless: no WebAssembly; the loop gives the same answers.
    }
  }
  return jsKernel(stride, chunk);
}

/** A row of the sidecar and its approximate cosine with the query. */
export interface RowScore {
  row: number;
  score: number;
}

/**
 * The `m` rows of the sidecar with the highest approximate cosine with unit `query`, best first
 * (ties: lower row first), in one pass: the kernel reports only rows at or above the running
 * floor (the m-th best so far), so JavaScript sorts a shortlist, never touches every row.
 */
export function scanSidecar(s: Sidecar, query: Float32Array, m: number, kind: 'auto' | 'js' = 'auto'): RowScore[] {
  const k = makeKernel(s.stride, CHUNK_ROWS, kind);
  const qScale = quantize(query, k.query.subarray(0, s.dims));
  const buf = new Uint8Array(k.rows.buffer, k.rows.byteOffset, k.rows.byteLength);
  let short: RowScore[] = [];
  let floor = -Infinity;
  const prune = () => {
    short.sort((a, b) => b.score - a.score || a.row - b.row);
    if (short.length > m) short.length = m;
    if (short.length === m && m > 0) floor = short[m - 1].score;
  };
  for (let r0 = 0; r0 < s.n; r0 += CHUNK_ROWS) {
    const count = Math.min(CHUNK_ROWS, s.n - r0);
    const want = count * s.stride;
    let got = 0;
    while (got < want) {
      const b = fs.readSync(s.fd, buf, got, want - got, s.matrixAt + r0 * s.stride + got);
      if (b === 0) throw new Error('the vector sidecar ended early');
      got += b;
    }
    k.scales.set(s.scales.subarray(r0, r0 + count));
    // Equal to the floor counts: ties then resolve by row, as a full sort would.
    const hits = k.run(count, floor, r0);
    for (let j = 0; j < hits; j++) short.push({ row: k.hitRows[2 * j], score: k.hitScores[2 * j + 1] });
    if (short.length > 2 * m + 64) prune();
  }
  prune();
  short = short.map((h) => ({ row: h.row, score: h.score * qScale }));
  return short;
}

/**
 * Exact cosines of unit `query` with float32 vectors (`blobs`, each `query.length` floats), as
 * the exact scan computes them (f64 products summed in order) — in WebAssembly when it is there
 * (the same arithmetic, without interpreting a cold JavaScript loop per vector).
 */
export function exactDots(query: Float32Array, blobs: Uint8Array[], kind: 'auto' | 'js' = 'auto'): Float64Array {
  const dims = query.length;
  const out = new Float64Array(blobs.length);
  if (dims === 0 || blobs.length === 0) return out;
  if (kind === 'auto' && typeof WebAssembly === 'object') {
    try {
      const vAt = dims * 4;
      const outAt = Math.ceil((vAt + blobs.length * dims * 4) / 8) * 8;
      const memory = new WebAssembly.Memory({ initial: Math.ceil((outAt + blobs.length * 8) / 65536) });
      const dotsFn = new WebAssembly.Instance(new WebAssembly.Module(wasmModule()), { m: { mem: memory } }).exports.dots as (q: number, v: number, dims: number, count: number, out: number) => void;
      const bytes = new Uint8Array(memory.buffer);
      bytes.set(new Uint8Array(query.buffer, query.byteOffset, dims * 4), 0);
      blobs.forEach((b, r) => bytes.set(b.subarray(0, dims * 4), vAt + r * dims * 4));
      dotsFn(0, vAt, dims, blobs.length, outAt);
      out.set(new Float64Array(memory.buffer, outAt, blobs.length));
      return out;
    } catch {
      // No WebAssembly: the same loop in JavaScript.
    }
  }
  blobs.forEach((b, r) => {
    const v = b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, dims) : new Float32Array(new Uint8Array(b.subarray(0, dims * 4)).buffer);
    let s = 0;
    for (let i = 0; i < dims; i++) s += query[i] * v[i];
    out[r] = s;
  });
  return out;
}
