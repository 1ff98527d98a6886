// Key moments over MCP: the search tool of `mem mcp`, run by the official client over stdio, marks
// them as mem search --json does.

import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, entry, mem, tempVault } from '../helpers.js';
import { CSS_TURNS, DB_TURNS } from '../topics.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  cleanup();
});

const DB = DB_TURNS.slice(0, 6);
const CSS = CSS_TURNS;

function transcript(dir: string, session: string, texts: string[], start: string): string {
  const p = path.join(dir, `${session}.jsonl`);
  const t0 = Date.parse(start);
  fs.writeFileSync(p, `${texts.map((text, i) => {
    const timestamp = new Date(t0 + i * 60_000).toISOString();
    return JSON.stringify(i % 2 === 0
      ? { type: 'user', sessionId: session, timestamp, uuid: `u${i}`, message: { role: 'user', content: text } }
      : { type: 'assistant', sessionId: session, timestamp, uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text }] } });
  }).join('\n')}\n`);
  return p;
}

/**
 * A vault with a learning and two sessions: `switch` (the database, then the navbar: its second
 * episode is a key moment) and `calm` (one subject: no key moment).
 */
function setup() {
  const v = tempVault();
  const run = (args: string[]) => mem(args, { cwd: v.root, home: v.home });
  v.write('MEMORY.md', entry('5d1e7c2a-3b4f-4a6e-8c9d-0e1f2a3b4c5d', '## The navbar dropdown needs a z-index above the hero banner', { type: 'directive' }));
  expect(run(['segment', transcript(v.root, 'switch', [...DB, ...CSS], '2026-02-03T10:00:00Z')]).status).toBe(0);
  expect(run(['segment', transcript(v.root, 'calm', [...CSS, ...CSS.slice(0, 2).map((t) => t.replace('Now something else: ', ''))], '2026-02-04T10:00:00Z')]).status).toBe(0);
  return { v, run };
}

describe('key moments over MCP', () => {
  it('the search tool gives key_moment on episodes as mem search --json does, and messages by detail', async () => {
    const { v, run } = setup();
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

