// `mem promote`: lessons that keep coming back in different jobs climb to project scope;
// with --global, proven project lessons that are not about this project climb to ~/MEMORY.md.

import path from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import type { Candidate, Promotion, Skipped } from '../../lifecycle/promote.js';
import { CHECK_HELP, settleCheck } from '../check.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

interface PromoteOptions {
  global?: boolean;
  dryRun?: boolean;
  check?: boolean;
}

export function registerPromote(program: Command): void {
  program
    .command('promote')
    .description('roll learnings up: recurring in ≥ 3 tasks of a job → the job (session scope); in ≥ 3 jobs/sessions → project; --global: proven, project-agnostic → ~/MEMORY.md')
    .option('--global', 'also promote proven project learnings (promoted, or reinforced ≥ 3 times) that are project-agnostic to the global file')
    .option('--dry-run', 'show what would be promoted, write nothing')
    .option('--check', CHECK_HELP)
    .addHelpText('after', `
A learning recurs when entries with Jaccard similarity ≥ 0.8 appear in at least three distinct
jobs (.mem/jobs/<job>/…) or sessions (session_id). The copy records promoted_from and
promoted_at; running promote again does not copy it twice. Project-agnostic (offline check): no
project name, no path or file name, no code identifier, no name that exists in this repository.

When to run it: after extraction, or weekly.

Examples:
  $ mem promote --dry-run
  $ mem promote --check        # CI: exit 1 when a learning is due for promotion
  $ mem promote
  $ mem promote --global --json`)
    .action(async (opts: PromoteOptions, command: Command) => {
      await promoteCommand(commandCtx(command), opts);
    });
}

export async function promoteCommand(ctx: Ctx, opts: PromoteOptions): Promise<void> {
  const vault = await vaultFor(ctx);
  const { selectFiles, loadFiles, reindex } = await import('../../lifecycle/vault-ops.js');
  const { planProjectPromotions, planGlobalPromotions, planSessionPromotions } = await import('../../lifecycle/promote.js');
  const { renderNewEntry, appendEntries } = await import('../../vault/edit.js');
  const { describeFile } = await import('../../vault/vault.js');
  const files = selectFiles(vault, [], ctx.cwd);
  const { loaded, problems } = loadFiles(files);
  for (const p of problems) ctx.warn(`${p.message}; its entries are not considered (${p.file}${p.line ? `:${p.line}` : ''})`);
  const all: Candidate[] = loaded.flatMap((l) => l.parsed.entries.map((entry) => ({ entry, file: l.file })));
  const date = ctx.today();
  const dry = Boolean(opts.dryRun || opts.check);
  const sess = planSessionPromotions(all);
  const proj = planProjectPromotions(all, all.filter((c) => c.file.scope === 'project'));
  let glob: { promote: Promotion[]; skipped: Skipped[] } = { promote: [], skipped: [] };
  if (opts.global) {
    const { projectNames, repoNames } = await import('../../lifecycle/repo-names.js');
    glob = planGlobalPromotions(all.filter((c) => c.file.scope === 'project'), all.filter((c) => c.file.scope === 'global'), projectNames(vault.root), repoNames(vault.root));
  }
  const written: { id: string; path: string; from: string[]; scope: string }[] = [];
  const write = async (list: (Promotion & { job?: string })[], scope: 'session' | 'project' | 'global') => {
    const byFile = new Map<string, { texts: string[]; ids: { id: string; from: string[] }[] }>();
    for (const p of list) {
      const e = p.representative.entry;
      const name = p.representative.file.learningType === 'institutional' ? 'institutional.md' : 'MEMORY.md';
      // A job's session file sits in the job folder of the team file (.mem/jobs/<job>/ or .teaparty/jobs/<job>/).
      const jobDir = (f: string) => f.slice(0, f.indexOf(`jobs/${p.job}/`) + `jobs/${p.job}/`.length);
      const abs = scope === 'session' ? path.join(vault.root, jobDir(p.representative.file.path), 'MEMORY.md') : path.join(scope === 'project' ? vault.root : vault.home, name);
      const extra: Record<string, unknown> = {};
      for (const k of ['tags', 'session_task'] as const) if (e.meta[k] !== undefined) extra[k] = e.meta[k];
      const { id, text } = renderNewEntry({
        type: e.type, domain: e.domain, importance: p.importance, phase: e.phase, title: e.title,
        body: e.titleFromHeading ? e.body : e.body === e.title ? '' : e.body, date,
        extra: { ...extra, promoted_from: p.from, promoted_at: date, source: 'promotion' },
      });
      const slot = byFile.get(abs) ?? { texts: [], ids: [] };
      slot.texts.push(text);
      slot.ids.push({ id, from: p.from });
      byFile.set(abs, slot);
    }
    for (const [abs, slot] of byFile) {
      const f = describeFile(vault, abs, vault.root);
      if (!dry) appendEntries(abs, f.path, slot.texts, scope === 'global' ? '# Global memory\n' : scope === 'session' ? '# Job memory\n' : '# Project memory\n', vault.config.format.entryHeader);
      for (const s of slot.ids) written.push({ id: s.id, path: f.path, from: s.from, scope });
      const lag = dry ? undefined : await reindex(vault, [f]);
      if (lag) ctx.warn(lag);
    }
  };
  try {
    await write(sess.promote, 'session');
    await write(proj.promote, 'project');
    await write(glob.promote, 'global');
  } catch (err) {
    if (err instanceof MemError) throw err;
    throw new MemError(`promotion failed: ${(err as Error).message}`, { cause: err });
  }
  const skipped = [...sess.skipped, ...proj.skipped, ...glob.skipped];
  const check = settleCheck(ctx, opts.check, written.length === 0);
  if (ctx.json) {
    ctx.out(JSON.stringify({ dry_run: dry, ...check, promoted: written, skipped }, null, 2));
    return;
  }
  for (const w of written) ctx.out(`${dry ? 'would promote' : 'promoted'} to ${w.scope}: ${w.from.join(', ')} → ${dry ? w.path : `${w.id} (${w.path})`}`);
  for (const s of skipped) ctx.info(`skipped ${s.id} (${s.path}): ${s.reason}`);
  if (written.length === 0) ctx.info('nothing to promote');
}
