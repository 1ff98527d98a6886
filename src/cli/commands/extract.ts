// `mem extract`: turn an agent session's transcript into learnings in the right memory files,
// with a language model or with the offline heuristics; `--hook claude|codex` for agent hooks.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import type { ExtractResult } from '../../extract/run.js';
import { SCOPE_NAMES, type ExtractionScopeName } from '../../extract/scopes.js';
import { globals, vaultFor } from '../common.js';
import { makeCtx, parseIntOption, readStdin, today, type Ctx } from '../io.js';

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
}

export function registerExtract(program: Command): void {
  program
    .command('extract')
    .description('turn an agent session transcript into learnings in the memory files')
    .argument('[transcript]', 'the transcript file ("-" reads stdin), or a folder of them (every .jsonl/.json in it); formats: Claude Code JSONL, Claude stream-json, Codex rollout JSONL, Gemini session JSON, a JSON array of {role, content}, text')
    .option('--format <format>', 'force the transcript format: claude, stream-json, codex, gemini, messages, text')
    .option('--scopes <list>', `comma-separated extraction scopes, or "all" (default: project,corrective, or extract.scopes in config): ${SCOPE_NAMES.join(', ')}`)
    .option('--provider <name>', 'anthropic, openai (also any OpenAI-compatible server) or heuristic (offline); default from MEM_PROVIDER, config, or the API key present')
    .option('--model <model>', 'model name (env MEM_MODEL; default claude-haiku-4-5 / gpt-4o-mini)')
    .option('--base-url <url>', 'OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama (env OPENAI_BASE_URL)')
    .option('--session <id>', 'session id for the entries and the retrieval log (default: from the transcript; env MEM_SESSION)')
    .option('--job <name>', 'job folder for session-scope learnings (.mem/jobs/<job>/; default: the session id)')
    .option('--task <name>', 'task folder for team-scope learnings (.mem/jobs/<job>/tasks/<task>/)')
    .option('--budget <chars>', 'characters of condensed transcript sent to the model (default 24000)')
    .option('--timeout <ms>', 'per-request timeout for the model (default 60000)')
    .option('--no-fallback', 'fail when the model cannot be used, instead of falling back to the heuristics')
    .option('--rollup', 'afterwards, promote learnings that recur across jobs/sessions (team → session → project → global)')
    .option('--dry-run', 'show what would be written, write nothing')
    .option('--force', 'read the whole transcript again, even the part extracted before, e.g. with a model after an offline run (duplicates are still skipped)')
    .option('--hook <agent>', 'hook mode for claude, codex or gemini: read the hook payload, extract in the background, never fail the agent')
    .addHelpText('after', `
Scopes and where they write: project, corrective, prospective → MEMORY.md; observations,
interventions, intent-alignment → proxy.md; escalation → institutional.md; session, in-flight →
.mem/jobs/<job>/MEMORY.md; team → .mem/jobs/<job>/tasks/<task>/MEMORY.md; global → ~/MEMORY.md.
Without a model (no API key) mem uses heuristics: explicit signals only ("remember …",
"always/never …", "don't …", corrections, interruptions, an error and the fix that worked).

A re-run on the same transcript writes nothing; a resumed session extracts only what is new
(.mem/extracted.jsonl). New entries are compacted with their file, the session's retrieved
entries are reinforced when the transcript shows they were used, and the index is refreshed.

Examples:
  $ mem extract ~/.claude/projects/-home-me-app/3f0c2a4e.jsonl
  $ mem extract ~/.claude/projects/-home-me-app/        # every session in the folder not extracted yet
  $ mem extract session.jsonl --dry-run --json | jq '.written'
  $ mem extract rollout.jsonl --scopes all --job auth-rewrite --task login-form
  $ ANTHROPIC_API_KEY=… mem extract session.jsonl --model claude-haiku-4-5
  $ mem extract chat.md --provider openai --base-url http://localhost:11434/v1 --model llama3.1
  $ cat transcript.txt | mem extract - --format text

Hooks (the agent is never blocked: the work continues in the background, errors go to
.mem/logs/extract.log):
  Claude Code settings.json: {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "mem extract --hook claude"}]}]}}
  Codex config.toml:         notify = ["mem", "extract", "--hook", "codex"]`)
    .action(async (transcript: string | undefined, opts: ExtractOptions, command: Command) => {
      const ctx = makeCtx(globals(command));
      if (opts.hook !== undefined) await hookCommand(ctx, opts.hook, transcript);
      else await extractCommand(ctx, transcript, opts);
    });
}

function parseScopes(v: string | undefined, dflt: string[]): ExtractionScopeName[] {
  const list = v === undefined ? dflt : v.trim() === 'all' ? [...SCOPE_NAMES] : v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (list.length === 0) throw usageError('--scopes is empty', `use "all" or some of: ${SCOPE_NAMES.join(', ')}`);
  for (const s of list) if (!(SCOPE_NAMES as readonly string[]).includes(s)) throw usageError(`unknown extraction scope "${s}"`, `use "all" or some of: ${SCOPE_NAMES.join(', ')}`);
  return [...new Set(list)] as ExtractionScopeName[];
}

async function extractCommand(ctx: Ctx, file: string | undefined, opts: ExtractOptions): Promise<void> {
  if (!file) throw usageError('which transcript?', 'mem extract SESSION.jsonl (or "-" for stdin); mem extract --help lists the formats');
  const budget = parseIntOption('--budget', opts.budget, 1000);
  const timeout = parseIntOption('--timeout', opts.timeout, 1);
  const { checkFormat, loadTranscript, specialKind } = await import('../../extract/source.js');
  const format = checkFormat(opts.format);
  const vault = await vaultFor(ctx);
  const scopes = parseScopes(opts.scopes, vault.config.extract.scopes);
  const { resolveProviderConfig } = await import('../../llm/provider.js');
  const fromConfig = vault.config.llm;
  const provider = resolveProviderConfig(process.env, {
    provider: opts.provider ?? fromConfig.provider,
    providerSource: opts.provider ? '--provider' : '.mem/config.yaml',
    model: opts.model,
    baseUrl: opts.baseUrl,
    configModel: fromConfig.model,
    configBaseUrl: fromConfig.baseUrl,
  });
  const sessionId = opts.session ?? process.env.MEM_SESSION;
  if (sessionId !== undefined) (await import('../../extract/session-id.js')).checkSessionId(sessionId);
  const { readCurrentStage } = await import('../../lifecycle/stage.js');
  const { runExtract } = await import('../../extract/run.js');
  if (provider.name !== 'heuristic' && ctx.stderrTTY && !ctx.quiet && !ctx.json) ctx.info(`asking ${provider.name} (${provider.model}${provider.baseUrl ? ` at ${provider.baseUrl}` : ''})…`);
  const run = (one: string) =>
    runExtract(vault, loadTranscript(one, { format, cwd: ctx.cwd, stdin: readStdin }), {
      scopes, provider, budget: budget ?? vault.config.extract.budgetChars,
      client: { timeoutMs: timeout ?? fromConfig.timeoutMs, maxRetries: fromConfig.maxRetries },
      sessionId, job: opts.job, task: opts.task, dryRun: Boolean(opts.dryRun), force: Boolean(opts.force), fallback: opts.fallback !== false,
      today: today(), stage: readCurrentStage(vault.root) ?? undefined,
    });
  const listing = file !== '-' ? transcriptsIn(path.resolve(ctx.cwd, file), specialKind) : null;
  if (listing) {
    const dir = listing.files;
    for (const s of listing.skipped) ctx.warn(`skipped ${s}: not a regular file`);
    // A folder (e.g. ~/.claude/projects/<project>/): every session in it, oldest first; the
    // ledger makes the ones extracted before cost only a read.
    if (sessionId) throw usageError('--session names one session; a folder holds many', 'drop --session, or extract one file');
    const results: ExtractResult[] = [];
    const failed: { transcript: string; error: string }[] = [];
    for (const one of dir) {
      try {
        const r = await run(one);
        results.push(r);
        warnAbout(ctx, r);
        if (!ctx.json) report(ctx, r, true);
      } catch (err) {
        if (!(err instanceof MemError) || err.exitCode === 2) throw err;
        failed.push({ transcript: one, error: err.message });
        ctx.warn(`${err.message} (${path.relative(ctx.cwd, one) || one}); skipped`);
      }
    }
    const written = results.reduce((n, r) => n + r.written.length, 0);
    if (ctx.json) ctx.out(JSON.stringify({ folder: file, transcripts: results, failed, not_regular: listing.skipped, ...(await rollup(ctx, opts)) }, null, 2));
    else ctx.info(`${opts.dryRun ? 'dry run: would write' : 'wrote'} ${written} learning${written === 1 ? '' : 's'} from ${results.length} transcript${results.length === 1 ? '' : 's'} in ${file}${failed.length ? `; ${failed.length} could not be read` : ''}`);
    if (failed.length > 0) process.exitCode = 1;
    if (!ctx.json && results.some((r) => r.provider.name === 'heuristic' || r.fallback)) {
      ctx.info('note: the heuristics catch only explicit signals; a language model finds much more. Set ANTHROPIC_API_KEY (or OPENAI_API_KEY, or OPENAI_BASE_URL for a local server such as Ollama), or pass --provider.');
    }
  } else {
    const r = await run(file);
    warnAbout(ctx, r);
    if (ctx.json) ctx.out(JSON.stringify({ ...r, ...(await rollup(ctx, opts)) }, null, 2));
    else report(ctx, r);
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

/**
 * The transcripts of a folder (JSONL and JSON files directly in it, or links to such files;
 * oldest first), or null for a file. Other entries with those names (a FIFO, a socket, a
 * device, a link to one) are never opened: they are listed in `skipped` with what they are.
 */
function transcriptsIn(abs: string, specialKind: (st: fs.Stats) => string): { files: string[]; skipped: string[] } | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    return null;
  }
  if (!st.isDirectory()) return null;
  const found: { f: string; m: number }[] = [];
  const skipped: string[] = [];
  for (const d of fs.readdirSync(abs, { withFileTypes: true })) {
    if (!/\.jsonl?$/i.test(d.name)) continue;
    const f = path.join(abs, d.name);
    let one: fs.Stats;
    try {
      one = fs.statSync(f);
    } catch {
      continue; // gone, or a dangling link
    }
    if (one.isFile()) found.push({ f, m: one.mtimeMs });
    else skipped.push(`${d.name} (${specialKind(one)})`);
  }
  return { files: found.sort((a, b) => a.m - b.m || (a.f < b.f ? -1 : 1)).map((x) => x.f), skipped };
}

/** What the user must hear about a run even with --json (on stderr): the entries are written, but … */
function warnAbout(ctx: Ctx, r: ExtractResult): void {
  if (r.session_id_from_transcript !== null) ctx.warn(`the session id in ${r.transcript} ("${r.session_id_from_transcript}") cannot name a folder; used ${r.session_id} instead`);
  if (r.index_warning) ctx.warn(r.index_warning);
}

function report(ctx: Ctx, r: ExtractResult, inFolder = false): void {
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
  for (const d of r.duplicates) ctx.out(`skipped    ${d.file} already has it  ${d.title}`);
  for (const n of r.not_global) ctx.out(`skipped    not global (${n.reason})  ${n.title}`);
  if (r.fallback) ctx.warn(`${r.fallback}; used the offline heuristics instead`);
  for (const s of r.skipped_scopes) ctx.warn(`scope ${s.scope} skipped: ${s.reason}`);
  if (r.invalid_learnings > 0) ctx.warn(`${r.invalid_learnings} learning(s) in the model's answer were incomplete and dropped`);
  if (r.broken_lines > 0) ctx.info(`read ${r.transcript} as ${r.format}: ${r.skipped_records} records of other types skipped, ${r.broken_lines} broken lines skipped`);
  const n = r.written.length;
  const tokens = r.usage ? `; ${r.usage.input_tokens} input + ${r.usage.output_tokens} output tokens` : '';
  ctx.info(`${r.dry_run ? 'dry run: would write' : 'wrote'} ${n} learning${n === 1 ? '' : 's'} from ${part} of ${r.transcript} with ${via}${tokens}${r.compacted ? `; compaction removed ${r.compacted}` : ''}${r.reinforced ? `; reinforced ${r.reinforced}` : ''}`);
  if ((r.provider.name === 'heuristic' || r.fallback) && !inFolder) {
    ctx.info('note: the heuristics catch only explicit signals; a language model finds much more. Set ANTHROPIC_API_KEY (or OPENAI_API_KEY, or OPENAI_BASE_URL for a local server such as Ollama), or pass --provider.');
  }
}

// ---- hook mode ----

/** Codex rollouts live in $CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl. */
function findCodexRollout(threadId: string): string | undefined {
  const base = path.join(process.env.CODEX_HOME || path.join(os.homedir(), '.codex'), 'sessions');
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of list) {
      const p = path.join(dir, d.name);
      if (d.isDirectory() && depth < 4) walk(p, depth + 1);
      else if (d.isFile() && d.name.endsWith('.jsonl') && d.name.includes(threadId)) found.push(p);
    }
  };
  walk(base, 0);
  return found.sort().pop();
}

/**
 * Hook mode (Claude SessionEnd/PreCompact, Codex notify/PreCompact, Gemini SessionEnd/PreCompress):
 * answer the agent at once (exit 0, nothing on stdout) and extract in a detached process whose
 * output goes to .mem/logs/extract.log. Outside a mem vault it does nothing; any problem is
 * logged there, never raised.
 */
async function hookCommand(ctx: Ctx, agentName: string, arg: string | undefined): Promise<void> {
  process.exitCode = 0;
  const hook = await import('../../integrations/agent-hook.js');
  const { homeDir } = await import('../../vault/vault.js');
  const home = homeDir();
  const explicit = ctx.root ?? process.env.MEM_ROOT;
  // Until the payload says where the project is, errors go to the vault of the hook's own folder.
  let root: string | null = null;
  try {
    root = hook.findMemVault({ cwd: ctx.cwd, root: explicit, home });
  } catch {
    root = null;
  }
  try {
    const agent = hook.parseHookAgent(agentName);
    const p = hook.parseHookPayload(hook.readHookInput(arg));
    root = hook.findMemVault({ cwd: p.cwd ?? ctx.cwd, root: explicit, home });
    if (root === null) return;
    // Codex's notify payload names no transcript: its rollout is found by the thread id.
    const transcript = p.transcript ?? (agent === 'codex' && p.sessionId ? findCodexRollout(p.sessionId) : undefined);
    if (!transcript) throw new MemError(`the ${agent} hook payload names no transcript${p.sessionId ? ` (session ${printableId(p.sessionId)})` : ''}`);
    const args = ['extract', transcript, '--root', root];
    // Made valid here as the extraction would make the transcript's own id (same name both ways).
    const { usableSessionId } = await import('../../extract/session-id.js');
    const session = usableSessionId(p.sessionId);
    if (session) args.push('--session', session);
    hook.detachMem(root, args, 'extract.log', `${agent} hook${p.event ? ` (${p.event})` : ''}: extracting ${transcript}`);
  } catch (err) {
    if (root !== null) hook.hookLog(root, 'extract.log', `${agentName.slice(0, 40)} hook: ${(err as Error).message}`);
  }
  process.exitCode = 0;
}

function printableId(id: string): string {
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id).slice(1, -1);
}
