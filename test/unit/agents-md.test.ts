// The block `mem export --agents-md` writes: compact items, and the budget kept at every size.
import { describe, expect, it } from 'vitest';
import { agentsBlockFrame, compactBody, renderAgentsBlock } from '../../src/render/agents-md.js';
import type { ProjectMemory } from '../../src/retrieve/project-memory.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

function memory(): ProjectMemory {
  const norms = Array.from({ length: 6 }, (_, i) => ({ entry_id: `n${i}`, title: `Norm ${i}`, body: words(5 + i * 9) }));
  const learnings = Array.from({ length: 30 }, (_, i) => ({ id: `${String(i).padStart(8, '0')}-aaaa-4bbb-8ccc-dddddddddddd`, title: `Learning ${i}`, body: `${words(3 + ((i * 7) % 40))}\nsecond line` }));
  return { norms, learnings, learningsTotal: 45, asOf: null } as unknown as ProjectMemory;
}

describe('renderAgentsBlock', () => {
  it('never goes over the budget at any size, and counts what it left out', () => {
    const mem = memory();
    let shown = 0;
    for (let max = agentsBlockFrame(mem); max < 6000; max += 53) {
      const b = renderAgentsBlock(mem, { maxChars: max });
      expect(b.text.length, `max ${max}`).toBeLessThanOrEqual(max);
      shown = b.norms.length + b.learnings.length;
      expect(b.omitted).toEqual({ norms: 6 - b.norms.length, learnings: 45 - b.learnings.length });
    }
    expect(shown).toBeGreaterThan(20);
  });

  it('norms come first; each item is its title, its short id and its quoted text', () => {
    const b = renderAgentsBlock(memory(), { maxChars: 4000 });
    expect(b.text).toContain('- **Norm 0** `n0`\n  > word0 word1 word2 word3 word4\n');
    expect(b.text).toContain('- **Learning 0** `00000000`\n  > word0 word1 word2\n  > second line\n');
    expect(b.text.indexOf('### Norms')).toBeLessThan(b.text.indexOf('### Prominent learnings'));
  });

  it('cuts a long body at a word end and marks the cut', () => {
    expect(compactBody('short')).toBe('short');
    const cut = compactBody(words(200), 100);
    expect(cut.length).toBeLessThanOrEqual(102);
    expect(cut).toMatch(/^word0 .* word\d+ …$/);
  });
});
