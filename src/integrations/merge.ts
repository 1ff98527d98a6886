// Three-way merge of one memory file by entry id (the git merge driver and `mem resolve` use it).
// Pure: three texts in, the merged text and a conflict count out. Entries changed on neither side
// keep their bytes; counters both sides moved add up from the base, dates take the later; a
// retirement wins; only an entry edited differently on both sides gets conflict markers, around
// that entry alone.

import { parseMemoryFile, updateBlockMeta, type Block, type ParsedFile } from '../vault/format.js';
import { sameValue } from '../vault/frontmatter.js';
import { newlineOf } from '../vault/safetext.js';
import { findConflictMarkers } from '../vault/gitmarkers.js';
import { lineStarts } from '../vault/lines.js';

export interface MergeResult {
  text: string;
  /** Regions left with conflict markers (entries, or the preamble). 0 = clean. */
  conflicts: number;
  /** Ids of the entries left in conflict. */
  conflictIds: string[];
  /** For a typed note: the fields and sections left in conflict (`field trigger`, `section Context`). */
  conflictParts?: string[];
  /** The texts are not memory files mem can merge by entry; `text` came from `textMerge`. */
  fallback?: string;
}

/** A line-based merge of plain text (git merge-file in the CLI); the default marks the whole region. */
export type TextMerge = (base: string, ours: string, theirs: string) => { text: string; conflicts: number };

export interface MergeOptions {
  /** For plain text: a side that is not a memory file, and a preamble changed on both sides. */
  textMerge?: TextMerge;
  labels?: { ours?: string; theirs?: string };
}

const BOM = '\ufeff';
/** Lines git writes around a conflict; a side holding them is not merged by entry again. */
const MARKER_LINE = /^(<{7}|>{7})(?: |\r?$)/m;

function withEol(text: string, nl: string): string {
  return nl === '\n' ? text.replace(/\r\n/g, '\n') : text.replace(/\r?\n/g, '\r\n');
}

/** Text compared for "changed": line endings and the blank lines after a block do not count. */
function norm(s: string): string {
  return s.replace(/\r\n/g, '\n').replace(/\s+$/, '');
}

/** Marks a whole region: what a text merge falls back to when it knows nothing better. */
export function markRegion(ours: string, theirs: string, nl = '\n', labels: MergeOptions['labels'] = {}): string {
  const end = (s: string) => (s === '' || s.endsWith('\n') ? s : s + nl);
  return `<<<<<<< ${labels.ours ?? 'ours'}${nl}${end(ours)}=======${nl}${end(theirs)}>>>>>>> ${labels.theirs ?? 'theirs'}${nl}`;
}

/** Simple three-way choice for a text region: a side that alone changed it wins. */
function threeWay(base: string, ours: string, theirs: string): string | null {
  if (norm(ours) === norm(theirs) || norm(theirs) === norm(base)) return ours;
  if (norm(ours) === norm(base)) return theirs;
  return null;
}

interface Side {
  file: ParsedFile;
  /** Blocks by key (id, with `#2`, `#3` for a repeated id), in file order. */
  keys: string[];
  byKey: Map<string, Block>;
  lastKey: string | undefined;
  /** For each bare header (Block.bare): the key of the block it follows. */
  bareAfter: Map<string, string>;
}

function blockId(b: Block): string | undefined {
  return b.entry?.id ?? b.empty?.id;
}

/** Why a side cannot be merged by entry, or null. */
function unmergeable(text: string): string | null {
  if (text.includes('\u0000')) return 'a side is binary (NUL bytes)';
  if (MARKER_LINE.test(text)) return 'a side holds conflict markers';
  return null;
}

function side(text: string, relPath: string): Side | string {
  const file = parseMemoryFile(text, relPath);
  if (file.diagnostics.length > 0) return `a side has a malformed entry (line ${file.diagnostics[0].line ?? '?'})`;
  // A plain note (no entries) is all preamble here: a proxy file that gets its first entries.
  const f: ParsedFile = file.format === 'notes' ? { format: 'entries', preamble: text, blocks: [], entries: [], diagnostics: [] } : file;
  const keys: string[] = [];
  const byKey = new Map<string, Block>();
  const seen = new Map<string, number>();
  const bareAfter = new Map<string, string>();
  for (const b of f.blocks) {
    const id = blockId(b);
    if (id === undefined) return 'a side has a block without an id';
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    const key = n === 1 ? id : `${id}#${n}`;
    if (b.bare) bareAfter.set(key, keys[keys.length - 1] ?? '');
    keys.push(key);
    byKey.set(key, b);
  }
  return { file: f, keys, byKey, lastKey: keys[keys.length - 1], bareAfter };
}

function defaultTextMerge(labels: MergeOptions['labels']): TextMerge {
  return (base, ours, theirs) => {
    const pick = threeWay(base, ours, theirs);
    if (pick !== null) return { text: pick, conflicts: 0 };
    return { text: markRegion(ours, theirs, newlineOf(ours), labels), conflicts: 1 };
  };
}

/** One output block: its text, and whether it was the last block of the file it came from. */
interface Piece {
  raw: string;
  wasLast: boolean;
  /** For a header with no `---` of its own: the key of the block it followed in its file. */
  bareAfter?: string;
  key?: string;
}

function dateOf(v: unknown): string | undefined {
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

function maxCount(a: unknown, b: unknown): unknown {
  const x = Number(a);
  const y = Number(b);
  if (!Number.isFinite(x)) return b;
  if (!Number.isFinite(y)) return a;
  return y > x ? b : a;
}

function maxDate(a: unknown, b: unknown): unknown {
  const x = dateOf(a);
  const y = dateOf(b);
  if (x === undefined) return b;
  if (y === undefined) return a;
  return y > x ? b : a;
}

const finite = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};

/**
 * A counter both sides moved from the base: each side's change counts, so two branches that each
 * reinforce an entry once give base + 2 (even though both wrote the same number). Floor 0.
 */
function addedUp(b: unknown, o: unknown, t: unknown): number | null {
  const [x, y, z] = [finite(b ?? 0), finite(o), finite(t)];
  if (x === null || y === null || z === null) return null;
  return Math.max(0, x + (y - x) + (z - x));
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * The FSRS state (`fsrs:`) after reviews on both sides: the state of the later review (its
 * stability, difficulty and phase already account for the time between reviews), with `reps`
 * and `lapses` counting the reviews of both sides. Null when a side holds no such map.
 */
function mergedFsrs(b: unknown, o: unknown, t: unknown): Record<string, unknown> | null {
  if (!isMap(o) || !isMap(t)) return null;
  const when = (m: Record<string, unknown>) => {
    const ms = typeof m.last_review === 'string' ? Date.parse(m.last_review) : NaN;
    return Number.isNaN(ms) ? -Infinity : ms;
  };
  const later = when(t) > when(o) ? t : o;
  const base = isMap(b) ? b : {};
  const out: Record<string, unknown> = { ...later };
  for (const k of ['reps', 'lapses']) {
    if (!(k in later)) continue;
    const n = addedUp(base[k], o[k] ?? base[k] ?? 0, t[k] ?? base[k] ?? 0);
    if (n !== null) out[k] = Math.floor(n);
  }
  return out;
}

/**
 * The merged header of an entry changed on both sides. Counters both sides moved add up from the
 * base (reinforcement_count; reps and lapses of the FSRS state, which takes the later review);
 * without a base (the entry added on both sides) the larger count wins. Dates of the last event
 * take the later (last_reinforced, consolidated_at), a retirement wins and keeps its earlier
 * date; any other key the side that alone changed it. Keys changed differently on both sides
 * come back in `clash`.
 */
function mergeMeta(base: Record<string, unknown> | undefined, ours: Record<string, unknown>, theirs: Record<string, unknown>): { meta: Record<string, unknown>; clash: string[] } {
  const meta: Record<string, unknown> = {};
  const clash: string[] = [];
  const hasBase = base !== undefined;
  const bm = base ?? {};
  const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs), ...Object.keys(bm)])];
  for (const k of keys) {
    const b = bm[k];
    const o = ours[k];
    const t = theirs[k];
    const bothMoved = hasBase && o !== undefined && t !== undefined && !sameValue(o, b) && !sameValue(t, b);
    let v: unknown;
    if (k === 'reinforcement_count' && bothMoved && addedUp(b, o, t) !== null) v = addedUp(b, o, t);
    else if (k === 'reinforcement_count' && o !== undefined && t !== undefined && !hasBase) v = maxCount(o, t);
    else if (k === 'fsrs' && bothMoved && mergedFsrs(b, o, t) !== null) v = mergedFsrs(b, o, t);
    else if ((k === 'last_reinforced' || k === 'consolidated_at') && o !== undefined && t !== undefined) v = maxDate(o, t);
    else if (k === 'status' && (o === 'retired' || t === 'retired')) v = 'retired';
    else if (sameValue(o, t) || sameValue(t, b)) v = o;
    else if (sameValue(o, b)) v = t;
    else if (k === 'retired_at' && o !== undefined && t !== undefined) v = maxDate(o, t) === o ? t : o;
    else {
      clash.push(k);
      v = o;
    }
    if (v !== undefined) meta[k] = v;
  }
  return { meta, clash };
}

/** The changes that turn `from` into `to` (undefined removes a key). */
function changesTo(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const k of Object.keys(from)) if (!(k in to)) changes[k] = undefined;
  for (const [k, v] of Object.entries(to)) if (!sameValue(from[k], v)) changes[k] = v;
  return changes;
}

/** The block with its header set to `meta`; null when the header cannot be rewritten safely. */
function withMeta(block: Block, meta: Record<string, unknown>): Block | null {
  const changes = changesTo(block.entry?.meta ?? {}, meta);
  if (Object.keys(changes).length === 0) return block;
  try {
    return updateBlockMeta(block, changes);
  } catch {
    return null;
  }
}

/** Body text of a frontmatter block (after its header). */
function bodyOf(b: Block): string {
  return b.header ? b.raw.slice(b.header.bodyStart) : b.raw;
}

/**
 * Merge `ours` and `theirs`, two edits of `base` (any may be '' for a file that did not exist).
 * `relPath` seeds legacy ids, as it does when the file is read.
 */
export function mergeMemoryFile(base: string, ours: string, theirs: string, relPath: string, opts: MergeOptions = {}): MergeResult {
  const labels = opts.labels ?? {};
  const textMerge = opts.textMerge ?? defaultTextMerge(labels);
  const clean = (text: string): MergeResult => ({ text, conflicts: 0, conflictIds: [] });
  // Trivial cases first: they are exact, whatever the texts hold.
  if (ours === theirs || theirs === base) return clean(ours);
  if (ours === base) return clean(theirs);
  const bom = ours.startsWith(BOM);
  const strip = (s: string) => (s.startsWith(BOM) ? s.slice(1) : s);
  const [b0, o0, t0] = [strip(base), strip(ours), strip(theirs)];
  const fallback = (why: string): MergeResult => {
    const r = textMerge(base, ours, theirs);
    return { text: r.text, conflicts: r.conflicts, conflictIds: [], fallback: why };
  };
  const why = unmergeable(b0) ?? unmergeable(o0) ?? unmergeable(t0);
  if (why) return fallback(why);
  const sides = [side(b0, relPath), side(o0, relPath), side(t0, relPath)];
  for (const s of sides) if (typeof s === 'string') return fallback(s);
  const [B, O, T] = sides as Side[];
  if (B.keys.length === 0 && O.keys.length === 0 && T.keys.length === 0) return fallback('no side holds entries');

  // Text from the other side is written in the current side's line-ending style.
  const nl = newlineOf(o0.includes('\n') ? o0 : t0);
  const fromTheirs = (raw: string) => withEol(raw, nl);
  let conflicts = 0;
  const conflictIds: string[] = [];

  const pre = threeWay(B.file.preamble, O.file.preamble, T.file.preamble);
  let preamble: string;
  if (pre === null) {
    const r = textMerge(B.file.preamble, O.file.preamble, fromTheirs(T.file.preamble));
    preamble = r.text;
    conflicts += r.conflicts;
  } else preamble = pre === T.file.preamble && pre !== O.file.preamble ? fromTheirs(pre) : pre;

  const pieces: Piece[] = [];
  const oursPiece = (k: string): Piece => ({ raw: O.byKey.get(k)!.raw, wasLast: k === O.lastKey, key: k, bareAfter: O.bareAfter.get(k) });
  const theirsPiece = (k: string): Piece => ({ raw: fromTheirs(T.byKey.get(k)!.raw), wasLast: k === T.lastKey, key: k, bareAfter: T.bareAfter.get(k) });

  /** An entry changed on both sides (or added on both with different text). */
  const both = (k: string): Piece => {
    const b = B.byKey.get(k);
    const o = O.byKey.get(k)!;
    const t = T.byKey.get(k)!;
    const wasLast = k === O.lastKey;
    const conflict = (oBlock: Block, tBlock: Block): Piece => {
      conflicts++;
      conflictIds.push(k.replace(/#\d+$/, ''));
      const end = (s: string) => s.replace(/(\r?\n)*$/, '') + nl;
      const sep = wasLast ? '' : nl;
      return { raw: markRegion(end(oBlock.raw), end(fromTheirs(tBlock.raw)), nl, labels) + sep, wasLast };
    };
    if (!o.entry || !t.entry || !o.header || !t.header || (b && (!b.entry || !b.header))) return conflict(o, t);
    const { meta, clash } = mergeMeta(b?.entry?.meta, o.entry.meta, t.entry.meta);
    const bodyB = b ? norm(bodyOf(b)) : undefined;
    const bodyO = norm(bodyOf(o));
    const bodyT = norm(bodyOf(t));
    let body: 'ours' | 'theirs' | null;
    if (bodyO === bodyT || bodyT === bodyB) body = 'ours';
    else if (bodyO === bodyB) body = 'theirs';
    else body = null;
    if (body === null || clash.length > 0) {
      // Both versions still get every key that did merge, so either one kept is up to date.
      const keep = (blk: Block, mine: Record<string, unknown>) => {
        const m: Record<string, unknown> = { ...meta };
        for (const c of clash) m[c] = mine[c];
        return withMeta(blk, m) ?? blk;
      };
      return conflict(keep(o, o.entry.meta), keep(t, t.entry.meta));
    }
    let start = o;
    if (body === 'theirs') {
      // Ours' header, theirs' body, ours' trailing blank lines.
      const tail = /(\r?\n)*$/.exec(o.raw)![0];
      const tb = fromTheirs(bodyOf(t)).replace(/(\r?\n)*$/, '') + tail;
      start = { ...o, raw: o.raw.slice(0, o.header.bodyStart) + tb };
    }
    const merged = withMeta(start, meta);
    if (!merged) return conflict(o, t);
    return { raw: merged.raw, wasLast, key: k, bareAfter: O.bareAfter.get(k) };
  };

  for (const k of O.keys) {
    const b = B.byKey.get(k);
    const t = T.byKey.get(k);
    const o = O.byKey.get(k)!;
    if (!t) {
      // Deleted by theirs (kept when ours changed it: nothing is lost), or added by ours.
      if (b && norm(b.raw) === norm(o.raw)) continue;
      pieces.push(oursPiece(k));
    } else if (b && norm(t.raw) === norm(b.raw)) pieces.push(oursPiece(k));
    // The same change on both sides still goes through the header merge: counters moved on
    // both add up (two reinforcements from 0 that both wrote 1 are 2).
    else if (norm(o.raw) === norm(t.raw) && (!b || norm(o.raw) === norm(b.raw) || !b.entry || !o.entry)) pieces.push(oursPiece(k));
    else if (b && norm(o.raw) === norm(b.raw)) pieces.push(theirsPiece(k));
    else pieces.push(both(k));
  }
  for (const k of T.keys) {
    if (O.byKey.has(k)) continue;
    const b = B.byKey.get(k);
    // Deleted by ours and unchanged by theirs: gone. Changed by theirs: kept.
    if (b && norm(b.raw) === norm(T.byKey.get(k)!.raw)) continue;
    pieces.push(theirsPiece(k));
  }

  let out = preamble;
  pieces.forEach((p, i) => {
    let raw = p.raw;
    const last = i === pieces.length - 1;
    if (!last && p.wasLast) {
      // The end of its file, now followed by another entry: a blank line between them.
      if (!raw.endsWith('\n')) raw += nl;
      if (!/\n(\r?\n)$/.test(raw)) raw += nl;
    } else if (last && !p.wasLast) {
      // Now the end of the file: end it as the current side ends.
      const ending = /(\r?\n)*$/.exec(o0)![0] || /(\r?\n)*$/.exec(t0)![0];
      raw = raw.replace(/(\r?\n)*$/, '') + withEol(ending, nl);
    }
    if (i === 0 && out !== '' && !out.endsWith('\n')) out += nl;
    // A header with no `---` of its own reads as one only after the block it followed.
    if (p.bareAfter !== undefined && (pieces[i - 1]?.key ?? '') !== p.bareAfter) out += `---${nl}`;
    out += raw;
  });
  return { text: (bom ? BOM : '') + out, conflicts, conflictIds };
}

/** The versions in a file that holds git conflict markers (`base` only with `|||||||` sections). */
export interface MarkedSides {
  ours: string;
  theirs: string;
  /** The text outside the conflicts plus any base sections: what both sides started from. */
  base: string;
  regions: number;
}

/**
 * Split a file with conflict markers into the two sides git was merging. Text outside the
 * conflicts belongs to both; without a base section, the base is that common text alone, so an
 * entry on one side only counts as added and one on both as changed on both. Null when the
 * markers do not nest as git writes them (or there are none).
 */
export function splitConflictMarkers(text: string): MarkedSides | null {
  // The markers as the parser finds them (vault/gitmarkers.ts), checked here to nest as git writes them.
  const starts = lineStarts(text);
  const markers = findConflictMarkers(text, starts);
  let ours = '';
  let theirs = '';
  let base = '';
  let state: 'out' | 'ours' | 'base' | 'theirs' = 'out';
  let regions = 0;
  let m = 0;
  for (let i = 0; i < starts.length; i++) {
    const kind = m < markers.length && markers[m].line === i + 1 ? markers[m++].kind : null;
    if (kind === '<') {
      if (state !== 'out') return null;
      state = 'ours';
      regions++;
      continue;
    }
    if (kind === '|' && state === 'ours') {
      state = 'base';
      continue;
    }
    if (kind === '=' && (state === 'ours' || state === 'base')) {
      state = 'theirs';
      continue;
    }
    if (kind === '>') {
      if (state !== 'theirs') return null;
      state = 'out';
      continue;
    }
    const line = text.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : text.length);
    if (state === 'out') {
      ours += line;
      theirs += line;
      base += line;
    } else if (state === 'ours') ours += line;
    else if (state === 'base') base += line;
    else theirs += line;
  }
  if (state !== 'out' || regions === 0) return null;
  return { ours, theirs, base, regions };
}
