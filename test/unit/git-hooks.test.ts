// mem's block in a hook file: inserted after the #! line, replaced in place, removed byte for byte.
import { describe, expect, it } from 'vitest';
import { BEGIN, END, SHEBANG, findBlock, hookBlock, insertBlock, isShellScript, removeBlock, shQuote } from '../../src/integrations/git-hooks.js';

const L = { node: '/usr/bin/node', js: '/opt/mem/bin/mem.js' };
const block = hookBlock('pre-commit', L);

describe('insertBlock / removeBlock', () => {
  const originals = [
    '#!/bin/sh\necho hi\nexit 0\n',
    '#!/usr/bin/env bash\r\nset -e\r\nnpx lint-staged\r\n',
    '#!/bin/sh\n. "$(dirname -- "$0")/_/husky.sh"\n\nnpx lint-staged', // no final newline
    'echo no shebang\n',
    '#!/bin/sh\n# caf\xe9 in latin1 bytes\n',
    '#!/bin/sh\n',
    '#!/bin/sh',
  ];
  for (const o of originals) {
    it(`keeps every byte of ${JSON.stringify(o.slice(0, 30))}`, () => {
      const withBlock = insertBlock(o, block);
      expect(withBlock).toContain(block);
      expect(insertBlock(withBlock, block)).toBe(withBlock); // twice: no change
      const back = removeBlock(withBlock);
      // A hook that was only a #! line goes with the block (nothing else remains)
      if (/^#![^\n]*\n?$/.test(o)) expect(back).toBeNull();
      else expect(back).toBe(o);
    });
  }

  it('puts the block right after the #! line, so an exit at the end of the hook cannot skip it', () => {
    const t = insertBlock('#!/bin/sh\nexec other-tool "$@"\n', block);
    expect(t.startsWith(`#!/bin/sh\n${BEGIN}`)).toBe(true);
    expect(t.endsWith(`${END}\nexec other-tool "$@"\n`)).toBe(true);
    expect(insertBlock('echo x\n', block).startsWith(BEGIN)).toBe(true);
  });

  it('a new hook is the shebang and the block; removing the block deletes it', () => {
    expect(insertBlock(null, block)).toBe(SHEBANG + block);
    expect(removeBlock(SHEBANG + block)).toBeNull();
  });

  it('replaces an older block where it stands, and leaves user lines around it', () => {
    const old = `${BEGIN} v0\nold stuff\n${END}\n`;
    const t = `#!/bin/sh\necho before\n${old}echo after\n`;
    expect(insertBlock(t, block)).toBe(`#!/bin/sh\necho before\n${block}echo after\n`);
    expect(removeBlock(t)).toBe('#!/bin/sh\necho before\necho after\n');
  });

  it('an unterminated BEGIN is no block: nothing is removed', () => {
    const t = `#!/bin/sh\n${BEGIN}\necho user\n`;
    expect(findBlock(t)).toBeNull();
    expect(removeBlock(t)).toBe(t);
  });
});

describe('hookBlock', () => {
  it('quotes paths for sh, whatever they hold', () => {
    expect(shQuote("a b'c$d")).toBe(`'a b'\\''c$d'`);
    const b = hookBlock('post-merge', { node: "/it's/node", js: '/x $(rm -rf)/mem.js' }, 'sub dir');
    expect(b).toContain(`mem_node='/it'\\''s/node'`);
    expect(b).toContain(`mem_js='/x $(rm -rf)/mem.js'`);
    expect(b).toContain(`mem_run --root 'sub dir' index --quiet`);
  });
  it('post-* hooks run in the background and never exit the hook; pre-commit may', () => {
    for (const h of ['post-merge', 'post-checkout', 'post-rewrite'] as const) {
      const b = hookBlock(h, L);
      expect(b).toMatch(/\n   exec <\/dev\/null >>"\$mem_log" 2>&1; mem_run index --quiet\) &\n\) \|\| :\n/);
      expect(b).not.toMatch(/exit 1/);
    }
    expect(block).toMatch(/lint --staged\n\) \|\| \{.*exit 1; \}/);
  });
});

describe('isShellScript', () => {
  const yes = ['#!/bin/sh\n', '#!/usr/bin/env bash\n', '#!/usr/bin/env -S dash -e\n', 'echo plain\n', '', '#!/bin/zsh'];
  const no = ['#!/usr/bin/env python3\nprint(1)\n', '#!/usr/bin/node\n', '#!/usr/bin/perl -w\n'];
  for (const t of yes) it(`shell: ${JSON.stringify(t)}`, () => expect(isShellScript(Buffer.from(t))).toBe(true));
  for (const t of no) it(`not shell: ${JSON.stringify(t)}`, () => expect(isShellScript(Buffer.from(t))).toBe(false));
  it('not shell: a binary', () => expect(isShellScript(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]))).toBe(false));
});
