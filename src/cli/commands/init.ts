// `mem init`: a vault in this project — MEMORY.md, institutional.md, .mem/config.yaml — the
// index kept out of git, and the merge driver for memory files registered with git.

import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { MemError } from '../../errors.js';

import { commandCtx, type Ctx } from '../io.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('set up a vault: MEMORY.md, institutional.md, .mem/config.yaml, .gitignore lines')
    .addHelpText('after', `
The vault root is --root / MEM_ROOT, else the enclosing git repository, else this folder.
Existing files are never overwritten; running init twice changes nothing. It registers the git
merge driver for memory files and typed notes (.gitattributes lines, git config); in a vault set
up by an older mem, running it again adds the lines that are missing (mem doctor says when).

Examples:
  $ mem init
  $ mem init --root ~/work/api`)
    .action(async (_opts: unknown, command: Command) => {
      await initCommand(commandCtx(command));
    });
}

function initRoot(ctx: Ctx): string {
  const explicit = ctx.root ?? ctx.env.MEM_ROOT;
  if (explicit) return path.resolve(ctx.cwd, explicit);
  let dir = ctx.cwd;
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git')) || fs.existsSync(path.join(dir, '.mem'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return ctx.cwd;
    dir = parent;
  }
}

export const GITIGNORE_LINES = ['.memory.db*', '.mem/sessions/', '.mem/logs/', '.mem/extracted.jsonl', '.mem/local/'];

/** Filesystems that hold no user files (statfs magic numbers): a vault there makes no sense. */
const PSEUDO_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'], [0x62656572, 'sysfs'], [0x27e0eb, 'cgroup'], [0x63677270, 'cgroup2'], [0x64626720, 'debugfs'], [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'], [0x1cd1, 'devpts'], [0x6165676c, 'pstore'], [0xcafe4a11, 'bpf'], [0x62656570, 'configfs'], [0x19800202, 'mqueue'],
  [0xf97cff8c, 'selinuxfs'], [0x958458f6, 'hugetlbfs'], [0x65735543, 'fusectl'], [0x42494e4d, 'binfmt_misc'],
]);

function errText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const why: Record<string, string> = {
    EACCES: 'permission denied', EPERM: 'not permitted', EROFS: 'read-only file system', ENOSPC: 'no space left on the device',
    ENOENT: 'it does not accept new files', ENOTDIR: 'a part of the path is a file', EEXIST: 'something is in the way', EISDIR: 'it is a folder',
  };
  return (e?.code && why[e.code]) ?? (e instanceof Error ? e.message : String(err));
}

/**
 * Make sure `root` is a folder a vault can live in, creating it (and missing parents) when it does
 * not exist yet. Refused with one clear line: the filesystem root, a path through a file, a
 * system filesystem (/proc, /sys, …), a folder that cannot be written.
 */
function prepareRoot(root: string): void {
  if (path.parse(root).root === root) {
    throw new MemError(`will not set up a vault at the filesystem root ${root}`, { hint: 'run mem init in a project folder, or pass --root DIR' });
  }
  const missing: string[] = [];
  let dir = root;
  let st: fs.Stats | undefined;
  for (;;) {
    try {
      st = fs.statSync(dir);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new MemError(`cannot set up a vault in ${root}: a part of the path is a file`);
      if (code !== 'ENOENT') throw new MemError(`cannot set up a vault in ${root}: ${errText(err)}`);
      missing.unshift(dir);
      const parent = path.dirname(dir);
      if (parent === dir) throw new MemError(`cannot set up a vault in ${root}: no such folder`);
      dir = parent;
    }
  }
  if (!st.isDirectory()) {
    throw new MemError(`cannot set up a vault in ${root}: ${dir === root ? 'it is' : `${dir} is`} not a folder`, { hint: 'pass --root a folder' });
  }
  let type: number | undefined;
  try {
    type = fs.statfsSync(dir).type;
  } catch {
    type = undefined;
  }
  const pseudo = type === undefined ? undefined : PSEUDO_FS.get(type >>> 0);
  if (pseudo || (process.platform === 'linux' && /^\/(proc|sys|dev)(\/|$)/.test(root))) {
    throw new MemError(`will not set up a vault in ${root}: it is a system filesystem${pseudo ? ` (${pseudo})` : ''}, not a project folder`, { hint: 'pass --root a project folder' });
  }
  // One level at a time: a recursive mkdir on a filesystem that refuses new folders with ENOENT
  // (procfs does) retries without end.
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new MemError(`cannot create ${d}: ${errText(err)}`);
    }
  }
}

/** A file init writes must be a file (or absent): never a folder, a FIFO, a device. */
function existingFile(abs: string, rel: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A link that points nowhere is not replaced by a new file.
      if (fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink()) throw new MemError(`${rel} is a link to a missing file; not replaced`, { hint: 'fix or remove the link, then run mem init again' });
      return false;
    }
    throw new MemError(`cannot check ${rel}: ${errText(err)}`);
  }
  if (!st.isFile()) throw new MemError(`${rel} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}; mem init expects a file there`, { hint: `move it away, then run mem init again` });
  return true;
}

async function initCommand(ctx: Ctx): Promise<void> {
  const root = initRoot(ctx);
  prepareRoot(root);
  const { template } = await import('../../vault/templates.js');
  const { writeFileAtomic, withFileLock } = await import('../../vault/write.js');
  // No write of init goes through a link out of the project (a cloned `.gitignore -> ~/x`).
  (await import('../../vault/boundary.js')).confineWritesTo([root]);
  const created: string[] = [];
  const updated: string[] = [];
  const targets = [['MEMORY.md', 'MEMORY.md'], ['institutional.md', 'institutional.md'], ['.mem/config.yaml', 'config.yaml']];
  const memDir = path.join(root, '.mem');
  // Everything in the way is found before anything is written.
  const memDirStat = fs.statSync(memDir, { throwIfNoEntry: false });
  if (memDirStat && !memDirStat.isDirectory()) throw new MemError('.mem is a file; mem init needs a folder there', { hint: 'move it away, then run mem init again' });
  const present = new Set(targets.filter(([rel]) => existingFile(path.join(root, rel), rel)).map(([rel]) => rel));
  const gi = path.join(root, '.gitignore');
  const current = existingFile(gi, '.gitignore') ? fs.readFileSync(gi, 'utf8') : '';
  const { registerMergeDriver } = await import('../../integrations/merge-setup.js');
  try {
    fs.mkdirSync(memDir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw new MemError(`cannot set up a vault in ${root}: ${errText(err)}`, { hint: code === 'EACCES' || code === 'EROFS' ? 'pick a folder you can write to' : undefined });
    if (!fs.statSync(memDir).isDirectory()) throw new MemError('.mem is a file; mem init needs a folder there', { hint: 'move it away, then run mem init again' });
  }
  for (const [rel, tpl] of targets) {
    const abs = path.join(root, rel);
    if (present.has(rel)) continue;
    withFileLock(abs, () => writeFileAtomic(abs, template(tpl)), rel);
    created.push(rel);
  }
  const have = new Set(current.split(/\r?\n/).map((l) => l.trim()));
  const missing = GITIGNORE_LINES.filter((l) => !have.has(l));
  if (missing.length > 0) {
    // In the file's own line-ending style (a CRLF .gitignore stays CRLF).
    const { newlineOf } = await import('../../vault/safetext.js');
    const nl = newlineOf(current);
    const sep = current === '' || current.endsWith('\n') ? '' : nl;
    const header = have.has('# mem') ? '' : `# mem${nl}`;
    withFileLock(gi, () => writeFileAtomic(gi, `${current}${sep}${current ? nl : ''}${header}${missing.join(nl)}${nl}`), '.gitignore');
    (current ? updated : created).push('.gitignore');
  }
  const driver = registerMergeDriver(root);
  created.push(...driver.created);
  updated.push(...driver.updated);
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
