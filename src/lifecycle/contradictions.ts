// Consolidation: when two learnings contradict each other, the older one gives way — its importance
// decays (× 0.7, floor 0.1, once per entry) or, when it is 90 days or more older, it is retired.
// Offline, a contradiction is two entries on the same topic where one negates what the other
// states, or where the same statement carries a different number; and every pair compaction keeps
// apart (near-duplicates that differ in a number, a name or a negation, conflict.ts). A pair of the
// same age, or one that differs in a name, is flagged for a person, never decayed.

import type { Entry } from '../vault/entry.js';
import { dateMs } from '../vault/entry.js';
import { updateBlockMeta, type ParsedFile } from '../vault/format.js';
import { isStopword } from '../retrieve/stopwords.js';
import { MERGE_THRESHOLD } from './compact.js';
import { conflictBetween, factProfile, factText, type Conflict, type ConflictKind, type FactProfile } from './conflict.js';
import { TokenVocab, similarEdges, similarPairs, tokenSets } from './similarity.js';

export const TOPIC_SIMILARITY = 0.4;
export const DECAY_FACTOR = 0.7;
export const IMPORTANCE_FLOOR = 0.1;
export const RETIRE_AFTER_DAYS = 90;

const NEGATIONS = new Set(['not', 'never', 'no', 'don', 'doesn', 'didn', 'isn', 'aren', 'wasn', 'won', 'shouldn', 'mustn', 'cannot', 'can\'t',
  'avoid', 'stop', 'without', 'instead', 'deprecated', 'removed', 'obsolete', 'longer', 'nor', 'disable', 'disabled', 'forbid', 'forbidden']);
const CONTRACTED = new Set(['don', 'doesn', 'didn', 'isn', 'aren', 'wasn', 'won', 'shouldn', 'mustn']);
const WORD = /[\p{L}\p{N}]+(?:\.[\p{N}]+)*/gu;

/** Topic tokens (negation cues and stopwords out) and the entry's polarity, cues and numbers. */
export function profile(text: string): { topic: string[]; negated: boolean; cues: string[]; numbers: Set<string> } {
  const topic = new Set<string>();
  const numbers = new Set<string>();
  const cues: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (NEGATIONS.has(w)) cues.push(CONTRACTED.has(w) ? `${w}'t` : w);
    else if (/^\d/.test(w)) numbers.add(w);
    else if (w.length > 1 && !isStopword(w)) topic.add(w);
  }
  if (/\bno longer\b/.test(text.toLowerCase()) && !cues.includes('no')) cues.push('no longer');
  else if (/n't\b/.test(text.toLowerCase()) && cues.length === 0) cues.push("n't");
  return { topic: [...topic], negated: cues.length > 0, cues, numbers };
}

export interface ConsolidateItem {
  path: string;
  entry: Entry;
  /** Entries only conflict within the same group (scope, job, task). */
  group: string;
}

export interface Decision {
  /** flag: a conflict between two entries of the same age — reported for a person, nothing written. */
  action: 'decay' | 'retire' | 'skip' | 'flag';
  /** The older entry (for a flag, the first of the two in the files). */
  id: string;
  path: string;
  line: number;
  /** The newer entry (for a flag, the other one). */
  by: string;
  by_path: string;
  by_line: number;
  kind: ConflictKind;
  reason: string;
  similarity: number;
  importance_before: number;
  importance_after: number;
  days_apart: number;
}

function ageKey(e: Entry): number {
  return dateMs(e.created_at) ?? dateMs(e.last_reinforced) ?? 0;
}

const quote = (ws: string[]) => ws.map((w) => `"${w}"`).join(', ');

/** The topic rule: one negates what the other states, or the same statement with other numbers. */
function topicConflict(pa: ReturnType<typeof profile>, pb: ReturnType<typeof profile>, jaccard: number): Conflict | null {
  if (pa.negated !== pb.negated) return { kind: 'negation', reason: `negation: ${quote([...new Set(pa.negated ? pa.cues : pb.cues)])} in one only` };
  const onlyA = [...pa.numbers].filter((n) => !pb.numbers.has(n));
  const onlyB = [...pb.numbers].filter((n) => !pa.numbers.has(n));
  if (jaccard >= 0.6 && onlyA.length > 0 && onlyB.length > 0) return { kind: 'number', reason: `differ in a number: ${onlyA.join(', ')} vs ${onlyB.join(', ')}` };
  return null;
}

/**
 * Find contradicting pairs and decide, for each, what happens to the older entry. Two sources of
 * pairs: entries on one topic (Jaccard ≥ 0.4 over topic words) where one is negated or the numbers
 * differ, and near-duplicates (the Jaccard compaction merges by) that conflict.js says state
 * different facts. A pair with the same date (and no time to tell them apart) cannot say which is
 * newer: it is flagged, never decayed, since guessing from file order could decay the learning that
 * is true now (entries arrive out of order through merges, extraction and edits). A name put in
 * place of another is flagged too, whatever the dates: "yarn" → "pnpm" replaces, but "billing
 * service" / "invoicing service" are two facts that both hold, and offline there is no telling them
 * apart. Negations and numbers keep the usual rule (decay, or retire when 90 days older).
 */
export function planConsolidation(items: ConsolidateItem[], alreadyDecayed: Set<string>): Decision[] {
  // Episodes are what happened, not statements that can contradict a learning: left out.
  const liveItems = items.filter((i) => i.entry.kind === 'entry' && i.entry.meta.kind !== 'episode' && i.entry.status !== 'retired');
  const canPair = (a: number, b: number) => liveItems[a].group === liveItems[b].group && liveItems[a].entry.id !== liveItems[b].entry.id;
  const found = new Map<string, { a: number; b: number; similarity: number; conflict: Conflict; near?: boolean }>();
  // Near-duplicates first: their reason is the more precise one.
  const vocab = new TokenVocab();
  const near = similarEdges(liveItems.map((i) => vocab.ofText(i.entry.body || i.entry.title)), MERGE_THRESHOLD, { strict: true, canPair });
  const facts = new Map<number, FactProfile>();
  const factOf = (i: number) => {
    let f = facts.get(i);
    if (!f) facts.set(i, (f = factProfile(factText(liveItems[i].entry))));
    return f;
  };
  for (const { a, b, jaccard } of near) {
    const conflict = conflictBetween(factOf(a), factOf(b));
    if (conflict) found.set(`${a},${b}`, { a, b, similarity: jaccard, conflict, near: true });
  }
  const profiles = liveItems.map((i) => profile(`${i.entry.title}\n${i.entry.body}`));
  for (const { a, b, jaccard } of similarPairs(tokenSets(profiles.map((p) => p.topic)), TOPIC_SIMILARITY, { canPair })) {
    if (found.has(`${a},${b}`)) continue;
    const conflict = topicConflict(profiles[a], profiles[b], jaccard) ?? conflictBetween(factOf(a), factOf(b), { only: true });
    if (conflict) found.set(`${a},${b}`, { a, b, similarity: jaccard, conflict });
  }
  const pairs = [...found.values()].sort((x, y) => y.similarity - x.similarity || x.a - y.a || x.b - y.b);
  const decisions: Decision[] = [];
  const decided = new Set<string>();
  for (const { a, b, similarity, near: isNear, conflict: found1 } of pairs) {
    const swap = ageKey(liveItems[a].entry) > ageKey(liveItems[b].entry);
    const [older, newer] = swap ? [liveItems[b], liveItems[a]] : [liveItems[a], liveItems[b]];
    // The reason reads older first ("18 vs 20").
    const flip = () => (isNear ? conflictBetween(factOf(b), factOf(a)) : (topicConflict(profiles[b], profiles[a], similarity) ?? conflictBetween(factOf(b), factOf(a), { only: true })));
    const conflict = swap ? (flip() ?? found1) : found1;
    const days = Math.round((ageKey(newer.entry) - ageKey(older.entry)) / 86_400_000);
    const base = {
      id: older.entry.id, path: older.path, line: older.entry.line, by: newer.entry.id, by_path: newer.path, by_line: newer.entry.line,
      kind: conflict.kind, reason: conflict.reason, similarity, importance_before: older.entry.importance, days_apart: days,
    };
    const sameAge = ageKey(older.entry) === ageKey(newer.entry);
    if (sameAge || conflict.kind === 'name') {
      // Already settled by hand or by an earlier run: one points at the other.
      if (older.entry.meta.superseded_by === newer.entry.id || newer.entry.meta.superseded_by === older.entry.id) continue;
      const why = sameAge ? 'same date, newer unknown' : 'another name may be a replacement or a second thing';
      decisions.push({ ...base, action: 'flag', reason: `${conflict.reason}; ${why}: review by hand`, importance_after: older.entry.importance });
      continue;
    }
    if (decided.has(older.entry.id)) continue;
    decided.add(older.entry.id);
    if (days >= RETIRE_AFTER_DAYS) {
      decisions.push({ ...base, action: 'retire', importance_after: older.entry.importance });
    } else if (alreadyDecayed.has(older.entry.id) || older.entry.meta.superseded_by !== undefined) {
      decisions.push({ ...base, action: 'skip', reason: `${conflict.reason}; already decayed once`, importance_after: older.entry.importance });
    } else {
      const after = Math.max(IMPORTANCE_FLOOR, Math.round(older.entry.importance * DECAY_FACTOR * 1000) / 1000);
      decisions.push({ ...base, action: 'decay', importance_after: after });
    }
  }
  return decisions;
}

/** The decisions that change a file (decay, retire). */
export function acting(decisions: Decision[]): Decision[] {
  return decisions.filter((d) => d.action === 'decay' || d.action === 'retire');
}

/** Apply the decisions that concern one file. */
export function applyDecisions(file: ParsedFile, decisions: Decision[], today: string): ParsedFile | null {
  const byId = new Map(acting(decisions).map((d) => [d.id, d]));
  let changed = false;
  const blocks = file.blocks.map((b) => {
    const d = b.entry ? byId.get(b.entry.id) : undefined;
    if (!d || !b.header || b.entry?.kind !== 'entry') return b;
    changed = true;
    return d.action === 'retire'
      ? updateBlockMeta(b, { status: 'retired', retired_at: today, superseded_by: d.by })
      : updateBlockMeta(b, { importance: d.importance_after, superseded_by: d.by });
  });
  return changed ? { ...file, blocks } : null;
}
