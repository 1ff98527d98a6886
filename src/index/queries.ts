// Read queries over the index: FTS5 candidates with filters applied in SQL before the limit,
// and plain listings by filter or id. Ranking math lives in src/retrieve, not here.

import { MemError } from '../errors.js';
import { POTENTIAL, type Db } from './db.js';

export interface EntryFilter {
  types?: string[];
  scopes?: string[];
  domains?: string[];
  phases?: string[];
  statuses?: string[];
  learningTypes?: string[];
  paths?: string[];
  /** Index kinds (entry, legacy, note, episode; see indexKind). */
  kinds?: string[];
  /** Typed notes' frontmatter `outcome` (episode notes: success, partial, failure). */
  outcomes?: string[];
  /** Include retired entries (listings only; search never returns them). */
  includeRetired?: boolean;
  /** Only entries recorded in one of these conversations (their `session_id`). */
  conversations?: string[];
  /** Only entries that happened at or after this time (ms): their span ends then or later. */
  afterMs?: number;
  /** Only entries that happened before this time (ms): their span starts earlier. */
  beforeMs?: number;
}

/**
 * Every kind but episodes: what `mem list` and `mem context` show unless asked for `--kind episode`.
 * Pattern notes are knowledge, not a session's record: they stay in.
 */
export const NOT_EPISODES: readonly string[] = ['entry', 'legacy', 'note', 'pattern'];

export interface EntryRow {
  rowid: number;
  entry_id: string;
  path: string;
  line: number;
  ordinal: number;
  kind: string;
  scope: string;
  learning_type: string;
  type: string;
  domain: string;
  importance: number;
  phase: string;
  status: string;
  reinforcement_count: number;
  last_reinforced: string | null;
  created_at: string | null;
  title: string;
  body: string;
  content_hash: string;
  metadata_json: string;
}

export interface CandidateRow extends EntryRow {
  /** FTS5 bm25(): negative, lower is better. */
  bm25: number;
  /** True when the entry matches in its own title or body, not only through neighbour context. */
  own: boolean;
}

/** Column weights for bm25(): title, body, neighbour context. */
export const BM25_WEIGHTS = [2.0, 1.0, 0.6] as const;

const COLUMNS = `e.rowid, e.entry_id, e.path, e.line, e.ordinal, e.kind, e.scope, e.learning_type, e.type, e.domain, e.importance,
  e.phase, e.status, e.reinforcement_count, e.last_reinforced, e.created_at, e.title, e.body, e.content_hash, e.metadata_json`;

export function where(filter: EntryFilter, params: unknown[]): string {
  const clauses: string[] = [];
  const inList = (col: string, values?: string[]) => {
    if (!values || values.length === 0) return;
    clauses.push(`e.${col} IN (${values.map(() => '?').join(', ')})`);
    params.push(...values);
  };
  inList('type', filter.types);
  inList('scope', filter.scopes);
  inList('domain', filter.domains);
  inList('phase', filter.phases);
  inList('status', filter.statuses);
  inList('learning_type', filter.learningTypes);
  inList('path', filter.paths);
  inList('kind', filter.kinds);
  if (filter.outcomes && filter.outcomes.length > 0) {
    clauses.push(`json_extract(e.metadata_json, '$.outcome') IN (${filter.outcomes.map(() => '?').join(', ')})`);
    params.push(...filter.outcomes);
  }
  inList('session_id', filter.conversations);
  // An entry with no time (no created_at, a note) has NULL here: no time filter keeps it.
  if (filter.afterMs !== undefined) {
    clauses.push('e.end_ms >= ?');
    params.push(filter.afterMs);
  }
  if (filter.beforeMs !== undefined) {
    clauses.push('e.start_ms < ?');
    params.push(filter.beforeMs);
  }
  if (!filter.includeRetired) clauses.push("e.status != 'retired'");
  return clauses.length > 0 ? clauses.join(' AND ') : '1';
}

/** An inconsistency SQLite itself did not report, raised as corruption (see isCorruption). */
function damaged(what: string): MemError {
  return new MemError(`the index .memory.db is damaged: ${what}`, { cause: Object.assign(new Error(what), { code: 'SQLITE_CORRUPT' }) });
}

export function ftsCandidates(db: Db, match: string, filter: EntryFilter, limit: number): CandidateRow[] {
  const params: unknown[] = [];
  const w = where(filter, params);
  const weights = BM25_WEIGHTS.join(', ');
  // The same BM25 without the context column is below zero exactly when the entry itself matches.
  const ownWeights = `${BM25_WEIGHTS[0]}, ${BM25_WEIGHTS[1]}, 0`;
  // Fast path: rank inside FTS5 alone, then fetch only the best rows. With filters, a wider
  // first cut is taken; if filtering leaves too few rows while more matches exist, the exact
  // query (filters joined before the limit) runs instead, so the answer is always the same.
  const filtered = params.length > 0;
  const wide = filtered ? limit * 4 : limit + 16;
  // A conversation's entries were written together, so their rows lie close: FTS5 reads only the
  // rows between its first and last (a seek in each term's list), not every match of the vault.
  const span = filter.conversations && filter.conversations.length > 0 ? conversationRows(db, filter.conversations) : null;
  if (span && span.lo === null) return [];
  const top = db.prepare(`SELECT rowid AS rid, bm25(entries_fts, ${weights}) AS s, bm25(entries_fts, ${ownWeights}) AS o
    FROM entries_fts WHERE entries_fts MATCH ?${span ? ' AND rowid BETWEEN ? AND ?' : ''} ORDER BY s LIMIT ?`)
    .all(match, ...(span ? [span.lo, span.hi] : []), wide) as { rid: number; s: number; o: number }[];
  if (top.length === 0) return [];
  const byId = new Map(top.map((t) => [t.rid, t]));
  // Every full-text row has its entry row (both are written in one transaction), so the filter
  // is applied here rather than in WHERE: a hit with no row is a damaged index, not a filtered-out
  // entry, and is raised as corruption (withIndex rebuilds the index and asks again) instead of
  // silently returning fewer results.
  const fetched = db.prepare(`SELECT ${COLUMNS}, (${w}) AS pass FROM entries e WHERE e.rowid IN (SELECT value FROM json_each(?))`)
    .all(...params, JSON.stringify(top.map((t) => t.rid))) as (EntryRow & { pass: number })[];
  if (fetched.length < top.length) throw damaged(`${top.length - fetched.length} full-text hit(s) have no entry row`);
  const rows: EntryRow[] = fetched.filter((r) => r.pass).map(({ pass: _pass, ...r }) => r);
  if (rows.length >= limit || top.length < wide) {
    return rows
      .map((r) => ({ ...r, bm25: byId.get(r.rowid)!.s, own: byId.get(r.rowid)!.o < 0 }))
      .sort((a, b) => a.bm25 - b.bm25 || a.rowid - b.rowid)
      .slice(0, limit);
  }
  const sql = `SELECT ${COLUMNS}, bm25(entries_fts, ${weights}) AS bm25, bm25(entries_fts, ${ownWeights}) AS o
    FROM entries_fts JOIN entries e ON e.rowid = entries_fts.rowid
    WHERE entries_fts MATCH ? AND ${w}
    ORDER BY bm25, e.rowid LIMIT ?`;
  return (db.prepare(sql).all(match, ...params, limit) as (CandidateRow & { o: number })[]).map(({ o, ...r }) => ({ ...r, own: o < 0 }));
}

/** The first and last rowid of the conversations' entries (null, null when they have none), from entries_session. */
function conversationRows(db: Db, ids: string[]): { lo: number | null; hi: number | null } {
  return db.prepare(`SELECT min(rowid) AS lo, max(rowid) AS hi FROM entries WHERE session_id IN (${ids.map(() => '?').join(', ')})`).get(...ids) as { lo: number | null; hi: number | null };
}

/** Whether any entry passes the filter (a cheap check before a filtered full-text search). */
export function anyEntry(db: Db, filter: EntryFilter): boolean {
  const params: unknown[] = [];
  const w = where(filter, params);
  return db.prepare(`SELECT 1 FROM entries e WHERE ${w} LIMIT 1`).get(...params) !== undefined;
}

/** How many entries pass the filter. */
export function countMatching(db: Db, filter: EntryFilter): number {
  const q = countQuery(filter);
  return (db.prepare(q.sql).get(...q.params) as { n: number }).n;
}

/**
 * The query countMatching runs (its plan is pinned by a test): a section's count (a learning
 * type, the kinds that are not episodes, not retired) reads entries_learning_status alone.
 */
export function countQuery(filter: EntryFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const w = where(filter, params);
  return { sql: `SELECT count(*) AS n FROM entries e WHERE ${w}`, params };
}

/** The statement, its parameters bound, for `columns` of the entries `filter` selects by file and position, at most `limit` (-1: all). */
function listing(db: Db, columns: string, filter: EntryFilter, limit: number) {
  const params: unknown[] = [];
  const w = where(filter, params);
  params.push(limit);
  return db.prepare(`SELECT ${columns} FROM entries e WHERE ${w} ORDER BY e.path, e.ordinal LIMIT ?`).bind(...params);
}

export function listEntries(db: Db, filter: EntryFilter, limit = -1): EntryRow[] {
  return listing(db, COLUMNS, filter, limit).all() as EntryRow[];
}

/** An entry as a listing shows it: every field but the text of its body. */
export type ListingRow = Omit<EntryRow, 'body' | 'content_hash'>;

const LISTING_COLUMNS = COLUMNS.replace(', e.body, e.content_hash', '');

/**
 * listEntries' rows one at a time and without their bodies: a listing of a million entries is
 * written as it is read instead of held (bodies and all, several GB) until the end.
 */
export function iterateListing(db: Db, filter: EntryFilter, limit = -1): IterableIterator<ListingRow> {
  return listing(db, LISTING_COLUMNS, filter, limit).iterate() as IterableIterator<ListingRow>;
}

/** The ids of listEntries' rows, in its order, one at a time. */
export function iterateListingIds(db: Db, filter: EntryFilter, limit = -1): IterableIterator<string> {
  return listing(db, 'e.entry_id', filter, limit).pluck().iterate() as IterableIterator<string>;
}

export function entriesById(db: Db, id: string): EntryRow[] {
  return db.prepare(`SELECT ${COLUMNS} FROM entries e WHERE e.entry_id = ? ORDER BY e.path, e.ordinal`).all(id) as EntryRow[];
}

/** The line of the entry with this id in its file, as indexed; null when the index has none. */
export function entryLine(db: Db, id: string): number | null {
  const r = db.prepare('SELECT line FROM entries WHERE entry_id = ?').get(id) as { line: number } | undefined;
  return r?.line ?? null;
}

/**
 * The distinct entry ids that start with `prefix` (ASCII case ignored, as LIKE does), each with
 * a title, the first `limit` in id order; and how many there are in all.
 */
export function entryIdsByPrefix(db: Db, prefix: string, limit: number): { ids: { entry_id: string; title: string }[]; total: number } {
  const like = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const ids = db.prepare(`SELECT entry_id, MIN(title) AS title FROM entries WHERE entry_id LIKE ? ESCAPE '\\' GROUP BY entry_id ORDER BY entry_id LIMIT ?`).all(like, limit) as { entry_id: string; title: string }[];
  const total = ids.length < limit ? ids.length : (db.prepare(`SELECT COUNT(DISTINCT entry_id) AS n FROM entries WHERE entry_id LIKE ? ESCAPE '\\'`).get(like) as { n: number }).n;
  return { ids, total };
}

/** What ranking by metadata needs of an entry, without its text (only its size). */
export interface RankFieldsRow {
  rowid: number;
  path: string;
  line: number;
  scope: string;
  status: string;
  importance: number;
  reinforcement_count: number;
  last_reinforced: string | null;
  created_at: string | null;
}

/**
 * The metadata prominence ranks on, for the entries `filter` selects, in descending order of
 * importance × (1 + reinforcements) — an upper bound of prominence up to the scope multiplier,
 * so a caller can stop reading once the bound falls below what it already holds. No entry text
 * is read (reading every body of a big vault costs far more than the ranking). The connection is
 * busy while the iterator is open: end it (`return()`) before other queries.
 */
export function rankFieldsByPotential(db: Db, filter: EntryFilter, offset = 0): IterableIterator<RankFieldsRow> {
  const q = potentialQuery(filter, offset);
  return db.prepare(q.sql).iterate(...q.params) as IterableIterator<RankFieldsRow>;
}

/** The query rankFieldsByPotential runs (its plan is pinned by a test). */
export function potentialQuery(filter: EntryFilter, offset = 0): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const w = where(filter, params);
  // rowid last: the same order every time, so a second read can go on from an offset. For one
  // learning type, rows come in the order of the entries_potential index: the first ones at
  // once, with no sort of every row first (0.5 s at 100k entries).
  const sql = `SELECT e.rowid, e.path, e.line, e.scope, e.status, e.importance, e.reinforcement_count, e.last_reinforced, e.created_at
    FROM entries e WHERE ${w} ORDER BY ${POTENTIAL} DESC, e.rowid LIMIT -1 OFFSET ?`;
  return { sql, params: [...params, offset] };
}

/**
 * The distinct dates an entry's age is counted from (last_reinforced, else created_at) among the
 * entries `filter` selects: what the ranking needs to tell how recent the newest of them is.
 */
export function ageDates(db: Db, filter: EntryFilter): string[] {
  const params: unknown[] = [];
  const w = where(filter, params);
  return db.prepare(`SELECT DISTINCT coalesce(e.last_reinforced, e.created_at) AS d FROM entries e WHERE ${w} AND d IS NOT NULL`).pluck().all(...params) as string[];
}

/** Characters of title + 1 + body (what a budget counts) of the given entries, by rowid. */
export function entryChars(db: Db, rowids: number[]): Map<number, number> {
  const rows = db.prepare('SELECT rowid, length(title) + 1 + length(body) AS chars FROM entries WHERE rowid IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(rowids)) as { rowid: number; chars: number }[];
  return new Map(rows.map((r) => [r.rowid, r.chars]));
}

export function entriesByRowid(db: Db, rowids: number[]): EntryRow[] {
  const rows = db.prepare(`SELECT ${COLUMNS} FROM entries e WHERE e.rowid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rowids)) as EntryRow[];
  const order = new Map(rowids.map((r, i) => [r, i]));
  return rows.sort((a, b) => order.get(a.rowid)! - order.get(b.rowid)!);
}

/**
 * For each FTS5 expression, how many entries contain it in their own title or body (not only in
 * their neighbours' context): document frequencies, to tell a telling word from a common one.
 */
export function ownDocCounts(db: Db, exprs: string[]): number[] {
  const count = db.prepare('SELECT count(*) AS n FROM entries_fts WHERE entries_fts MATCH ?');
  return exprs.map((e) => (count.get(`{title body} : (${e})`) as { n: number }).n);
}

/**
 * For each FTS5 expression, how many entries match it anywhere, counting no further than `cap`:
 * enough to tell a rare word from a common one, at a bounded cost per word (a word in half of a
 * 100k-entry vault would take ~0.2 ms to count in full).
 */
export function docCountsUpTo(db: Db, exprs: string[], cap: number): number[] {
  const count = db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM entries_fts WHERE entries_fts MATCH ? LIMIT ?)');
  return exprs.map((e) => (count.get(e, cap) as { n: number }).n);
}

/** How many entries the index holds, when fewer than `cap`; null at `cap` or more (reads at most `cap` rows). */
export function entryCountBelow(db: Db, cap: number): number | null {
  const n = (db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM entries LIMIT ?)').get(cap) as { n: number }).n;
  return n < cap ? n : null;
}

/** The BM25 (column weights as ftsCandidates) of every entry matching one FTS5 phrase, by rowid. */
export function phraseBm25(db: Db, phrase: string): Map<number, number> {
  const rows = db.prepare(`SELECT rowid AS rid, bm25(entries_fts, ${BM25_WEIGHTS.join(', ')}) AS s FROM entries_fts WHERE entries_fts MATCH ?`).all(phrase) as { rid: number; s: number }[];
  return new Map(rows.map((r) => [r.rid, r.s]));
}
