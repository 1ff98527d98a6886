// The git merge driver for memory files, registered with git: `.gitattributes` lines for the
// memory file names and `merge.mem.*` in the repository's git config. Used by `mem init` and
// `mem hooks install --git`; `mem doctor` checks it.

import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package.js';
import { MemError } from '../errors.js';
import { spawnSync } from '../child-process.js';
import { withFileLock, writeFileAtomic } from '../vault/write.js';
import { DRIVER_PATTERNS, GITATTRIBUTES_LINES } from './merge-coverage.js';

export { GITATTRIBUTES_LINES } from './merge-coverage.js';

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

/** A path each pattern covers (`memory/**\/*.md` → `memory/x.md`), to ask git about. */
function samplePath(pattern: string): string {
  return pattern.replace(/\*\*\//g, '').replace(/\*/g, 'x');
}

/**
 * For mem doctor: whether git merges every kind of memory file of this repository with the mem
 * driver, and runs this mem for it. A `.gitattributes` written by an older mem lacks the newer
 * patterns (typed notes, `memory/`): those files then merge as plain text.
 */
export async function mergeDriverCheck(root: string): Promise<{ name: string; status: 'ok' | 'warn'; detail: string; hint?: string }> {
  const driver = git(root, ['config', '--get', 'merge.mem.driver']);
  const samples = DRIVER_PATTERNS.map(samplePath);
  const attr = git(root, ['check-attr', '-z', 'merge', '--', ...samples]).out.split('\0');
  const covered = new Set<string>();
  for (let i = 0; i + 2 < attr.length; i += 3) if (attr[i + 2] === 'mem') covered.add(attr[i]);
  const uncovered = DRIVER_PATTERNS.filter((p) => !covered.has(samplePath(p)));
  const hint = 'run mem init (or mem hooks install --git) in this clone: it adds the missing lines and keeps the rest';
  if (!driver.ok) return { name: 'merge driver', status: 'warn', detail: 'not registered: merge.mem.driver is not in the git config (merges of memory files fall back to text)', hint };
  if (uncovered.length === DRIVER_PATTERNS.length) return { name: 'merge driver', status: 'warn', detail: 'not registered: no memory file has merge=mem in .gitattributes (merges fall back to text)', hint };
  if (uncovered.length > 0) return { name: 'merge driver', status: 'warn', detail: `out of date: ${uncovered.join(', ')} not merged by mem (missing from .gitattributes)`, hint };
  let want: string | null = null;
  try {
    want = mergeDriverCommand();
  } catch {
    want = null;
  }
  if (want !== null && driver.out !== want) return { name: 'merge driver', status: 'warn', detail: `out of date: merge.mem.driver runs another mem (${driver.out})`, hint };
  return { name: 'merge driver', status: 'ok', detail: 'memory files and typed notes merge by entry id and field' };
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
  // A blank line before mem's own block; lines added to a block already there follow it directly.
  return `${bom}${text}${sep}${text && header ? nl : ''}${header}${missing.join(nl)}${nl}`;
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
