// Resolving conflicted memory files by entry id, by the merge driver's rules (src/integrations/
// merge.ts): from git's index stages when the file is unmerged (with markers in it, or none when the
// driver could not run), else from the conflict markers in the file (a merge made without the
// driver: a clone without the config, a web UI). What cannot be resolved stays marked and is
// reported, and so is what only the user can decide. Used by `mem resolve` and `mem lint --fix`.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { spawnSync } from '../child-process.js';
import { isFailure, MEMORY_FILE_LIMIT, readRegularBytes } from '../vault/read.js';
import { withFileLock, writeFileAtomic } from '../vault/write.js';
import { markRegion, splitConflictMarkers } from './merge.js';
import { mergeCoveredFile } from './note-merge.js';
import { gitMergeFile } from './git-merge-file.js';
import { firstMarkerLine } from '../vault/gitmarkers.js';
import { driverCovers } from './merge-coverage.js';
import { parseMemoryFile } from '../vault/format.js';

export interface Outcome {
  path: string;
  resolved: boolean;
  changed: boolean;
  staged: boolean;
  conflicts: number;
  conflict_ids: string[];
  /** The title of each of `conflict_ids` (this side's), to name the entries to the user. */
  conflict_titles?: string[];
  /** The file as the user names it from the folder mem ran in (`path` is from the repository's top). */
  file?: string;
  /** For a typed note: the fields and sections left in conflict. */
  conflict_parts?: string[];
  source: 'stages' | 'markers' | 'none';
  note?: string;
  /** What the user can do next, when it is not resolved and the conflict markers do not say. */
  hint?: string;
  /** A modify/delete conflict: the side that deleted the file (git status's "deleted by us/them"). */
  deleted_by?: 'us' | 'them';
}

function git(cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  return { ok: !r.error && r.status === 0, out: r.stdout ?? '', err: (r.stderr ?? '').trim() };
}


/** The unmerged paths of the repository, with the stages each has (stage number → object id). */
function unmerged(top: string): Map<string, Map<number, string>> {
  const r = git(top, ['ls-files', '-u', '-z']);
  const out = new Map<string, Map<number, string>>();
  if (!r.ok) return out;
  for (const rec of r.out.split('\0')) {
    const m = /^\d+ ([0-9a-f]+) ([123])\t(.*)$/s.exec(rec);
    if (!m) continue;
    const stages = out.get(m[3]) ?? new Map<number, string>();
    stages.set(Number(m[2]), m[1]);
    out.set(m[3], stages);
  }
  return out;
}

/**
 * Whether `bytes` are the blob `oid` as git would store them at `rel` (its clean filters and line
 * ending conversion applied, so a CRLF checkout of the same text counts as the same).
 */
function sameBlob(top: string, rel: string, bytes: Buffer, oid: string): boolean {
  const r = spawnSync('git', ['hash-object', `--path=${rel}`, '--stdin'], { cwd: top, input: bytes, encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['pipe', 'pipe', 'pipe'] });
  return !r.error && r.status === 0 && (r.stdout ?? '').trim() === oid;
}

/** A modify/delete conflict, in git status's words: who deleted the file, who changed (or added) it. */
function oneSided(file: string, st: Map<number, string>): Pick<Outcome, 'note' | 'hint' | 'deleted_by'> {
  const [kept, gone] = st.has(2) ? ['us', 'them'] as const : ['them', 'us'] as const;
  const what = st.has(1) ? `deleted by ${gone}, changed by ${kept}` : `added by ${kept}, not on ${gone === 'them' ? 'their' : 'our'} side`;
  return {
    deleted_by: gone,
    note: `${what}: keep it or delete it, which only you can say; nothing staged`,
    hint: `to keep it as it is: git add ${file}; to delete it: git rm ${file}; then commit the merge`,
  };
}

/** The paths (from the top) git merges with the mem driver, by the repository's own `.gitattributes`. */
function mergedByMem(top: string, paths: string[]): Set<string> {
  const out = new Set<string>();
  if (paths.length === 0) return out;
  const r = spawnSync('git', ['check-attr', '-z', '--stdin', 'merge'], { cwd: top, input: paths.map((p) => `${p}\0`).join(''), encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) return out;
  const f = (r.stdout ?? '').split('\0');
  for (let i = 0; i + 2 < f.length; i += 3) if (f[i + 2] === 'mem') out.add(f[i]);
  return out;
}

/**
 * The unmerged paths that are memory files: the ones `.gitattributes` gives the mem driver, and
 * the ones the driver's patterns name from the vault root (a clone whose `.gitattributes` is older
 * than this mem, or a merge made without it).
 */
function memoryTargets(top: string, unmergedPaths: string[], vaultRoot: string | null): string[] {
  const attr = mergedByMem(top, unmergedPaths);
  let fromRoot: string | null = null;
  if (vaultRoot !== null) {
    let real = vaultRoot;
    try {
      real = fs.realpathSync(vaultRoot);
    } catch {
      real = vaultRoot;
    }
    if (real === top) fromRoot = '';
    else if (real.startsWith(top + path.sep)) fromRoot = path.relative(top, real).split(path.sep).join('/') + '/';
  }
  return unmergedPaths.filter((p) => {
    if (attr.has(p)) return true;
    if (fromRoot === null) return driverCovers(p);
    return p.startsWith(fromRoot) && driverCovers(p.slice(fromRoot.length));
  });
}

/**
 * Resolve memory files: `args` named by the user (relative to `cwd`), or, when none, every memory
 * file git reports as unmerged (`vaultRoot`, when known, anchors the driver's patterns). Resolved
 * files are staged when `stage` is set.
 */
export function resolveConflicts(cwd: string, args: string[], stage: boolean, vaultRoot: string | null = null): Outcome[] | null {
  const topR = git(cwd, ['rev-parse', '--show-toplevel']);
  const top = topR.ok ? fs.realpathSync(topR.out.trim()) : null;
  const stages = top ? unmerged(top) : new Map<string, Map<number, string>>();
  let targets: { abs: string; rel: string | null }[];
  if (args.length > 0) {
    targets = args.map((a) => {
      const abs = path.resolve(cwd, a);
      let real = abs;
      try {
        real = path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
      } catch {
        real = abs;
      }
      const rel = top && (real === top || real.startsWith(top + path.sep)) ? path.relative(top, real).split(path.sep).join('/') : null;
      return { abs, rel };
    });
  } else {
    if (!top) throw new MemError('not in a git repository, and no file named', { exitCode: 2, hint: 'name the files: mem resolve MEMORY.md' });
    targets = memoryTargets(top, [...stages.keys()], vaultRoot).map((rel) => ({ abs: path.join(top, rel), rel }));
    if (targets.length === 0) return null;
  }
  const outcomes: Outcome[] = [];
  for (const t of targets) {
    const shown = t.rel ?? path.relative(cwd, t.abs);
    const o: Outcome = { path: shown, resolved: false, changed: false, staged: false, conflicts: 0, conflict_ids: [], source: 'none', file: path.relative(cwd, t.abs) || t.abs };
    outcomes.push(o);
    const st = top && t.rel !== null ? stages.get(t.rel) : undefined;
    if (st && !(st.has(2) && st.has(3))) {
      // One side deleted it: there is nothing to merge, and keeping it or not is the user's call.
      Object.assign(o, oneSided(o.file ?? shown, st));
      continue;
    }
    const buf = readRegularBytes(t.abs, MEMORY_FILE_LIMIT);
    if (isFailure(buf)) {
      o.note = `cannot read it: ${buf.error}`;
      continue;
    }
    const current = buf.toString('utf8');
    const marked = firstMarkerLine(current) !== null;
    if (!marked && !st) {
      // Not unmerged in git, no markers: nothing to resolve.
      o.resolved = true;
      o.note = 'no conflict markers';
      continue;
    }
    let sides: { base: string; ours: string; theirs: string } | null = null;
    if (top && t.rel !== null && st) {
      const show = (n: number) => (st.has(n) ? git(top, ['show', `:${n}:${t.rel}`]) : { ok: true, out: '', err: '' });
      const [b, ours, theirs] = [show(1), show(2), show(3)];
      if (b.ok && ours.ok && theirs.ok) {
        sides = { base: b.out, ours: ours.out, theirs: theirs.out };
        o.source = 'stages';
      } else if (!marked) {
        o.note = `cannot read git's versions of it: ${[b, ours, theirs].find((x) => !x.ok)?.err ?? ''}`;
        continue;
      }
    }
    if (!sides) {
      const split = splitConflictMarkers(current);
      if (!split) {
        o.note = 'its conflict markers do not pair up; resolve it by hand';
        continue;
      }
      sides = split;
      o.source = 'markers';
    }
    const r = mergeCoveredFile(sides.base, sides.ours, sides.theirs, t.rel ?? shown, {
      textMerge: (b, x, y) => gitMergeFile(b, x, y) ?? { text: markRegion(x, y), conflicts: 1 },
    });
    if (!marked && st && top && t.rel !== null) {
      // Unmerged with no markers: git's merge stopped before writing any (the driver could not run).
      // Merged from the stages when the file is still the version git left (this side's), or when it
      // is that merge already (mem resolve --no-stage). Otherwise the user edited it: their edits are
      // never merged over, nor is it called resolved, as the other side's changes may not be in it.
      const merged = r.conflicts === 0 && r.text === current;
      if (!merged && !sameBlob(top, t.rel, buf, st.get(2) ?? '')) {
        o.source = 'none';
        o.note = 'edited since the merge, which git left unfinished; mem resolve does not merge over your edits and cannot tell whether the other side\'s changes are in it; nothing staged';
        o.hint = `if it holds both sides' changes, git add ${o.file}; else git checkout --merge ${o.file} (this drops your edits) and run mem resolve again`;
        continue;
      }
    }
    if (r.fallback) {
      o.note = `${r.fallback}; resolve it by hand`;
      continue;
    }
    o.conflicts = r.conflicts;
    o.conflict_ids = r.conflictIds;
    if (r.conflictIds.length > 0) o.conflict_titles = titlesOf(r.conflictIds, [sides.ours, sides.theirs], t.rel ?? shown);
    if (r.conflictParts) o.conflict_parts = r.conflictParts;
    if (r.text !== current) {
      withFileLock(t.abs, () => {
        // Changed since it was read (an editor saving): leave it to the user.
        const now = readRegularBytes(t.abs, MEMORY_FILE_LIMIT);
        if (isFailure(now) || now.toString('utf8') !== current) throw new MemError(`${shown} changed while it was resolved; run mem resolve again`);
        writeFileAtomic(t.abs, r.text);
      }, shown);
      o.changed = true;
    }
    o.resolved = r.conflicts === 0;
    if (o.resolved && stage && top && t.rel !== null) {
      const add = git(top, ['add', '--', t.rel]);
      o.staged = add.ok;
      if (!add.ok) o.note = `git add failed: ${add.err}`;
    }
  }
  return outcomes;
}

/** Each id's title as one side has it (this side first): what the user recognises the entry by. */
function titlesOf(ids: string[], sides: string[], rel: string): string[] {
  const titles = new Map<string, string>();
  for (const text of sides) {
    for (const b of parseMemoryFile(text, rel).blocks) if (b.entry && !titles.has(b.entry.id)) titles.set(b.entry.id, b.entry.title);
  }
  return ids.map((id) => titles.get(id) ?? '');
}

/**
 * What to do about the files left between conflict markers, for the user to read after their
 * names: mem merges what it can by entry id, but which of two edits of one entry's text is right
 * only a person can say.
 */
export function handResolution(left: Outcome[]): string | null {
  const files = left.filter((o) => !o.resolved && o.conflicts > 0).map((o) => o.file ?? o.path);
  if (files.length === 0) return null;
  const names = files.join(' ');
  const notes = left.some((o) => !o.resolved && o.conflicts > 0 && o.conflict_parts);
  return `edit ${files.length === 1 ? files[0] : names} by hand: between each <<<<<<< and >>>>>>> keep one version of the ${notes ? 'entry or part' : 'entry'} (or write the two as one), `
    + `delete the marker lines (<<<<<<<, |||||||, =======, >>>>>>>), then run mem lint and git add ${names}`;
}

