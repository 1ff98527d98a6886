// Promotion: a learning that recurs (similarity ≥ 0.8) in at least three distinct jobs or sessions
// is copied up to project scope; a project learning that proved itself goes to the global file only
// when it reads as project-agnostic. Never promotes the same thing twice.

import type { Entry } from '../vault/entry.js';
import type { VaultFile } from '../vault/vault.js';
import { safeClusters } from './compact.js';
import { factProfile, factText, type FactProfile } from './conflict.js';
import { TokenVocab, similarPairs, type TokenSet } from './similarity.js';

export const PROMOTE_SIMILARITY = 0.8;
export const MIN_SOURCES = 3;

export interface Candidate {
  entry: Entry;
  file: VaultFile;
}

export interface Promotion {
  /** The entry whose text is promoted (highest importance, then longest). */
  representative: Candidate;
  /** Every recurring copy, by id. */
  from: string[];
  /** Distinct jobs/sessions it recurs in. */
  sources: string[];
  importance: number;
}

export interface Skipped {
  id: string;
  path: string;
  reason: string;
}

function live(e: Entry): boolean {
  return e.kind === 'entry' && e.status !== 'retired';
}

function sourceOf(c: Candidate): string {
  const sid = c.entry.meta.session_id;
  if (typeof sid === 'string' && sid.trim()) return `session:${sid.trim()}`;
  return `job:${c.file.job ?? c.file.path}`;
}

function list(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? [v] : [];
}

function similarTo(tokens: TokenSet, others: TokenSet[]): boolean {
  const all = [tokens, ...others];
  return similarPairs(all, PROMOTE_SIMILARITY, { canPair: (a, b) => a === 0 || b === 0 }).length > 0;
}

function pick(members: Candidate[]): Candidate {
  return members.reduce((a, b) => {
    if (a.entry.importance !== b.entry.importance) return a.entry.importance > b.entry.importance ? a : b;
    const la = (a.entry.body || a.entry.title).length;
    const lb = (b.entry.body || b.entry.title).length;
    return lb > la ? b : a;
  });
}

/**
 * Clusters of similar live entries (Jaccard ≥ 0.8) spanning at least MIN_SOURCES distinct
 * sources, skipping those already present in `existing` (by a `promoted_from` link or by
 * similarity to one of its entries).
 */
function planRecurring(cands: Candidate[], source: (c: Candidate) => string, existing: Candidate[], where: string): { promote: Promotion[]; skipped: Skipped[] } {
  const vocab = new TokenVocab();
  const tokens = cands.map((c) => vocab.ofText(c.entry.body || c.entry.title));
  const pairs = similarPairs(tokens, PROMOTE_SIMILARITY, { canPair: (a, b) => source(cands[a]) !== source(cands[b]) });
  const there = existing.filter((c) => live(c.entry));
  const promotedIds = new Set(there.flatMap((c) => list(c.entry.meta.promoted_from)));
  const thereTokens = there.map((c) => vocab.ofText(c.entry.body || c.entry.title));
  const promote: Promotion[] = [];
  const skipped: Skipped[] = [];
  // Entries that state different facts ("Use Node 18 …" / "Use Node 20 …") are not one recurring
  // learning: the same conflict-safe clustering as compaction.
  const profiles = new Map<number, FactProfile>();
  const profileOf = (i: number) => {
    let p = profiles.get(i);
    if (!p) profiles.set(i, (p = factProfile(factText(cands[i].entry))));
    return p;
  };
  for (const cluster of safeClusters(cands.length, pairs, tokens, profileOf, () => undefined)) {
    if (cluster.length < MIN_SOURCES) continue;
    const members = cluster.map((i) => cands[i]);
    const srcs = [...new Set(members.map(source))];
    if (srcs.length < MIN_SOURCES) continue;
    const rep = pick(members);
    const ids = members.map((m) => m.entry.id);
    if (ids.some((id) => promotedIds.has(id)) || similarTo(vocab.ofText(rep.entry.body || rep.entry.title), thereTokens)) {
      skipped.push({ id: rep.entry.id, path: rep.file.path, reason: `already at ${where} scope` });
      continue;
    }
    promote.push({ representative: rep, from: ids, sources: srcs.map((s) => s.replace(/^(job|session|task):/, '')), importance: members.reduce((m, x) => Math.max(m, x.entry.importance), -Infinity) });
  }
  return { promote, skipped };
}

/**
 * Session/team learnings that recur across ≥ 3 distinct jobs or sessions and are not yet at
 * project scope (by a `promoted_from` link or by similarity to a project entry).
 */
export function planProjectPromotions(sources: Candidate[], project: Candidate[]): { promote: Promotion[]; skipped: Skipped[] } {
  const cands = sources.filter((c) => live(c.entry) && (c.file.scope === 'session' || c.file.scope === 'team'));
  return planRecurring(cands, sourceOf, project, 'project');
}

/**
 * The first rollup step: team (task) learnings that recur in ≥ 3 distinct tasks of one job go up
 * to that job's session file, unless it already has them.
 */
export function planSessionPromotions(all: Candidate[]): { promote: (Promotion & { job: string })[]; skipped: Skipped[] } {
  const byJob = new Map<string, { team: Candidate[]; session: Candidate[] }>();
  for (const c of all) {
    if (!c.file.job || (c.file.scope !== 'team' && c.file.scope !== 'session')) continue;
    const slot = byJob.get(c.file.job) ?? { team: [], session: [] };
    if (c.file.scope === 'team' && live(c.entry)) slot.team.push(c);
    else if (c.file.scope === 'session') slot.session.push(c);
    byJob.set(c.file.job, slot);
  }
  const promote: (Promotion & { job: string })[] = [];
  const skipped: Skipped[] = [];
  for (const [job, { team, session }] of byJob) {
    const r = planRecurring(team, (c) => `task:${c.file.task ?? c.file.path}`, session, 'session');
    promote.push(...r.promote.map((p) => ({ ...p, job })));
    skipped.push(...r.skipped);
  }
  return { promote, skipped };
}

const FILE_EXT = /\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|cs|c|h|cpp|hpp|md|json|ya?ml|toml|lock|sql|sh|css|scss|html|vue|svelte|env)\b/i;
const PATH = /(?:^|[\s`'"(])(?:\.{0,2}\/)?[\w.-]+\/[\w.-]+(?:\/[\w.-]+)*/;
const CODE_IDENT = /\b(?:[a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z]+_[A-Za-z0-9_]+)\b/;

/**
 * Why a learning is specific to this project (null when it reads as project-agnostic): it names
 * the project, a path or file, a code identifier, or a name that exists in this repository.
 */
export function projectSpecific(text: string, projectNames: string[], repoNames: Set<string>): string | null {
  const lower = text.toLowerCase();
  for (const n of projectNames) {
    if (n.length >= 3 && new RegExp(`\\b${n.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(lower)) return `names the project "${n}"`;
  }
  const path = PATH.exec(text);
  if (path) return `mentions a path (${path[0].trim()})`;
  const file = FILE_EXT.exec(text);
  if (file) return `mentions a file (${file[0]})`;
  const ident = CODE_IDENT.exec(text.replace(/`[^`]*`/g, ' '));
  if (ident) return `mentions a code identifier (${ident[0]})`;
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    const inner = m[1].trim().toLowerCase();
    if (repoNames.has(inner)) return `mentions ${m[0]}, a name in this repository`;
  }
  for (const w of lower.match(/[a-z][a-z0-9-]{4,}/g) ?? []) {
    if (repoNames.has(w) && /[-\d]/.test(w)) return `mentions "${w}", a name in this repository`;
  }
  return null;
}

/** Project learnings that earned a place in the global file: promoted ones, or reinforced ≥ 3 times. */
export function planGlobalPromotions(project: Candidate[], global: Candidate[], projectNames: string[], repoNames: Set<string>): { promote: Promotion[]; skipped: Skipped[] } {
  const promote: Promotion[] = [];
  const skipped: Skipped[] = [];
  const gLive = global.filter((c) => live(c.entry));
  const linked = new Set(gLive.flatMap((c) => list(c.entry.meta.promoted_from)));
  const vocab = new TokenVocab();
  const gTokens = gLive.map((c) => vocab.ofText(c.entry.body || c.entry.title));
  for (const c of project) {
    if (!live(c.entry) || c.file.scope !== 'project') continue;
    const earned = list(c.entry.meta.promoted_from).length > 0 || c.entry.reinforcement_count >= 3;
    if (!earned) continue;
    if (linked.has(c.entry.id) || similarTo(vocab.ofText(c.entry.body || c.entry.title), gTokens)) {
      skipped.push({ id: c.entry.id, path: c.file.path, reason: 'already in the global file' });
      continue;
    }
    const why = projectSpecific(`${c.entry.title}\n${c.entry.body}`, projectNames, repoNames);
    if (why) {
      skipped.push({ id: c.entry.id, path: c.file.path, reason: `project-specific: ${why}` });
      continue;
    }
    promote.push({ representative: c, from: [c.entry.id], sources: [c.file.path], importance: c.entry.importance });
  }
  return { promote, skipped };
}

