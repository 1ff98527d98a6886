// What is found in the vector sidecar's place (garbage, a FIFO, a symlink out of the vault) with
// the built CLI as a process: opening a FIFO that has no writer would block the whole process, so
// in-process a regression would stall the test run where here it fails by the test's timeout.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmbedServer } from '../fake-embeddings.js';
import { cleanup, memAsync, type TempVault } from '../helpers.js';
import { headerToken, searchHits, sidecarVault, tokenOf, vectorPart } from '../sidecar-vault.js';

const servers: EmbedServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanup();
});

const setup = () => sidecarVault(memAsync, servers);
const search = (v: TempVault, env: Record<string, string | undefined>, q: string, extra: string[] = []) => searchHits(memAsync, v, env, q, extra);

describe('the vector sidecar', () => {
  it('garbage, a FIFO or a symlink in its place: search answers exactly (no hang), and the next mem index replaces it without writing through', async () => {
    const { v, env, sidecar } = await setup();
    const good = vectorPart(await search(v, env, 'automobile servicing'));
    // Garbage of the right name.
    fs.writeFileSync(sidecar, 'MEMVEC01 not really');
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
    // A FIFO: opening it must not block.
    fs.rmSync(sidecar);
    expect(spawnSync('mkfifo', [sidecar]).status).toBe(0);
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
    const r1 = await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env });
    expect(r1.status, r1.stderr).toBe(0);
    expect(fs.lstatSync(sidecar).isFile()).toBe(true);
    // A symlink to a file out of the vault: replaced, the target untouched.
    const outside = path.join(path.dirname(v.root), 'outside.bin');
    fs.writeFileSync(outside, 'keep me');
    fs.rmSync(sidecar);
    fs.symlinkSync(outside, sidecar);
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
    const r2 = await memAsync(['index', '--embed'], { cwd: v.root, home: v.home, env });
    expect(r2.status, r2.stderr).toBe(0);
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep me');
    expect(fs.lstatSync(sidecar).isSymbolicLink()).toBe(false);
    expect(headerToken(sidecar)).toBe(tokenOf(v.path('.memory.db')));
    expect(vectorPart(await search(v, env, 'automobile servicing'))).toEqual(good);
  });
});
