// Consolidation (design §7): when two learnings contradict each other, the older one gives
// way — its importance decays (× 0.7, floor 0.1, once per entry) or, when it is 90 days or more
// older, it is retired. Offline, a contradiction is two entries on the same topic where one
// negates what the other states, or where the same statement carries a different number.

import type { Entry } from '../vault/entry.js';
import { dateMs } from '../vault/entry.js';
import { updateBlockMeta, type ParsedFile } from '../vault/format.js';
import { isStopword } from '../retrieve/stopwords.js';
import { similarPairs, tokenSets } from './similarity.js';

export const TOPIC_SIMILARITY = 0.4;
export const DECAY_FACTOR = 0.7;
export const IMPORTANCE_FLOOR = 0.1;
export const RETIRE_AFTER_DAYS = 90;

const NEGATIONS = new Set(['not', 'never', 'no', 'don', 'doesn', 'didn', 'isn', 'aren', 'wasn', 'won', 'shouldn', 'mustn', 'cannot', 'can\'t',
  'avoid', 'stop', 'without', 'instead', 'deprecated', 'removed', 'obsolete', 'longer', 'nor', 'disable', 'disabled', 'forbid', 'forbidden']);
const WORD = /[\p{L}\p{N}]+(?:\.[\p{N}]+)*/gu;

/** Topic tokens (negation cues and stopwords out) and the entry's polarity and numbers. */
export function profile(text: string): { topic: string[]; negated: boolean; numbers: Set<string> } {
  const topic = new Set<string>();
  const numbers = new Set<string>();
  let negated = false;
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0];
    if (NEGATIONS.has(w)) negated = true;
    else if (/^\d/.test(w)) numbers.add(w);
    else if (w.length > 1 && !isStopword(w)) topic.add(w);
  }
  if (/\bno longer\b|n't\b/.test(text.toLowerCase())) negated = true;
  return { topic: [...topic], negated, numbers };
}

export interface ConsolidateItem {
  path: string;
  entry: Entry;
  /** Entries only conflict within the same group (scope, job, task). */
  group: string;
}

export interface Decision {
  action: 'decay' | 'retire' | 'skip';
  id: string;
  path: string;
  line: number;
  by: string;
  reason: string;
  similarity: number;
  importance_before: number;
  importance_after: number;
  days_apart: number;
}

function ageKey(e: Entry): number {
  return dateMs(e.created_at) ?? dateMs(e.last_reinforced) ?? 0;
}

/** Find contradicting pairs and decide, for each, what happens to the older entry. */
export function planConsolidation(items: ConsolidateItem[], alreadyDecayed: Set<string>): Decision[] {
  const liveItems = items.filter((i) => i.entry.kind === 'entry' && i.entry.status !== 'retired');
  const profiles = liveItems.map((i) => profile(`${i.entry.title}\n${i.entry.body}`));
  const pairs = similarPairs(tokenSets(profiles.map((p) => p.topic)), TOPIC_SIMILARITY, {
    canPair: (a, b) => liveItems[a].group === liveItems[b].group && liveItems[a].entry.id !== liveItems[b].entry.id,
  });
  const decisions: Decision[] = [];
  const decided = new Set<string>();
  pairs.sort((x, y) => y.jaccard - x.jaccard);
  for (const { a, b, jaccard } of pairs) {
    const pa = profiles[a];
    const pb = profiles[b];
    let reason: string | null = null;
    if (pa.negated !== pb.negated) reason = 'one negates what the other states';
    else if (jaccard >= 0.6 && pa.numbers.size > 0 && pb.numbers.size > 0 && [...pa.numbers].some((n) => !pb.numbers.has(n)) && [...pb.numbers].some((n) => !pa.numbers.has(n))) {
      reason = `same statement, different numbers (${[...pa.numbers].join(', ')} vs ${[...pb.numbers].join(', ')})`;
    }
    if (!reason) continue;
    const [older, newer] = ageKey(liveItems[a].entry) <= ageKey(liveItems[b].entry) ? [liveItems[a], liveItems[b]] : [liveItems[b], liveItems[a]];
    if (ageKey(older.entry) === ageKey(newer.entry)) continue;
    if (decided.has(older.entry.id)) continue;
    decided.add(older.entry.id);
    const days = Math.round((ageKey(newer.entry) - ageKey(older.entry)) / 86_400_000);
    const base = { id: older.entry.id, path: older.path, line: older.entry.line, by: newer.entry.id, reason, similarity: jaccard, importance_before: older.entry.importance, days_apart: days };
    if (days >= RETIRE_AFTER_DAYS) {
      decisions.push({ ...base, action: 'retire', importance_after: older.entry.importance });
    } else if (alreadyDecayed.has(older.entry.id) || older.entry.meta.superseded_by !== undefined) {
      decisions.push({ ...base, action: 'skip', reason: `${reason}; already decayed once`, importance_after: older.entry.importance });
    } else {
      const after = Math.max(IMPORTANCE_FLOOR, Math.round(older.entry.importance * DECAY_FACTOR * 1000) / 1000);
      decisions.push({ ...base, action: 'decay', importance_after: after });
    }
  }
  return decisions;
}

/** Apply the decisions that concern one file. */
export function applyDecisions(file: ParsedFile, decisions: Decision[], today: string): ParsedFile | null {
  const byId = new Map(decisions.filter((d) => d.action !== 'skip').map((d) => [d.id, d]));
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
