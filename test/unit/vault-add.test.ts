// The checks of a new learning (lifecycle/add.ts), shared by `mem add` and the MCP add tool.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { checkAdd, MAX_ADD_BYTES, splitTags, targetFile } from '../../src/lifecycle/add.js';
import type { Vault } from '../../src/vault/vault.js';

const vault = { root: '/v', home: '/h' } as Vault;
const tool = (f: string) => f;

describe('checkAdd', () => {
  it('lowercases and defaults', () => {
    expect(checkAdd({ text: 'x', type: 'Corrective', domain: 'TASK', phase: 'Review', importance: '0.7' })).toEqual({ type: 'corrective', domain: 'task', phase: 'review', importance: 0.7, scope: 'project' });
    expect(checkAdd({ text: 'x', importance: 1 }).importance).toBe(1);
  });

  it('refuses what mem add refuses, naming the field the caller\'s way', () => {
    expect(() => checkAdd({ text: ' \n' })).toThrow('nothing to add');
    // The limit counts UTF-8 bytes: at it is fine, one byte over (a 2-byte character) is a usage error.
    expect(checkAdd({ text: 'a'.repeat(MAX_ADD_BYTES) }).scope).toBe('project');
    let err: unknown;
    try {
      checkAdd({ text: `${'a'.repeat(MAX_ADD_BYTES - 1)}é` });
    } catch (e) {
      err = e;
    }
    expect((err as MemError).message).toBe(`the learning is ${MAX_ADD_BYTES / 1024 + 1} KB; mem add takes at most ${MAX_ADD_BYTES / 1024} KB`);
    expect((err as MemError).exitCode).toBe(2);
    expect(() => checkAdd({ text: 'x', type: 'opinion' })).toThrow('unknown type "opinion"');
    expect(() => checkAdd({ text: 'x', domain: 'life' })).toThrow('unknown domain "life"');
    expect(() => checkAdd({ text: 'x', importance: '' })).toThrow('--importance must be a number from 0 to 1 (got "")');
    expect(() => checkAdd({ text: 'x', importance: 'high' })).toThrow('--importance must be');
    expect(() => checkAdd({ text: 'x', importance: 1.5 }, tool)).toThrow('importance must be a number from 0 to 1 (got "1.5")');
    expect(() => checkAdd({ text: 'x', importance: Number.NaN })).toThrow('must be a number');
    expect(() => checkAdd({ text: 'x', phase: 'two words' }, tool)).toThrow(/^phase must be one word/);
    expect(() => checkAdd({ text: 'x', scope: 'world' })).toThrow('unknown scope "world"');
  });
});

describe('targetFile', () => {
  it('picks the scope\'s file', () => {
    expect(targetFile(vault, { text: 'x' }, 'project', '/v')).toBe(path.join('/v', 'MEMORY.md'));
    expect(targetFile(vault, { text: 'x', institutional: true }, 'project', '/v')).toBe(path.join('/v', 'institutional.md'));
    expect(targetFile(vault, { text: 'x' }, 'global', '/v')).toBe(path.join('/h', 'MEMORY.md'));
    expect(targetFile(vault, { text: 'x', job: 'j1' }, 'session', '/v')).toBe(path.join('/v', '.mem', 'jobs', 'j1', 'MEMORY.md'));
    expect(targetFile(vault, { text: 'x', job: 'j1', task: 't.2' }, 'team', '/v')).toBe(path.join('/v', '.mem', 'jobs', 'j1', 'tasks', 't.2', 'MEMORY.md'));
  });

  it('refuses a missing or unsafe job or task, and a file that is not markdown', () => {
    expect(() => targetFile(vault, { text: 'x' }, 'team', '/v')).toThrow('--scope team needs --job');
    expect(() => targetFile(vault, { text: 'x', job: 'j' }, 'team', '/v', tool)).toThrow('scope team needs task');
    expect(() => targetFile(vault, { text: 'x', job: '../up' }, 'session', '/v')).toThrow('invalid --job "../up"');
    expect(() => targetFile(vault, { text: 'x', file: 'notes.txt' }, 'project', '/v')).toThrow('--file must be a markdown file');
  });
});

describe('splitTags', () => {
  it('splits on commas and line breaks, trims, drops blanks', () => {
    expect(splitTags('a, b,,c\nd')).toEqual(['a', 'b', 'c', 'd']);
    expect(splitTags(['x', 'y,z', ' '])).toEqual(['x', 'y', 'z']);
    expect(splitTags(' , ')).toBeUndefined();
    expect(splitTags(undefined)).toBeUndefined();
  });
});
