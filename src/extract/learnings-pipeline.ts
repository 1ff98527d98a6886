// Learnings from an input into memory files, the steps `mem extract` and the consolidation of
// episodes share: a model asked (or the offline heuristics, without one or when it fails) → its
// answer redacted → the quality gate → grouped per target file → the duplicate check against each
// file as it is under its lock → appended together (or only rendered, in a dry run).

import path from 'node:path';
import { createProvider, ProviderError, type ClientOptions, type LlmProvider, type ProviderConfig } from '../llm/provider.js';
import type { RedactionReport, SecretFinding } from '../secrets/redact.js';
import { appendTogether, renderNewEntry, type Append } from '../vault/edit.js';
import { parseMemoryFile, type ParsedFile } from '../vault/format.js';
import { readRegular } from '../vault/read.js';
import { describeFile, type Vault, type VaultFile } from '../vault/vault.js';
import { condense } from './condense.js';
import { DuplicateCheck, emptyCounts, gateContext, gateLearnings, type RejectReason } from './gate.js';
import type { Learning } from './learning.js';
import { askForLearnings, buildPrompt } from './prompt.js';
import { scopeByName, scopeChain, type ExtractionScopeName } from './scopes.js';
import type { TranscriptMessage } from './transcript.js';

/** How the learnings are found and written, as the command was asked. */
export interface LearningsOptions {
  provider: ProviderConfig;
  client: ClientOptions;
  /** Characters of condensed messages sent to the model. */
  budget: number;
  dryRun: boolean;
  /** On a provider failure, fall back to the heuristics (and say so) instead of failing. */
  fallback: boolean;
  today: string;
  /** The project's current stage (phase of new entries when the model gives none). */
  stage?: string;
  /** For tests: a provider instance instead of one built from `provider`. */
  llm?: LlmProvider;
}

/** What the learnings are drawn from; `L` is the feature's learning (consolidation links each to its episodes). */
export interface LearningsInput<L extends Learning> {
  /** The scopes to extract, each with a target file. */
  scopes: ExtractionScopeName[];
  /** The messages condensed into the prompt; with none, nothing is asked. */
  messages: TranscriptMessage[];
  /** What the prompt says besides the messages; called only when a model is asked. */
  prompt(): { task?: string; intent?: string; known: string[] };
  /** The same request also asks for the session's outcome and decisions (its episode note). */
  episode?: boolean;
  /** A learning of the model's answer as the feature's own. */
  fromModel(l: Learning): L;
  /** The offline heuristics over the input, for these scopes. */
  heuristics(scopes: ExtractionScopeName[]): L[];
  /** What the gate checks against: the whole session (its instruction text and the human's words). */
  session: readonly TranscriptMessage[];
  /** Paths of the transcript file itself, which no learning may quote. */
  transcriptPaths?: string[];
  /** Credentials already taken out of the input, reported with the answer's. */
  findings: readonly SecretFinding[];
  /** Values that are credentials whatever their shape: redacted from the answer too. */
  knownSecrets?: string[];
}

/** Where a scope's learnings go: the file, its path as reported, the text a new file starts with. */
export interface LearningTarget {
  abs: string;
  path: string;
  preamble: string;
}

/** What an entry records of its origin besides its source and its scope's tag. */
export interface Provenance {
  session_id?: string;
  session_task?: string;
  /** Tags after the scope's. */
  tags?: string[];
  episodes?: string[];
}

/** Where and how the learnings are written. */
export interface LearningsOutput<L extends Learning> {
  target(scope: ExtractionScopeName): LearningTarget;
  provenance(l: L): Provenance;
  /** After the gate, the feature's own filter (it reports what it leaves out). */
  accept?(kept: L[]): Promise<L[]>;
  /**
   * Memory files read beside the targets for the duplicate check (the rest of the project's scope
   * chain): a learning one of them already holds is not written to another.
   */
  related?: { abs: string; path: string }[];
  /** Just before the files are written (never in a dry run): a last check that may stop it. */
  beforeWrite?(): void;
}

export interface LearningsReport<L extends Learning> {
  /** What wrote the entries: "heuristic", or provider:model. */
  source: string;
  /** Why the model could not be used, when the heuristics stood in. */
  fallback: string | null;
  usage: { input_tokens: number; output_tokens: number } | null;
  /** Learnings of the model's answer dropped as incomplete. */
  invalid: number;
  /** What else the model answered (the episode note's outcome and decisions), redacted. */
  episode: unknown;
  /** Scopes the heuristics cannot produce, when they ran. */
  skipped_scopes: { scope: string; reason: string }[];
  redacted?: RedactionReport;
  /** Learnings past the gate and the feature's filter (duplicates among them). */
  kept: L[];
  rejected: Record<RejectReason, number>;
  /** Each learning turned away, gate first, then duplicates. */
  rejections: { learning: L; reason: RejectReason; detail: string }[];
  /** Learnings memory already holds, with the file that holds them. */
  duplicates: { learning: L; file: string }[];
  /** Each entry written (or that a dry run would write). */
  written: { learning: L; file: string; id: string }[];
  /** The files appended to (none in a dry run). */
  touched: VaultFile[];
}

/** Scopes whose learnings belong to the work at hand (domain: task, retired with its stage); the rest are durable (team). */
const TASK_DOMAIN = new Set<ExtractionScopeName>(['session', 'team', 'in-flight', 'prospective']);

export async function runLearnings<L extends Learning>(vault: Vault, opts: LearningsOptions, input: LearningsInput<L>, output: LearningsOutput<L>): Promise<LearningsReport<L>> {
  const report: LearningsReport<L> = {
    source: '', fallback: null, usage: null, invalid: 0, episode: undefined, skipped_scopes: [], kept: [],
    rejected: emptyCounts(), rejections: [], duplicates: [], written: [], touched: [],
  };
  const scopes = input.scopes;
  const heuristics = (): L[] => {
    for (const s of scopes) if (!scopeByName(s)!.heuristic) report.skipped_scopes.push({ scope: s, reason: 'needs a language model (the heuristics find only explicit signals)' });
    return input.heuristics(scopes);
  };
  let learnings: L[] = [];
  let episode: unknown;
  if (scopes.length > 0 && input.messages.length > 0) {
    if (opts.provider.name === 'heuristic') learnings = heuristics();
    else {
      try {
        const llm = opts.llm ?? (await createProvider(opts.provider, opts.client));
        const context = input.prompt();
        const v = await askForLearnings(llm, opts.provider, buildPrompt(condense(input.messages, opts.budget).text, scopes, context), scopes, { episode: input.episode });
        report.usage = v.usage;
        report.invalid = v.dropped;
        episode = v.episode;
        learnings = v.learnings.map((l) => input.fromModel(l));
      } catch (err) {
        if (!(err instanceof ProviderError) || !opts.fallback) throw err;
        report.fallback = err.message;
        learnings = heuristics();
      }
    }
  }

  // What the model answered is redacted too: it may quote the prompt's text (INTENT.md, an
  // existing title) or make up a value in a credential's shape.
  const { redactDeep, redactionReport } = await import('../secrets/redact.js');
  const answer = await redactDeep({ learnings, episode }, input.knownSecrets);
  learnings = answer.value.learnings;
  report.episode = answer.value.episode;
  const redacted = redactionReport([...input.findings, ...answer.findings]);
  if (redacted) report.redacted = redacted;

  // The quality gate, for every provider alike; duplicates are checked below, against the target
  // file as it is under its lock.
  const reject = (learning: L, r: { reason: RejectReason; detail: string }) => {
    report.rejected[r.reason]++;
    report.rejections.push({ learning, reason: r.reason, detail: r.detail });
  };
  const gated = gateLearnings(learnings, gateContext(input.session, input.transcriptPaths));
  for (const r of gated.rejected) reject(r.learning, r);
  learnings = gated.kept;
  if (output.accept) learnings = await output.accept(learnings);
  report.kept = learnings;

  report.source = opts.provider.name === 'heuristic' || report.fallback ? 'heuristic' : `${opts.provider.name}:${opts.provider.model}`;
  const targets = new Map<ExtractionScopeName, LearningTarget>();
  const byFile = new Map<string, { target: LearningTarget; items: L[] }>();
  for (const l of learnings) {
    const target = targets.get(l.scope) ?? output.target(l.scope);
    targets.set(l.scope, target);
    const slot = byFile.get(target.abs) ?? { target, items: [] };
    slot.items.push(l);
    byFile.set(target.abs, slot);
  }
  const slots = [...byFile.values()];
  const appends: Append[] = slots.map((s) => ({ abs: s.target.abs, path: s.target.path, preamble: s.target.preamble, texts: [], entryHeader: vault.config.format.entryHeader }));
  const render = (parsed: (ParsedFile | null)[]) => {
    // One check over every target and the related files: the same rule is not written twice,
    // whichever file holds it first.
    const known = new DuplicateCheck();
    slots.forEach((slot, i) => known.add(parsed[i]?.entries ?? [], slot.target.path));
    for (const r of output.related ?? []) {
      if (slots.some((s) => s.target.abs === r.abs)) continue;
      known.add(readEntries(r.abs, r.path), r.path);
    }
    slots.forEach((slot, i) => {
      for (const l of slot.items) {
        const dup = known.check(l, slot.target.path);
        if (dup) {
          // The file that already holds it (the target itself, or another file of the project).
          report.duplicates.push({ learning: l, file: dup.file ?? slot.target.path });
          reject(l, { reason: dup.reason, detail: `${slot.target.path} ${dup.detail}` });
          continue;
        }
        const p = output.provenance(l);
        const { id, text } = renderNewEntry({
          type: l.type, title: l.title, body: l.body, importance: l.importance, phase: l.phase ?? opts.stage ?? 'unknown', domain: TASK_DOMAIN.has(l.scope) ? 'task' : 'team', date: opts.today,
          extra: { session_id: p.session_id, session_task: p.session_task, source: report.source, tags: [l.scope, ...(p.tags ?? [])], episodes: p.episodes },
        });
        appends[i].texts.push(text);
        report.written.push({ learning: l, file: slot.target.path, id });
      }
    });
  };

  if (opts.dryRun) {
    render(slots.map((s) => {
      const text = readRegular(s.target.abs);
      return text === null ? null : parseMemoryFile(text, s.target.path);
    }));
    return report;
  }
  output.beforeWrite?.();
  const writtenPaths = await appendTogether(appends, render);
  report.touched = slots.filter((s) => writtenPaths.includes(s.target.path)).map((s) => describeFile(vault, s.target.abs));
  return report;
}

/** The entries of a memory file read only for comparison (none when it is missing, not a regular file, or unreadable). */
function readEntries(abs: string, display: string): ParsedFile['entries'] {
  const text = readRegular(abs);
  return text === null ? [] : parseMemoryFile(text, display).entries;
}

/** The project's other memory files of the scope chain, read for the duplicate check (a file that links out of the vault is left out). */
export function relatedFiles(vault: Vault, where: { job?: string; task?: string }): { abs: string; path: string }[] {
  const out: { abs: string; path: string }[] = [];
  for (const rel of scopeChain(where)) {
    try {
      out.push({ abs: describeFile(vault, path.join(vault.root, rel)).abs, path: rel });
    } catch {
      // a memory file that links out of the vault is never read
    }
  }
  return out;
}
