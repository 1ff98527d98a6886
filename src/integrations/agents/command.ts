// The commands mem installs into agents' settings, and recognising them again later: mem's own
// entries are found by what they run (mem's bin with `context --hook` / `extract --hook` / `mcp`),
// not by a marker, so an entry written by an older mem (another path) is updated in place.

import fs from 'node:fs';
import path from 'node:path';
import { shQuote } from '../git-hooks.js';

/** The mem a hook runs: this Node and this bin/mem.js. */
export interface Launcher {
  node: string;
  js: string;
}

/** How an installed command names mem: `<node> <mem.js> …` (this machine) or `mem …` (PATH's). */
export type Form = 'absolute' | 'path';

export type HookVerb = 'context' | 'extract';
export type Agent = 'claude' | 'codex' | 'gemini';

/** The argv mem runs for `args` in `form`. */
export function memArgv(launcher: Launcher, form: Form, args: string[]): string[] {
  return form === 'path' ? ['mem', ...args] : [launcher.node, launcher.js, ...args];
}

/** An argv as one command line for sh (words that need it single-quoted). */
export function shLine(argv: string[]): string {
  return argv.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : shQuote(w))).join(' ');
}

export function hookCommand(launcher: Launcher, form: Form, verb: HookVerb, agent: Agent): string {
  return shLine(memArgv(launcher, form, [verb, '--hook', agent]));
}

/** Split a sh command line into words (quotes and backslashes; no expansions). Null when it uses more of sh than that. */
export function shWords(line: string): string[] | null {
  const words: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (cur !== null) words.push(cur);
      cur = null;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return null;
      cur = (cur ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && '"\\$`'.includes(line[j + 1] ?? '')) s += line[++j];
        else if ('$`'.includes(line[j])) return null;
        else s += line[j];
      }
      if (j >= line.length) return null;
      cur = (cur ?? '') + s;
      i = j;
    } else if (c === '\\') {
      cur = (cur ?? '') + (line[i + 1] ?? '');
      i++;
    } else if (';&|<>()$`\n'.includes(c)) {
      return null;
    } else cur = (cur ?? '') + c;
  }
  if (cur !== null) words.push(cur);
  return words;
}

/** What a mem command runs: the program words before mem's arguments. */
export interface MemProgram {
  /** `path`: `mem` from PATH; `absolute`: a Node and a mem.js (or a mem launcher by path). */
  form: Form;
  node: string | null;
  js: string | null;
  /** mem's arguments (after the program words). */
  args: string[];
}

/** Whether `argv` runs mem (PATH's `mem`, a `…/mem` or `…/mem.js`, or a Node running one), and how. */
export function memProgram(argv: string[]): MemProgram | null {
  const base = (w: string) => path.posix.basename(w.replace(/\\/g, '/'));
  const isMem = (w: string) => /^mem(\.js|\.cmd|\.exe)?$/i.test(base(w));
  const isNode = (w: string) => /^node(\.exe)?$/i.test(base(w));
  if (argv.length === 0) return null;
  if (argv[0] === 'mem') return { form: 'path', node: null, js: null, args: argv.slice(1) };
  if (isNode(argv[0]) && argv[1] !== undefined && isMem(argv[1])) return { form: 'absolute', node: argv[0], js: argv[1], args: argv.slice(2) };
  if (isMem(argv[0])) return { form: 'absolute', node: null, js: argv[0], args: argv.slice(1) };
  return null;
}

export interface MemHook {
  verb: HookVerb;
  agent: string;
  program: MemProgram;
}

/** A hook command mem installed (any version, any path): `… context --hook AGENT` or `… extract --hook AGENT`. */
export function parseHookCommand(command: string): MemHook | null {
  const words = shWords(command.trim());
  if (!words) return null;
  const p = memProgram(words);
  if (!p) return null;
  const a = p.args.filter((w, i, all) => !(w === '--root' || all[i - 1] === '--root'));
  if (a.length !== 3 || (a[0] !== 'context' && a[0] !== 'extract') || a[1] !== '--hook') return null;
  return { verb: a[0], agent: a[2], program: p };
}

/** Whether an MCP registration (command + args) is mem's `mcp` server. */
export function parseMcpCommand(command: unknown, args: unknown): MemProgram | null {
  if (typeof command !== 'string' || (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string')))) return null;
  const p = memProgram([command, ...((args as string[] | undefined) ?? [])]);
  return p && p.args[0] === 'mcp' ? p : null;
}

/** Where `mem` on PATH really leads (its real path), or null when there is none. */
export function memOnPath(env: NodeJS.ProcessEnv): string | null {
  if (process.platform === 'win32') return null; // npm's .cmd shims cannot be followed to mem.js
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, 'mem');
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (!fs.statSync(p).isFile()) continue;
      return fs.realpathSync(p);
    } catch {
      // not here
    }
  }
  return null;
}

/** Whether a recognised mem program is this mem (same Node and mem.js; PATH's mem when it leads to this mem.js). */
export function pointsHere(p: MemProgram, launcher: Launcher, pathMem: string | null): boolean {
  if (p.form === 'path') return pathMem !== null && pathMem === launcher.js;
  const real = (f: string) => {
    try {
      return fs.realpathSync(f);
    } catch {
      return f;
    }
  };
  if (p.js === null || real(p.js) !== launcher.js) return false;
  return p.node === null || real(p.node) === launcher.node;
}

/** A short name for what a recognised program runs (status output). */
export function describeProgram(p: MemProgram): string {
  return p.form === 'path' ? 'mem (PATH)' : [p.node, p.js].filter(Boolean).join(' ');
}
