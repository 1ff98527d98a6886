// Key moments over MCP: the search tool of `mem mcp`, run by the official client over stdio, marks
// them as mem search --json does.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { setup } from '../fixtures/key-moments.js';
import { BIN, cleanup, mem } from '../helpers.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  cleanup();
});

describe('key moments over MCP', () => {
  it('the search tool gives key_moment on episodes as mem search --json does, and messages by detail', async () => {
    const { v, run } = await setup(mem);
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp', '--root', v.root], cwd: v.root,
      env: { PATH: process.env.PATH ?? '', MEM_HOME: v.home, NO_COLOR: '1' }, stderr: 'pipe',
    });
    const client = new Client({ name: 'mem-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    const call = async (args: Record<string, unknown>) => ((await client.callTool({ name: 'search', arguments: { query: 'navbar dropdown banner', ...args } })) as any).structuredContent.results;
    const cli = run(['search', 'navbar dropdown banner', '--json']).json().results;
    const plain = await call({});
    expect(plain.map((h: any) => [h.id, h.key_moment])).toEqual(cli.map((h: any) => [h.id, h.key_moment]));
    expect(plain.some((h: any) => h.key_moment === true)).toBe(true);
    expect(plain.every((h: any) => h.messages === undefined)).toBe(true);
    const auto = await call({ detail: 'auto' });
    auto.forEach((h: any, i: number) => expect(h.messages !== undefined).toBe(i < 2 && h.key_moment === true));
  });
});

