// `mem export --agents-md [FILE]`: the project's norms and most prominent learnings as a marked,
// regenerated block in AGENTS.md (or CLAUDE.md, GEMINI.md), for agents and CI runs without hooks.

import path from 'node:path';
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { settleCheck } from '../check.js';
import { vaultFor } from '../common.js';
import { commandCtx, parseIntOption, progressFactory, type Ctx } from '../io.js';

interface ExportOptions {
  agentsMd?: string | boolean;
  maxChars?: string;
  check?: boolean;
  dryRun?: boolean;
}

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write memory where agents without mem hooks read it (AGENTS.md, CLAUDE.md, GEMINI.md)')
    .option('--agents-md [file]', 'write the block into this instruction file (default: AGENTS.md at the vault root)')
    .option('--max-chars <n>', 'budget of the whole block in characters, markers included (default 4000)')
    .option('--dry-run', 'print the block, write nothing')
    .option('--check', 'write nothing; exit 1 with one line when the block is missing or not what would be written, 0 when current (CI)')
    .addHelpText('after', `
The block holds the project's norms (institutional entries) and its most prominent learnings
(importance × recency × reinforcements, as a session without a prompt gets them from the hook),
each with its short id for \`mem show\`, within the budget. It sits between two lines,
"<!-- mem:begin … -->" and "<!-- mem:end -->", and is replaced in place on every run; the rest
of the file stays byte for byte (line endings and BOM too). A file without the block gets it
appended after one blank line. A re-run with no memory changed leaves the file identical:
recency counts from the newest entry's date, not from today. The user's global memory is left
out (the file is committed; others and CI do not have it).

Examples:
  $ mem export --agents-md                      # AGENTS.md at the vault root
  $ mem export --agents-md CLAUDE.md --max-chars 2500
  $ mem export --agents-md --dry-run            # print the block only
  $ mem export --agents-md --check              # CI: exit 1 when AGENTS.md is missing the block or stale
  $ mem export --agents-md GEMINI.md --json | jq '.learnings[].id'`)
    .action(async (opts: ExportOptions, command: Command) => {
      await exportCommand(commandCtx(command), opts);
    });
}

async function exportCommand(ctx: Ctx, opts: ExportOptions): Promise<void> {
  if (opts.agentsMd === undefined) throw usageError('nothing to export: give --agents-md [FILE]', 'mem export --agents-md writes the block into AGENTS.md');
  const maxChars = parseIntOption('--max-chars', opts.maxChars, 1);
  const vault = await vaultFor(ctx);
  const file = typeof opts.agentsMd === 'string' ? path.resolve(ctx.cwd, opts.agentsMd) : undefined;
  const { exportAgentsMd } = await import('../../services/export.js');
  const mode = opts.check ? 'check' : opts.dryRun ? 'dry-run' : 'write';
  const res = await exportAgentsMd(vault, { file, maxChars, mode }, { env: ctx.env, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) });
  const current = res.state === 'current';
  const check = settleCheck(ctx, opts.check, current);
  if (ctx.json) {
    ctx.out(JSON.stringify({
      file: res.file, state: res.state, written: res.written, dry_run: mode !== 'write', ...check,
      max_chars: res.maxChars, chars: res.block.length, as_of: res.asOf,
      norms: res.norms, learnings: res.learnings, omitted: res.omitted, block: res.block,
    }, null, 2));
    return;
  }
  const counts = `${res.norms.length} norm${res.norms.length === 1 ? '' : 's'}, ${res.learnings.length} learning${res.learnings.length === 1 ? '' : 's'}; ${res.block.length} of ${res.maxChars} characters`;
  const why = res.state === 'no-file' ? 'does not exist' : res.state === 'no-block' ? 'has no mem block' : 'has a stale mem block';
  if (mode === 'check') {
    if (opts.dryRun) ctx.out(res.block);
    if (current) ctx.info(`${res.file}: the mem block is current (${counts})`);
    else ctx.err(`mem: ${res.file} ${why}; run mem export --agents-md${res.file === 'AGENTS.md' ? '' : ` ${res.file}`} and commit it`);
    return;
  }
  if (mode === 'dry-run') {
    ctx.out(res.block);
    ctx.info(current ? `dry run: ${res.file} is current (${counts})` : `dry run: ${res.file} ${why}; this block would be written (${counts})`);
    return;
  }
  ctx.out(res.written ? `${res.file}: mem block ${res.state === 'stale' ? 'updated' : 'written'} (${counts})` : `${res.file}: mem block already current (${counts})`);
}
