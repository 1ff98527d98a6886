// Vectors in `.memory.db`: a derived table keyed by (entry content hash, model key), so a renamed
// file or a rebuilt index costs no API call; meta 'embed_model' names the one model whose vectors
// the table holds, so vectors of two models are never compared (a model change re-embeds). Search
// reads an int8 copy of them (the sidecar, src/embeddings/quantized.ts) and re-ranks its best
// candidates with the float vectors here; without a current sidecar it scans these exactly.

import type { Db } from '../index/db.js';
import { where, type EntryFilter } from '../index/queries.js';
import { CONTENT_HASH_INDEX, hasVectorsTable, VECTORS_TABLE } from '../index/vectors-table.js';
import { closeSidecar, exactDots, hashAt, openSidecar, scanSidecar, writeSidecar, type Sidecar } from './quantized.js';
import { toBlob, topByCosine } from './vectors.js';

// The shape of each stored value (its type and byte length), indexed: finding damaged rows and the
// model's vector size reads this small index, not 3 KB rows (a scan of the rows cost ~0.85 s at
// 100k on every mem index with embeddings).
const SHAPE_INDEX = 'CREATE INDEX IF NOT EXISTS vectors_shape ON vectors(model, typeof(vec), length(vec))';

/**
 * The byte length of the model's vectors: the most common length among its BLOB values (a crash
 * or a hand-edited index can leave a row of another length, or a text value, that must not set the
 * size every other row is measured by). Null when there is none.
 */
function vectorBytes(db: Db, model: string): number | null {
  const r = db.prepare("SELECT length(vec) AS b FROM vectors WHERE model = ? AND typeof(vec) = 'blob' AND length(vec) > 0 AND length(vec) % 4 = 0 GROUP BY b ORDER BY count(*) DESC, b LIMIT 1")
    .get(model) as { b: number } | undefined;
  return r?.b ?? null;
}

export function storedModel(db: Db): string | null {
  const r = db.prepare("SELECT value FROM meta WHERE key = 'embed_model'").get() as { value: string } | undefined;
  return r?.value ?? null;
}

export interface Missing {
  hash: string;
  text: string;
}

/**
 * Make the table hold `model`'s vectors only (another model's are deleted: a model change
 * re-embeds), drop vectors no entry has any more, and list the texts still to embed — each distinct
 * text once, retired entries skipped.
 */
export function prepareVectors(db: Db, model: string): Missing[] {
  db.exec(VECTORS_TABLE);
  db.exec(CONTENT_HASH_INDEX);
  db.exec(SHAPE_INDEX);
  db.transaction(() => {
    if (storedModel(db) !== model) {
      db.prepare('DELETE FROM vectors WHERE model != ?').run(model);
      db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('embed_model', ?)").run(model);
    }
    // A value that is no vector of the model's size (damage, a hand edit) is dropped, so its
    // entry is embedded again rather than left without a vector for good.
    // Counted on the shape index first; the rows are visited only when some value is off.
    const bytes = vectorBytes(db, model);
    const good = (db.prepare("SELECT count(*) AS n FROM vectors WHERE model = ? AND typeof(vec) = 'blob' AND length(vec) = ?").get(model, bytes ?? 0) as { n: number }).n;
    if (good !== vectorCount(db, model)) {
      db.prepare("DELETE FROM vectors WHERE model = ? AND (typeof(vec) != 'blob' OR length(vec) != ?)").run(model, bytes ?? 0);
    }
    // Both lookups go index to index (the vectors' (hash, model) and entries' content_hash), never
    // through the rows themselves: at 100k entries 75 ms instead of 0.55 s (measured).
    const dead = db.prepare('SELECT v.id FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.content_hash = v.hash)').pluck().all() as number[];
    if (dead.length > 0) db.prepare('DELETE FROM vectors WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(dead));
  })();
  const lacking = db.prepare('SELECT e.rowid FROM entries e WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.hash = e.content_hash AND v.model = ?)').pluck().all(model) as number[];
  if (lacking.length === 0) return [];
  const rows = db.prepare(`SELECT e.content_hash AS hash, e.title, e.body FROM entries e
    WHERE e.rowid IN (SELECT value FROM json_each(?)) AND e.status != 'retired'
    GROUP BY e.content_hash ORDER BY MIN(e.rowid)`).all(JSON.stringify(lacking)) as { hash: string; title: string; body: string }[];
  // The text the content hash is made of (src/index/prepare.ts): the title line, then the body.
  return rows.map((r) => ({ hash: r.hash, text: `${r.title}\n${r.body}` }));
}

export function putVectors(db: Db, model: string, items: { hash: string; vec: Float32Array }[]): void {
  const put = db.prepare('INSERT OR REPLACE INTO vectors(hash, model, dims, vec) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const it of items) put.run(it.hash, model, it.vec.length, toBlob(it.vec));
  })();
}

/** Whether any vector of `model` is stored (a search's check: no count of the whole table). */
export function hasVectors(db: Db, model: string): boolean {
  return hasVectorsTable(db) && storedModel(db) === model && db.prepare('SELECT 1 FROM vectors WHERE model = ? LIMIT 1').get(model) !== undefined;
}

export function vectorCount(db: Db, model: string): number {
  if (!hasVectorsTable(db) || storedModel(db) !== model) return 0;
  return (db.prepare('SELECT count(*) AS n FROM vectors WHERE model = ?').get(model) as { n: number }).n;
}

/** Vectors of the entries passing a filter: matrix row i is shared by the entries `rowidsOf[i]`. */
export interface VectorSet {
  matrix: Float32Array;
  dims: number;
  rowidsOf: number[][];
}

const EMPTY: VectorSet = { matrix: new Float32Array(0), dims: 0, rowidsOf: [] };

/** Rows of (key, blob) copied into one buffer (a memcpy per row, no typed array per vector). */
function collect<K>(rows: Iterable<[K, Uint8Array]>): { keys: K[]; bytes: Uint8Array; size: number } {
  const keys: K[] = [];
  let bytes = new Uint8Array(0);
  let size = -1;
  for (const [key, blob] of rows) {
    if (size === -1) {
      size = blob.byteLength;
      bytes = new Uint8Array(size * 1024);
    }
    if (blob.byteLength !== size) continue;
    if ((keys.length + 1) * size > bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      bytes = grown;
    }
    bytes.set(blob, keys.length * size);
    keys.push(key);
  }
  return { keys, bytes: bytes.subarray(0, Math.max(0, keys.length * size)), size };
}

/** Every entry passing `filter` that has a vector of `model`, read row by row (the exact path). */
export function loadVectors(db: Db, model: string, filter: EntryFilter, dims: number): VectorSet {
  if (!hasVectorsTable(db) || storedModel(db) !== model || !(dims > 0)) return EMPTY;
  // Only BLOBs of the query's size: a damaged row (a text value, another length) is skipped,
  // never read as the size of the rest.
  const params: unknown[] = [model, dims * 4];
  const w = where(filter, params);
  const { keys, bytes, size } = collect(db.prepare(`SELECT e.rowid AS rowid, v.vec AS vec FROM entries e JOIN vectors v ON v.hash = e.content_hash AND v.model = ?
    AND typeof(v.vec) = 'blob' AND length(v.vec) = ? WHERE ${w} ORDER BY e.rowid`)
    .raw(true).iterate(...params) as Iterable<[number, Uint8Array]>);
  if (size <= 0) return EMPTY;
  return { matrix: new Float32Array(bytes.buffer, bytes.byteOffset, keys.length * (size / 4)), dims: size / 4, rowidsOf: keys.map((k) => [k]) };
}

// --- The int8 sidecar (src/embeddings/quantized.ts) ---

/** Vectors added after the sidecar was written are scored exactly, from SQLite, up to this many. */
export const SIDECAR_DELTA_MAX = 1024;
/** Share of the sidecar's rows whose vector is gone (edited or deleted entries) that rewrites it. */
const SIDECAR_DEAD_SHARE = 0.1;
/** Candidates re-ranked with the exact vectors: RERANK_FACTOR × those asked for, at least RERANK_MIN. */
export const RERANK_FACTOR = 2;
export const RERANK_MIN = 64;

/** `.memory.db-vec` beside the index file (covered by the `.memory.db*` ignore line); none for an index in memory. */
export function sidecarPath(db: Db): string | null {
  return db.memory || !db.name ? null : `${db.name}-vec`;
}

function sidecarToken(db: Db): string | null {
  const r = db.prepare("SELECT value FROM meta WHERE key = 'vec_sidecar'").get() as { value: string } | undefined;
  return r?.value ?? null;
}

/** The sidecar that belongs to this index and model (its token is in meta), or null. */
function currentSidecar(db: Db, model: string, dims?: number): Sidecar | null {
  const file = sidecarPath(db);
  const token = file ? sidecarToken(db) : null;
  if (!file || !token) return null;
  const s = openSidecar(file);
  if (s && s.token === token && s.model === model && (dims === undefined || s.dims === dims)) return s;
  if (s) closeSidecar(s);
  return null;
}

/**
 * Keep the int8 sidecar in step with the model's vectors, cheaply: a few new vectors (up to
 * SIDECAR_DELTA_MAX, scored exactly at search time) or a few dead rows leave it as it is; more, a
 * model change, or no sidecar rewrite it from the table. Called after the vectors change
 * (embedMissing). A failure to write leaves search on the exact scan, never wrong.
 */
export function writeSnapshot(db: Db, model: string): void {
  db.exec(VECTORS_TABLE);
  // The float snapshot of earlier versions: one large blob, replaced by the sidecar.
  db.exec('DROP TABLE IF EXISTS vector_snapshot');
  db.exec(CONTENT_HASH_INDEX);
  const file = sidecarPath(db);
  if (!file) return;
  const cur = currentSidecar(db, model);
  if (cur) {
    closeSidecar(cur);
    const newer = (db.prepare('SELECT count(*) AS n FROM vectors WHERE model = ? AND id > ?').get(model, cur.maxId) as { n: number }).n;
    // All of the model (a scan of the (hash, model) index, not of the rows) less the newer ones.
    const kept = vectorCount(db, model) - newer;
    if (newer <= SIDECAR_DELTA_MAX && cur.n - kept <= cur.n * SIDECAR_DEAD_SHARE) return;
  }
  let token: string | null = null;
  try {
    token = writeSidecar(file, model, db.prepare("SELECT id, hash, vec FROM vectors WHERE model = ? AND typeof(vec) = 'blob' AND length(vec) = ? ORDER BY id")
      .raw(true).iterate(model, vectorBytes(db, model) ?? 0) as Iterable<[number, string, Uint8Array]>);
  } catch {
    token = null;
  }
  if (token) db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('vec_sidecar', ?)").run(token);
  else db.prepare("DELETE FROM meta WHERE key = 'vec_sidecar'").run();
}

/** A search's vector candidates: entries (rowids) best first by cosine with the query. */
export interface VectorHit {
  key: number;
  cosine: number;
}

/** Entries (rowids, ascending) passing the filter for each of `hashes` that has any. */
function entriesOf(db: Db, hashes: string[], filter: EntryFilter): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (hashes.length === 0) return out;
  const params: unknown[] = [JSON.stringify(hashes)];
  const w = where(filter, params);
  for (const [rowid, hash] of db.prepare(`SELECT e.rowid, e.content_hash FROM entries e WHERE e.content_hash IN (SELECT value FROM json_each(?)) AND ${w} ORDER BY e.rowid`)
    .raw(true).iterate(...params) as Iterable<[number, string]>) {
    const list = out.get(hash);
    if (list) list.push(rowid);
    else out.set(hash, [rowid]);
  }
  return out;
}

/** The exact cosine of unit `query` with each stored vector of `hashes` (dims must match). */
function exactCosines(db: Db, model: string, query: Float32Array, hashes: string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (hashes.length === 0) return out;
  const rows = (db.prepare('SELECT hash, vec FROM vectors WHERE model = ? AND hash IN (SELECT value FROM json_each(?))')
    .raw(true).all(model, JSON.stringify(hashes)) as [string, Uint8Array][]).filter(([, blob]) => blob.byteLength === query.length * 4);
  const dots = exactDots(query, rows.map(([, blob]) => blob));
  // A stored NaN or Infinity (a damaged row) scores nothing, rather than a NaN ranked anywhere.
  rows.forEach(([hash], i) => Number.isFinite(dots[i]) && out.set(hash, dots[i]));
  return out;
}

/**
 * The `n` entries passing `filter` nearest to unit `query` by cosine, best first, each with its
 * exact cosine. Through the sidecar when it is current: int8 scores pick the candidates, passing
 * ones are taken in that order until max(RERANK_FACTOR × n, RERANK_MIN) distinct vectors are in
 * hand (vectors added since the sidecar was written join them), and those are re-ranked with
 * their float vectors. Without a sidecar: the exact scan of every vector. `cache` keeps the exact
 * path's vectors between the queries of one batch.
 */
export function nearestVectors(db: Db, model: string, query: Float32Array, filter: EntryFilter, n: number, cache?: Map<string, VectorSet>): VectorHit[] {
  return nearestBySidecar(db, model, query, filter, n) ?? nearestExact(db, model, query, filter, n, cache);
}

/** nearestVectors through the sidecar; null when there is no current one (or it cannot be read). */
export function nearestBySidecar(db: Db, model: string, query: Float32Array, filter: EntryFilter, n: number, kernel: 'auto' | 'js' = 'auto'): VectorHit[] | null {
  if (!hasVectorsTable(db) || storedModel(db) !== model) return null;
  const s = currentSidecar(db, model, query.length);
  if (!s) return null;
  try {
    return viaSidecar(db, s, model, query, filter, n, kernel);
  } catch {
    return null;
  } finally {
    closeSidecar(s);
  }
}

/** nearestVectors by the exact scan of every vector, read from SQLite. */
export function nearestExact(db: Db, model: string, query: Float32Array, filter: EntryFilter, n: number, cache?: Map<string, VectorSet>): VectorHit[] {
  const key = `${query.length}:${JSON.stringify(filter)}`;
  let vs = cache?.get(key);
  if (!vs) {
    vs = loadVectors(db, model, filter, query.length);
    cache?.set(key, vs);
  }
  if (vs.dims !== query.length) return [];
  const top = topByCosine(query, vs.matrix, vs.dims, n);
  // Entries with the same text share a vector: each is a candidate, at consecutive ranks.
  return top.flatMap((t) => vs!.rowidsOf[t.index].map((k) => ({ key: k, cosine: t.score }))).slice(0, n);
}

function viaSidecar(db: Db, s: Sidecar, model: string, query: Float32Array, filter: EntryFilter, n: number, kernel: 'auto' | 'js'): VectorHit[] {
  const want = Math.max(RERANK_FACTOR * n, RERANK_MIN);
  // Vectors stored after the sidecar was written (few: see writeSnapshot) are all candidates.
  const newer = db.prepare('SELECT hash FROM vectors WHERE model = ? AND id > ? ORDER BY id').pluck().all(model, s.maxId) as string[];
  // Candidate hashes in the order they count: the newer ones, then the sidecar's by int8 score.
  const order: string[] = [];
  const seen = new Set<string>();
  const entries = new Map<string, number[]>();
  const take = (hashes: string[]) => {
    const fresh = hashes.filter((h) => !seen.has(h) && (seen.add(h), true));
    for (const [h, ids] of entriesOf(db, fresh, filter)) entries.set(h, ids);
    for (const h of fresh) if (entries.has(h)) order.push(h);
  };
  take(newer);
  const fromNewer = order.length;
  // A little more than wanted: a few candidates drop out (retired entries, dead rows).
  let m = Math.min(s.n, Math.ceil(want * 1.25) + 16);
  let taken = 0;
  for (;;) {
    const top = scanSidecar(s, query, m, kernel);
    take(top.slice(taken).map((t) => hashAt(s, t.row)));
    taken = top.length;
    // A filter can drop many: scan again for four times as many, until enough pass.
    if (order.length - fromNewer >= want || m >= s.n) break;
    m = Math.min(s.n, m * 4);
  }
  const pool = order.slice(0, fromNewer + want);
  const cos = exactCosines(db, model, query, pool);
  // Ties by the first entry's rowid, as the exact scan orders them.
  const best = pool.filter((h) => cos.has(h)).sort((a, b) => cos.get(b)! - cos.get(a)! || entries.get(a)![0] - entries.get(b)![0]);
  const out: VectorHit[] = [];
  for (const h of best) {
    for (const key of entries.get(h)!) out.push({ key, cosine: cos.get(h)! });
    if (out.length >= n) break;
  }
  return out.slice(0, n);
}
