// `mem hooks install|uninstall|status`: mem's lines in the repository's hooks. Git hooks today
// (--git); the agent hooks (--claude, --codex, --gemini) will be more flags on the same commands.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { globals } from '../common.js';
import { makeCtx, type Ctx } from '../io.js';

interface Which {
  git?: boolean;
}

const KINDS = '--git (git hooks: index after merge/checkout/rewrite, lint before commit); agent hooks (--claude, --codex, --gemini) are not available yet';

function chosen(opts: Which, verb: string): void {
  if (!opts.git) throw usageError(`say which hooks to ${verb}: ${KINDS}`, `mem hooks ${verb} --git`);
}

/** The mem the hooks run: this Node and this package's bin/mem.js (real paths: npm links it). */
function launcher(): { node: string; js: string } {
  const js = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mem.js');
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  };
  // Git for Windows' sh takes C:/… paths; backslashes would need escaping in every shell word.
  const slash = (p: string) => (process.platform === 'win32' ? p.replace(/\\/g, '/') : p);
  return { node: slash(real(process.execPath)), js: slash(real(js)) };
}

async function vaultRoot(ctx: Ctx): Promise<string> {
  const { resolveRoot } = await import('../../vault/vault.js');
  return resolveRoot({ root: ctx.root, cwd: ctx.cwd });
}

export function registerHooks(program: Command): void {
  const hooks = program
    .command('hooks')
    .description('install, remove or check mem\'s git hooks (index after merge/checkout, lint before commit)')
    .addHelpText('after', `
Examples:
  $ mem hooks install --git
  $ mem hooks status
  $ mem hooks uninstall --git`);

  hooks
    .command('install')
    .description('add mem\'s block to the git hooks post-merge, post-checkout, post-rewrite and pre-commit')
    .option('--git', 'git hooks: post-* run mem index --quiet in the background, pre-commit runs mem lint --staged')
    .addHelpText('after', `
Existing hooks are kept: mem's lines go in a block between "# >>> mem >>>" and "# <<< mem <<<"
right after the #! line. Honours core.hooksPath (husky: .husky/), worktrees and submodules.
Installing again changes nothing. A hook that is not a shell script is left alone (refused).

Examples:
  $ mem hooks install --git
  $ mem hooks install --git --json

--git also registers the merge driver for memory files (.gitattributes, git config), as mem init does.`)
    .action(async (opts: Which, command: Command) => {
      const ctx = makeCtx(globals(command));
      chosen(opts, 'install');
      const { installGitHooks } = await import('../../integrations/git-hooks.js');
      const root = await vaultRoot(ctx);
      const r = installGitHooks(root, root, launcher());
      // The merge driver for memory files comes with the git hooks (as with mem init).
      const { registerMergeDriver } = await import('../../integrations/merge-setup.js');
      const driver = registerMergeDriver(root);
      if (ctx.json) return ctx.out(JSON.stringify({ git: r, merge_driver: driver }, null, 2));
      for (const h of r.hooks) {
        ctx.out(`${h.action.padEnd(9)} ${path.relative(ctx.cwd, h.path) || h.path}`);
        if (!h.executable && r.kind !== 'husky') ctx.warn(`${h.path} is not executable: git does not run it (chmod +x it to enable it)`);
      }
      for (const f of driver.created) ctx.out(`created   ${f} (merge driver)`);
      for (const f of driver.updated) ctx.out(`updated   ${f} (merge driver)`);
      if (r.in_work_tree) ctx.warn(`the hooks are inside the work tree (${path.relative(r.repository, r.hooks_dir)}): if you commit them, they name this machine's mem (others' fall back to mem on PATH)`);
    });

  hooks
    .command('uninstall')
    .description('remove mem\'s block from the git hooks (a hook left empty is deleted)')
    .option('--git', 'git hooks')
    .addHelpText('after', `
Examples:
  $ mem hooks uninstall --git`)
    .action(async (opts: Which, command: Command) => {
      const ctx = makeCtx(globals(command));
      chosen(opts, 'uninstall');
      const { uninstallGitHooks } = await import('../../integrations/git-hooks.js');
      const r = uninstallGitHooks(await vaultRoot(ctx));
      if (ctx.json) return ctx.out(JSON.stringify({ git: r }, null, 2));
      for (const h of r.hooks) ctx.out(`${h.action.padEnd(9)} ${path.relative(ctx.cwd, h.path) || h.path}`);
    });

  hooks
    .command('status')
    .description('which hooks hold mem\'s block: installed, missing, foreign-only (a hook without mem) or outdated')
    .option('--git', 'git hooks (the default: the only kind so far)')
    .addHelpText('after', `
Examples:
  $ mem hooks status
  $ mem hooks status --json`)
    .action(async (_opts: Which, command: Command) => {
      const ctx = makeCtx(globals(command));
      const { hooksStatus } = await import('../../integrations/git-hooks.js');
      const me = launcher();
      const root = await vaultRoot(ctx);
      const r = hooksStatus(root, root, me);
      if (ctx.json) return ctx.out(JSON.stringify({ git: r }, null, 2));
      ctx.out(`git hooks in ${r.hooks_dir}`);
      for (const h of r.hooks) {
        const who = h.mem === null ? '' : h.points_here ? ' (this mem)' : ` (runs ${h.mem})`;
        const exec = h.state !== 'missing' && !h.executable && r.kind !== 'husky' ? ' [not executable: git skips it]' : '';
        ctx.out(`  ${h.hook.padEnd(14)} ${h.state}${who}${exec}`);
      }
      if (r.hooks.some((h) => h.state !== 'installed')) ctx.info('hint: mem hooks install --git');
    });
}
