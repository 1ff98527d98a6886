// The git merge driver for memory files, registered with git: `.gitattributes` lines for the
// memory file names and `merge.mem.*` in the repository's git config. Used by `mem init` and
// `mem hooks install --git`; `mem doctor` checks it.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemError } from '../errors.js';
import { spawnSync } from '../cli/child-process.js';
import { withFileLock, writeFileAtomic } from '../vault/write.js';

/**
 * Memory files git merges with `mem merge-driver`. A pattern without a slash matches the name in
 * every folder (`.mem/…/MEMORY.md` too). Files under `memory/` may hold entries or be plain notes:
 * the driver merges the ones that hold entries by id and hands plain notes to git's own text merge,
 * so they merge exactly as without the driver.
 */
export const GITATTRIBUTES_LINES = ['MEMORY.md merge=mem', 'institutional.md merge=mem', 'proxy*.md merge=mem', 'memory/**/*.md merge=mem'];

function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'bin', 'mem.js'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new MemError('cannot find the mem package (bin/mem.js) to register the merge driver');
    dir = parent;
  }
}

/** A word for the POSIX shell git runs a merge driver with. */
function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/**
 * The merge driver command stored in the repository's git config: this Node and this package's
 * bin/mem.js by absolute path, so git finds them without `mem` on PATH (a GUI, a hook's bare
 * environment). The config is local to the clone; mem init updates it when either moves.
 */
export function mergeDriverCommand(): string {
  return `${shellQuote(process.execPath)} ${shellQuote(path.join(packageRoot(), 'bin', 'mem.js'))} merge-driver %O %A %B %P`;
}

function git(root: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: !r.error && r.status === 0, out: (r.stdout ?? '').trim() };
}

/**
 * Register the merge driver in the git config of the repository holding `root` (nothing when it
 * is not in one, or git is missing). Returns whether the config changed.
 */
export function registerMergeDriverConfig(root: string): boolean {
  if (!git(root, ['rev-parse', '--git-dir']).ok) return false;
  const want: [string, string][] = [['merge.mem.name', 'mem: merge memory files by entry id'], ['merge.mem.driver', mergeDriverCommand()]];
  let changed = false;
  for (const [key, value] of want) {
    if (git(root, ['config', '--local', '--get', key]).out === value) continue;
    if (!git(root, ['config', '--local', key, value]).ok) throw new MemError(`cannot set ${key} in the git config of ${root}`, { hint: `run: git config ${key} "${value}"` });
    changed = true;
  }
  return changed;
}

/** For mem doctor: whether git merges MEMORY.md of this repository with the mem driver. */
export async function mergeDriverCheck(root: string): Promise<{ name: string; status: 'ok' | 'warn'; detail: string; hint?: string }> {
  const driver = git(root, ['config', '--get', 'merge.mem.driver']);
  const attr = git(root, ['check-attr', 'merge', '--', 'MEMORY.md']).out;
  const missing = [...(driver.ok ? [] : ['merge.mem.driver in the git config']), ...(/: merge: mem$/.test(attr) ? [] : ['MEMORY.md merge=mem in .gitattributes'])];
  if (missing.length === 0) return { name: 'merge driver', status: 'ok', detail: 'memory files merge by entry id' };
  return { name: 'merge driver', status: 'warn', detail: `not registered: ${missing.join(', ')} (merges of memory files fall back to text)`, hint: 'run mem init in this clone' };
}

/** `.gitattributes` text with the merge-driver lines added (null: nothing to add), in its style. */
export function withGitattributes(current: string): string | null {
  const bom = current.startsWith('\ufeff') ? '\ufeff' : '';
  const text = bom ? current.slice(1) : current;
  const have = new Set(text.split(/\r?\n/).map((l) => l.trim().replace(/\s+/g, ' ')));
  const missing = GITATTRIBUTES_LINES.filter((l) => !have.has(l));
  if (missing.length === 0) return null;
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const sep = text === '' || text.endsWith('\n') ? '' : nl;
  const header = have.has('# mem: memory files merge by entry id') ? '' : `# mem: memory files merge by entry id${nl}`;
  return `${bom}${text}${sep}${text ? nl : ''}${header}${missing.join(nl)}${nl}`;
}

/**
 * Register the driver for the vault at `root`: the `.gitattributes` lines (kept in the file's
 * style; existing lines untouched) and, inside a git repository, the git config. Idempotent.
 */
export function registerMergeDriver(root: string): { created: string[]; updated: string[] } {
  const created: string[] = [];
  const updated: string[] = [];
  const ga = path.join(root, '.gitattributes');
  const st = fs.lstatSync(ga, { throwIfNoEntry: false });
  if (st && !st.isFile() && !st.isSymbolicLink()) throw new MemError('.gitattributes is not a regular file', { hint: 'move it away, then run the command again' });
  const attrs = st ? fs.readFileSync(ga, 'utf8') : null;
  const next = withGitattributes(attrs ?? '');
  if (next !== null) {
    withFileLock(ga, () => writeFileAtomic(ga, next), '.gitattributes');
    (attrs !== null ? updated : created).push('.gitattributes');
  }
  if (registerMergeDriverConfig(root)) updated.push('git config merge.mem');
  return { created, updated };
}
