import { describe, expect, it } from 'vitest';
import { blockFolders, claudeTopic, markdownItems, markdownLinks } from '../../src/extract/agent-memory.js';

describe('agent memory files', () => {
  it('reads a Claude Code topic file: description as title, type mapped to an entry type and a scope', () => {
    const m = claudeTopic('user_role.md', '---\nname: User role\ndescription: Senior Go developer, new to React\ntype: user\n---\n\nExplain frontend code in backend terms.\n');
    expect(m).toEqual({ memory: expect.objectContaining({ title: 'Senior Go developer, new to React', body: 'Explain frontend code in backend terms.', type: 'declarative', scope: 'global', kind: 'user', name: 'User role' }) });
    // The type may sit under metadata:, and a file may have no frontmatter at all.
    expect(claudeTopic('a.md', '---\nname: A\nmetadata:\n  type: feedback\n---\nAlways run `npm run lint` before pushing.\n')).toEqual({ memory: expect.objectContaining({ type: 'directive', scope: 'project' }) });
    expect(claudeTopic('b.md', 'Deploys go through `make deploy`.\n')).toEqual({ memory: expect.objectContaining({ title: 'Deploys go through `make deploy`.', scope: 'project' }) });
    expect(claudeTopic('c.md', '---\nname: [x\n---\nbody\n')).toEqual({ error: expect.stringMatching(/frontmatter is not valid YAML/) });
    expect(claudeTopic('d.md', '---\nname: x\nbody with no closing line\n')).toEqual({ error: 'its frontmatter has no closing --- line' });
    expect(claudeTopic('e.md', '---\n---\n\n')).toEqual({ memory: null });
  });

  it('splits markdown into list items and paragraphs, continuation lines and code blocks kept with their item', () => {
    const items = markdownItems('# Index\n\n- one item\n  continued here\n- two\n  - nested\n\nA paragraph\nof two lines.\n\n```sh\nnpm test\n```\n\n<!-- note -->\n');
    expect(items.map((i) => i.text)).toEqual(['one item\ncontinued here', 'two\n- nested', 'A paragraph\nof two lines.', '```sh\nnpm test\n```']);
    expect(items[0].heading).toBe('Index');
  });

  it('takes relative markdown links only, and the working folders a Codex block names', () => {
    expect(markdownLinks('- [A](a.md) [B](./sub/b.md#x) [W](https://x.dev/c.md) [T](t.txt) [S](my%20notes.md)')).toEqual(['a.md', 'sub/b.md', 'my notes.md']);
    expect(blockFolders('applies_to: cwd=/work/app; reuse_rule=x\n- r.md (cwd=~/src/lib, rollout_path=/r)\ncwd=any workflow', '/home/u')).toEqual(['/work/app', '/home/u/src/lib']);
  });
});
