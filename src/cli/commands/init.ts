// `mem init`: a vault in this project — MEMORY.md, institutional.md, .mem/config.yaml — and the
// index kept out of git.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { globals } from '../common.js';
import { makeCtx, type Ctx } from '../io.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('set up a vault: MEMORY.md, institutional.md, .mem/config.yaml, .gitignore lines')
    .addHelpText('after', `
The vault root is --root / MEM_ROOT, else the enclosing git repository, else this folder.
Existing files are never overwritten; running init twice changes nothing.

Examples:
  $ mem init
  $ mem init --root ~/work/api`)
    .action(async (_opts: unknown, command: Command) => {
      await initCommand(makeCtx(globals(command)));
    });
}

function initRoot(ctx: Ctx): string {
  const explicit = ctx.root ?? process.env.MEM_ROOT;
  if (explicit) return path.resolve(ctx.cwd, explicit);
  let dir = ctx.cwd;
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git')) || fs.existsSync(path.join(dir, '.mem'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return ctx.cwd;
    dir = parent;
  }
}

export const GITIGNORE_LINES = ['.memory.db*', '.mem/sessions/', '.mem/logs/', '.mem/extracted.jsonl'];

async function initCommand(ctx: Ctx): Promise<void> {
  const root = initRoot(ctx);
  const { template } = await import('../../vault/templates.js');
  const { writeFileAtomic, withFileLock } = await import('../../vault/write.js');
  // No write of init goes through a link out of the project (a cloned `.gitignore -> ~/x`).
  (await import('../../vault/boundary.js')).confineWritesTo([root]);
  const created: string[] = [];
  const updated: string[] = [];
  fs.mkdirSync(path.join(root, '.mem'), { recursive: true });
  for (const [rel, tpl] of [['MEMORY.md', 'MEMORY.md'], ['institutional.md', 'institutional.md'], ['.mem/config.yaml', 'config.yaml']]) {
    const abs = path.join(root, rel);
    if (fs.existsSync(abs)) continue;
    withFileLock(abs, () => writeFileAtomic(abs, template(tpl)), rel);
    created.push(rel);
  }
  const gi = path.join(root, '.gitignore');
  const current = fs.existsSync(gi) ? fs.readFileSync(gi, 'utf8') : '';
  const have = new Set(current.split(/\r?\n/).map((l) => l.trim()));
  const missing = GITIGNORE_LINES.filter((l) => !have.has(l));
  if (missing.length > 0) {
    const sep = current === '' || current.endsWith('\n') ? '' : '\n';
    const header = have.has('# mem') ? '' : '# mem\n';
    withFileLock(gi, () => writeFileAtomic(gi, `${current}${sep}${current ? '\n' : ''}${header}${missing.join('\n')}\n`), '.gitignore');
    (current ? updated : created).push('.gitignore');
  }
  if (ctx.json) {
    ctx.out(JSON.stringify({ root, created, updated }, null, 2));
    return;
  }
  if (created.length === 0 && updated.length === 0) {
    ctx.out(`mem vault already set up in ${root}`);
    return;
  }
  for (const f of created) ctx.out(`created ${f}`);
  for (const f of updated) ctx.out(`updated ${f}`);
  ctx.out(`\nvault ready in ${root}\nnext: mem add "what you learned" · mem search "a question"`);
}
