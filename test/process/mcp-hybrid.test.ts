// The MCP server's search and context tools search as the CLI does: hybrid when embeddings are
// configured (the real openai SDK against a loopback /v1/embeddings server), lexical with a
// warning when the endpoint is down. The official MCP client over stdio.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CAR_GARDEN_DB, embedServer, type EmbedServer } from '../fake-embeddings.js';
import { BIN, cleanup, memAsync, tempVault, type TempVault } from '../helpers.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
  cleanup();
});

function vault(): TempVault {
  const v = tempVault();
  v.write('MEMORY.md', [
    ...CAR_GARDEN_DB,
  ].join(''));
  return v;
}

async function serve(v: TempVault, env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', v.root],
    cwd: v.root,
    env: { PATH: process.env.PATH ?? '', MEM_HOME: v.home, NO_COLOR: '1', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mem-test', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, any> };
}

describe('mem mcp with embeddings configured', () => {
  it('search and context fuse the vector candidates (an entry with no shared word is found), as the CLI does', async () => {
    const s: EmbedServer = await embedServer();
    open.push(s);
    const v = vault();
    const env = { MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' };
    expect((await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    const call = await serve(v, env);
    const search = await call('search', { query: 'automobile upkeep' });
    expect(search.isError).toBeFalsy();
    const ids = search.structuredContent!.results.map((h: { id: string }) => h.id);
    expect(ids.slice(0, 2).sort()).toEqual(['car-1', 'upk-1']);
    expect(search.structuredContent!.warnings).toBeUndefined();
    const ctx = await call('context', { task: 'automobile upkeep' });
    expect(ctx.structuredContent!.learnings.map((h: { id: string }) => h.id)).toContain('car-1');
    expect(s.requests.at(-1)!.input).toEqual(['automobile upkeep']);

    // Without the configuration the same server answers lexically: the car entry is not found.
    const lexical = await serve(v, {});
    const plain = await lexical('search', { query: 'automobile upkeep' });
    expect(plain.structuredContent!.results.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
  });

  it('the endpoint down: lexical results and one warning, never a tool error', async () => {
    const s = await embedServer();
    const v = vault();
    const env = { MEM_EMBED_BASE_URL: s.url, MEM_EMBED_MODEL: 'fake-embed' };
    expect((await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env })).status).toBe(0);
    await s.close();
    const call = await serve(v, env);
    const r = await call('search', { query: 'automobile upkeep' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent!.results.map((h: { id: string }) => h.id)).toEqual(['upk-1']);
    expect(r.structuredContent!.warnings.join('\n')).toMatch(/embeddings unavailable.*lexical results only/);
  });
});
