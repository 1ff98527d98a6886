// Compaction: drop retired entries, de-duplicate by id (the higher-importance copy wins), and merge
// near-duplicates (Jaccard > 0.8 over normalised body tokens) within a group of files of the same
// scope. Repeated to a fixed point, so a second run changes nothing. Two near-duplicates that state
// different facts (conflict.ts: a number, a name, a negation) are kept apart, and no merged cluster
// holds two such entries.

import type { Entry } from '../vault/entry.js';
import { dateMs } from '../vault/entry.js';
import { updateBlockMeta, type Block, type ParsedFile } from '../vault/format.js';
import { inNewlineStyle, newlineOf } from '../vault/safetext.js';
import { conflictBetween, factProfile, factText, type Conflict, type ConflictKind, type FactProfile } from './conflict.js';
import { DisjointSets, TokenVocab, jaccardSorted, similarEdges, type SimilarPair, type TokenSet } from './similarity.js';

export const MERGE_THRESHOLD = 0.8;

/** The text compaction compares for near-duplicates: an entry's body, or its title when it has none. */
export function similarityText(e: { title: string; body: string }): string {
  return e.body || e.title;
}

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

interface Item {
  fileIdx: number;
  blockIdx: number;
  entry: Entry;
  order: number;
}

function where(files: CompactFile[], it: Item): Where {
  return { id: it.entry.id, path: files[it.fileIdx].path, line: it.entry.line };
}

function laterDate(a: string | null, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return (dateMs(b) ?? 0) > (dateMs(a) ?? 0) ? b : a;
}

/** Which copy of a set wins: higher importance, then more reinforced, then older, then first in the files. */
function better(a: Item, b: Item): Item {
  if (a.entry.importance !== b.entry.importance) return a.entry.importance > b.entry.importance ? a : b;
  if (a.entry.reinforcement_count !== b.entry.reinforcement_count) return a.entry.reinforcement_count > b.entry.reinforcement_count ? a : b;
  const ca = dateMs(a.entry.created_at) ?? Infinity;
  const cb = dateMs(b.entry.created_at) ?? Infinity;
  if (ca !== cb) return ca < cb ? a : b;
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
 * Plan and apply compaction to `files` (pure: returns new parsed files for the ones that change).
 */
export function compactFiles(input: CompactFile[]): { files: Map<string, ParsedFile>; report: CompactReport } {
  const files = input.map((f) => ({ ...f, parsed: { ...f.parsed, blocks: [...f.parsed.blocks] } }));
  const report: CompactReport = { retired: [], duplicates: [], merges: [] };
  const kept: KeptApart[] = [];
  const removed = files.map(() => new Set<number>());
  const touched = new Set<number>();
  let order = 0;
  const items: Item[] = [];
  files.forEach((f, fileIdx) => {
    f.parsed.blocks.forEach((b, blockIdx) => {
      // Episodes (kind: episode) record what happened in a session: never merged with each other or a learning.
      if (b.entry && b.entry.kind === 'entry' && b.entry.meta.kind !== 'episode' && b.header && !b.broken) items.push({ fileIdx, blockIdx, entry: b.entry, order: order++ });
    });
  });

  // 1. Retired entries go.
  let live: Item[] = [];
  for (const it of items) {
    if (it.entry.status === 'retired') {
      report.retired.push(where(files, it));
      removed[it.fileIdx].add(it.blockIdx);
      touched.add(it.fileIdx);
    } else live.push(it);
  }

  // 2. One copy per id within a group.
  const byKey = new Map<string, Item[]>();
  for (const it of live) {
    const k = `${files[it.fileIdx].group}\u0000${it.entry.id}`;
    const list = byKey.get(k);
    if (list) list.push(it);
    else byKey.set(k, [it]);
  }
  live = [];
  for (const list of byKey.values()) {
    const keep = list.reduce(better);
    live.push(keep);
    if (list.length > 1) {
      const dropped = list.filter((x) => x !== keep);
      for (const d of dropped) {
        removed[d.fileIdx].add(d.blockIdx);
        touched.add(d.fileIdx);
      }
      report.duplicates.push({ kept: where(files, keep), dropped: dropped.map((d) => where(files, d)) });
    }
  }
  live.sort((a, b) => a.order - b.order);

  // 3. Near-duplicates merge. One pass is enough: a cluster's survivor ends up with the body of
  // one of its members, and anything similar to any member is already in the cluster.
  {
    const vocab = new TokenVocab();
    const tokens = live.map((it) => vocab.ofText(similarityText(it.entry)));
    const pairs = similarEdges(tokens, MERGE_THRESHOLD, {
      strict: true,
      canPair: (a, b) => files[live[a].fileIdx].group === files[live[b].fileIdx].group,
    });
    const jac = new Map(pairs.map((p) => [`${p.a},${p.b}`, p.jaccard]));
    const profiles = new Map<number, FactProfile>();
    const profileOf = (i: number) => {
      let p = profiles.get(i);
      if (!p) profiles.set(i, (p = factProfile(factText(live[i].entry))));
      return p;
    };
    const groups = safeClusters(live.length, pairs, tokens, profileOf, (a, b, j, c) => {
      kept.push({ a: where(files, live[a]), b: where(files, live[b]), jaccard: j, kind: c.kind, reason: c.reason });
    });
    const next: Item[] = [];
    const gone = new Set<number>();
    const newlines = new Map<number, '\n' | '\r\n'>();
    const newlineOfFile = (i: number) => {
      let nl = newlines.get(i);
      if (!nl) newlines.set(i, (nl = fileNewline(input[i].parsed)));
      return nl;
    };
    for (const cluster of groups) {
      if (cluster.length === 1) continue;
      const members = cluster.map((i) => live[i]);
      const survivor = members.reduce(better);
      const sIdx = cluster[members.indexOf(survivor)];
      const absorbed = members.filter((m) => m !== survivor);
      const size = (m: Item) => (m.entry.body || m.entry.title).length;
      const longest = members.reduce((a, b) => (size(b) > size(a) ? b : a));
      const sBlock = files[survivor.fileIdx].parsed.blocks[survivor.blockIdx];
      const from = [...new Set([...asList(survivor.entry.meta.compacted_from), ...absorbed.flatMap((a) => [a.entry.id, ...asList(a.entry.meta.compacted_from)])])]
        .filter((id) => id !== survivor.entry.id);
      let newBlock = updateBlockMeta(sBlock, {
        status: 'compacted',
        reinforcement_count: Math.max(...members.map((m) => m.entry.reinforcement_count)),
        last_reinforced: members.map((m) => m.entry.last_reinforced).reduce(laterDate, null) ?? undefined,
        compacted_from: from,
      });
      if (longest !== survivor) {
        const lBlock = files[longest.fileIdx].parsed.blocks[longest.blockIdx];
        const { trailing } = markdownOf(newBlock);
        // The body may come from another file: it takes the line breaks of the file it lands in.
        const md = inNewlineStyle(markdownOf(lBlock).md, newlineOfFile(survivor.fileIdx));
        const raw = newBlock.raw.slice(0, newBlock.header!.bodyStart) + md + trailing;
        newBlock = { ...newBlock, raw, entry: { ...newBlock.entry!, title: longest.entry.title, body: longest.entry.body, titleFromHeading: longest.entry.titleFromHeading } };
      }
      files[survivor.fileIdx].parsed.blocks[survivor.blockIdx] = newBlock;
      touched.add(survivor.fileIdx);
      for (const a of absorbed) {
        removed[a.fileIdx].add(a.blockIdx);
        touched.add(a.fileIdx);
        gone.add(cluster[members.indexOf(a)]);
      }
      report.merges.push({
        survivor: where(files, survivor),
        absorbed: absorbed.map((a) => {
          const ai = cluster[members.indexOf(a)];
          const key = `${Math.min(ai, sIdx)},${Math.max(ai, sIdx)}`;
          return { ...where(files, a), jaccard: jac.get(key) ?? MERGE_THRESHOLD };
        }),
      });
      survivor.entry = newBlock.entry!;
    }
    live.forEach((it, i) => {
      if (!gone.has(i)) next.push(it);
    });
    live = next;
  }

  if (kept.length > 0) report.kept = kept;
  const out = new Map<string, ParsedFile>();
  for (const i of touched) {
    const f = files[i];
    const blocks = f.parsed.blocks.filter((_, bi) => !removed[i].has(bi));
    out.set(f.path, { ...f.parsed, blocks, entries: blocks.flatMap((b) => (b.entry ? [b.entry] : [])) });
  }
  return { files: out, report };
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
