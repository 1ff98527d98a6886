// The version mem reports: `mem --version` answers from package.json in bin/mem.js without
// loading the CLI, and the CLI's own (other spellings, the MCP server's handshake) must be the same.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/cli/version.js';
import { REPO, tempDir } from '../helpers.js';
import { run } from '../run.js';

describe('the version', () => {
  it('is the package version, in the CLI as in package.json', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    const r = await run(['--version'], { cwd: tempDir() });
    expect(r.stdout).toBe(`${pkg.version}\n`);
    expect(r.status).toBe(0);
  });
});
