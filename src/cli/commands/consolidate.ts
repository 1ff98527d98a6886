// `mem consolidate`: settle contradicting learnings — the older one decays, or retires when
// it is 90 days or more older — with every decision logged to .mem/consolidation-log.jsonl.
// Pairs of the same age are flagged (shown, never changed).

import path from 'node:path';
import type { Command } from 'commander';
import type { ConsolidateItem, Decision } from '../../lifecycle/contradictions.js';
import { usageError } from '../../errors.js';
import { readTarget } from '../../vault/boundary.js';
import { readRegular } from '../../vault/read.js';
import { CHECK_HELP, settleCheck } from '../check.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

export const LOG = '.mem/consolidation-log.jsonl';

export function registerConsolidate(program: Command): void {
  program
    .command('consolidate')
    .description('settle contradicting learnings: the older decays (importance × 0.7) or retires (≥ 90 days older)')
    .option('--dry-run', 'show the decisions, write nothing')
    .option('--check', CHECK_HELP)
    .option('--episodes', `turn waiting episodes into learnings (when ${'≥'} 3 are unconsolidated, or one has surprise ${'≥'} 0.85)`)
    .option('--provider <name>', 'with --episodes: anthropic, openai, claude-cli, codex-cli, gemini-cli or heuristic (offline); default as for mem extract')
    .option('--model <model>', 'with --episodes: model name (env MEM_MODEL)')
    .option('--base-url <url>', 'with --episodes: OpenAI-compatible server, e.g. http://localhost:11434/v1')
    .option('--scopes <list>', 'with --episodes: extraction scopes (default: extract.scopes in config); job, task and global scopes are skipped')
    .option('--no-fallback', 'with --episodes: fail when the model cannot be used, instead of falling back to the heuristics')
    .addHelpText('after', `
Offline, two entries of the same scope contradict when they share a topic (Jaccard ≥ 0.4 over
their words) and one negates what the other states ("never", "don't", "no longer", …), or the
same statement carries different numbers ("Node 18" / "Node 20"); and two near-duplicates that
compact keeps apart because they differ in a number, a version, a name ("yarn" / "pnpm") or a
negation. An entry decays at most once; the older entry gets superseded_by: <newer id>.
Decisions are appended to ${LOG}. Two entries of the same date cannot say which is newer, and
another name may be a replacement or a second thing: such pairs are flagged (action "flag") for
you to settle, and nothing is written for them. --check exits 1 on any decision or flag.

When to run it: after extraction, or weekly.

--episodes consolidates episodes (.mem/episodes/, written by mem segment / mem extract) instead:
when at least 3 are unconsolidated, or one has surprise >= 0.85 (a flashbulb), their messages go
through the extraction path (the model, or the offline heuristics), the quality gate and the
duplicate check; each learning gets \`episodes: [id, …]\` naming the episodes it came from, and
every episode considered gets \`consolidated_at\`. A second run finds nothing to do.

Examples:
  $ mem consolidate --dry-run
  $ mem consolidate --check      # CI: exit 1 on any decision or flag
  $ mem consolidate --json
  $ mem consolidate --episodes --dry-run
  $ mem consolidate --episodes --provider heuristic --json`)
    .action(async (opts: ConsolidateOpts, command: Command) => {
      const ctx = commandCtx(command);
      if (opts.episodes) await consolidateEpisodesCommand(ctx, opts);
      else await consolidateCommand(ctx, opts);
    });
}

interface ConsolidateOpts {
  dryRun?: boolean;
  check?: boolean;
  episodes?: boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  scopes?: string;
  fallback?: boolean;
}

async function consolidateEpisodesCommand(ctx: Ctx, opts: ConsolidateOpts): Promise<void> {
  if (opts.check) throw usageError('--check does not apply to --episodes', 'use --dry-run to see what would be written');
  const vault = await vaultFor(ctx);
  const { parseScopeList } = await import('../../extract/scopes.js');
  const scopes = parseScopeList(opts.scopes ?? vault.config.extract.scopes.join(','));
  const fromConfig = vault.config.llm;
  const provider = (await import('../../llm/provider.js')).providerFromFlags(opts, fromConfig, ctx.env);
  const { consolidateEpisodes, MIN_EPISODES, FLASHBULB } = await import('../../episodes/consolidate-episodes.js');
  const { readCurrentStage } = await import('../../lifecycle/stage.js');
  const r = await consolidateEpisodes(vault, {
    scopes, provider, client: { timeoutMs: fromConfig.timeoutMs, maxRetries: fromConfig.maxRetries, env: ctx.env }, budget: vault.config.extract.budgetChars,
    dryRun: Boolean(opts.dryRun), fallback: opts.fallback !== false, today: ctx.today(), now: new Date(ctx.now()).toISOString(), stage: readCurrentStage(vault.root) ?? undefined,
    knownSecrets: (await import('../../secrets/display.js')).apiKeysIn(ctx.env),
  });
  for (const p of r.problems) ctx.warn(`${p}; this file is left out`);
  if (r.index_warning) ctx.warn(r.index_warning);
  if (r.redacted) ctx.warn((await import('../../secrets/redact.js')).describeRedaction(r.redacted));
  if (ctx.json) {
    ctx.out(JSON.stringify(r, null, 2));
    return;
  }
  if (!r.due) {
    ctx.info(`nothing to consolidate: fewer than ${MIN_EPISODES} unconsolidated episodes and none with surprise >= ${FLASHBULB} (${r.waiting} waiting of ${r.episodes_total})`);
    return;
  }
  for (const s of r.skipped_scopes) ctx.warn(`scope ${s.scope} skipped: ${s.reason}`);
  if (r.fallback) ctx.warn(`${r.fallback}; used the heuristics instead`);
  const verb = r.dry_run ? 'would write' : 'wrote';
  for (const w of r.written) ctx.out(`${verb} ${w.id} (${w.file}) ${w.title} ← ${w.episodes.join(', ')}`);
  for (const x of r.rejected_learnings) ctx.info(`rejected (${x.reason}): ${x.title}`);
  const n = r.dry_run ? r.considered.length : r.marked.length;
  ctx.info(`${r.dry_run ? 'would consolidate' : 'consolidated'} ${n} episode${n === 1 ? '' : 's'}${r.why === 'flashbulb' ? ' (flashbulb)' : ''}: ${r.written.length} learning${r.written.length === 1 ? '' : 's'} ${r.dry_run ? 'to write' : 'written'}, ${r.rejected_learnings.length} rejected`);
  if (provider.name === 'heuristic' || r.fallback) ctx.info('note: the heuristics catch only explicit signals (corrections, "never/always" rules, error fixes); a language model finds much more.');
}

function loggedDecays(root: string): Set<string> {
  const ids = new Set<string>();
  let text: string | null;
  try {
    text = readRegular(readTarget(path.join(root, LOG), LOG, [root]));
  } catch {
    return ids;
  }
  if (text === null) return ids;
  for (const line of text.split('\n')) {
    try {
      const d = JSON.parse(line) as { action?: string; id?: string };
      if (d.action === 'decay' && typeof d.id === 'string') ids.add(d.id);
    } catch {
      // a torn line: ignore
    }
  }
  return ids;
}

async function consolidateCommand(ctx: Ctx, opts: ConsolidateOpts): Promise<void> {
  const vault = await vaultFor(ctx);
  const { selectFiles, loadFiles, reindex } = await import('../../lifecycle/vault-ops.js');
  const { planConsolidation, applyDecisions, acting: actingOf } = await import('../../lifecycle/contradictions.js');
  const { editFiles } = await import('../../vault/edit.js');
  const files = selectFiles(vault, [], ctx.cwd);
  const { loaded, problems } = loadFiles(files);
  const broken = new Set(problems.map((p) => p.file));
  for (const p of problems) ctx.warn(`${p.message}; this file is left out (${p.file}${p.line ? `:${p.line}` : ''})`);
  const items: ConsolidateItem[] = loaded
    .filter((l) => !broken.has(l.file.path))
    .flatMap((l) => l.parsed.entries.map((entry) => ({ path: l.file.path, entry, group: [l.file.scope, l.file.job ?? '', l.file.task ?? ''].join('|') })));
  const decisions: Decision[] = planConsolidation(items, loggedDecays(vault.root));
  const acting = actingOf(decisions);
  const affected = files.filter((f) => acting.some((d) => d.path === f.path));
  const date = ctx.today();
  const dry = Boolean(opts.dryRun || opts.check);
  // A flagged pair changes nothing, but needs a person: a check is not clean while one is open.
  const check = settleCheck(ctx, opts.check, !decisions.some((d) => d.action !== 'skip'));
  if (!dry && acting.length > 0) {
    const { appendConfined, writeTarget } = await import('../../vault/boundary.js');
    // The log is written after the files: a log that links out of the vault is refused first.
    writeTarget(path.join(vault.root, LOG), LOG, vault.root);
    const written = await editFiles(affected.map((f) => ({ abs: f.abs, path: f.path, change: (parsed) => applyDecisions(parsed, acting.filter((d) => d.path === f.path), date) })));
    const at = new Date(ctx.now()).toISOString();
    const log = path.join(vault.root, LOG);
    appendConfined(log, acting.map((d) => JSON.stringify({ at, ...d })).join('\n') + '\n', LOG, vault.root);
    const lag = await reindex(vault, affected.filter((f) => written.includes(f.path)));
    if (lag) ctx.warn(lag);
  }
  if (ctx.json) {
    // decisions: what was (or would be) done; conflicts: every contradicting pair found, flagged
    // same-date pairs included, with the reason.
    const conflicts = decisions.map((d) => ({
      action: d.action, kind: d.kind, reason: d.reason, similarity: d.similarity,
      a: { id: d.id, path: d.path, line: d.line }, b: { id: d.by, path: d.by_path, line: d.by_line },
    }));
    ctx.out(JSON.stringify({ dry_run: dry, ...check, decisions: decisions.filter((d) => d.action !== 'flag'), conflicts }, null, 2));
    return;
  }
  for (const d of decisions) {
    if (d.action === 'flag') {
      ctx.out(`${'conflict'.padEnd(22)} ${d.id} (${d.path}:${d.line}) vs ${d.by} (${d.by_path}:${d.by_line}): ${d.reason}`);
      continue;
    }
    const what = d.action === 'decay' ? `decay ${d.importance_before} → ${d.importance_after}` : d.action === 'retire' ? 'retire' : 'skip';
    ctx.out(`${(dry && d.action !== 'skip' ? `would ${what}` : what).padEnd(22)} ${d.id} (${d.path}:${d.line}), superseded by ${d.by} (${d.by_path}:${d.by_line}): ${d.reason}`);
  }
  if (decisions.length === 0) ctx.info('no contradicting learnings found');
}
