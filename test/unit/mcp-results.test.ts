// The MCP server's pure mapping: tool answers, tool errors, and tool arguments to index filters.
import { describe, expect, it } from 'vitest';
import { MemError, usageError } from '../../src/errors.js';
import { argName, filterFromArgs, listArg, toolError, toolResult } from '../../src/integrations/mcp/results.js';

describe('toolResult', () => {
  it('sends the data as structured content and the same JSON as text', () => {
    const r = toolResult({ id: 'a', line: 3 });
    expect(r.structuredContent).toEqual({ id: 'a', line: 3 });
    expect(JSON.parse(r.content[0].text)).toEqual({ id: 'a', line: 3 });
    expect(r.isError).toBeUndefined();
  });

  it('uses the given text instead (context sends its markdown)', () => {
    const r = toolResult({ markdown: '# x' }, '# x');
    expect(r.content).toEqual([{ type: 'text', text: '# x' }]);
  });
});

describe('toolError', () => {
  it('is mem\'s one line, with where and hint, marked isError', () => {
    const r = toolError(new MemError('no entry with id "x"', { hint: 'find ids with mem search', where: { file: 'MEMORY.md', line: 4 } }));
    expect(r).toEqual({ isError: true, content: [{ type: 'text', text: 'mem: no entry with id "x" (MEMORY.md:4)\nhint: find ids with mem search' }] });
    expect(toolError(usageError('empty task')).content[0].text).toBe('mem: empty task');
  });

  it('passes any other error\'s message, and a thrown non-error', () => {
    expect(toolError(new TypeError('boom')).content[0].text).toBe('mem: boom');
    expect(toolError('plain').content[0].text).toBe('mem: plain');
  });
});

describe('arguments', () => {
  it('listArg takes one value or several, lowercased, blanks dropped', () => {
    expect(listArg(undefined)).toBeUndefined();
    expect(listArg('Corrective')).toEqual(['corrective']);
    expect(listArg([' a ', '', 'B'])).toEqual(['a', 'b']);
    expect(listArg(['  '])).toBeUndefined();
  });

  it('filterFromArgs maps the tool\'s names to the index filter', () => {
    expect(filterFromArgs({ type: 'corrective', scope: ['project', 'global'], learning_type: 'institutional', status: 'active', phase: 'Review', domain: [] })).toEqual({
      types: ['corrective'], scopes: ['project', 'global'], learningTypes: ['institutional'], statuses: ['active'], phases: ['review'], domains: undefined,
    });
    expect(filterFromArgs({})).toEqual({ types: undefined, scopes: undefined, domains: undefined, phases: undefined, statuses: undefined, learningTypes: undefined });
  });

  it('filterFromArgs takes conversations and time bounds, named as the tool names them in errors', () => {
    expect(filterFromArgs({ conversation: 'a1,B2', after: '2026-11-27T06:00', before: '2026-11-28' })).toMatchObject({
      conversations: ['a1', 'B2'], afterMs: Date.UTC(2026, 10, 27, 6), beforeMs: Date.UTC(2026, 10, 28),
    });
    expect(filterFromArgs({ conversation: ['x', 'x'] }).conversations).toEqual(['x']);
    expect(() => filterFromArgs({ after: 'this morning' })).toThrow(/^after must be an ISO date or date-time/);
    expect(() => filterFromArgs({ after: '2026-11-28', before: '2026-11-27' })).toThrow(/^after 2026-11-28 is not earlier than before 2026-11-27/);
  });

  it('argName names fields as the tools do', () => {
    expect(argName('job')).toBe('job');
    expect(argName('session')).toBe('session_id');
  });
});
