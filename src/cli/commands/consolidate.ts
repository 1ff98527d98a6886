// `mem consolidate`: settle contradicting learnings — the older one decays, or retires when
// it is 90 days or more older — with every decision logged to .mem/consolidation-log.jsonl.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { ConsolidateItem, Decision } from '../../lifecycle/consolidate.js';
import { globals, vaultFor } from '../common.js';
import { makeCtx, nowMs, today, type Ctx } from '../io.js';

export const LOG = '.mem/consolidation-log.jsonl';

export function registerConsolidate(program: Command): void {
  program
    .command('consolidate')
    .description('settle contradicting learnings: the older decays (importance × 0.7) or retires (≥ 90 days older)')
    .option('--dry-run', 'show the decisions, write nothing')
    .addHelpText('after', `
Offline, two entries of the same scope contradict when they share a topic (Jaccard ≥ 0.4 over
their words) and one negates what the other states ("never", "don't", "no longer", …), or the
same statement carries different numbers ("Node 18" / "Node 20"). An entry decays at most once;
the older entry gets superseded_by: <newer id>. Decisions are appended to ${LOG}.

When to run it: after extraction, or weekly.

Examples:
  $ mem consolidate --dry-run
  $ mem consolidate --json`)
    .action(async (opts: { dryRun?: boolean }, command: Command) => {
      await consolidateCommand(makeCtx(globals(command)), opts);
    });
}

function loggedDecays(root: string): Set<string> {
  const ids = new Set<string>();
  let text = '';
  try {
    text = fs.readFileSync(path.join(root, LOG), 'utf8');
  } catch {
    return ids;
  }
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

async function consolidateCommand(ctx: Ctx, opts: { dryRun?: boolean }): Promise<void> {
  const vault = await vaultFor(ctx);
  const { selectFiles, loadFiles, reindex } = await import('../../lifecycle/vault-ops.js');
  const { planConsolidation, applyDecisions } = await import('../../lifecycle/consolidate.js');
  const { editFiles } = await import('../../vault/store.js');
  const files = selectFiles(vault, [], ctx.cwd);
  const { loaded, problems } = loadFiles(files);
  const broken = new Set(problems.map((p) => p.file));
  for (const p of problems) ctx.warn(`${p.message}; this file is left out (${p.file}${p.line ? `:${p.line}` : ''})`);
  const items: ConsolidateItem[] = loaded
    .filter((l) => !broken.has(l.file.path))
    .flatMap((l) => l.parsed.entries.map((entry) => ({ path: l.file.path, entry, group: [l.file.scope, l.file.job ?? '', l.file.task ?? ''].join('|') })));
  const decisions: Decision[] = planConsolidation(items, loggedDecays(vault.root));
  const acting = decisions.filter((d) => d.action !== 'skip');
  const affected = files.filter((f) => acting.some((d) => d.path === f.path));
  const date = today();
  if (!opts.dryRun && acting.length > 0) {
    const written = await editFiles(affected.map((f) => ({ abs: f.abs, path: f.path, change: (parsed) => applyDecisions(parsed, acting.filter((d) => d.path === f.path), date) })));
    const at = new Date(nowMs()).toISOString();
    const log = path.join(vault.root, LOG);
    fs.mkdirSync(path.dirname(log), { recursive: true });
    fs.appendFileSync(log, acting.map((d) => JSON.stringify({ at, ...d })).join('\n') + '\n');
    const lag = await reindex(vault, affected.filter((f) => written.includes(f.path)));
    if (lag) ctx.warn(lag);
  }
  if (ctx.json) {
    ctx.out(JSON.stringify({ dry_run: Boolean(opts.dryRun), decisions }, null, 2));
    return;
  }
  for (const d of decisions) {
    const what = d.action === 'decay' ? `decay ${d.importance_before} → ${d.importance_after}` : d.action === 'retire' ? 'retire' : 'skip';
    ctx.out(`${(opts.dryRun && d.action !== 'skip' ? `would ${what}` : what).padEnd(22)} ${d.id} (${d.path}:${d.line}), superseded by ${d.by}: ${d.reason}`);
  }
  if (decisions.length === 0) ctx.info('no contradicting learnings found');
}
