// `mem hooks install|uninstall|status`: mem's lines in the repository's git hooks (--git) and
// mem's entries in coding agents' settings (--claude, --codex, --gemini; user or project level).

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { memBin } from '../../package.js';
import { usageError } from '../../errors.js';

import { commandCtx, type Ctx } from '../io.js';

interface Which {
  git?: boolean;
  claude?: boolean;
  codex?: boolean;
  gemini?: boolean;
  user?: boolean;
  project?: boolean;
  perPrompt?: boolean;
  mcp?: boolean;
}

type Agent = 'claude' | 'codex' | 'gemini';

const KINDS = '--git (git hooks: index after merge/checkout/rewrite, lint before commit), --claude, --codex, --gemini (agent hooks: memory at session start, extraction before compaction / at the end)';

function chosen(opts: Which, verb: string): Agent[] {
  const agents = (['claude', 'codex', 'gemini'] as const).filter((a) => opts[a]);
  if (!opts.git && agents.length === 0) throw usageError(`say which hooks to ${verb}: ${KINDS}`, `mem hooks ${verb} --git, or mem hooks ${verb} --claude`);
  if (opts.user && opts.project) throw usageError('--user and --project exclude each other');
  if (opts.git && opts.user) throw usageError('git hooks belong to a repository: --git cannot go with --user', `mem hooks ${verb} --git, then mem hooks ${verb} --user --claude`);
  if ((opts.mcp || opts.perPrompt) && agents.length === 0) throw usageError(`${opts.mcp ? '--mcp' : '--per-prompt'} goes with an agent: --claude, --codex or --gemini`);
  return agents;
}

function scopeOf(opts: Which): 'user' | 'project' {
  return opts.user ? 'user' : 'project';
}

/** The vault, or null when there is none (fine for user-level agent hooks). */
async function maybeRoot(ctx: Ctx): Promise<string | null> {
  try {
    return await vaultRoot(ctx);
  } catch {
    return null;
  }
}

function shown(ctx: Ctx, file: string): string {
  const rel = path.relative(ctx.cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** The mem the hooks run: this Node and this package's bin/mem.js (real paths: npm links it). */
function launcher(): { node: string; js: string } {
  const js = memBin();
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
  return resolveRoot({ root: ctx.root, cwd: ctx.cwd, env: ctx.env });
}

export function registerHooks(program: Command): void {
  const hooks = program
    .command('hooks')
    .description('install, remove or check mem\'s git hooks and coding agents\' hooks (Claude Code, Codex, Gemini CLI)')
    .addHelpText('after', `
Examples:
  $ mem hooks install --git
  $ mem hooks install --claude --mcp
  $ mem hooks install --codex --user
  $ mem hooks status
  $ mem hooks uninstall --git`);

  hooks
    .command('install')
    .description('add mem\'s block to the git hooks (--git) and/or mem\'s entries to coding agents\' settings (--claude, --codex, --gemini)')
    .option('--git', 'git hooks: post-* run mem index --quiet in the background, pre-commit runs mem lint --staged')
    .option('--claude', 'Claude Code: SessionStart -> mem context --hook claude; PreCompact, SessionEnd -> mem extract --hook claude')
    .option('--codex', 'Codex: hooks.json SessionStart -> context, PreCompact -> extract; at user level also notify -> extract')
    .option('--gemini', 'Gemini CLI: SessionStart -> context; PreCompress, SessionEnd -> extract')
    .option('--project', 'agent hooks in this vault\'s settings (.claude/, .codex/, .gemini/; the default)')
    .option('--user', 'agent hooks in your user settings (~/.claude, CODEX_HOME or ~/.codex, ~/.gemini)')
    .option('--per-prompt', 'also on every prompt (UserPromptSubmit; Gemini: BeforeAgent): the few learnings that bear on it')
    .option('--mcp', 'also register mem\'s MCP server (mem mcp): .mcp.json / ~/.claude.json, [mcp_servers.mem], mcpServers')
    .addHelpText('after', `
Git: existing hooks are kept: mem's lines go in a block between "# >>> mem >>>" and "# <<< mem <<<"
right after the #! line. Honours core.hooksPath (husky: .husky/), worktrees and submodules.
Installing again changes nothing. A hook that is not a shell script is left alone (refused).
--git also registers the merge driver for memory files (.gitattributes, git config), as mem init does.

Agents: mem's entries are merged into the settings file: other hooks and keys, their order, the
indentation, line endings and comments stay as they were; installing again changes nothing; an
entry of an older mem is updated in place. A file mem cannot edit safely (invalid JSON or TOML,
a symlink, an unexpected shape, another Codex notify program) stops the command, nothing written.
User-level entries run this Node and this mem by absolute path. Project files (often committed)
get "mem …" when the mem on PATH is this one, else absolute paths (with a warning).
Codex and Gemini ask you to trust hooks (Codex: /hooks) before they run them.
Refused for an agent whose mem plugin is enabled (/plugin install mem@mem-vault and the like):
the plugin already runs these hooks; an entry installed before stands aside while it is on.

Examples:
  $ mem hooks install --git
  $ mem hooks install --claude                    # .claude/settings.json of this vault
  $ mem hooks install --claude --user --per-prompt --mcp
  $ mem hooks install --codex --user              # ~/.codex/hooks.json and notify in config.toml
  $ mem hooks install --gemini --project --json
  $ mem hooks install --git --claude --codex`)
    .action(async (opts: Which, command: Command) => {
      const ctx = commandCtx(command);
      const agents = chosen(opts, 'install');
      const out: Record<string, unknown> = {};
      if (agents.length > 0) out.agents = await installAgentHooks(ctx, opts, agents);
      if (!opts.git) {
        if (ctx.json) ctx.out(JSON.stringify(out, null, 2));
        return;
      }
      const { installGitHooks } = await import('../../integrations/git-hooks.js');
      const root = await vaultRoot(ctx);
      const r = installGitHooks(root, root, launcher(), ctx.env);
      // The merge driver for memory files comes with the git hooks (as with mem init).
      const { registerMergeDriver } = await import('../../integrations/merge-setup.js');
      const driver = registerMergeDriver(root);
      if (ctx.json) return ctx.out(JSON.stringify({ git: r, merge_driver: driver, ...out }, null, 2));
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
    .description('remove mem\'s block from the git hooks (a hook left empty is deleted) or mem\'s entries from agents\' settings')
    .option('--git', 'git hooks')
    .option('--claude', 'Claude Code (hooks and mem\'s MCP server)')
    .option('--codex', 'Codex (hooks.json, notify at user level, [mcp_servers.mem])')
    .option('--gemini', 'Gemini CLI (hooks and mem\'s MCP server)')
    .option('--project', 'this vault\'s settings (the default)')
    .option('--user', 'your user settings')
    .option('--per-prompt', 'only the per-prompt hook (UserPromptSubmit; Gemini: BeforeAgent)')
    .option('--mcp', 'only mem\'s MCP server registration')
    .addHelpText('after', `
Only mem's own entries go, with each hook group, event list, hooks or mcpServers object, Codex
table or whole file that install created for them; one that was there before stays, even empty.
Everything else in the file stays byte for byte: install then uninstall gives back the original.
--per-prompt and --mcp remove just that part (both: both); without them, all of mem's entries.

Examples:
  $ mem hooks uninstall --git
  $ mem hooks uninstall --claude --user
  $ mem hooks uninstall --claude --mcp
  $ mem hooks uninstall --codex --gemini`)
    .action(async (opts: Which, command: Command) => {
      const ctx = commandCtx(command);
      const agents = chosen(opts, 'uninstall');
      const out: Record<string, unknown> = {};
      if (agents.length > 0) {
        const { uninstallAgents } = await import('../../integrations/agents/agents.js');
        const scope = scopeOf(opts);
        const changes = await uninstallAgents({ agents, scope, root: scope === 'project' ? await vaultRoot(ctx) : null, env: ctx.env, only: { mcp: Boolean(opts.mcp), perPrompt: Boolean(opts.perPrompt) } });
        out.agents = { scope, changes };
        if (!ctx.json) for (const c of changes) ctx.out(`${c.action.padEnd(9)} ${shown(ctx, c.file)} (${c.agent} ${c.what}${c.events && c.events.length > 0 ? `: ${c.events.map((e) => e.event).join(', ')}` : ''})`);
      }
      if (!opts.git) {
        if (ctx.json) ctx.out(JSON.stringify(out, null, 2));
        return;
      }
      const { uninstallGitHooks } = await import('../../integrations/git-hooks.js');
      const r = uninstallGitHooks(await vaultRoot(ctx), ctx.env);
      if (ctx.json) return ctx.out(JSON.stringify({ git: r, ...out }, null, 2));
      for (const h of r.hooks) ctx.out(`${h.action.padEnd(9)} ${path.relative(ctx.cwd, h.path) || h.path}`);
    });

  hooks
    .command('status')
    .description('which hooks hold mem\'s entries: git hooks, and each agent\'s at user and project level')
    .option('--git', 'git hooks only')
    .option('--claude', 'Claude Code only')
    .option('--codex', 'Codex only')
    .option('--gemini', 'Gemini CLI only')
    .addHelpText('after', `
States: installed (runs this mem), outdated (runs another mem, or an older entry), missing,
partial (some events), off (--per-prompt not installed), foreign (a notify program or MCP server
named mem that is not mem's), error (the settings file cannot be read).

Examples:
  $ mem hooks status
  $ mem hooks status --claude
  $ mem hooks status --json`)
    .action(async (opts: Which, command: Command) => {
      const ctx = commandCtx(command);
      const me = launcher();
      const only = (['claude', 'codex', 'gemini'] as const).filter((a) => opts[a]);
      const wantGit = opts.git || only.length === 0;
      const agents: Agent[] = opts.git && only.length === 0 ? [] : only.length > 0 ? only : ['claude', 'codex', 'gemini'];
      const root = await maybeRoot(ctx);
      const { agentStatus } = await import('../../integrations/agents/agents.js');
      const statuses = [];
      for (const a of agents) {
        statuses.push(await agentStatus(a, 'user', null, me, ctx.env));
        if (root) statuses.push(await agentStatus(a, 'project', root, me, ctx.env));
      }
      let r: import('../../integrations/git-hooks.js').HooksReport | null = null;
      let gitError: string | null = null;
      if (wantGit) {
        if (!root && opts.git) await vaultRoot(ctx);
        if (root) {
          const { hooksStatus } = await import('../../integrations/git-hooks.js');
          try {
            r = hooksStatus(root, root, me, ctx.env);
          } catch (err) {
            // Only --git makes a missing repository an error; the overview just says so.
            if (opts.git) throw err;
            gitError = (err as Error).message;
          }
        }
      }
      if (ctx.json) return ctx.out(JSON.stringify({ ...(wantGit ? { git: r } : {}), ...(gitError ? { git_error: gitError } : {}), ...(agents.length > 0 ? { project: root, agents: statuses } : {}) }, null, 2));
      for (const s of statuses) {
        const detail = s.state === 'error' ? `: ${s.error}` : s.state === 'missing' ? '' : ` (${s.events.map((e) => `${e.event} ${e.state}`).join(', ')})`;
        ctx.out(`${`${s.agent} ${s.scope}`.padEnd(15)} ${s.state}${detail}  ${shown(ctx, s.file)}`);
        const extra = [s.notify && s.notify.state !== 'missing' ? `notify ${s.notify.state}${s.notify.runs ? ` (runs ${s.notify.runs})` : ''}` : null, s.mcp.state !== 'missing' ? `mcp ${s.mcp.state}${s.mcp.runs && !s.mcp.points_here ? ` (runs ${s.mcp.runs})` : ''}  ${shown(ctx, s.mcp.file)}` : null].filter(Boolean);
        for (const e of extra) ctx.out(`${''.padEnd(15)} ${e}`);
      }
      if (agents.length > 0 && !root) ctx.info('(not in a mem vault: project-level agent hooks not shown)');
      if (!r) {
        if (gitError) ctx.out(`git hooks: ${gitError}`);
        return;
      }
      ctx.out(`git hooks in ${r.hooks_dir}`);
      for (const h of r.hooks) {
        const who = h.mem === null ? '' : h.points_here ? ' (this mem)' : ` (runs ${h.mem})`;
        const exec = h.state !== 'missing' && !h.executable && r.kind !== 'husky' ? ' [not executable: git skips it]' : '';
        ctx.out(`  ${h.hook.padEnd(14)} ${h.state}${who}${exec}`);
      }
      if (r.hooks.some((h) => h.state !== 'installed')) ctx.info('hint: mem hooks install --git');
    });
}

/** `mem hooks install --claude|--codex|--gemini`: the agent part (printed here, returned for --json). */
async function installAgentHooks(ctx: Ctx, opts: Which, agents: Agent[]): Promise<unknown> {
  const { installAgents } = await import('../../integrations/agents/agents.js');
  const scope = scopeOf(opts);
  const root = scope === 'project' ? await vaultRoot(ctx) : null;
  const me = launcher();
  const projectDirs = [ctx.cwd, root ?? (await maybeRoot(ctx))].filter((d): d is string => d !== null);
  const r = await installAgents({ agents, scope, root, perPrompt: Boolean(opts.perPrompt), mcp: Boolean(opts.mcp), launcher: me, env: ctx.env, projectDirs });
  if (!ctx.json) {
    for (const c of r.changes) {
      const events = c.events ? `: ${c.events.map((e) => e.event).join(', ')}` : '';
      ctx.out(`${c.action.padEnd(9)} ${shown(ctx, c.file)} (${c.agent} ${c.what}${events})`);
    }
  }
  if (scope === 'project' && r.form === 'absolute') {
    ctx.warn(`the project settings name this machine's mem (${me.node} ${me.js}): if you commit them, others' agents will not find it; with mem installed on PATH (npm i -g), run this again to write "mem …" instead`);
  }
  // The same hooks at user and project level both run: the agent would read mem's context twice.
  const other = scope === 'project' ? 'user' : 'project';
  const otherRoot = other === 'project' ? await maybeRoot(ctx) : null;
  if (other === 'user' || otherRoot !== null) {
    const { agentStatus } = await import('../../integrations/agents/agents.js');
    for (const a of agents) {
      const st = await agentStatus(a, other, otherRoot, me, ctx.env);
      if (st.events.some((e) => e.state === 'installed' || e.state === 'outdated')) {
        r.notes.push(`mem's ${a} hooks are also installed at ${other} level (${shown(ctx, st.file)}): the agent runs both and reads mem's context twice; keep one: mem hooks uninstall --${a}${other === 'user' ? ' --user' : ' --project'}`);
      }
    }
  }
  for (const n of r.notes) ctx.info(`note: ${n}`);
  return { scope, form: r.form, changes: r.changes, notes: r.notes };
}
