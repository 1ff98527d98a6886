// Consolidation of episodes into learnings: when enough episodes wait (3 unconsolidated, or one
// flashbulb), their messages go through the extraction path (learnings-pipeline.ts: a model or the
// offline heuristics, the quality gate, the duplicate check); each learning written links to its
// episodes (`episodes: [id, …]`) and each episode gets `consolidated_at`.

import path from 'node:path';
import { emptyCounts, type RejectReason } from '../extract/gate.js';
import { surpriseOf } from './detail.js';
import { heuristicLearnings } from '../extract/heuristic.js';
import type { Learning } from '../extract/learning.js';
import { relatedFiles, runLearnings, type LearningsOptions } from '../extract/learnings-pipeline.js';
import { preambleFor, scopeByName, targetPath, type ExtractionScopeName } from '../extract/scopes.js';
import type { Role, TranscriptMessage } from '../extract/transcript.js';
import { parseMemoryFile, updateBlockMeta, type ParsedFile } from '../vault/format.js';
import { readVaultText } from '../vault/read.js';
import { describeFile, type Vault, type VaultFile } from '../vault/vault.js';
import { messagesOfBody } from './detail.js';
import { committedEpisodeFiles, LocalMessages } from './local.js';
import type { RedactionReport } from '../secrets/redact.js';

/** Unconsolidated episodes that make a batch worth consolidating. */
export const MIN_EPISODES = 3;
/**
 * An episode this surprising is consolidated on its own (a flashbulb memory, after Brown & Kulik
 * 1977).
 */
export const FLASHBULB = 0.85;

export interface PendingEpisode {
  id: string;
  /** The episode file, relative to the root. */
  path: string;
  line: number;
  session_id: string | null;
  surprise: number;
  body: string;
}

/** Whether a batch is due: at least MIN_EPISODES waiting, or one of them a flashbulb. */
export function thresholdMet(pending: readonly Pick<PendingEpisode, 'surprise'>[]): { due: boolean; why: 'count' | 'flashbulb' | null } {
  if (pending.length >= MIN_EPISODES) return { due: true, why: 'count' };
  if (pending.some((e) => e.surprise >= FLASHBULB)) return { due: true, why: 'flashbulb' };
  return { due: false, why: null };
}

const ROLE_LINE = /^\*\*(user|assistant)\*\*(?: \u00b7 .*)?$/;

/** A quoted line back to its text: episode-file.ts wrote `> ` + the line, with a `\` before a line that would open a block. */
function unquote(line: string): string {
  const t = line === '>' ? '' : line.startsWith('> ') ? line.slice(2) : line.slice(1);
  return /^[ \t]*\\[#<=_*+-]/.test(t) ? t.replace('\\', '') : t;
}

/**
 * The messages of an episode from its body's <details> section (episode-file.ts's layout: a `**role**`
 * line, optionally `· time`, then the message quoted). The transcript is not needed: the episode
 * keeps its messages (cut at MESSAGE_CAP, which is fine for learnings), in its committed file or
 * in the local store (pendingEpisodes joins them to the body).
 */
export function messagesFromEpisodeBody(body: string): TranscriptMessage[] {
  const section = messagesOfBody(body.replace(/\r\n/g, '\n'));
  const out: TranscriptMessage[] = [];
  let cur: { role: Role; timestamp?: string; lines: string[] } | null = null;
  const flush = () => {
    if (!cur) return;
    const text = cur.lines.join('\n').trim();
    if (text !== '' && text !== '(empty)') out.push({ role: cur.role, kind: 'text', text, ...(cur.timestamp ? { timestamp: cur.timestamp } : {}) });
    cur = null;
  };
  for (const line of section.split('\n')) {
    const m = ROLE_LINE.exec(line);
    if (m) {
      flush();
      const ts = / \u00b7 (.+)$/.exec(line)?.[1];
      cur = { role: m[1] as Role, lines: [], ...(ts ? { timestamp: ts } : {}) };
      continue;
    }
    if (cur && line.startsWith('>')) cur.lines.push(unquote(line));
  }
  flush();
  return out;
}

/** The episodes not yet consolidated, in file then file order; unreadable files are reported in `problems`. */
export function pendingEpisodes(root: string): { pending: PendingEpisode[]; total: number; problems: string[] } {
  const pending: PendingEpisode[] = [];
  const local = new LocalMessages(root);
  const problems: string[] = [];
  let total = 0;
  for (const rel of committedEpisodeFiles(root)) {
    const r = readVaultText(path.join(root, ...rel.split('/')));
    if ('error' in r) {
      problems.push(`${rel}: ${r.error}`);
      continue;
    }
    for (const e of parseMemoryFile(r.text, rel).entries) {
      if (e.meta.kind !== 'episode') continue;
      total++;
      if (e.meta.consolidated_at !== null && e.meta.consolidated_at !== undefined) continue;
      if (e.status === 'retired') continue;
      // Messages kept in the local store (the default) join the body as the committed file would hold them.
      const body = messagesOfBody(e.body) !== '' ? e.body : `${e.body.trimEnd()}\n\n${local.details(rel, e.id)}`.trim();
      pending.push({
        id: e.id, path: rel, line: e.line, body,
        session_id: typeof e.meta.session_id === 'string' ? e.meta.session_id : null,
        // Out of 0..1 (a hand edit: 1e308) is no surprise, never a flashbulb.
        surprise: surpriseOf(e.meta.surprise) ?? 0,
      });
    }
  }
  return { pending, total, problems };
}

export interface ConsolidateOptions extends LearningsOptions {
  scopes: ExtractionScopeName[];
  /** ISO time written as `consolidated_at`. */
  now: string;
  /** Values that are credentials whatever their shape (the API keys mem is given): redacted from the episodes and the answer. */
  knownSecrets?: string[];
}

export interface ConsolidateResult {
  dry_run: boolean;
  due: boolean;
  why: 'count' | 'flashbulb' | null;
  /** Episodes in the vault, and those waiting before this run. */
  episodes_total: number;
  /** Episodes not consolidated before this run. */
  waiting: number;
  considered: { id: string; path: string; surprise: number; messages: number }[];
  written: { file: string; id: string; title: string; scope: ExtractionScopeName; episodes: string[] }[];
  rejected: Record<RejectReason, number>;
  rejected_learnings: { title: string; reason: RejectReason; detail: string }[];
  skipped_scopes: { scope: string; reason: string }[];
  provider: { name: string; model: string };
  fallback: string | null;
  /** Episodes marked consolidated (every one considered, learnings or not). */
  marked: string[];
  problems: string[];
  index_warning: string | null;
  /** Credentials in the episodes' messages or the learnings, sent and written as placeholders. */
  redacted?: RedactionReport;
}

/** Learnings tagged with the episodes they came from. */
type Linked = Learning & { episodes: string[] };

function titleKey(t: string): string {
  return t.toLowerCase().replace(/[^\w]+/g, ' ').trim();
}

/** Offline: the heuristics over each episode's messages; the same rule from two episodes links to both. */
function heuristicLinked(batch: { ep: PendingEpisode; messages: TranscriptMessage[] }[], scopes: ExtractionScopeName[]): Linked[] {
  const byKey = new Map<string, Linked>();
  for (const { ep, messages } of batch) {
    for (const l of heuristicLearnings(messages, scopes)) {
      const k = `${l.scope}\u0000${titleKey(l.title)}`;
      const had = byKey.get(k);
      if (had) {
        if (!had.episodes.includes(ep.id)) had.episodes.push(ep.id);
      } else byKey.set(k, { ...l, episodes: [ep.id] });
    }
  }
  return [...byKey.values()];
}

export async function consolidateEpisodes(vault: Vault, opts: ConsolidateOptions): Promise<ConsolidateResult> {
  const { pending, total, problems } = pendingEpisodes(vault.root);
  const gate = thresholdMet(pending);
  const result: ConsolidateResult = {
    dry_run: opts.dryRun, due: gate.due, why: gate.why, episodes_total: total, waiting: pending.length, considered: [], written: [], rejected: emptyCounts(), rejected_learnings: [],
    skipped_scopes: [], provider: { name: opts.provider.name, model: opts.provider.model }, fallback: null, marked: [], problems, index_warning: null,
  };
  if (!gate.due) return result;

  // Only the scopes whose file needs no job or task (a batch spans sessions).
  const active: ExtractionScopeName[] = [];
  for (const s of opts.scopes) {
    const def = scopeByName(s)!;
    if (targetPath(def.target, {}) === null) result.skipped_scopes.push({ scope: s, reason: 'its file depends on a job, a task or the global home; episodes span sessions' });
    else active.push(s);
  }
  // Episodes written before redaction may still hold a credential: neither the model nor the
  // new entries get it.
  const { redactDeep } = await import('../secrets/redact.js');
  const read = await redactDeep(pending.map((ep) => messagesFromEpisodeBody(ep.body)), opts.knownSecrets);
  const batch = pending.map((ep, i) => ({ ep, messages: read.value[i] }));
  result.considered = batch.map(({ ep, messages }) => ({ id: ep.id, path: ep.path, surprise: ep.surprise, messages: messages.length }));
  const all = batch.flatMap((b) => b.messages);
  const ids = pending.map((e) => e.id);

  const run = await runLearnings<Linked>(vault, opts, {
    scopes: active, messages: all, session: all, findings: read.findings, knownSecrets: opts.knownSecrets,
    heuristics: (scopes) => heuristicLinked(batch, scopes),
    prompt: () => ({ known: [] }),
    // One request over the whole batch: each learning links to every episode of it.
    fromModel: (l) => ({ ...l, episodes: [...ids] }),
  }, {
    target: (scope) => {
      const def = scopeByName(scope)!;
      const rel = targetPath(def.target, {})!;
      return { abs: describeFile(vault, path.join(vault.root, rel)).abs, path: rel, preamble: preambleFor(def.target) };
    },
    related: relatedFiles(vault, {}),
    provenance: (l) => {
      const sessions = [...new Set(pending.filter((e) => l.episodes.includes(e.id)).map((e) => e.session_id).filter((s): s is string => s !== null))];
      return { session_id: sessions.length === 1 ? sessions[0] : undefined, tags: ['consolidated'], episodes: l.episodes };
    },
  });
  result.skipped_scopes.push(...run.skipped_scopes);
  result.fallback = run.fallback;
  if (run.redacted) result.redacted = run.redacted;
  result.rejected = run.rejected;
  result.rejected_learnings = run.rejections.map(({ learning: l, reason, detail }) => ({ title: l.title, reason, detail }));
  result.written = run.written.map(({ learning: l, file, id }) => ({ file, id, title: l.title, scope: l.scope, episodes: l.episodes }));
  if (opts.dryRun) return result;

  const { editFiles } = await import('../vault/edit.js');
  const { classifyPath } = await import('../vault/scope.js');

  // Then the episodes: `consolidated_at` set with the byte-stable header edit, under each file's
  // lock. Learnings first: a crash between the two leaves episodes to redo, and the duplicate
  // check keeps the redo from writing the learnings twice.
  const byFile = new Map<string, Set<string>>();
  for (const e of pending) byFile.set(e.path, (byFile.get(e.path) ?? new Set()).add(e.id));
  const episodeVaultFiles = [...byFile.keys()].map((rel) => ({ abs: path.join(vault.root, ...rel.split('/')), path: rel, isGlobal: false, ...classifyPath(rel) }) as VaultFile);
  const marked = await editFiles(episodeVaultFiles.map((f) => ({
    abs: f.abs, path: f.path,
    change: (parsed: ParsedFile) => {
      const want = byFile.get(f.path)!;
      let changed = false;
      const blocks = parsed.blocks.map((b) => {
        const e = b.entry;
        if (!e || !b.header || !want.has(e.id) || e.meta.kind !== 'episode') return b;
        if (e.meta.consolidated_at !== null && e.meta.consolidated_at !== undefined) return b; // another run got here first
        changed = true;
        result.marked.push(e.id);
        return updateBlockMeta(b, { consolidated_at: opts.now });
      });
      return changed ? { ...parsed, blocks } : null;
    },
  })));
  const reindexFiles = [...run.touched, ...episodeVaultFiles.filter((f) => marked.includes(f.path))];
  if (reindexFiles.length > 0) {
    const { reindex } = await import('../lifecycle/vault-ops.js');
    result.index_warning = (await reindex(vault, reindexFiles)) ?? null;
  }
  return result;
}
