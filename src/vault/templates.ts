// Files `mem init` writes, read from the package's templates/ folder.

import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package.js';

export function template(name: string): string {
  return fs.readFileSync(path.join(packageRoot(), 'templates', name), 'utf8');
}
