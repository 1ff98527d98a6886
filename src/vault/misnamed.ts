// Memory files under a name mem does not read: `memory.md`, `Institutional.md`, `PROXY.MD` …
// where MEMORY.md, institutional.md or proxy.md belong. Found in the real folder listings, so a
// file that a case-insensitive file system hands out for the right name is told apart.

import fs from 'node:fs';
import path from 'node:path';
import { MEMORY_NAMES, ROOT_FILES, type Vault, type VaultFile } from './vault.js';

export interface Misnamed {
  /** The file as found (root-relative, or absolute for the global folder). */
  path: string;
  /** The name mem reads there. */
  want: string;
  /** mem reads it all the same (this file system ignores case), though another one would not. */
  readAnyway: boolean;
  /** A file with the right name is beside it (then this one is never read). */
  besideRight: boolean;
}

function listNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function identity(abs: string): string | null {
  try {
    const st = fs.statSync(abs);
    return st.isFile() ? `${st.dev}:${st.ino}` : null;
  } catch {
    return null;
  }
}

function subdirs(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
}

/**
 * The misnamed memory files of the vault: at the root, in the global folder, and in the job and
 * task folders. `read`: the files mem reads (discoverFiles), to tell which are read anyway.
 */
export function misnamedMemoryFiles(vault: Vault, read: VaultFile[]): Misnamed[] {
  const readIds = new Set(read.map((f) => identity(f.abs)).filter((x): x is string => x !== null));
  const places: { dir: string; shown: (name: string) => string; names: readonly string[] }[] = [
    { dir: vault.root, shown: (n) => n, names: ROOT_FILES },
  ];
  if (path.resolve(vault.home) !== path.resolve(vault.root)) places.push({ dir: vault.home, shown: (n) => path.join(vault.home, n), names: [...MEMORY_NAMES] });
  for (const base of ['.mem/jobs', '.teaparty/jobs']) {
    for (const job of subdirs(path.join(vault.root, base))) {
      const jobRel = `${base}/${job}`;
      places.push({ dir: path.join(vault.root, jobRel), shown: (n) => `${jobRel}/${n}`, names: [...MEMORY_NAMES] });
      for (const task of subdirs(path.join(vault.root, jobRel, 'tasks'))) {
        const taskRel = `${jobRel}/tasks/${task}`;
        places.push({ dir: path.join(vault.root, taskRel), shown: (n) => `${taskRel}/${n}`, names: [...MEMORY_NAMES] });
      }
    }
  }
  const out: Misnamed[] = [];
  for (const place of places) {
    const listed = listNames(place.dir);
    if (listed.length === 0) continue;
    const exact = new Set(listed);
    const byLower = new Map(place.names.map((n) => [n.toLowerCase(), n]));
    for (const name of listed) {
      const want = byLower.get(name.toLowerCase());
      if (want === undefined || want === name) continue;
      const id = identity(path.join(place.dir, name));
      if (id === null) continue;
      const besideRight = exact.has(want);
      // Beside the right name, this one is another file (or a second link to it): mem never reads
      // it by this name. Alone, it is read only where the file system answers the right name with it.
      out.push({ path: place.shown(name), want, readAnyway: !besideRight && readIds.has(id), besideRight });
    }
  }
  return out;
}

/** What to tell the user about a misnamed file, in one line. */
export function misnamedMessage(m: Misnamed): string {
  if (m.readAnyway) {
    return `read as ${m.want} only because this file system ignores case; where case matters (Linux, CI, a clone) its entries are not read: rename it to ${m.want}`;
  }
  if (m.besideRight) return `not read: mem reads ${m.want} beside it; move its entries into ${m.want}`;
  return `not read: mem reads ${m.want} here; rename it to ${m.want}`;
}
