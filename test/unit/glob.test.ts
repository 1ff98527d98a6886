import { describe, expect, it } from 'vitest';
import { globBase, globToRegExp } from '../../src/vault/glob.js';

describe('globToRegExp', () => {
  const cases: [string, string, boolean][] = [
    ['docs/**/*.md', 'docs/a.md', true],
    ['docs/**/*.md', 'docs/x/y/a.md', true],
    ['docs/**/*.md', 'docsx/a.md', false],
    ['docs/*.md', 'docs/x/a.md', false],
    ['**/*.md', 'a/b/c.md', true],
    ['**/*.md', 'c.md', true],
    ['notes/{a,b}.md', 'notes/b.md', true],
    ['notes/{a,b}.md', 'notes/c.md', false],
    ['n?tes/*.md', 'notes/z.md', true],
    ['notes/[ab]*.md', 'notes/beta.md', true],
    ['notes/[!ab]*.md', 'notes/beta.md', false],
    ['README.md', 'README.md', true],
    ['a.md', 'aXmd', false],
  ];
  it.each(cases)('%s ~ %s = %s', (g, p, want) => {
    expect(globToRegExp(g).test(p)).toBe(want);
  });
  it('finds the static base of a glob', () => {
    expect(globBase('docs/**/*.md')).toBe('docs');
    expect(globBase('a/b/*.md')).toBe('a/b');
    expect(globBase('*.md')).toBe('');
  });
});
