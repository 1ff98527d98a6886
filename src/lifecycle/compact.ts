// Compaction: drop retired entries, de-duplicate by id (the higher-importance copy wins), and merge
// near-duplicates (Jaccard > 0.8 over normalised body tokens) within a group of files of the same
// scope. Repeated to a fixed point, so a second run changes nothing. Two near-duplicates that state
// different facts (conflict.ts: a number, a name, a negation) are kept apart, and no merged cluster
// holds two such entries.

import { dateMs } from '../vault/entry.js';
import { parseMemoryFile, updateBlockMeta, type Block, type ParsedFile } from '../vault/format.js';
import type { PassEdit } from '../vault/edit.js';
import { inNewlineStyle, newlineOf } from '../vault/safetext.js';
import { conflictBetween, factProfile, factText, type Conflict, type ConflictKind, type FactProfile } from './conflict.js';
import { DisjointSets, TokenVocab, jaccardSorted, similarEdges, type SimilarPair, type SketchSharing, type TokenSet } from './similarity.js';
import { detached, eligible, scanFile, similarityText, type FileScan, type ScannedItem } from './compact-scan.js';

export { similarityText };

export const MERGE_THRESHOLD = 0.8;

export interface CompactFile {
  path: string;
  /** Files with the same group key may be merged with one another (same scope, job, task, learning type). */
  group: string;
  parsed: ParsedFile;
}

export interface Where {
  id: string;
  path: string;
  line: number;
}

/** Two near-duplicates left unmerged because they state different facts. */
export interface KeptApart {
  a: Where;
  b: Where;
  jaccard: number;
  kind: ConflictKind;
  reason: string;
}

export interface CompactReport {
  retired: Where[];
  duplicates: { kept: Where; dropped: Where[] }[];
  merges: { survivor: Where; absorbed: (Where & { jaccard: number })[] }[];
  /** Near-duplicates kept apart; present only when there are some. */
  kept?: KeptApart[];
}

/** What the plan keeps of an entry between its passes over the files (no text). */
interface Item extends ScannedItem {
  order: number;
  /** Its near-duplicate tokens, when taken in the first pass. */
  tokens?: TokenSet;
}

/** What a near-duplicate brings to its cluster, read in a later pass (only entries in a similar pair). */
interface Member {
  profile: FactProfile;
  lastReinforced: string | null;
  compactedFrom: string[];
  md: string;
  title: string;
  body: string;
  titleFromHeading: boolean;
  size: number;
}

/** A merge's changes to its survivor's block, applied when the survivor's file is written. */
interface Update {
  meta: Record<string, unknown>;
  longest?: Member;
}

function laterDate(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return (dateMs(b) ?? 0) > (dateMs(a) ?? 0) ? b : a;
}

/** Which copy of a set wins: higher importance, then more reinforced, then older, then first in the files. */
function better(a: Item, b: Item): Item {
  if (a.importance !== b.importance) return a.importance > b.importance ? a : b;
  if (a.reinforcement !== b.reinforcement) return a.reinforcement > b.reinforcement ? a : b;
  if (a.created !== b.created) return a.created < b.created ? a : b;
  return a.order <= b.order ? a : b;
}

function asList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string' && v) return [v];
  return [];
}

/** The markdown part of a block (after its header), without trailing blank lines. */
function markdownOf(b: Block): { md: string; trailing: string } {
  const rest = b.raw.slice(b.header!.bodyStart);
  const md = rest.replace(/\s+$/, '');
  return { md, trailing: rest.slice(md.length) };
}

/** The line-break style of a parsed file (the one most of its lines use). */
function fileNewline(f: ParsedFile): '\n' | '\r\n' {
  return newlineOf(f.preamble + f.blocks.map((b) => b.raw).join(''));
}

/**
 * Compaction over files read pass by pass, so that a large vault is never held whole: `scan`
 * takes what the plan needs of each file (ids and ranks, no text); `apply` reads the files
 * again (through `read`, which must give the same parse each time) for the near-duplicate
 * tokens, then for the entries in similar pairs, then for each file to change, and yields each
 * file's new version as it is made.
 */
export class Compactor {
  readonly report: CompactReport = { retired: [], duplicates: [], merges: [] };
  private readonly scanned: (Omit<Item, 'order'>[] | undefined)[];
  /**
   * Tokens are taken in the first pass when the files come in order: the vocabulary's ids then
   * follow the same order as a pass over the remaining entries (unless a duplicate id is dropped).
   */
  private vocab: TokenVocab | null = new TokenVocab({ pooled: true });
  private lastScanned = -1;
  /**
   * Per file, when its new version can be made from its text (see spliced): the ids of its
   * entries compaction does not touch (episodes, notes), which it keeps whatever happens.
   */
  private readonly splicable: (string[] | undefined)[];

  /**
   * `settle` is called between passes, when what the last one read is all garbage: a caller that
   * can collect it there keeps the heap near the plan's own size (V8 lets it grow to about twice
   * the live data before a full collection). `share` lets the near-duplicate search sketch half of
   * the entries on another thread.
   */
  constructor(private readonly files: readonly { path: string; group: string }[], private readonly settle: () => void = () => undefined, private readonly share?: SketchSharing) {
    this.scanned = files.map(() => undefined);
    this.splicable = files.map(() => undefined);
  }

  /** Pass one, in any order: the entries of file `fileIdx` that compaction may touch. */
  scan(fileIdx: number, parsed: ParsedFile): void {
    this.take(fileIdx, scanFile(fileIdx, parsed));
  }

  /** Pass one's result for file `fileIdx` (scanFile's, made here or in a worker thread). */
  take(fileIdx: number, s: FileScan): void {
    if (fileIdx <= this.lastScanned) this.vocab = null;
    this.lastScanned = fileIdx;
    const vocab = this.vocab;
    let from = 0;
    const list = s.items as Omit<Item, 'order'>[];
    list.forEach((it, k) => {
      const to = s.ends[k];
      if (vocab && !it.retired) it.tokens = vocab.ofHashes(s.hashes, from, to);
      from = to;
    });
    this.scanned[fileIdx] = list;
    this.splicable[fileIdx] = s.splicable;
  }

  private where(it: Item): Where {
    return { id: it.id, path: this.files[it.fileIdx].path, line: it.line };
  }

  /**
   * The plan, then each changed file's new version, in file order. `text`, when given, reads a
   * file's text (checked as `read` checks it) for the pass over similar pairs to parse only
   * their blocks.
   */
  *apply(read: (fileIdx: number) => ParsedFile, text?: (fileIdx: number) => string): Generator<PassEdit> {
    const { report } = this;
    this.settle();
    const kept: KeptApart[] = [];
    const removed = new Map<number, Set<number>>();
    const remove = (it: Item) => {
      let s = removed.get(it.fileIdx);
      if (!s) removed.set(it.fileIdx, (s = new Set()));
      s.add(it.blockIdx);
    };
    const touched = new Set<number>();
    let order = 0;
    const items: Item[] = [];
    for (const list of this.scanned) for (const it of list ?? []) items.push(Object.assign(it, { order: order++ }) as Item);
    // Each file's items, in block order, for a file rewritten from its text (step 4).
    const byFile = this.scanned as (Item[] | undefined)[];

    // 1. Retired entries go.
    let live: Item[] = [];
    for (const it of items) {
      if (it.retired) {
        report.retired.push(this.where(it));
        remove(it);
        touched.add(it.fileIdx);
      } else live.push(it);
    }
    items.length = 0;

    // 2. One copy per id within a group.
    const byKey = new Map<string, Item[]>();
    for (const it of live) {
      const k = `${this.files[it.fileIdx].group}\u0000${it.id}`;
      const list = byKey.get(k);
      if (list) list.push(it);
      else byKey.set(k, [it]);
    }
    live = [];
    for (const list of byKey.values()) {
      if (list.length === 1) {
        live.push(list[0]);
        continue;
      }
      const keep = list.reduce(better);
      live.push(keep);
      const dropped = list.filter((x) => x !== keep);
      for (const d of dropped) {
        remove(d);
        touched.add(d.fileIdx);
      }
      report.duplicates.push({ kept: this.where(keep), dropped: dropped.map((d) => this.where(d)) });
    }
    byKey.clear();
    live.sort((a, b) => a.order - b.order);

    // 3. Near-duplicates merge. One pass is enough: a cluster's survivor ends up with the body of
    // one of its members, and anything similar to any member is already in the cluster.
    const updates = new Map<number, Map<number, Update>>();
    {
      // Tokens in entry order (the vocabulary's ids follow the order words are first seen): from
      // the first pass, or from one more pass when a dropped copy's words took ids there.
      let tokens: TokenSet[];
      if (this.vocab && report.duplicates.length === 0) {
        tokens = live.map((it) => it.tokens!);
      } else {
        const vocab = new TokenVocab({ pooled: true });
        tokens = new Array(live.length);
        eachBlock(live.map((_, i) => i), (i) => live[i], read, (i, b) => {
          tokens[i] = vocab.ofText(similarityText(b.entry!));
        });
      }
      this.vocab = null;
      for (const list of byFile) for (const it of list ?? []) it.tokens = undefined;
      this.settle();
      // Each entry's group as a number: the search asks of millions of candidate pairs.
      const groupIds = new Map<string, number>();
      const groupOf = Int32Array.from(live, (it) => {
        const g = this.files[it.fileIdx].group;
        let id = groupIds.get(g);
        if (id === undefined) groupIds.set(g, (id = groupIds.size));
        return id;
      });
      const pairs = similarEdges(tokens, MERGE_THRESHOLD, { strict: true, canPair: (a, b) => groupOf[a] === groupOf[b], share: this.share });
      // Everything a cluster needs of its members, from one more pass over the files holding them.
      const members = new Map<number, Member>();
      const involved = [...new Set(pairs.flatMap((p) => [p.a, p.b]))].sort((x, y) => x - y);
      const pathOf = (fileIdx: number) => this.files[fileIdx].path;
      eachBlock(involved, (i) => live[i], read, (i, b) => {
        const e = b.entry!;
        members.set(i, {
          profile: factProfile(detached(factText(e))),
          lastReinforced: e.last_reinforced === null ? null : detached(e.last_reinforced),
          compactedFrom: asList(e.meta.compacted_from).map(detached),
          md: detached(markdownOf(b).md),
          title: detached(e.title),
          body: detached(e.body),
          titleFromHeading: e.titleFromHeading,
          size: (e.body || e.title).length,
        });
      }, text && { text, pathOf });
      this.settle();
      const jac = new Map(pairs.map((p) => [`${p.a},${p.b}`, p.jaccard]));
      const groups = safeClusters(live.length, pairs, tokens, (i) => members.get(i)!.profile, (a, b, j, c) => {
        kept.push({ a: this.where(live[a]), b: this.where(live[b]), jaccard: j, kind: c.kind, reason: c.reason });
      });
      tokens = [];
      for (const cluster of groups) {
        if (cluster.length === 1) continue;
        const its = cluster.map((i) => live[i]);
        const survivor = its.reduce(better);
        const sPos = its.indexOf(survivor);
        const sIdx = cluster[sPos];
        const sm = members.get(sIdx)!;
        const absorbed = cluster.filter((i) => i !== sIdx);
        const longestIdx = cluster.reduce((a, b) => (members.get(b)!.size > members.get(a)!.size ? b : a));
        const from = [...new Set([...sm.compactedFrom, ...absorbed.flatMap((a) => [live[a].id, ...members.get(a)!.compactedFrom])])].filter((id) => id !== survivor.id);
        const update: Update = {
          meta: {
            status: 'compacted',
            reinforcement_count: its.reduce((m, x) => Math.max(m, x.reinforcement), -Infinity),
            last_reinforced: cluster.map((i) => members.get(i)!.lastReinforced).reduce(laterDate, null) ?? undefined,
            compacted_from: from,
          },
        };
        if (longestIdx !== sIdx) update.longest = members.get(longestIdx)!;
        let inFile = updates.get(survivor.fileIdx);
        if (!inFile) updates.set(survivor.fileIdx, (inFile = new Map()));
        inFile.set(survivor.blockIdx, update);
        touched.add(survivor.fileIdx);
        for (const a of absorbed) {
          remove(live[a]);
          touched.add(live[a].fileIdx);
        }
        report.merges.push({
          survivor: this.where(survivor),
          absorbed: absorbed.map((ai) => {
            const key = `${Math.min(ai, sIdx)},${Math.max(ai, sIdx)}`;
            return { ...this.where(live[ai]), jaccard: jac.get(key) ?? MERGE_THRESHOLD };
          }),
        });
      }
    }
    if (kept.length > 0) report.kept = kept;
    this.settle();

    // 4. Each changed file, read once more and rewritten: from its text when its blocks allow
    // (the same bytes, without parsing the rest of the file), else from its parse.
    for (const i of [...touched].sort((a, b) => a - b)) {
      const others = this.splicable[i];
      const fast = text && others ? spliced(text(i), byFile[i] ?? [], removed.get(i), updates.get(i), others, this.files[i].path) : null;
      if (fast) {
        yield { fileIdx: i, ...fast };
        continue;
      }
      const parsed = read(i);
      const blocks = [...parsed.blocks];
      let nl: '\n' | '\r\n' | undefined;
      for (const [bi, u] of updates.get(i) ?? []) blocks[bi] = updated(blocks[bi], u, () => (nl ??= fileNewline(parsed)));
      const gone = removed.get(i);
      const out = gone ? blocks.filter((_, bi) => !gone.has(bi)) : blocks;
      yield { fileIdx: i, parsed: { ...parsed, blocks: out, entries: out.flatMap((b) => (b.entry ? [b.entry] : [])) } };
    }
    // The plan's entries are garbage from here (the caller collects them before the index update).
    this.scanned.fill(undefined);
  }
}

/** The block of `it` parsed from its slice of `text` alone, or null when that does not give the block the whole file gave. */
function blockAlone(text: string, it: Item, path: string): Block | null {
  const span = it.span;
  if (!span || span.start + span.length > text.length) return null;
  const p = parseMemoryFile(text.slice(span.start, span.start + span.length), path);
  if (p.diagnostics.length > 0 || p.preamble !== '' || p.blocks.length !== 1) return null;
  const b = p.blocks[0];
  if (b.raw.length !== span.length || !eligible(b) || b.entry!.id !== it.id || b.header!.yamlStart !== span.yamlStart || b.header!.bodyStart !== span.bodyStart) return null;
  return b;
}

/** A survivor's block with a merge's changes (its header, and the longest member's body in the file's line breaks). */
function updated(b: Block, u: Update, newline: () => '\n' | '\r\n'): Block {
  let newBlock = updateBlockMeta(b, u.meta);
  if (u.longest) {
    const { trailing } = markdownOf(newBlock);
    // The body may come from another file: it takes the line breaks of the file it lands in.
    const md = inNewlineStyle(u.longest.md, newline());
    const raw = newBlock.raw.slice(0, newBlock.header!.bodyStart) + md + trailing;
    newBlock = { ...newBlock, raw, entry: { ...newBlock.entry!, title: u.longest.title, body: u.longest.body, titleFromHeading: u.longest.titleFromHeading } };
  }
  return newBlock;
}

/**
 * A file's new version made from its text: the slices of the blocks that go cut out, each
 * survivor's block parsed from its slice alone (see blockAlone) and replaced by its new text. In
 * a file whose blocks tile its text and none of which is a bare header, that is what
 * serializeFile gives of the parsed file with the same changes. Null when a survivor's slice
 * does not parse alone to its block: the caller then parses the file.
 */
function spliced(text: string, items: Item[], gone: Set<number> | undefined, ups: Map<number, Update> | undefined, others: string[], path: string): { text: string; loses: boolean } | null {
  const parts: string[] = [];
  let at = 0;
  let nl: '\n' | '\r\n' | undefined;
  for (const it of items) {
    const goes = gone?.has(it.blockIdx) === true;
    const u = goes ? undefined : ups?.get(it.blockIdx);
    if (!goes && !u) continue;
    const span = it.span!;
    parts.push(text.slice(at, span.start));
    at = span.start + span.length;
    if (goes) continue;
    const b = blockAlone(text, it, path);
    if (!b) return null;
    parts.push(updated(b, u!, () => (nl ??= newlineOf(text))).raw);
  }
  parts.push(text.slice(at));
  // Whether an id the file held is gone from it (a copy of it elsewhere in the file keeps it).
  const kept = new Set(others);
  for (const it of items) if (!gone?.has(it.blockIdx)) kept.add(it.id);
  const loses = items.some((it) => gone?.has(it.blockIdx) === true && !kept.has(it.id));
  return { text: parts.join(''), loses };
}

/**
 * Visit the blocks of `idx` (item indexes, ascending, so each file is read once per pass). With
 * `alone`, a block is parsed from its slice of the file's text (see Span) when it can be, and the
 * file is parsed whole only for a block that cannot.
 */
function eachBlock(idx: number[], item: (i: number) => Item, read: (fileIdx: number) => ParsedFile, visit: (i: number, b: Block) => void,
  alone?: { text: (fileIdx: number) => string; pathOf: (fileIdx: number) => string }): void {
  let file = -1;
  let parsed: ParsedFile | undefined;
  let text: string | undefined;
  for (const i of idx) {
    const it = item(i);
    if (it.fileIdx !== file) {
      file = it.fileIdx;
      parsed = undefined;
      text = alone && it.span ? alone.text(file) : undefined;
    }
    const b = text !== undefined ? blockAlone(text, it, alone!.pathOf(file)) : null;
    if (b) {
      visit(i, b);
      continue;
    }
    parsed ??= read(file);
    visit(i, parsed.blocks[it.blockIdx]);
  }
}

/**
 * Plan and apply compaction to `files` (pure: returns new parsed files for the ones that change).
 */
export function compactFiles(input: CompactFile[]): { files: Map<string, ParsedFile>; report: CompactReport } {
  const c = new Compactor(input);
  input.forEach((f, i) => c.scan(i, f.parsed));
  const out = new Map<string, ParsedFile>();
  // Without a reader of texts, every new version comes parsed.
  for (const e of c.apply((i) => input[i].parsed)) if ('parsed' in e) out.set(input[e.fileIdx].path, e.parsed);
  return { files: out, report: c.report };
}

/** Past this many pairs of distinct texts to compare, two clusters are left apart rather than checked. */
const MAX_CROSS_CHECKS = 2500;

/**
 * Clusters of near-duplicates (joined by `pairs`) in which no two members conflict. An edge whose
 * two entries conflict is dropped; an entry close to two conflicting entries joins no cluster;
 * the other edges are taken most similar first, and one that would still put a conflicting pair
 * into one cluster (through a chain of entries) is dropped. Members with the same meaningful
 * tokens never conflict, so each cluster is checked by its distinct texts only, and only when an
 * edge joins two clusters.
 */
export function safeClusters(n: number, pairs: SimilarPair[], tokens: TokenSet[], profileOf: (i: number) => FactProfile,
  onConflict: (a: number, b: number, jaccard: number, c: Conflict) => void): number[][] {
  const sets = new DisjointSets(n);
  // Per cluster root: one member for each distinct text key.
  const variants = new Map<number, Map<string, number>>();
  const variantsOf = (r: number) => variants.get(r) ?? new Map([[profileOf(r).key, r]]);
  const reported = new Set<string>();
  const report = (a: number, b: number, c: Conflict) => {
    const [x, y] = a < b ? [a, b] : [b, a];
    const k = `${x},${y}`;
    if (reported.has(k)) return;
    reported.add(k);
    onConflict(x, y, jaccardSorted(tokens[x], tokens[y]), c);
  };
  const ok: SimilarPair[] = [];
  for (const p of pairs) {
    const direct = conflictBetween(profileOf(p.a), profileOf(p.b));
    if (direct) report(p.a, p.b, direct);
    else ok.push(p);
  }
  // An entry close to two entries that conflict ("Use it …" beside "Use yarn …" and "Use npm …")
  // could belong to either: it merges with neither. Merging it into one would give that survivor
  // its text, and a second run could then merge the other fact away.
  const near = new Map<number, number[]>();
  const link = (x: number, y: number) => {
    const l = near.get(x);
    if (l) l.push(y);
    else near.set(x, [y]);
  };
  for (const { a, b } of ok) {
    link(a, b);
    link(b, a);
  }
  const ambiguous = new Set<number>();
  for (const [v, list] of near) {
    if (list.length < 2) continue;
    const reps = new Map<string, number>();
    for (const u of list) if (!reps.has(profileOf(u).key)) reps.set(profileOf(u).key, u);
    const arr = [...reps.values()];
    if (arr.length * arr.length > MAX_CROSS_CHECKS) {
      ambiguous.add(v);
      continue;
    }
    for (let i = 0; i < arr.length && !ambiguous.has(v); i++) {
      for (let j = i + 1; j < arr.length; j++) {
        const c = conflictBetween(profileOf(arr[i]), profileOf(arr[j]));
        if (c) {
          report(arr[i], arr[j], c);
          ambiguous.add(v);
          break;
        }
      }
    }
  }
  const sorted = ok.filter((p) => !ambiguous.has(p.a) && !ambiguous.has(p.b)).sort((p, q) => q.jaccard - p.jaccard || p.a - q.a || p.b - q.b);
  for (const { a, b } of sorted) {
    const ra = sets.find(a);
    const rb = sets.find(b);
    if (ra === rb) continue;
    const va = variantsOf(ra);
    const vb = variantsOf(rb);
    if (va.size * vb.size > MAX_CROSS_CHECKS) continue;
    let blocked = false;
    for (const [ka, x] of va) {
      for (const [kb, y] of vb) {
        if (ka === kb) continue;
        const c = conflictBetween(profileOf(x), profileOf(y));
        if (c) {
          report(x, y, c);
          blocked = true;
        }
      }
    }
    if (blocked) continue;
    const root = sets.joinRoots(ra, rb);
    const merged = new Map(va);
    for (const [k, i] of vb) if (!merged.has(k)) merged.set(k, i);
    variants.delete(ra === root ? rb : ra);
    variants.set(root, merged);
  }
  return sets.groups();
}
