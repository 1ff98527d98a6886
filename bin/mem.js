#!/usr/bin/env node
// Launcher: run the built CLI (npm run build writes dist/).
import { fileURLToPath } from 'node:url';
import { main } from '../dist/main.js';

const args = process.argv.slice(2);

/** The command word: the first argument that is neither an option nor the value of --root. */
function commandOf(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') i++;
    else if (!argv[i].startsWith('-')) return argv[i];
  }
  return undefined;
}

// Bulk commands (compaction, evaluation, consolidation) allocate many short-lived strings; a
// larger young generation saves them about a second per 100k entries (measured on `mem compact`).
// V8 takes the size only at start-up, so they run in a child process started with it. (A
// rebuild parses in a worker thread instead, where the flag only costs memory.)
const cmd = commandOf(args);
const bulk = cmd === 'compact' || cmd === 'eval' || cmd === 'consolidate';
if (bulk && !process.execArgv.some((a) => a.startsWith('--max-semi-space-size'))) {
  // Loaded here only: node:child_process costs ~5 ms of start-up that `mem search` never needs.
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(process.execPath, [...process.execArgv, '--max-semi-space-size=64', fileURLToPath(import.meta.url), ...args], { stdio: 'inherit' });
  if (r.error) {
    process.stderr.write(`mem: cannot start: ${r.error.message}\n`);
    process.exit(1);
  }
  process.exit(r.status ?? 1);
}

main(args).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`mem: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
