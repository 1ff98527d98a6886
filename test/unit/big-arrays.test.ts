// Shapes of 150k and more items, where spreading an array into a call (push(...xs), Math.max(...xs))
// overflows the call stack, and building a list by copying it per item (`[...list, x]`) is
// quadratic: each must come back whole, in time a test can wait for.
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/extract/transcript.js';
import { sessionFacts } from '../../src/notes/extract-episode.js';
import { parseMemoryFile } from '../../src/vault/format.js';

const BIG = 150_000;

describe('big shapes, no stack overflow and nothing quadratic', () => {
  it('a transcript message of 150k content blocks', () => {
    const content = Array.from({ length: BIG }, (_, i) => ({ type: 'text', text: `part ${i}` }));
    const t = readTranscript(JSON.stringify([{ role: 'user', content }]));
    expect(t.messages.length).toBe(BIG);
    expect(t.messages[BIG - 1].text).toBe(`part ${BIG - 1}`);
  });

  it('a session whose one command fails 150k times', () => {
    const lines: string[] = [];
    for (let i = 0; i < BIG; i++) {
      lines.push(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'npm test' } }] } }));
      lines.push(JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: `t${i}`, is_error: true, content: 'failed' }] } }));
    }
    const facts = sessionFacts(readTranscript(lines.join('\n')));
    expect(facts).toMatchObject({ metrics: { errors: BIG }, outcome: 'failure' });
  });

  it('a legacy file of 150k `## [` sections before its first entry header', () => {
    const legacy = Array.from({ length: BIG }, (_, i) => `## [2026-01-01] note ${i}\nBody ${i}.\n\n`).join('');
    const text = `# Memory\n\n${legacy}---\nid: last\ntype: procedural\n---\nThe last one.\n`;
    const parsed = parseMemoryFile(text, 'MEMORY.md');
    expect(parsed.entries.length).toBe(BIG + 1);
    expect(parsed.entries[BIG].id).toBe('last');
  });
});
