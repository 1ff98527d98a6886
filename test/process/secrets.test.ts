// No credential handed to an MCP tool reaches the vault or the tool's answer: the server runs as
// an agent starts it (the built CLI over stdio, the official client). The tokens are made up in
// the vendors' formats (none works anywhere).

import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, tempVault, type TempVault } from '../helpers.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  cleanup();
});

const GH = 'ghp_' + 'R4nd0mT0k3nValue1234567890abcdefABCD';
const STRIPE = 'sk_live_' + '51H8x2eKZvKYlo2C0aBcDeFgHiJkLmNoPqRsTuV';
const AWS_ID = 'AKIA' + 'Q3EGRJ5XZ7PLW2HM';
const AWS_SECRET = 'u8Hx2+Jq9LmP4tR7vW1yZ3bN6cF0dG5hK8sA2eXo';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PEM_BODY = 'MIIEpAIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumFvJWqRmAyfFZ4YQT0F1ntZV';
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\nn0t4r34lk3yButSh4p3dL1k3On3Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8V\n-----END RSA PRIVATE KEY-----`;
const DB_PASS = 's3cr3tP4ssw0rd';
const DB_URL = `postgres://admin:${DB_PASS}@db.example.com:5432/app`;
/** What must never be read back: each secret, and the parts of it a rule could leave behind. */
const SECRETS = [GH, GH.slice(4), STRIPE, STRIPE.slice(8), AWS_ID, AWS_SECRET, JWT, JWT.split('.')[2], PEM_BODY, DB_PASS];

/** Every file under `dir` (the vault, the home), as text. */
function allText(dir: string): string {
  let out = '';
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    if (e.isFile() && !p.includes(`${path.sep}.git${path.sep}`)) out += `\n--- ${p}\n${fs.readFileSync(p, 'latin1')}`;
  }
  return out;
}

function expectNoSecret(where: string, text: string): void {
  for (const s of SECRETS) expect(text.includes(s), `${where} holds ${s.slice(0, 12)}…`).toBe(false);
}

function expectClean(v: TempVault, ...outputs: string[]): void {
  expectNoSecret('the vault', allText(v.root));
  expectNoSecret('the home', fs.existsSync(v.home) ? allText(v.home) : '');
  outputs.forEach((o, i) => expectNoSecret(`output ${i}`, o));
}

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
