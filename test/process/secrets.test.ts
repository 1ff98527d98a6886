// No credential handed to an MCP tool reaches the vault or the tool's answer: the server runs as
// an agent starts it (the built CLI over stdio, the official client). The tokens are made up in
// the vendors' formats (none works anywhere).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { AWS_ID, AWS_SECRET, DB_URL, expectClean, GH, JWT, PEM, STRIPE } from '../fixtures/secrets.js';
import { BIN, cleanup, tempVault, type TempVault } from '../helpers.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  cleanup();
});

describe('credentials never reach the vault through the MCP tools', () => {
  async function serve(v: TempVault) {
    const transport = new StdioClientTransport({
      command: process.execPath, args: [BIN, 'mcp', '--root', v.root, '--tools', 'all'], cwd: v.root,
      env: { PATH: process.env.PATH ?? '', MEM_HOME: v.home, NO_COLOR: '1', MEM_NOW: '2026-11-25' }, stderr: 'pipe',
    });
    let err = '';
    transport.stderr?.on('data', (d) => (err += d));
    const client = new Client({ name: 'mem-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    type Answer = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, any> };
    return { stderr: () => err, call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Answer };
  }

  it('add, store_episode and add_pattern write placeholders and say what they redacted', async () => {
    const v = tempVault();
    const s = await serve(v);
    const add = await s.call('add', { text: `Deploy with AWS_ACCESS_KEY_ID=${AWS_ID} AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`, tags: [JWT] });
    expect(add.isError, JSON.stringify(add)).toBeFalsy();
    expect(add.structuredContent!.redacted.count).toBe(3);
    expect(add.content[0].text).toContain('"redacted"');
    const ep = await s.call('store_episode', { session_id: 'mcp-1', task: `Use ${GH}`, outcome: 'success', lessons: [`STRIPE_API_KEY=${STRIPE}`], context: DB_URL });
    expect(ep.isError, JSON.stringify(ep)).toBeFalsy();
    expect(ep.structuredContent!.redacted.count).toBe(3);
    const pat = await s.call('add_pattern', { name: 'deploy-with-key', trigger: `needs ${GH}`, action: `run with ${PEM}` });
    expect(pat.isError, JSON.stringify(pat)).toBeFalsy();
    expect(pat.structuredContent!.redacted.kinds).toContain('github-token');
    const plain = await s.call('add', { text: 'Warm the cache after each deploy' });
    expect(plain.structuredContent!.redacted).toBeUndefined();
    expect(v.read('MEMORY.md')).toContain('AWS_ACCESS_KEY_ID=[redacted: aws-access-key-id]');
    expectClean(v, JSON.stringify([add, ep, pat]), s.stderr());
  });
});
