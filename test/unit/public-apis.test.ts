// mem uses Node's public APIs only: no private bindings or undocumented methods, which change
// between Node versions without notice (and print deprecation warnings in some modes).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && /\.(ts|js|cjs|mjs)$/.test(d.name))
    .map((d) => path.join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

describe('public APIs only', () => {
  it('no source file, launcher or build script reaches into Node internals', () => {
    const files = [...sources(path.join(REPO, 'src')), ...sources(path.join(REPO, 'bin')), ...sources(path.join(REPO, 'scripts')), ...sources(path.join(REPO, 'bench'))];
    expect(files.length).toBeGreaterThan(20);
    const banned = /process\.binding\s*\(|internalBinding\s*\(|_linkedBinding\s*\(|\.latin1Slice\s*\(|\.utf8Slice\s*\(|\.asciiSlice\s*\(|--expose-internals/;
    const hits = files.filter((f) => banned.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(REPO, f));
    expect(hits).toEqual([]);
  });

  it('the installed command is not a shell script', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const file of Object.values(pkg.bin)) {
      expect(file).toMatch(/\.(c?js|mjs)$/);
      expect(fs.readFileSync(path.join(REPO, file), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    }
  });
});
