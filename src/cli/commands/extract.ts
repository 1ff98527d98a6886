// `mem extract`: turn an agent session's transcript into learnings in the right memory files,
// with a language model or with the offline heuristics: one transcript, a folder of them, or this
// project's recent sessions of Claude Code, Codex and Gemini CLI (`--recent`); `--hook` for agent hooks.

import path from 'node:path';
import { apiKeysIn } from '../../secrets/display.js';
import { urlForDisplay } from '../../secrets/rules.js';
import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import type { AgentName } from '../../extract/discover.js';
import type { ExtractResult } from '../../extract/pipeline.js';
import { parseScopeList, SCOPE_NAMES } from '../../extract/scopes.js';
import { vaultFor } from '../common.js';
import { commandCtx, parseIntOption, type Ctx } from '../io.js';
import { describeRedaction } from '../../secrets/redact.js';

interface ExtractOptions {
  format?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  scopes?: string;
  session?: string;
  job?: string;
  task?: string;
  budget?: string;
  timeout?: string;
  fallback?: boolean;
  dryRun?: boolean;
  force?: boolean;
  rollup?: boolean;
  hook?: string;
  recent?: boolean;
  agent?: string;
  since?: string;
  maxDepth?: string;
  explain?: boolean;
}

export function registerExtract(program: Command): void {
  program
    .command('extract')
    .description('turn agent session transcripts into learnings in the memory files')
    .argument('[transcript]', 'the transcript file ("-" reads stdin), or a folder of them (every .jsonl/.json in it and its subfolders); formats: Claude Code JSONL, Claude stream-json, Codex rollout JSONL, Gemini session JSON, a JSON array of {role, content}, text')
    .option('--recent', "this project's recent sessions of Claude Code, Codex and Gemini CLI, found where each agent keeps them")
    .option('--agent <list>', 'with --recent: only these agents, comma-separated: claude, codex, gemini (default: all three)')
    .option('--since <when>', 'with --recent: sessions changed since an age (12h, 7d, 2w) or a date (2026-11-01); default 7d')
    .option('--max-depth <n>', 'for a folder: how many levels of subfolders to read (default 6; 0: the folder only)')
    .option('--format <format>', 'force the transcript format: claude, stream-json, codex, gemini, messages, text')
    .option('--scopes <list>', `comma-separated extraction scopes, or "all" (default: project,corrective, or extract.scopes in config): ${SCOPE_NAMES.join(', ')}`)
    .option('--provider <name>', 'anthropic, openai (also any OpenAI-compatible server), claude-cli, codex-cli, gemini-cli (the agent\'s logged-in CLI) or heuristic (offline); default from MEM_PROVIDER, config, the API key present, or the first agent CLI on PATH (MEM_AGENT_CLI=0: never)')
    .option('--model <model>', 'model name (env MEM_MODEL; default claude-haiku-4-5 / gpt-4o-mini; haiku for claude-cli, flash for gemini-cli, codex\'s own for codex-cli)')
    .option('--base-url <url>', 'OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama (env OPENAI_BASE_URL)')
    .option('--session <id>', 'session id for the entries and the retrieval log (default: from the transcript; env MEM_SESSION)')
    .option('--job <name>', 'job folder for session-scope learnings (.mem/jobs/<job>/; default: the session id)')
    .option('--task <name>', 'task folder for team-scope learnings (.mem/jobs/<job>/tasks/<task>/)')
    .option('--budget <chars>', 'characters of condensed transcript sent to the model (default 24000)')
    .option('--timeout <ms>', 'per-request timeout for the model (default 60000)')
    .option('--no-fallback', 'fail when the model cannot be used, instead of falling back to the heuristics')
    .option('--rollup', 'afterwards, promote learnings that recur across jobs/sessions (team → session → project → global)')
    .option('--dry-run', 'show what would be written, write nothing')
    .option('--explain', 'list each learning the quality gate turned away, with its reason (--json always has them: rejected, rejected_learnings)')
    .option('--force', 'read the whole transcript again, even the part extracted before, e.g. with a model after an offline run (duplicates are still skipped)')
    .option('--hook <agent>', 'hook mode for claude, codex or gemini: read the hook payload, extract in the background, never fail the agent')
    .addHelpText('after', `
Scopes and where they write: project, corrective, prospective → MEMORY.md; observations,
interventions, intent-alignment → proxy.md; escalation → institutional.md; session, in-flight →
.mem/jobs/<job>/MEMORY.md; team → .mem/jobs/<job>/tasks/<task>/MEMORY.md; global → ~/MEMORY.md;
dispatch (handing work to sub-agents) → dispatch.md.
With no API key, mem runs the coding agent you are logged in to as the model: the first of
claude, codex, gemini on PATH (claude -p / codex exec / gemini -p, headless, no tools, no hooks),
which uses your subscription's quota; MEM_AGENT_CLI=0 or llm.agent_cli: false turns that off.
Without any model mem uses heuristics: explicit signals only ("remember …",
"always/never …", "don't …", corrections, interruptions, an error and the fix that worked, a lint
rule the code was changed to pass). A rule that says "it" names what "it" is, or is not kept:
"Can we rewrite the ADR …? Also don't give it a number" → "Don't give the ADR a number".
Credentials in the session (tokens, keys, passwords in URLs) are redacted before the heuristics
or the model read it, and the answer again before writing: [redacted: github-token].

Every learning, the heuristics' and a model's alike, passes a quality gate; rejected ones are
counted by reason (--json: "rejected", "rejected_learnings"; --explain lists them):
  tool-mechanics    the agent's tool protocol: an edit's text not found, a patch that did not apply,
                    a sandbox or approval refusal, a tool-use error, a raw tool-call JSON blob
  transcript-path   quotes the transcript file's own path
  instruction-text  copied from an instruction file or harness text (AGENTS.md, system reminders)
  fragment          not a whole sentence: too few words, a verb without an object, cut at either end
  no-subject        names no command, file, tool, service or thing (only pronouns and vague words)
  duplicate         what memory already says, in the target or another file of the project
                    (MEMORY.md, institutional.md, proxy.md, the job's): the measure compaction
                    merges on, or the same rule in other words

A re-run on the same transcript writes nothing; a resumed session extracts only what is new
(.mem/extracted.jsonl). New entries are compacted with their file, the session's retrieved
entries are reinforced when the session shows they were used after they were retrieved
(weakened otherwise) and get an FSRS review (rated by the model when one is configured), each
once per session however often it is extracted (.mem/sessions/<ID>/judged.jsonl), and the index is refreshed. With a model, the
episodes' titles and summaries are the model's (one more request).

--recent looks for the sessions of this project (the vault root, or a folder inside it), oldest
first, changed in the last 7 days unless --since says otherwise:
  Claude Code  $CLAUDE_CONFIG_DIR/projects/<project path, every non-alphanumeric as ->/*.jsonl (default ~/.claude)
  Codex        $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl and archived_sessions/ whose first record's cwd is in the project (default ~/.codex)
  Gemini CLI   ~/.gemini/tmp/<sha256 of the path, or its short name in projects.json>/chats/session-*.json ($GEMINI_CLI_HOME/.gemini if set)
Sessions extracted before cost only a read; a summary line tells what was found and written.

Examples:
  $ mem extract --recent                              # this project's sessions of the last 7 days, every agent
  $ mem extract --recent --agent claude --since 2w
  $ mem extract --recent --agent codex,gemini --since 2026-11-01 --dry-run
  $ mem extract --recent --json | jq '.found'
  $ mem extract ~/.claude/projects/-home-me-app/3f0c2a4e.jsonl
  $ mem extract ~/.claude/projects/-home-me-app/3f0c2a4e.jsonl --session 3f0c2a4e --json | jq '.judged'
  $ mem extract ~/.claude/projects/-home-me-app/        # every session in the folder not extracted yet
  $ mem extract ~/.codex/sessions                       # walks YYYY/MM/DD (up to 6 levels)
  $ mem extract ~/.codex/sessions/2026/11 --max-depth 1
  $ mem extract session.jsonl --dry-run --json | jq '.written'
  $ mem extract session.jsonl --dry-run --explain       # and why the others were turned away
  $ mem extract --recent --json | jq '.summary.rejected'
  $ mem extract rollout.jsonl --scopes all --job auth-rewrite --task login-form
  $ ANTHROPIC_API_KEY=… mem extract session.jsonl --model claude-haiku-4-5
  $ mem extract chat.md --provider openai --base-url http://localhost:11434/v1 --model llama3.1
  $ mem extract session.jsonl --provider claude-cli     # Claude Code's login, no API key (claude -p --model haiku)
  $ MEM_AGENT_CLI=0 mem extract session.jsonl           # never run an agent CLI: the offline heuristics
  $ cat transcript.txt | mem extract - --format text

Hooks (the agent is never blocked: the work continues in the background, errors go to
.mem/logs/extract.log). \`mem hooks install --claude | --codex | --gemini\` writes them for you:
  Claude Code settings.json: {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "mem extract --hook claude"}]}]}}
  Codex config.toml:         notify = ["mem", "extract", "--hook", "codex"]
  Gemini CLI settings.json:  {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "mem extract --hook gemini"}]}]}}`)
    .action(async (transcript: string | undefined, opts: ExtractOptions, command: Command) => {
      const ctx = commandCtx(command);
      if (opts.hook !== undefined) await hookCommand(ctx, opts.hook, transcript);
      else await extractCommand(ctx, transcript, opts);
    });
}

/** The flags that choose what to read, checked before anything is opened. */
function checkSelection(file: string | undefined, opts: ExtractOptions): void {
  if (opts.recent) {
    if (file !== undefined) throw usageError('--recent finds the sessions itself; it takes no transcript', 'mem extract --recent, or mem extract FILE');
    if (opts.session !== undefined) throw usageError('--session names one session; --recent finds many', 'drop --session, or extract one file');
    if (opts.maxDepth !== undefined) throw usageError('--max-depth is for a folder; --recent knows where each agent keeps its sessions');
  } else {
    if (opts.agent !== undefined || opts.since !== undefined) throw usageError(`${opts.agent !== undefined ? '--agent' : '--since'} goes with --recent`, 'mem extract --recent --agent claude --since 7d');
    if (!file) throw usageError('which transcript?', 'mem extract SESSION.jsonl (or "-" for stdin), a folder of them, or --recent; mem extract --help lists the formats');
  }
}

interface Item {
  file: string;
  agent?: AgentName;
}

interface ManyOutcome {
  results: (ExtractResult & { agent?: AgentName })[];
  failed: { transcript: string; agent?: AgentName; error: string }[];
}

/**
 * One line on a terminal, rewritten per transcript: only on a TTY, not with --quiet or --json,
 * and only when there are several; cleared before anything else is printed.
 */
function progressLine(ctx: Ctx, total: number): { show(i: number, label: string): void; clear(): void } {
  const on = total > 1 && !ctx.quiet && !ctx.json && ctx.stderrTTY;
  let shown = false;
  return {
    show(i, label) {
      if (!on) return;
      const text = `extracting ${i + 1}/${total}  ${label}`;
      // Cut to the terminal's width: a wrapped line could not be rewritten in place.
      const width = (ctx.io.stderrColumns || 80) - 1;
      ctx.io.stderr(`\r\x1b[K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      shown = true;
    },
    clear() {
      if (shown) ctx.io.stderr('\r\x1b[K');
      shown = false;
    },
  };
}

/** Extract each transcript in turn; one that cannot be read is reported and skipped, a usage error stops all. */
async function extractMany(ctx: Ctx, items: Item[], run: (file: string) => Promise<ExtractResult>, quietUpToDate: boolean, explain: boolean): Promise<ManyOutcome> {
  const out: ManyOutcome = { results: [], failed: [] };
  const progress = progressLine(ctx, items.length);
  for (const [i, it] of items.entries()) {
    progress.show(i, `${it.agent ? `${it.agent}  ` : ''}${path.basename(it.file)}`);
    try {
      const r = await run(it.file);
      progress.clear();
      out.results.push(it.agent ? { agent: it.agent, ...r } : r);
      warnAbout(ctx, r);
      if (!ctx.json && !(quietUpToDate && r.up_to_date)) report(ctx, r, explain, true);
    } catch (err) {
      progress.clear();
      if (!(err instanceof MemError) || err.exitCode === 2) throw err;
      out.failed.push({ transcript: it.file, ...(it.agent ? { agent: it.agent } : {}), error: err.message });
      ctx.warn(`${err.message} (${path.relative(ctx.cwd, it.file) || it.file}); skipped`);
    }
  }
  progress.clear();
  return out;
}

function summaryOf(o: ManyOutcome, reasons: readonly string[]): { transcripts: number; extracted: number; up_to_date: number; failed: number; written: number; rejected: Record<string, number> } {
  const upToDate = o.results.filter((r) => r.up_to_date).length;
  const rejected: Record<string, number> = Object.fromEntries(reasons.map((k) => [k, 0]));
  for (const r of o.results) for (const [k, n] of Object.entries(r.rejected)) rejected[k] = (rejected[k] ?? 0) + n;
  return {
    transcripts: o.results.length + o.failed.length,
    extracted: o.results.length - upToDate,
    up_to_date: upToDate,
    failed: o.failed.length,
    written: o.results.reduce((n, r) => n + r.written.length, 0),
    rejected,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "; rejected 3 (fragment 2, duplicate 1)", or nothing when the gate turned nothing away. */
function rejectedNote(counts: Record<string, number>): string {
  const parts = Object.entries(counts).filter(([, n]) => n > 0);
  const total = parts.reduce((s, [, n]) => s + n, 0);
  return total ? `; rejected ${total} (${parts.map(([k, n]) => `${k} ${n}`).join(', ')})` : '';
}

async function extractCommand(ctx: Ctx, file: string | undefined, opts: ExtractOptions): Promise<void> {
  checkSelection(file, opts);
  const budget = parseIntOption('--budget', opts.budget, 1000);
  const timeout = parseIntOption('--timeout', opts.timeout, 1);
  const maxDepth = parseIntOption('--max-depth', opts.maxDepth, 0);
  const discover = await import('../../extract/discover.js');
  const agents = opts.recent ? discover.parseAgents(opts.agent) : [];
  const sinceText = opts.since ?? discover.DEFAULT_SINCE;
  const since = opts.recent ? discover.parseSince(sinceText, ctx.now()) : 0;
  const { checkFormat, loadTranscript } = await import('../../extract/source.js');
  const format = checkFormat(opts.format);
  const vault = await vaultFor(ctx);
  const scopes = parseScopeList(opts.scopes ?? vault.config.extract.scopes.join(','));
  const fromConfig = vault.config.llm;
  const provider = (await import('../../llm/provider.js')).providerFromFlags(opts, fromConfig, ctx.env);
  const sessionId = opts.session ?? ctx.env.MEM_SESSION;
  if (sessionId !== undefined) (await import('../../extract/session-id.js')).checkSessionId(sessionId);
  const { readCurrentStage } = await import('../../lifecycle/stage.js');
  const { runExtract } = await import('../../extract/pipeline.js');
  const { REJECT_REASONS } = await import('../../extract/gate.js');
  const announce = () => {
    if (provider.name !== 'heuristic' && ctx.stderrTTY && !ctx.quiet && !ctx.json) ctx.info(`asking ${provider.name} (${provider.model}${provider.baseUrl ? ` at ${urlForDisplay(provider.baseUrl)}` : ''})…`);
  };
  const { oneExtractionAtATime } = await import('../../extract/ledger.js');
  const runOne = (one: string) =>
    runExtract(vault, loadTranscript(one, { format, cwd: ctx.cwd, stdin: ctx.readStdin }), {
      scopes, provider, budget: budget ?? vault.config.extract.budgetChars,
      client: { timeoutMs: timeout ?? fromConfig.timeoutMs, maxRetries: fromConfig.maxRetries, env: ctx.env },
      sessionId: opts.recent ? undefined : sessionId, job: opts.job, task: opts.task, dryRun: Boolean(opts.dryRun), force: Boolean(opts.force), fallback: opts.fallback !== false,
      today: ctx.today(), now: ctx.now(), stage: readCurrentStage(vault.root) ?? undefined, knownSecrets: apiKeysIn(ctx.env),
    });
  // Hooks fire several extractions of one session: they take turns (the transcript is read after the turn begins).
  const run = (one: string) => (one === '-' || opts.dryRun ? runOne(one) : oneExtractionAtATime(vault.root, path.resolve(ctx.cwd, one), () => runOne(one)));
  const heuristicNote = (o: ManyOutcome) => {
    // Only when no model was set up: after a fallback the warning says what went wrong with the one that was.
    if (!ctx.json && o.results.some((r) => !r.up_to_date && r.provider.name === 'heuristic' && !r.fallback)) {
      ctx.info('note: the heuristics catch only explicit signals; a language model finds much more. Set ANTHROPIC_API_KEY (or OPENAI_API_KEY, or OPENAI_BASE_URL for a local server such as Ollama), log in to claude, codex or gemini (mem runs its CLI as the model), or pass --provider.');
    }
  };

  const listing = !opts.recent && file !== '-' ? discover.transcriptsIn(path.resolve(ctx.cwd, file!), maxDepth ?? discover.DEFAULT_MAX_DEPTH) : null;
  if (opts.recent) {
    const found = discover.discoverSessions(vault.root, { agents, since, env: ctx.env });
    const perAgent = Object.fromEntries(agents.map((a) => [a, found.sessions.filter((s) => s.agent === a).length])) as Record<AgentName, number>;
    for (const s of found.skipped) ctx.warn(`skipped ${s}: not a regular file`);
    const sinceIso = new Date(since).toISOString();
    if (found.sessions.length > 0) announce();
    const o = await extractMany(ctx, found.sessions.map((s) => ({ file: s.file, agent: s.agent })), run, true, Boolean(opts.explain));
    const summary = summaryOf(o, REJECT_REASONS);
    if (ctx.json) {
      ctx.out(JSON.stringify({
        recent: { root: vault.root, since: sinceIso, agents }, searched: found.searched, found: perAgent,
        transcripts: o.results, failed: o.failed, not_regular: found.skipped, summary, ...(await rollup(ctx, opts)),
      }, null, 2));
    } else if (found.sessions.length === 0) {
      const where = agents.map((a) => `${a}: ${(found.searched[a] ?? []).join(', ')}`).join('; ');
      ctx.info(`no ${agents.join(', ')} sessions of ${vault.root} changed since ${sinceIso.slice(0, 16).replace('T', ' ')} UTC (--since ${sinceText}); looked in ${where}`);
    } else {
      const counts = agents.map((a) => `${a} ${perAgent[a]}`).join(', ');
      ctx.info(`${plural(found.sessions.length, 'session')} found (${counts}): ${summary.extracted} extracted, ${summary.up_to_date} up to date, ${summary.failed} failed; ${opts.dryRun ? 'would write' : 'wrote'} ${plural(summary.written, 'learning')}${rejectedNote(summary.rejected)}`);
      heuristicNote(o);
    }
    if (o.failed.length > 0) ctx.setExitCode(1);
  } else if (listing) {
    // A folder (e.g. ~/.claude/projects/<project>/, ~/.codex/sessions/): every session in it and
    // below, oldest first; the ledger makes the ones extracted before cost only a read.
    if (sessionId) throw usageError('--session names one session; a folder holds many', 'drop --session, or extract one file');
    for (const s of listing.skipped) ctx.warn(`skipped ${s}: not a regular file`);
    announce();
    const o = await extractMany(ctx, listing.files.map((f) => ({ file: f })), run, false, Boolean(opts.explain));
    const summary = summaryOf(o, REJECT_REASONS);
    if (ctx.json) ctx.out(JSON.stringify({ folder: file, transcripts: o.results, failed: o.failed, not_regular: listing.skipped, summary, ...(await rollup(ctx, opts)) }, null, 2));
    else ctx.info(`${opts.dryRun ? 'dry run: would write' : 'wrote'} ${plural(summary.written, 'learning')} from ${plural(o.results.length, 'transcript')} in ${file}${rejectedNote(summary.rejected)}${o.failed.length ? `; ${o.failed.length} could not be read` : ''}`);
    if (o.failed.length > 0) ctx.setExitCode(1);
    heuristicNote(o);
  } else {
    if (opts.maxDepth !== undefined) throw usageError('--max-depth is for a folder of transcripts');
    announce();
    const r = await run(file!);
    warnAbout(ctx, r);
    if (ctx.json) ctx.out(JSON.stringify({ ...r, ...(await rollup(ctx, opts)) }, null, 2));
    else report(ctx, r, Boolean(opts.explain));
  }
  if (!ctx.json) await rollup(ctx, opts);
}

/**
 * --rollup: `mem promote --global` after the extraction. With --json its report joins the
 * extraction's object (as `rollup`), so stdout stays one JSON document.
 */
async function rollup(ctx: Ctx, opts: ExtractOptions): Promise<{ rollup?: unknown }> {
  if (!opts.rollup || opts.dryRun) return {};
  const { promoteCommand } = await import('./promote.js');
  if (!ctx.json) {
    await promoteCommand(ctx, { global: true });
    return {};
  }
  let captured = '';
  await promoteCommand({ ...ctx, out: (text) => void (captured += text) }, { global: true });
  return { rollup: JSON.parse(captured) };
}

/** What the user must hear about a run even with --json (on stderr): the entries are written, but … */
function warnAbout(ctx: Ctx, r: ExtractResult): void {
  if (r.session_id_from_transcript !== null) ctx.warn(`the session id in ${r.transcript} ("${r.session_id_from_transcript}") cannot name a folder; used ${r.session_id} instead`);
  if (r.index_warning) ctx.warn(r.index_warning);
  if (r.episodes_warning) ctx.warn(r.episodes_warning);
  if (r.episode_note_warning) ctx.warn(r.episode_note_warning);
  if (r.review_warning) ctx.warn(r.review_warning);
  if (r.consolidation_warning) ctx.warn(r.consolidation_warning);
  if (r.redacted) ctx.warn(describeRedaction(r.redacted));
}

function report(ctx: Ctx, r: ExtractResult, explain: boolean, inFolder = false): void {
  if (ctx.json) {
    ctx.out(JSON.stringify(r, null, 2));
    return;
  }
  if (r.up_to_date) {
    ctx.info(`nothing new in ${r.transcript}: its ${r.messages.total} messages were extracted before (.mem/extracted.jsonl)`);
    return;
  }
  const via = r.fallback ? 'heuristic (fallback)' : r.provider.name === 'heuristic' ? 'heuristic' : `${r.provider.name} (${r.provider.model})`;
  const part = r.messages.from > 0 ? `${r.messages.new} new of ${r.messages.total} messages` : `${r.messages.total} messages`;
  for (const w of r.written) ctx.out(`${r.dry_run ? 'would add' : 'added'}  ${w.file}  ${w.id}  ${w.type}: ${w.title}`);
  if (explain) for (const x of r.rejected_learnings) ctx.out(`rejected   ${x.reason} (${x.detail})  ${x.scope}: ${x.title}`);
  else for (const d of r.duplicates) ctx.out(`skipped    ${d.file} already has it  ${d.title}`);
  for (const n of r.not_global) ctx.out(`skipped    not global (${n.reason})  ${n.title}`);
  if (r.fallback) ctx.warn(`${r.fallback}; used the offline heuristics instead`);
  for (const s of r.skipped_scopes) ctx.warn(`scope ${s.scope} skipped: ${s.reason}`);
  if (r.invalid_learnings > 0) ctx.warn(`${r.invalid_learnings} learning(s) in the model's answer were incomplete and dropped`);
  if (r.cut_lines > 0) ctx.info(`read ${r.transcript}: ${r.cut_lines} line${r.cut_lines === 1 ? '' : 's'} over 1 MB read with their long texts cut (each message keeps its first 8,000 characters)`);
  if (r.broken_lines > 0) ctx.info(`read ${r.transcript} as ${r.format}: ${r.skipped_records} records of other types skipped, ${r.broken_lines} broken lines skipped`);
  const n = r.written.length;
  const tokens = r.usage ? `; ${r.usage.input_tokens} input + ${r.usage.output_tokens} output tokens` : '';
  ctx.info(`${r.dry_run ? 'dry run: would write' : 'wrote'} ${n} learning${n === 1 ? '' : 's'} from ${part} of ${r.transcript} with ${via}${tokens}${rejectedNote(r.rejected)}${r.compacted ? `; compaction removed ${r.compacted}` : ''}${r.reinforced ? `; reinforced ${r.reinforced}` : ''}`);
  if (r.episodes?.written) ctx.info(`segmented the session into ${r.episodes.count} episode${r.episodes.count === 1 ? '' : 's'} → ${r.episodes.path}`);
  if (r.episode_note?.written) ctx.info(`episode note (${r.episode_note.outcome}) → ${r.episode_note.path}`);
  if (r.consolidation) ctx.info(`consolidated ${r.consolidation.episodes.length} episode${r.consolidation.episodes.length === 1 ? '' : 's'} into ${r.consolidation.written.length} learning${r.consolidation.written.length === 1 ? '' : 's'}`);
  if (!explain && !inFolder && r.rejected_learnings.some((x) => x.reason !== 'duplicate')) ctx.info('  (--explain lists the rejected learnings and why)');
  if (r.provider.name === 'heuristic' && !r.fallback && !inFolder) {
    ctx.info('note: the heuristics catch only explicit signals; a language model finds much more. Set ANTHROPIC_API_KEY (or OPENAI_API_KEY, or OPENAI_BASE_URL for a local server such as Ollama), log in to claude, codex or gemini (mem runs its CLI as the model), or pass --provider.');
  }
}

// ---- hook mode ----

/**
 * Hook mode (Claude SessionEnd/PreCompact, Codex notify/PreCompact, Gemini SessionEnd/PreCompress):
 * answer the agent at once (exit 0, nothing on stdout) and extract in a detached process whose
 * output goes to .mem/logs/extract.log. Outside a mem vault it does nothing; any problem is
 * logged there, never raised.
 */
async function hookCommand(ctx: Ctx, agentName: string, arg: string | undefined): Promise<void> {
  const hook = await import('../../integrations/agent-hook.js');
  await hook.runHook({ agentName, cwd: ctx.cwd, env: ctx.env, root: ctx.root ?? ctx.env.MEM_ROOT, arg, logName: 'extract.log', what: 'hook' }, async ({ agent, payload: p, root }) => {
    // Codex's notify names only the thread: its rollout is $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl.
    const transcript = p.transcript ?? (agent === 'codex' && p.sessionId ? (await import('../../extract/discover.js')).codexRolloutFor(p.sessionId, ctx.env) : undefined);
    if (!transcript) throw new MemError(`the ${agent} hook payload names no transcript${p.sessionId ? ` (session ${printableId(p.sessionId)})` : ''}`);
    // The agent's own format: a payload naming some other file (a text file, a secret) reads as
    // no messages, and nothing of it reaches a model, the episodes or the log.
    const args = ['extract', transcript, '--root', root, '--format', agent];
    // Made valid here as the extraction would make the transcript's own id (same name both ways).
    const { usableSessionId } = await import('../../extract/session-id.js');
    const session = usableSessionId(p.sessionId);
    if (session) args.push('--session', session);
    hook.detachMem(root, args, 'extract.log', `${agent} hook${p.event ? ` (${p.event})` : ''}: extracting ${transcript}`);
  });
  // A hook never fails its agent, whatever the work asked for.
  ctx.setExitCode(0);
}

function printableId(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id).slice(1, -1);
}
