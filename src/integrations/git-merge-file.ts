// git's own line-based three-way merge (`git merge-file -p`), for text mem cannot merge by entry
// (plain notes, a side with markers or NUL bytes): real git, on temporary copies of the three sides.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from '../child-process.js';

/**
 * git's line-based three-way merge of three texts. Returns null when git cannot merge them
 * (binary, git missing): the caller then keeps the current side and reports a conflict.
 */
export function gitMergeFile(base: string, ours: string, theirs: string, labels = { ours: 'ours', base: 'base', theirs: 'theirs' }): { text: string; conflicts: number } | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-merge-'));
  try {
    const files = [['ours', ours], ['base', base], ['theirs', theirs]].map(([name, text]) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, text);
      return f;
    });
    const r = spawnSync('git', ['merge-file', '-p', '-L', labels.ours, '-L', labels.base, '-L', labels.theirs, ...files], { encoding: 'utf8', maxBuffer: 1 << 30 });
    // Exit status: the number of conflicts (capped at 127); negative (255 here) on an error.
    if (r.error || r.status === null || r.status > 127) return null;
    return { text: r.stdout, conflicts: r.status };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
