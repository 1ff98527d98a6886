// What names belong to this project, for the project-agnostic check of global promotion: the
// project's own names (folder, package, git remote) and the file and folder names in the repo.

import path from 'node:path';
import { readTarget } from '../vault/boundary.js';
import { readRegular } from '../vault/read.js';
import { readDir } from '../vault/vault.js';

/** A small file of the repository, only a regular one inside it; null otherwise. */
function readSmall(root: string, rel: string): string | null {
  return readRegular(readTarget(path.join(root, rel), rel, [root]), 1 << 20);
}

export function projectNames(root: string): string[] {
  const names = new Set<string>([path.basename(root)]);
  try {
    const pkg = JSON.parse(readSmall(root, 'package.json') ?? '') as { name?: unknown };
    if (typeof pkg.name === 'string') names.add(pkg.name.replace(/^@[^/]+\//, ''));
  } catch {
    // no package.json
  }
  try {
    const cfg = readSmall(root, path.join('.git', 'config')) ?? '';
    for (const m of cfg.matchAll(/url\s*=\s*\S*?([^/:\s]+?)(?:\.git)?\s*$/gm)) names.add(m[1]);
  } catch {
    // not a git checkout
  }
  return [...names].filter((n) => n.length >= 3);
}

const SKIP = new Set(['node_modules', '.git', '.mem', '.teaparty', 'dist', 'build', 'coverage', '.memory.db']);

/** Lowercased base names (without extension, 4+ chars) of files and folders under root. */
export function repoNames(root: string, limit = 20_000): Set<string> {
  const out = new Set<string>();
  let seen = 0;
  const walk = (dir: string, depth: number) => {
    if (depth > 6 || seen > limit) return;
    for (const e of readDir(dir)) {
      if (++seen > limit) return;
      if (SKIP.has(e.name) || e.name.startsWith('.')) continue;
      const base = e.name.replace(/\.[^.]+$/, '').toLowerCase();
      if (base.length >= 4) out.add(base);
      if (e.isDirectory()) walk(path.join(dir, e.name), depth + 1);
    }
  };
  walk(root, 0);
  return out;
}
