// The build's output as bin/mem.js loads it: the CLI's CommonJS bundle, the short path of a plain
// `mem index`, the CLI with one hot command alone, and a V8 code cache made for each.
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';

describe('the build', () => {
  it('bundles ASCII only (esbuild escapes the rest)', async () => {
    const { isAscii } = await import('node:buffer');
    for (const name of ['main.cjs', 'quick.cjs', 'search.cjs', 'context.cjs', 'secrets-engine.cjs']) {
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

  it('writes a code cache tied to each CLI bundle that this Node accepts', () => {
    const dist = path.join(REPO, 'dist');
    const bundles = ['main', 'quick', 'search', 'context'];
    const ids = bundles.map((name) => {
      const file = path.join(dist, `${name}.cjs`);
      const source = fs.readFileSync(file, 'utf8');
      const id = /^\/\/ mem build ([0-9a-f]+)\n'use strict';/.exec(source)?.[1];
      expect(id, `${name}.cjs starts with its build id, then strict mode`).toBeTruthy();
      const script = new vm.Script(Module.wrap(source), { filename: file, cachedData: fs.readFileSync(path.join(dist, `${name}.${id}.cache`)) });
      expect(script.cachedDataRejected).toBe(false);
      return id;
    });
    expect(new Set(ids), 'one build').toEqual(new Set([ids[0]]));
    expect(fs.readdirSync(dist).filter((f) => f.endsWith('.cache')).sort()).toEqual(bundles.map((b) => `${b}.${ids[0]}.cache`).sort());
  });

  it('keeps the other commands out of the bundles of one command', () => {
    const main = fs.readFileSync(path.join(REPO, 'dist', 'main.cjs'), 'utf8');
    for (const [bundle, own] of [['search.cjs', 'src/cli/commands/search.ts'], ['context.cjs', 'src/cli/commands/context.ts']]) {
      const text = fs.readFileSync(path.join(REPO, 'dist', bundle), 'utf8');
      expect(text, bundle).toContain(`// ${own}`);
      for (const other of ['src/cli/commands/compact.ts', 'src/cli/commands/extract.ts', 'src/cli/commands/lint.ts', 'src/cli/commands/init.ts']) {
        expect(main).toContain(`// ${other}`);
        expect(text, `${bundle} holds ${other}`).not.toContain(`// ${other}`);
      }
    }
  });

  it('leaves the progress spinner and commander out of the quick path of mem index', () => {
    const quick = fs.readFileSync(path.join(REPO, 'dist', 'quick.cjs'), 'utf8');
    expect(quick).not.toContain('node_modules/ora/');
    expect(quick).not.toContain('node_modules/commander/');
    expect(quick.length).toBeLessThan(fs.readFileSync(path.join(REPO, 'dist', 'main.cjs'), 'utf8').length / 4);
  });
});
