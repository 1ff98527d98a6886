#!/usr/bin/env node
// `npm run demo`: the main job on bundled sample data, offline, no API key. Copies
// examples/sample-vault to a temporary folder, extracts learnings from a bundled agent session
// (examples/sessions/) with the offline heuristics, and searches them.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The `mem` command as npm installs it: the Node entry point bin/mem.js, run by this node.
const bin = path.join(repo, 'bin', 'mem.js');
const keep = process.argv.includes('--keep');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-demo-'));
const root = path.join(base, 'shopfront');
const home = path.join(base, 'home');
fs.cpSync(path.join(repo, 'examples', 'sample-vault'), root, { recursive: true });
fs.mkdirSync(home);
fs.cpSync(path.join(repo, 'examples', 'sessions'), path.join(base, 'sessions'), { recursive: true });

const env = { ...process.env, MEM_HOME: home, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
delete env.MEM_ROOT;
delete env.MEM_SESSION;
// Offline unless asked: an agent CLI that happens to be on PATH (claude, codex, gemini) is not run
// as the model here; MEM_AGENT_CLI=1 (or an API key) lets a model do the extraction.
env.MEM_AGENT_CLI ??= '0';
let failed = false;

function run(args, note) {
  process.stdout.write(`\n\x1b[1m$ mem ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}\x1b[0m${note ? `   # ${note}` : ''}\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}

console.log(`mem demo: a sample vault copied to ${root}`);
run(['init'], 'adds .mem/config.yaml and .gitignore lines; keeps the existing files');
run(['index'], 'build the search index .memory.db from the markdown');
run(['extract', '../sessions/fix-checkout-tests.jsonl', '--scopes', 'project,corrective,interventions,observations'],
  'a Claude Code session → learnings (offline heuristics; with an API key or MEM_AGENT_CLI=1 a model does this)');
run(['extract', '../sessions/fix-checkout-tests.jsonl'], 'a second run writes nothing (.mem/extracted.jsonl)');
run(['search', 'api tests fail on a fresh database'], 'plain words, no API key: the new learnings come back');
run(['search', 'stripe webhook signature', '--explain'], 'a team-scope learning, with its score explained');
run(['add', 'The staging deploy needs the VPN up: fly proxy fails silently without it.', '--type', 'corrective', '--importance', '0.7']);
run(['search', 'deploy', '--limit', '3'], 'the new learning, the runbook section, never the retired Heroku entry');
run(['context', 'fix the flaky checkout e2e test'], 'what an agent reads before the task');
run(['stats']);

if (keep) console.log(`\nkept the demo vault: ${root}`);
else fs.rmSync(base, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
