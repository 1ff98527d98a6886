// `npm run eval:locomo -- --embeddings-url URL --model M` end to end on one LoCoMo conversation:
// bench/locomo.mjs builds the vault, embeds every turn through the built CLI (the openai SDK)
// against a loopback /v1/embeddings server with deterministic vectors, and searches every
// question hybrid (the script itself fails if a search fell back to lexical).

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { embedServer, type EmbedServer } from '../fake-embeddings.js';
import { cleanup, REPO, tempDir } from '../helpers.js';

const DATA = path.join(REPO, '..', 'shared', 'data', 'locomo-dev', 'locomo-dev.json');
const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanup();
});

function locomo(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('MEM_') || k.startsWith('OPENAI_')) delete env[k];
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(REPO, 'bench', 'locomo.mjs'), ...args], { env, maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('eval:locomo --embeddings-url --model (hybrid)', () => {
  it.skipIf(!fs.existsSync(DATA))('runs one conversation hybrid through a loopback embeddings server', async () => {
    const s = await embedServer({ dims: 64 });
    servers.push(s);
    // The first conversation, all its sessions, its first 40 questions: seconds, not minutes.
    const sample = JSON.parse(fs.readFileSync(DATA, 'utf8'))[0];
    sample.qa = sample.qa.slice(0, 40);
    const slice = path.join(tempDir(), 'locomo-one.json');
    fs.writeFileSync(slice, JSON.stringify([sample]));
    const turns = Object.entries(sample.conversation).filter(([k, v]) => /^session_\d+$/.test(k) && Array.isArray(v)).reduce((n, [, v]) => n + (v as unknown[]).length, 0);

    const r = await locomo([slice, '--json', '--embeddings-url', s.url, '--model', 'fake-embed']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ questions: sample.qa.length, mode: 'hybrid, fake-embed, fusion rrf, vector weight 1' });
    const all = out.overall;
    for (const k of ['R@5', 'R@10', 'R@25', 'R@50']) expect(all[k]).toBeGreaterThan(0);
    expect(all['R@5']).toBeLessThanOrEqual(all['R@50']);
    // Every turn was embedded (distinct texts once), then every question in one batched request.
    const inputs = s.requests.flatMap((q) => q.input);
    expect(new Set(inputs).size).toBeGreaterThanOrEqual(turns * 0.95);
    const last = s.requests.at(-1)!;
    expect(last.input).toEqual(sample.qa.map((x: { question: unknown }) => String(x.question)));

    // The same slice offline: no request, and the figures are those of the lexical path.
    const before = s.requests.length;
    const off = await locomo([slice, '--json']);
    expect(off.status, off.stderr).toBe(0);
    expect(s.requests.length).toBe(before);
    expect(JSON.parse(off.stdout).mode).toBeUndefined();
  }, 120_000);

  it('refuses --embeddings-url without --model', async () => {
    const r = await locomo(['--embeddings-url', 'http://127.0.0.1:9/v1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^mem: --embeddings-url and --model go together$/m);
  });
});
