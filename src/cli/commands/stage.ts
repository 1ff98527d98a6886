// `mem stage` and `mem retire-stage`: know which stage the project is in, and when a stage
// ends, retire the task-domain learnings that belonged to it.

import path from 'node:path';
import type { Command } from 'commander';
import type { Retired, Stage } from '../../lifecycle/stage.js';
import type { Vault, VaultFile } from '../../vault/vault.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

interface RetireOptions {
  files?: string[];
  all?: boolean;
  dryRun?: boolean;
}

/** An intent document is a page or two; past this it is not one (and is not sent to a model). */
const INTENT_LIMIT = 1 << 20;
const FILES_HELP = 'default: the project\'s institutional.md and MEMORY.md';

export function registerStage(program: Command): void {
  program
    .command('retire-stage')
    .description('retire the task-domain entries of a project stage that has ended')
    .argument('<old-stage>', 'the stage that ended (specification, planning, design, implementation, review, maintenance)')
    .option('--files <files...>', `memory files to look in (${FILES_HELP})`)
    .option('--all', 'look in every memory file of the vault')
    .option('--dry-run', 'show what would be retired, write nothing')
    .addHelpText('after', `
Only active or compacted entries with domain: task and phase: <old-stage> are retired; team-domain
entries are kept. Running it twice retires nothing more.

Examples:
  $ mem retire-stage implementation --dry-run
  $ mem retire-stage design --all`)
    .action(async (stage: string, opts: RetireOptions, command: Command) => {
      const ctx = commandCtx(command);
      const { checkStage } = await import('../../lifecycle/stage.js');
      const s = checkStage(stage);
      const vault = await vaultFor(ctx);
      const retired = await retire(ctx, vault, s, opts);
      report(ctx, retired, opts.dryRun, { stage: s });
    });

  const stage = program
    .command('stage')
    .description('show, detect or set the project stage (.mem/current-stage)')
    .addHelpText('after', `
Examples:
  $ mem stage                    # the recorded stage
  $ mem stage detect             # from INTENT.md; retires the old stage's task entries if it changed
  $ mem stage set review         # prints STAGE_CHANGED implementation -> review`)
    .action(async (_opts: unknown, command: Command) => {
      const ctx = commandCtx(command);
      const vault = await vaultFor(ctx, { noConfig: true });
      const { readCurrentStage } = await import('../../lifecycle/stage.js');
      const current = readCurrentStage(vault.root);
      if (ctx.json) ctx.out(JSON.stringify({ stage: current ?? 'unknown' }));
      else ctx.out(current ?? 'unknown');
    });

  stage
    .command('detect')
    .description('detect the stage from INTENT.md (offline keyword classifier) and record it')
    .option('--file <path>', 'the intent document (default: INTENT.md at the root; a regular file, at most 1 MB)')
    .option('--files <files...>', `memory files to retire in on a change (${FILES_HELP})`)
    .option('--all', 'retire in every memory file of the vault on a change')
    .option('--dry-run', 'print the stage, change nothing')
    .option('--llm', 'ask the configured language model when no explicit line says the stage (falls back to keywords)')
    .option('--provider <name>', 'with --llm: anthropic, openai, claude-cli, codex-cli or gemini-cli (default: MEM_PROVIDER, config, the API key present, or the agent CLI on PATH)')
    .option('--model <model>', 'with --llm: the model (env MEM_MODEL)')
    .addHelpText('after', `
An explicit line like "Stage: review" or "Phase: design" wins; otherwise keywords are counted,
or, with --llm, a language model reads the document (the keywords are the fallback).

Examples:
  $ mem stage detect
  $ mem stage detect --llm
  $ mem stage detect --file docs/INTENT.md --dry-run --json`)
    .action(async (opts: RetireOptions & { file?: string; llm?: boolean; provider?: string; model?: string }, command: Command) => {
      const ctx = commandCtx(command);
      const vault = await vaultFor(ctx);
      const file = path.resolve(vault.root, opts.file ?? 'INTENT.md');
      // The intent document may go to a model (--llm): never read through a link out of the vault.
      const { readRegularText } = await import('../../vault/read.js');
      const text = readRegularText(file, { maxBytes: INTENT_LIMIT, display: path.relative(ctx.cwd, file) || file, hint: 'write the project intent in INTENT.md, or pass --file' });
      const { detectStage } = await import('../../lifecycle/stage.js');
      let d: { stage: Stage | 'unknown'; method: string; scores: Record<string, number>; reason?: string } = detectStage(text);
      if (opts.llm && d.method !== 'explicit') d = await detectWithModel(ctx, vault, text, d, opts);
      if (d.stage === 'unknown') {
        if (ctx.json) ctx.out(JSON.stringify({ stage: 'unknown', method: d.method, scores: d.scores, changed: false }, null, 2));
        else ctx.out('unknown');
        ctx.warn('could not tell the stage from the intent document; nothing recorded');
        return;
      }
      if (opts.dryRun) {
        if (ctx.json) ctx.out(JSON.stringify({ stage: d.stage, method: d.method, scores: d.scores, changed: false, dry_run: true }, null, 2));
        else ctx.out(d.stage);
        return;
      }
      await setStage(ctx, vault, d.stage, opts, { method: d.method, scores: d.scores, ...(d.reason ? { reason: d.reason } : {}) });
    });

  stage
    .command('set')
    .description('record a new stage; if it changed, retire the old stage\'s task-domain entries')
    .argument('<new-stage>', 'specification, planning, design, implementation, review or maintenance')
    .option('--files <files...>', `memory files to retire in (${FILES_HELP})`)
    .option('--all', 'retire in every memory file of the vault')
    .option('--dry-run', 'show what would happen, change nothing')
    .addHelpText('after', `
Examples:
  $ mem stage set implementation
  $ mem stage set review --all`)
    .action(async (newStage: string, opts: RetireOptions, command: Command) => {
      const ctx = commandCtx(command);
      const { checkStage } = await import('../../lifecycle/stage.js');
      const s = checkStage(newStage);
      const vault = await vaultFor(ctx);
      await setStage(ctx, vault, s, opts, {});
    });
}

/** Ask the configured model which stage the intent document describes; the keyword result is the fallback. */
async function detectWithModel(ctx: Ctx, vault: Vault, text: string, offline: { stage: Stage | 'unknown'; method: string; scores: Record<string, number> }, opts: { provider?: string; model?: string }) {
  const { resolveProviderConfig, createProvider, ProviderError } = await import('../../llm/provider.js');
  const { STAGES } = await import('../../lifecycle/stage.js');
  const cfg = resolveProviderConfig(ctx.env, { provider: opts.provider ?? vault.config.llm.provider, providerSource: opts.provider ? '--provider' : '.mem/config.yaml', model: opts.model, configModel: vault.config.llm.model, configBaseUrl: vault.config.llm.baseUrl, agentCli: vault.config.llm.agentCli });
  if (cfg.name === 'heuristic') {
    ctx.warn('--llm: no language model is configured (set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL); used the keyword classifier');
    return offline;
  }
  try {
    const llm = await createProvider(cfg, { timeoutMs: vault.config.llm.timeoutMs, maxRetries: vault.config.llm.maxRetries, env: ctx.env });
    const res = await llm.complete({
      system: 'You read a software project\'s intent document and say which stage the project is in now.',
      prompt: `Stages: ${STAGES.join(', ')} (or unknown when the document does not say).\n\nThe document:\n<<<\n${text.slice(0, 12_000)}\n>>>`,
      schemaName: 'record_stage',
      schema: { type: 'object', additionalProperties: false, required: ['stage', 'reason'], properties: { stage: { type: 'string', enum: [...STAGES, 'unknown'] }, reason: { type: 'string' } } },
      maxTokens: 300,
    });
    const j = res.json as { stage?: unknown; reason?: unknown } | undefined;
    const stage = typeof j?.stage === 'string' && ([...STAGES, 'unknown'] as string[]).includes(j.stage) ? (j.stage as Stage | 'unknown') : null;
    if (!stage) throw new ProviderError(`${cfg.name} (${cfg.model}) did not name a stage`, 'invalid-answer');
    return { stage, method: `llm:${cfg.name}:${cfg.model}`, scores: offline.scores, reason: typeof j?.reason === 'string' ? j.reason : undefined };
  } catch (err) {
    if (!(err instanceof ProviderError)) throw err;
    ctx.warn(`${err.message}; used the keyword classifier`);
    return offline;
  }
}

async function targetFiles(ctx: Ctx, vault: Vault, opts: RetireOptions): Promise<VaultFile[]> {
  const { selectFiles } = await import('../../lifecycle/vault-ops.js');
  if (opts.files && opts.files.length > 0) return selectFiles(vault, opts.files, ctx.cwd);
  const all = selectFiles(vault, [], ctx.cwd);
  if (opts.all) return all;
  return all.filter((f) => f.scope === 'project' && !f.path.includes('/') && (f.path === 'institutional.md' || f.path === 'MEMORY.md'));
}

async function retire(ctx: Ctx, vault: Vault, stage: Stage, opts: RetireOptions): Promise<Retired[]> {
  const files = await targetFiles(ctx, vault, opts);
  const { retireStageFile } = await import('../../lifecycle/stage.js');
  const { editFiles } = await import('../../vault/edit.js');
  const { reindex } = await import('../../lifecycle/vault-ops.js');
  const retired: Retired[] = [];
  const date = ctx.today();
  const written = await editFiles(files.map((f) => ({
    abs: f.abs,
    path: f.path,
    change: (parsed) => {
      const r = retireStageFile(parsed, f.path, stage, date);
      retired.push(...r.retired);
      return opts.dryRun ? null : r.file;
    },
  })));
  const lag = opts.dryRun ? undefined : await reindex(vault, files.filter((f) => written.includes(f.path)));
  if (lag) ctx.warn(lag);
  return retired;
}

function report(ctx: Ctx, retired: Retired[], dryRun: boolean | undefined, extra: Record<string, unknown>): void {
  if (ctx.json) {
    ctx.out(JSON.stringify({ ...extra, dry_run: Boolean(dryRun), retired }, null, 2));
    return;
  }
  for (const r of retired) ctx.out(`${dryRun ? 'would retire' : 'retired'}  ${r.id}  ${r.path}:${r.line}`);
  ctx.info(`${retired.length} entr${retired.length === 1 ? 'y' : 'ies'} ${dryRun ? 'would be ' : ''}retired`);
}

async function setStage(ctx: Ctx, vault: Vault, next: Stage, opts: RetireOptions, extra: Record<string, unknown>): Promise<void> {
  const { readCurrentStage, writeCurrentStage } = await import('../../lifecycle/stage.js');
  const old = readCurrentStage(vault.root);
  if (old === next) {
    if (ctx.json) ctx.out(JSON.stringify({ stage: next, previous: old, changed: false, retired: [], ...extra }, null, 2));
    else ctx.info(`stage is already ${next}; nothing to do`);
    return;
  }
  const retired = old ? await retire(ctx, vault, old, opts) : [];
  if (!opts.dryRun) writeCurrentStage(vault.root, next);
  if (ctx.json) {
    ctx.out(JSON.stringify({ stage: next, previous: old ?? 'unknown', changed: true, dry_run: Boolean(opts.dryRun), retired, ...extra }, null, 2));
    return;
  }
  ctx.out(`STAGE_CHANGED ${old ?? 'unknown'} -> ${next}`);
  for (const r of retired) ctx.out(`${opts.dryRun ? 'would retire' : 'retired'}  ${r.id}  ${r.path}:${r.line}`);
  if (opts.dryRun) ctx.info('dry run: nothing written');
}
