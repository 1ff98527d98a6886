// The build's output as bin/mem.js loads it: one CommonJS bundle and a V8 code cache made for it.
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';

describe('the build', () => {
  it('bundles ASCII only (esbuild escapes the rest)', async () => {
    const { isAscii } = await import('node:buffer');
    for (const name of ['main.cjs', 'secrets-engine.cjs']) {
      const bytes = fs.readFileSync(path.join(REPO, 'dist', name));
      const line = bytes.toString('utf8').split('\n').findIndex((l) => /[^\x00-\x7f]/.test(l));
      expect(isAscii(bytes), `dist/${name} line ${line + 1} has a non-ASCII character: escape it in the source (\\u…)`).toBe(true);
    }
  });

  it('keeps secretlint out of the bundle every command parses: its own file, required by the commands that write', () => {
    const main = fs.readFileSync(path.join(REPO, 'dist', 'main.cjs'), 'utf8');
    expect(main).not.toContain('node_modules/@secretlint/');
    expect(main).toContain('require("./secrets-engine.cjs")');
    const engine = Module.createRequire(path.join(REPO, 'dist', 'main.cjs'))('./secrets-engine.cjs');
    expect(typeof engine.lintSource).toBe('function');
    expect(engine.creator.meta.type).toBe('preset');
  });

  it('writes a code cache tied to this bundle that this Node accepts', () => {
    const file = path.join(REPO, 'dist', 'main.cjs');
    const source = fs.readFileSync(file, 'utf8');
    const id = /^\/\/ mem build ([0-9a-f]+)\n'use strict';/.exec(source)?.[1];
    expect(id, 'the bundle starts with its build id, then strict mode').toBeTruthy();
    const caches = fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.cache'));
    expect(caches).toEqual([`main.${id}.cache`]);
    const script = new vm.Script(Module.wrap(source), { filename: file, cachedData: fs.readFileSync(path.join(path.dirname(file), caches[0])) });
    expect(script.cachedDataRejected).toBe(false);
  });
});
