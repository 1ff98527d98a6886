// Files `mem init` writes, read from the package's templates/ folder.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'templates'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('mem: cannot find the templates folder of the mem package');
    dir = parent;
  }
}

export function template(name: string): string {
  return fs.readFileSync(path.join(packageRoot(), 'templates', name), 'utf8');
}
