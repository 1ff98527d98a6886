// Where mem itself is installed: the package folder (package.json with bin/mem.js and
// templates/ beside it), found upwards from this module, so the same code works from the built
// bundle (dist/) and from the TypeScript sources (src/…).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemError } from './errors.js';

let root: string | undefined;

export function packageRoot(): string {
  if (root !== undefined) return root;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'bin', 'mem.js'))) return (root = dir);
    if (path.dirname(dir) === dir) throw new MemError('cannot find the mem package (bin/mem.js)');
  }
}

/** The launcher of this mem: bin/mem.js of the package. */
export function memBin(): string {
  return path.join(packageRoot(), 'bin', 'mem.js');
}
