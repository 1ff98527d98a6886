// bin/mem starts the commands it lists as offline without NODE_EXTRA_CA_CERTS (see there). This
// keeps the list honest: no module such a command can load, statically or lazily, reaches the
// LLM clients (src/llm), the only code of mem that opens network connections.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';

const SRC = path.join(REPO, 'src');

function offlineCommands(): string[] {
  const launcher = fs.readFileSync(path.join(REPO, 'bin', 'mem'), 'utf8');
  const m = /^\s*((?:[a-z-]+ \| )+[a-z-]+)\)\s*$/m.exec(launcher);
  if (!m) throw new Error('no command list in bin/mem');
  return m[1].split(' | ');
}

/** Every source module `entry` can load: static imports, re-exports and import() calls. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), m[1]).replace(/\.js$/, '.ts');
      if (fs.existsSync(target)) todo.push(target);
    }
  }
  return seen;
}

describe('the offline commands of bin/mem', () => {
  it('are real commands, and none of them can load the LLM clients', () => {
    const commands = offlineCommands();
    expect(commands).toContain('search');
    expect(commands).not.toContain('extract');
    for (const cmd of commands) {
      const file = path.join(SRC, 'cli', 'commands', `${cmd}.ts`);
      expect(fs.existsSync(file), `${cmd}: no ${file}`).toBe(true);
      const llm = [...reachable(file)].filter((f) => f.startsWith(path.join(SRC, 'llm') + path.sep));
      expect(llm, `${cmd} can load ${llm.join(', ')}`).toEqual([]);
    }
  });

  it('the check finds the LLM clients where they are used', () => {
    for (const cmd of ['extract', 'stage', 'doctor']) {
      const files = [...reachable(path.join(SRC, 'cli', 'commands', `${cmd}.ts`))];
      expect(files.some((f) => f.startsWith(path.join(SRC, 'llm') + path.sep)), cmd).toBe(true);
    }
  });
});
