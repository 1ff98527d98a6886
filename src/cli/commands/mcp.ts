// `mem mcp`: serve this vault to an agent as an MCP server on stdio. The SDK loads here only, so
// no other command pays for it.

import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { commandCtx, type Ctx } from '../io.js';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('serve this vault\'s memory to an agent over MCP (stdio)')
    .option('--tools <set>', 'the tools to offer: core or all', 'core')
    .addHelpText('after', `
An MCP server on stdin/stdout, started by the agent, not by you. Its tools: context, search,
get, add and reinforce: the same code as the commands of those names. The vault is the one
--root or MEM_ROOT names, else the nearest one above the folder the agent starts it in.
Diagnostics go to stderr; the server stops when the agent closes the connection.

An agent reads every tool's schema at the start of every session, so only those five are
offered by default. --tools all adds list, review, recent, the episode-note tools (store_episode,
query_episodes, get_decision_sequence) and the pattern tools (add_pattern, query_patterns,
get_causal_path, get_antipatterns).

Register it with your agent:
  $ mem hooks install --claude --mcp           # writes .mcp.json (with --user: your user config)
  $ claude mcp add mem -- mem mcp              # Claude Code, by hand
  $ claude mcp add mem -- mem mcp --root ~/code/app
  $ claude mcp add mem -- mem mcp --tools all  # with the episode and pattern tools
  $ codex mcp add mem -- mem mcp               # Codex
  $ gemini mcp add mem mem mcp                 # Gemini CLI
Or in any MCP client's config: {"command": "mem", "args": ["mcp"]}.

Try it by hand:
  $ npx @modelcontextprotocol/inspector mem mcp`)
    .action(async (opts: { tools: string }, command: Command) => {
      await mcpCommand(commandCtx(command), opts.tools);
    });
}

async function mcpCommand(ctx: Ctx, tools: string): Promise<void> {
  const { TOOL_SETS, toolsOf } = await import('../../integrations/mcp/tools.js');
  const set = TOOL_SETS.find((s) => s === tools);
  if (!set) throw usageError(`unknown --tools "${tools}"`, `use one of: ${TOOL_SETS.join(', ')}`);
  const { openVault, resolveRoot } = await import('../../vault/vault.js');
  const { VERSION } = await import('../version.js');
  const log = (line: string) => {
    if (!ctx.quiet) ctx.err(line);
  };
  // A root that is named and wrong stops here; no vault found from the folder is said once, and
  // every tool call then answers with that error (the agent shows it) rather than a dead server.
  const named = ctx.root ?? ctx.env.MEM_ROOT;
  if (named) resolveRoot({ root: ctx.root, cwd: ctx.cwd, env: ctx.env });
  else {
    try {
      resolveRoot({ cwd: ctx.cwd, env: ctx.env });
    } catch (err) {
      log(`mem mcp: ${(err as Error).message}`);
    }
  }
  const { serveStdio } = await import('../../integrations/mcp/server.js');
  await serveStdio({
    version: VERSION,
    tools: toolsOf(set),
    log,
    env: { openVault: () => openVault({ root: ctx.root, cwd: ctx.cwd, env: ctx.env }), cwd: ctx.cwd, vars: ctx.env, now: ctx.now, today: ctx.today },
  });
}
