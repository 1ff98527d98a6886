// Consolidation of episodes into learnings: when enough episodes wait (3 unconsolidated, or one
// flashbulb), their messages go through the extraction path (a model, or the offline heuristics),
// the quality gate and the duplicate check; each learning written links to its episodes (`episodes:
// [id, …]`) and each episode gets `consolidated_at`.

import path from 'node:path';
import { condense } from '../extract/condense.js';
import { DuplicateCheck, emptyCounts, gateContext, gateLearnings, type RejectReason } from '../extract/gate.js';
import { surpriseOf } from './detail.js';
import { heuristicLearnings } from '../extract/heuristic.js';
import type { Learning } from '../extract/learning.js';
import { preambleFor, scopeByName, targetPath, type ExtractionScopeName } from '../extract/scopes.js';
import type { Role, TranscriptMessage } from '../extract/transcript.js';
import { createProvider, ProviderError, type ClientOptions, type LlmProvider, type ProviderConfig } from '../llm/provider.js';
import { parseMemoryFile, updateBlockMeta, type ParsedFile } from '../vault/format.js';
import { readVaultText } from '../vault/read.js';
import type { Vault, VaultFile } from '../vault/vault.js';
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

export interface ConsolidateOptions {
  scopes: ExtractionScopeName[];
  provider: ProviderConfig;
  client: ClientOptions;
  budget: number;
  dryRun: boolean;
  /** On a provider failure, fall back to the heuristics (and say so). */
  fallback: boolean;
  today: string;
  /** ISO time written as `consolidated_at`. */
  now: string;
  stage?: string;
  llm?: LlmProvider;
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
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const read = await redactDeep(pending.map((ep) => messagesFromEpisodeBody(ep.body)));
  const batch = pending.map((ep, i) => ({ ep, messages: read.value[i] }));
  result.considered = batch.map(({ ep, messages }) => ({ id: ep.id, path: ep.path, surprise: ep.surprise, messages: messages.length }));
  const all = batch.flatMap((b) => b.messages);
  const ids = pending.map((e) => e.id);

  const heuristics = (): Linked[] => {
    for (const s of active) if (!scopeByName(s)!.heuristic) result.skipped_scopes.push({ scope: s, reason: 'needs a language model (the heuristics find only explicit signals)' });
    return heuristicLinked(batch, active);
  };
  let learnings: Linked[] = [];
  if (active.length > 0 && all.length > 0) {
    if (opts.provider.name === 'heuristic') learnings = heuristics();
    else {
      try {
        const { askForLearnings, buildPrompt } = await import('../extract/prompt.js');
        const llm = opts.llm ?? (await createProvider(opts.provider, opts.client));
        const v = await askForLearnings(llm, opts.provider, buildPrompt(condense(all, opts.budget).text, active, { known: [] }), active);
        // One request over the whole batch: each learning links to every episode of it.
        learnings = v.learnings.map((l) => ({ ...l, episodes: [...ids] }));
      } catch (err) {
        if (!(err instanceof ProviderError) || !opts.fallback) throw err;
        result.fallback = err.message;
        learnings = heuristics();
      }
    }
  }

  const answer = await redactDeep(learnings);
  learnings = answer.value;
  const redacted = redactionReport([...read.findings, ...answer.findings]);
  if (redacted) result.redacted = redacted;

  const reject = (l: Learning, r: { reason: RejectReason; detail: string }) => {
    result.rejected[r.reason]++;
    result.rejected_learnings.push({ title: l.title, reason: r.reason, detail: r.detail });
  };
  const gated = gateLearnings(learnings, gateContext(all));
  for (const r of gated.rejected) reject(r.learning, r);
  learnings = gated.kept;

  const { renderNewEntry } = await import('../vault/edit.js');
  const { describeFile } = await import('../vault/vault.js');
  const source = opts.provider.name === 'heuristic' || result.fallback ? 'heuristic' : `${opts.provider.name}:${opts.provider.model}`;
  const slots = new Map<string, { abs: string; path: string; preamble: string; items: Linked[] }>();
  for (const l of learnings) {
    const def = scopeByName(l.scope)!;
    const rel = targetPath(def.target, {})!;
    const slot = slots.get(rel) ?? { abs: describeFile(vault, path.join(vault.root, rel)).abs, path: rel, preamble: preambleFor(def.target), items: [] };
    slot.items.push(l);
    slots.set(rel, slot);
  }
  const list = [...slots.values()];
  const appends = list.map((s) => ({ abs: s.abs, path: s.path, preamble: s.preamble, texts: [] as string[] }));
  const render = (parsed: (ParsedFile | null)[]) => {
    list.forEach((slot, i) => {
      const known = new DuplicateCheck(parsed[i]?.entries ?? []);
      for (const l of slot.items) {
        const dup = known.check(l);
        if (dup) {
          reject(l, { reason: dup.reason, detail: `${slot.path} ${dup.detail}` });
          continue;
        }
        const domain = l.scope === 'project' || l.scope === 'corrective' || l.scope === 'observations' || l.scope === 'interventions' || l.scope === 'escalation' || l.scope === 'intent-alignment' ? 'team' : 'task';
        const sessions = [...new Set(pending.filter((e) => l.episodes.includes(e.id)).map((e) => e.session_id).filter((s): s is string => s !== null))];
        const { id, text } = renderNewEntry({
          type: l.type, title: l.title, body: l.body, importance: l.importance, phase: l.phase ?? opts.stage ?? 'unknown', domain, date: opts.today,
          extra: { session_id: sessions.length === 1 ? sessions[0] : undefined, source, tags: [l.scope, 'consolidated'], episodes: l.episodes },
        });
        appends[i].texts.push(text);
        result.written.push({ file: slot.path, id, title: l.title, scope: l.scope, episodes: l.episodes });
      }
    });
  };

  const { parseMemoryFile: parse } = await import('../vault/format.js');
  if (opts.dryRun) {
    const { readRegular } = await import('../vault/read.js');
    render(list.map((s) => {
      const text = readRegular(s.abs);
      return text === null ? null : parse(text, s.path);
    }));
    return result;
  }
  const { appendTogether, editFiles } = await import('../vault/edit.js');
  const { classifyPath } = await import('../vault/scope.js');
  const writtenPaths = await appendTogether(appends, render);
  const touched: VaultFile[] = list.filter((s) => writtenPaths.includes(s.path)).map((s) => describeFile(vault, s.abs));

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
  const reindexFiles = [...touched, ...episodeVaultFiles.filter((f) => marked.includes(f.path))];
  if (reindexFiles.length > 0) {
    const { reindex } = await import('../lifecycle/vault-ops.js');
    result.index_warning = (await reindex(vault, reindexFiles)) ?? null;
  }
  return result;
}
