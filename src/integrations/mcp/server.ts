// `mem mcp`: the MCP server on stdio (official SDK). stdout carries protocol frames only, every
// diagnostic goes to stderr; a bad request is a tool error, never the end of the server; the
// server ends when its client closes stdin, or on SIGTERM / SIGINT.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { toolError, type ToolAnswer } from './results.js';
import type { ToolEnv, ToolSpec } from './tool-spec.js';

export interface ServeOptions {
  env: ToolEnv;
  /** The tools to offer (toolsOf). */
  tools: ToolSpec[];
  version: string;
  /** One line of diagnostics (stderr). */
  log(line: string): void;
}

const INSTRUCTIONS = 'mem is this project\'s long-term memory, kept as markdown in the repository. '
  + 'At the start of a task call `context` with the task; use `search` when something may have been seen before; '
  + 'call `add` for a durable learning worth keeping; at the end call `reinforce` with the ids that helped.';

/** Serve until the client goes away; resolves then (the caller sets the exit code). */
export async function serveStdio(opts: ServeOptions): Promise<void> {
  const server = new McpServer({ name: 'mem', version: opts.version }, { instructions: INSTRUCTIONS });
  // One call at a time: writes take file locks synchronously and reads refresh one index, so
  // calls in parallel would only wait on each other inside the same process.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  };
  for (const tool of opts.tools) {
    server.registerTool(tool.name, {
      title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations,
    }, (args: Record<string, unknown>) => serial(async (): Promise<ToolAnswer> => {
      try {
        return await tool.run(args, opts.env);
      } catch (err) {
        const e = err as Error;
        if (e?.name !== 'MemError') opts.log(`mem mcp: ${tool.name}: ${e?.stack ?? String(err)}`);
        return toolError(err);
      }
    }));
  }

  const transport = new StdioServerTransport();
  const done = new Promise<void>((resolve) => {
    let closing = false;
    const stop = (why: string) => {
      if (closing) return;
      closing = true;
      opts.log(`mem mcp: ${why}; stopping`);
      // A call in flight finishes first (its write is atomic either way).
      void queue.finally(() => server.close()).catch(() => undefined).finally(() => {
        process.stdin.destroy();
        resolve();
      });
    };
    process.stdin.once('end', () => stop('the client closed the connection'));
    process.stdin.once('close', () => stop('the client closed the connection'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    transport.onerror = (err) => opts.log(`mem mcp: ${err.message}`);
    server.server.onclose = () => stop('the connection closed');
  });
  await server.connect(transport);
  opts.log(`mem mcp: serving ${opts.tools.map((t) => t.name).join(', ')} on stdio`);
  await done;
}
