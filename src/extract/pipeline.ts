// `mem extract`, the steps: new messages (ledger) → learnings (a model, or the offline
// heuristics) → the quality gate → appended under locks, duplicates left out (those three through
// learnings-pipeline.ts) → touched files compacted → the session's retrieved entries reinforced
// (usage-aware) → index refreshed → ledger record.

import path from 'node:path';
import { MemError, usageError } from '../errors.js';
import { describeFile, userHome, type Vault } from '../vault/vault.js';
import { staysInside, writeTarget } from '../vault/boundary.js';
import { INTERRUPTED, isHumanText } from './condense.js';
import { heuristicLearnings } from './heuristic.js';
import { emptyCounts, type RejectReason } from './gate.js';
import { checkSessionId, printable, usableSessionId } from './session-id.js';
import { appendLedger, checkLedger, LEDGER_PATH, messagesHash, readLedger, resumePoint } from './ledger.js';
import { relatedFiles, runLearnings, type LearningsOptions, type LearningTarget } from './learnings-pipeline.js';
import { preambleFor, scopeByName, targetPath, type ExtractionScopeName } from './scopes.js';
import { readRegular } from '../vault/read.js';
import { redactTranscript, type LoadedTranscript } from './source.js';
import type { RedactionReport } from '../secrets/redact.js';
import { createProvider } from '../llm/provider.js';
import type { SessionJudgement } from '../lifecycle/session-reinforce.js';
import type { Transcript, TranscriptMessage } from './transcript.js';

export interface ExtractOptions extends LearningsOptions {
  scopes: ExtractionScopeName[];
  sessionId?: string;
  job?: string;
  task?: string;
  /** Ignore the ledger: read the whole transcript again. */
  force?: boolean;
  /** Values that are credentials whatever their shape (the API keys mem is given): redacted too. */
  knownSecrets?: string[];
  /** The time (ms) of the reviews recorded for the session's retrieved entries (default: the clock). */
  now?: number;
}

export interface WrittenEntry {
  file: string;
  id: string;
  title: string;
  scope: ExtractionScopeName;
  type: string;
}

export interface RejectedLearning {
  title: string;
  scope: ExtractionScopeName;
  reason: RejectReason;
  detail: string;
}

export interface ExtractResult {
  transcript: string;
  format: string;
  session_id: string | null;
  messages: { total: number; new: number; from: number };
  skipped_records: number;
  broken_lines: number;
  /** Lines over 1 MB read with their long strings cut (each message keeps its first 8,000 characters). */
  cut_lines: number;
  up_to_date: boolean;
  dry_run: boolean;
  provider: { name: string; model: string; source: string };
  usage: { input_tokens: number; output_tokens: number } | null;
  fallback: string | null;
  scopes: ExtractionScopeName[];
  skipped_scopes: { scope: string; reason: string }[];
  invalid_learnings: number;
  written: WrittenEntry[];
  duplicates: { title: string; file: string }[];
  /** Learnings the quality gate turned away, counted by reason (gate.ts; duplicates included). */
  rejected: Record<RejectReason, number>;
  rejected_learnings: RejectedLearning[];
  /** Learnings the model gave for the global scope that read as specific to this project. */
  not_global: { title: string; reason: string }[];
  compacted: number;
  reinforced: number;
  /** The session's retrieved entries judged by this run (each id once per session): the change, the FSRS rating and who gave it. */
  judged?: SessionJudgement[];
  /** Why the model's review ratings were not used (the offline rule stood in). */
  review_warning?: string;
  /** The transcript's own session id when it could not be used as a name (see usableSessionId). */
  session_id_from_transcript: string | null;
  /** Set when the index could not be updated after the write (the entries are written). */
  index_warning: string | null;
  /** The session's episode file (extract.episodes), when it was segmented. */
  /** `summarized`: episodes a model titled and summarised in this run. */
  episodes?: { path: string; count: number; written: boolean; summarized?: number };
  /** Why the episodes could not be written (the learnings are). */
  episodes_warning?: string;
  /** The session's episode note (extract.episode_note), when written or checked. */
  episode_note?: { path: string; outcome: string; metrics: Record<string, number>; decisions: number; written: boolean };
  /** Why the episode note could not be written (the learnings are). */
  episode_note_warning?: string;
  /** Waiting episodes consolidated afterwards (extract.consolidate), when the threshold was met. */
  consolidation?: { episodes: string[]; written: { file: string; id: string; title: string; episodes: string[] }[] };
  /** Why the consolidation failed (the extraction is written). */
  consolidation_warning?: string;
  /** Credentials in the new messages or the learnings, written (and sent to the model) as placeholders. */
  redacted?: RedactionReport;
}

/** The session's task: the first thing the person typed (never harness text, never a bare interruption marker). */
function firstHuman(messages: readonly TranscriptMessage[]): string | undefined {
  const m = messages.find((x) => isHumanText(x) && x.text.replace(INTERRUPTED, '').trim() !== '');
  if (!m) return undefined;
  const text = m.text.replace(INTERRUPTED, '').replace(/\s+/g, ' ').trim();
  if (text.length <= 200) return text;
  // Cut at the last word boundary, and say so: a half word reads as a typo.
  const cut = text.slice(0, 199);
  const space = cut.lastIndexOf(' ');
  return `${(space > 120 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The ways a learning could quote the transcript file's path (absolute, and under ~). */
function transcriptPaths(abs: string, home: string): string[] {
  if (abs === '-') return [];
  return home && abs.startsWith(home + path.sep) ? [abs, `~${abs.slice(home.length)}`] : [abs];
}

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 64) || 'session';
}

function resolveTargets(vault: Vault, scopes: ExtractionScopeName[], where: { job?: string; task?: string }) {
  // The ledger is written last: a link out of the vault is refused now, before any entry is written.
  writeTarget(path.join(vault.root, LEDGER_PATH), LEDGER_PATH);
  const targets = new Map<ExtractionScopeName, LearningTarget>();
  const skipped: { scope: string; reason: string }[] = [];
  for (const name of scopes) {
    const def = scopeByName(name)!;
    if (def.target === 'global') {
      const abs = path.join(vault.home, 'MEMORY.md');
      targets.set(name, { abs, path: describeFile(vault, abs).path, preamble: preambleFor('global') });
      continue;
    }
    const rel = targetPath(def.target, where);
    if (!rel) {
      skipped.push({ scope: name, reason: def.target === 'team' ? 'needs --task (and --job or a session id)' : 'needs --job or a session id' });
      continue;
    }
    // describeFile refuses a target that links out of the vault: its text would reach the prompt.
    targets.set(name, { abs: describeFile(vault, path.join(vault.root, rel)).abs, path: rel, preamble: preambleFor(def.target, where.job, where.task) });
  }
  return { targets, skipped };
}

/** Most titles of existing entries the prompt lists (the newest: entries are appended). */
export const MAX_KNOWN_TITLES = 60;

/** Titles already in the target files, so the model adds only what is new (the newest MAX_KNOWN_TITLES). */
function existingTitles(targets: Iterable<LearningTarget>): string[] {
  const titles: string[] = [];
  const seen = new Set<string>();
  for (const t of new Map([...targets].map((x) => [x.abs, x])).values()) {
    const text = readRegular(t.abs);
    if (text === null) continue;
    for (const m of text.matchAll(/^## (?:\[[^\]]*\] )?(?:\w+: )?(.+)$/gm)) titles.push(m[1].trim());
  }
  const out: string[] = [];
  for (const title of titles.reverse()) {
    if (seen.has(title.toLowerCase())) continue;
    seen.add(title.toLowerCase());
    out.push(title);
    if (out.length === MAX_KNOWN_TITLES) break;
  }
  return out.reverse();
}

export async function runExtract(vault: Vault, loaded: LoadedTranscript, opts: ExtractOptions): Promise<ExtractResult> {
  const t: Transcript = loaded.transcript;
  if (t.messages.length === 0) {
    throw new MemError(`no messages found in the transcript (read as ${t.format}; ${t.skipped} records skipped, ${t.broken} broken lines)`, {
      where: { file: loaded.label },
      hint: 'check the file, or force the format with --format claude|codex|gemini|messages|text',
    });
  }
  // A session id names folders (.mem/sessions/<id>/, a job) and ledger records: one given by the
  // caller must be valid; one read from the transcript is made valid, before anything is written.
  if (opts.sessionId !== undefined) checkSessionId(opts.sessionId);
  // --job and --task name folders under .mem/jobs/: the same rule, or a "../" would leave it.
  for (const [what, v] of [['job', opts.job], ['task', opts.task]] as const) {
    if (v !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(v)) throw usageError(`invalid --${what} "${printable(v)}"`, 'use letters, digits, ".", "_" and "-"');
  }
  const own = usableSessionId(t.sessionId);
  const sessionId = opts.sessionId ?? own;
  const key = loaded.path !== '-' ? loaded.path : `stdin:${sessionId ?? messagesHash(t.messages, 3)}`;
  const from = opts.force ? 0 : resumePoint(readLedger(vault.root), key, sessionId, t.messages);
  const fresh = t.messages.slice(from);
  const job = opts.job ?? (sessionId ? safeName(sessionId) : undefined);
  const result: ExtractResult = {
    transcript: loaded.label, format: t.format, session_id: sessionId ?? null,
    messages: { total: t.messages.length, new: fresh.length, from }, skipped_records: t.skipped, broken_lines: t.broken, cut_lines: t.cut ?? 0,
    up_to_date: fresh.length === 0, dry_run: opts.dryRun,
    provider: { name: opts.provider.name, model: opts.provider.model, source: opts.provider.source }, usage: null, fallback: null,
    scopes: opts.scopes, skipped_scopes: [], invalid_learnings: 0, written: [], duplicates: [], rejected: emptyCounts(), rejected_learnings: [], not_global: [], compacted: 0, reinforced: 0,
    session_id_from_transcript: opts.sessionId === undefined && own !== undefined && own !== t.sessionId ? printable(t.sessionId!) : null,
    index_warning: null,
  };
  if (fresh.length === 0) return result;

  const { targets, skipped } = resolveTargets(vault, opts.scopes, { job, task: opts.task });
  result.skipped_scopes.push(...skipped);
  const active = opts.scopes.filter((s) => targets.has(s));
  // From here on the transcript is read redacted: the heuristics, the model, the episodes and the
  // note see placeholders, never a credential (the ledger still keys on the messages as read).
  const redaction = await redactTranscript(loaded, opts.knownSecrets);
  const clean = redaction.loaded;
  const cleanFresh = clean.transcript.messages.slice(from);
  const task = firstHuman(clean.transcript.messages);

  const run = await runLearnings(vault, opts, {
    scopes: active, messages: cleanFresh, session: clean.transcript.messages, transcriptPaths: transcriptPaths(loaded.path, userHome(opts.client.env)),
    findings: redaction.findings, knownSecrets: opts.knownSecrets, episode: vault.config.extract.episodeNote,
    heuristics: (scopes) => heuristicLearnings(cleanFresh, scopes),
    fromModel: (l) => l,
    prompt: () => {
      const intentFile = path.join(vault.root, 'INTENT.md');
      // Only a regular file inside the vault is read into the prompt.
      const intent = active.includes('intent-alignment') && staysInside(intentFile, vault.root).inside ? readRegular(intentFile) ?? undefined : undefined;
      return { task, intent, known: existingTitles(targets.values()) };
    },
  }, {
    target: (scope) => targets.get(scope)!,
    related: relatedFiles(vault, { job, task: opts.task }),
    provenance: () => ({ session_id: sessionId, session_task: task }),
    // The global scope takes only what could hold in any project (the same offline check as promote).
    accept: async (kept) => {
      if (!kept.some((l) => l.scope === 'global')) return kept;
      const { projectNames, repoNames } = await import('../lifecycle/repo-names.js');
      const { projectSpecific } = await import('../lifecycle/promote.js');
      const names = projectNames(vault.root);
      const repo = repoNames(vault.root);
      return kept.filter((l) => {
        if (l.scope !== 'global') return true;
        const why = projectSpecific(`${l.title}\n${l.body}`, names, repo);
        if (why) result.not_global.push({ title: l.title, reason: why });
        return !why;
      });
    },
    beforeWrite: () => checkLedger(vault.root),
  });
  result.skipped_scopes.push(...run.skipped_scopes);
  result.usage = run.usage;
  result.invalid_learnings = run.invalid;
  result.fallback = run.fallback;
  if (run.redacted) result.redacted = run.redacted;
  result.rejected = run.rejected;
  result.rejected_learnings = run.rejections.map(({ learning: l, reason, detail }) => ({ title: l.title, scope: l.scope, reason, detail }));
  result.duplicates = run.duplicates.map(({ learning: l, file }) => ({ title: l.title, file }));
  result.written = run.written.map(({ learning: l, file, id }) => ({ file, id, title: l.title, scope: l.scope, type: l.type }));
  const { source, kept: learnings, episode: modelEpisode, touched } = run;

  if (opts.dryRun) {
    // What the episode note would say (nothing is written).
    if (vault.config.extract.episodeNote) {
      try {
        const { writeSessionEpisode } = await import('../notes/extract-note.js');
        result.episode_note = (await writeSessionEpisode(vault, clean, { sessionId, task: task ?? '', lessons: learnings.map((l) => l.title), now: new Date().toISOString(), modelAnswer: modelEpisode, dryRun: true })).summary;
      } catch (err) {
        result.episode_note_warning = `episode note not checked: ${err instanceof Error ? err.message : String(err)}`;
      }
    }
    return result;
  }

  // Compact what was written to.
  if (touched.length > 0) {
    const { compactFiles } = await import('../lifecycle/compact.js');
    const { editFilesTogether } = await import('../vault/edit.js');
    await editFilesTogether(touched, (parsed) => {
      const res = compactFiles(parsed.map((p, i) => ({ path: touched[i].path, group: [touched[i].scope, touched[i].learningType, touched[i].job ?? '', touched[i].task ?? ''].join('|'), parsed: p })));
      result.compacted = res.report.retired.length + res.report.duplicates.reduce((s, d) => s + d.dropped.length, 0) + res.report.merges.reduce((s, m) => s + m.absorbed.length, 0);
      return touched.map((f) => res.files.get(f.path) ?? null);
    });
  }

  // Reinforce what this session retrieved, when the transcript shows it was used: judged on the
  // whole session (not only its new messages) from the moment the entry was retrieved (the words
  // of an answer given before it cannot be its use), each id once per session however often the
  // growing session is extracted, with an FSRS review rated by the model when one is configured.
  const reindexFiles = new Map(touched.map((f) => [f.abs, f]));
  if (sessionId) {
    const { reinforceSession } = await import('../lifecycle/session-reinforce.js');
    const { wordSet } = await import('../lifecycle/words.js');
    const { assistantAfter } = await import('./transcript.js');
    const usedAfter = new Map<number, Set<string>>();
    const used = (_id: string, at: number) => {
      const key = Number.isNaN(at) ? -Infinity : at;
      let words = usedAfter.get(key);
      if (!words) usedAfter.set(key, (words = wordSet(assistantAfter(clean.transcript, key))));
      return words;
    };
    const withModel = opts.provider.name !== 'heuristic' && !result.fallback;
    const rate = withModel ? async (entries: { id: string; title: string; body: string }[]) => {
      const { rateUsage } = await import('./usage-review.js');
      const llm = opts.llm ?? (await createProvider(opts.provider, opts.client));
      const r = await rateUsage(llm, entries, clean.transcript.messages, opts.budget);
      result.usage = { input_tokens: (result.usage?.input_tokens ?? 0) + r.usage.input_tokens, output_tokens: (result.usage?.output_tokens ?? 0) + r.usage.output_tokens };
      return r.ratings;
    } : undefined;
    // A failure here is reported, never fatal: the learnings are written (and the ledger must say so).
    try {
      const s = await reinforceSession(vault, sessionId, {
        today: opts.today, now: opts.now ?? Date.now(), used, rate, rater: source,
      });
      result.reinforced = s.judged.filter((j) => j.action === 'reinforced').length;
      result.judged = s.judged;
      if (s.warning) result.review_warning = s.warning;
      for (const f of s.written) reindexFiles.set(f.abs, f);
    } catch (err) {
      result.review_warning = `retrieved entries not reinforced: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  // The session's episodes (extract.episodes, on by default): the whole transcript segmented and
  // its episode file rewritten, the same bytes when nothing changed. A failure here is reported,
  // never fatal: the learnings are written.
  let sessionSummary: { title: string; summary: string } | undefined;
  if (vault.config.extract.episodes) {
    try {
      const { segmentLoaded } = await import('../episodes/segment-transcript.js');
      // The same channels as mem segment: embeddings when configured; the extraction's model for
      // topics only when extract.episodes_topic asks (one more request per transcript), and not
      // when extraction runs offline or fell back.
      const { embeddingsFrom } = await import('../vault/config.js');
      const useLlm = vault.config.extract.episodesTopic && vault.config.episodes.topic && opts.provider.name !== 'heuristic' && !result.fallback;
      const seg = await segmentLoaded(vault, clean, vault.config.episodes, {
        sessionId, now: `${opts.today}T00:00:00.000Z`,
        channels: { embeddings: vault.config.episodes.embeddings ? embeddingsFrom(vault.config.embeddings, opts.client.env) : null, llm: useLlm ? { provider: opts.provider, client: opts.client } : null, env: opts.client.env },
        // With a model (and unless it failed for the learnings), it titles and summarises the episodes and the session.
        summaries: opts.provider.name !== 'heuristic' && !result.fallback ? { provider: opts.provider, client: opts.client, llm: opts.llm } : null,
      });
      if (seg.usage) result.usage = { input_tokens: (result.usage?.input_tokens ?? 0) + seg.usage.input_tokens, output_tokens: (result.usage?.output_tokens ?? 0) + seg.usage.output_tokens };
      sessionSummary = seg.session_summary;
      if (seg.warnings.length > 0) result.episodes_warning = seg.warnings.join('; ');
      result.episodes = { path: seg.path, count: seg.episodes.length, written: seg.written, ...(seg.summarized && { summarized: seg.summarized }) };
      if (seg.written) {
        const { classifyPath } = await import('../vault/scope.js');
        const abs = path.join(vault.root, ...seg.path.split('/'));
        reindexFiles.set(abs, { abs, path: seg.path, isGlobal: false, ...classifyPath(seg.path) });
      }
    } catch (err) {
      result.episodes_warning = `episodes not written: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  // The session's episode note (extract.episode_note, on by default): the whole transcript's
  // task, outcome, metrics and events, the learnings as its lessons, a model's decisions when
  // one is configured. A failure here is reported, never fatal.
  if (vault.config.extract.episodeNote) {
    try {
      const { writeSessionEpisode } = await import('../notes/extract-note.js');
      const note = await writeSessionEpisode(vault, clean, {
        sessionId, task: task ?? '', lessons: learnings.map((l) => l.title),
        now: new Date().toISOString(), modelAnswer: modelEpisode, summary: sessionSummary,
      });
      result.episode_note = note.summary;
      if (note.warning) result.episode_note_warning = note.warning;
      if (note.summary.written) {
        const { classifyPath } = await import('../vault/scope.js');
        for (const rel of note.touched) {
          const abs = path.join(vault.root, ...rel.split('/'));
          reindexFiles.set(abs, { abs, path: rel, isGlobal: false, ...classifyPath(rel) });
        }
      }
    } catch (err) {
      result.episode_note_warning = `episode note not written: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  // The markdown is written: record it in the ledger before anything that could still go wrong.
  appendLedger(vault.root, {
    transcript: key, session_id: sessionId, format: t.format, messages: t.messages.length, hash: messagesHash(t.messages, t.messages.length),
    at: new Date().toISOString(), provider: source, written: result.written.map((w) => w.id),
  });
  if (reindexFiles.size > 0) {
    const { reindex } = await import('../lifecycle/vault-ops.js');
    result.index_warning = (await reindex(vault, [...reindexFiles.values()])) ?? null;
  }
  // Then the waiting episodes, this session's among them (extract.consolidate, off by default):
  // the same pipeline as `mem consolidate --episodes`, only when its threshold is met.
  if (vault.config.extract.consolidate && result.episodes) {
    try {
      const { consolidateEpisodes } = await import('../episodes/consolidate-episodes.js');
      const c = await consolidateEpisodes(vault, {
        scopes: opts.scopes, provider: opts.provider, client: opts.client, budget: opts.budget, dryRun: false, fallback: opts.fallback,
        today: opts.today, now: new Date().toISOString(), stage: opts.stage, llm: opts.llm, knownSecrets: opts.knownSecrets,
      });
      if (c.due) result.consolidation = { episodes: c.marked, written: c.written.map(({ file, id, title, episodes }) => ({ file, id, title, episodes })) };
      if (c.index_warning && !result.index_warning) result.index_warning = c.index_warning;
    } catch (err) {
      result.consolidation_warning = `episodes not consolidated: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return result;
}
