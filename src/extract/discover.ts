// Finding transcripts on disk: the files of a folder (recursive, bounded, never into a loop, never
// a FIFO or a device), and this project's recent sessions in the default places of Claude Code,
// Codex and Gemini CLI. Reads only directory listings, file metadata and the first bytes of files.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { usageError } from '../errors.js';
import { readRegular, specialKind } from '../vault/read.js';
import { userHome } from '../vault/vault.js';
import { timeBound } from '../vault/origin.js';
import { withRegularFile } from './source.js';

export const AGENTS = ['claude', 'codex', 'gemini'] as const;
export type AgentName = (typeof AGENTS)[number];

/** Codex keeps rollouts in sessions/YYYY/MM/DD/: a folder given to `mem extract` is walked this deep by default. */
export const DEFAULT_MAX_DEPTH = 6;
export const DEFAULT_SINCE = '7d';

const TRANSCRIPT_NAME = /\.jsonl?$/i;
/** Metadata beside transcripts (Claude Code's subagents/agent-<id>.meta.json), not conversations. */
const SIDECAR_NAME = /\.meta\.json$/i;
/**
 * Claude Code's subagent transcripts (<session>/subagents/agent-<id>.jsonl): the parent session
 * holds their task and result, and their "user" turns are the parent agent's prompts, not a
 * human's, so reading them would take an agent's words for the human's.
 */
const SIDECHAIN_DIRS = new Set(['subagents']);

function isTranscriptName(name: string): boolean {
  return TRANSCRIPT_NAME.test(name) && !SIDECAR_NAME.test(name);
}

export interface FolderListing {
  /** Regular files, oldest first. */
  files: string[];
  /** Entries with a transcript's name that are not regular files, as "rel/path (a FIFO)". */
  skipped: string[];
}

interface Found {
  file: string;
  mtimeMs: number;
}

function byAge(a: Found, b: Found): number {
  return a.mtimeMs - b.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

/**
 * The transcripts (.jsonl/.json) under a folder, `maxDepth` levels of subfolders deep (0: the
 * folder itself only), without Claude Code's subagent folders and metadata files. Links are followed, but a folder already walked (a link back up, a loop)
 * is never entered again and a file reached twice is listed once. Other kinds of entries with a
 * transcript's name (a FIFO, a socket, a device, a link to one) are never opened: listed in
 * `skipped`. Returns null when `abs` is not a folder.
 */
export function transcriptsIn(abs: string, maxDepth = DEFAULT_MAX_DEPTH, match: (name: string) => boolean = isTranscriptName): FolderListing | null {
  let top: fs.Stats;
  try {
    top = fs.statSync(abs);
  } catch {
    return null;
  }
  if (!top.isDirectory()) return null;
  const seenDirs = new Set<string>();
  const seenFiles = new Set<string>();
  const found: Found[] = [];
  const skipped: string[] = [];
  const walk = (dir: string, st: fs.Stats, depth: number) => {
    const id = `${st.dev}:${st.ino}`;
    if (seenDirs.has(id)) return;
    seenDirs.add(id);
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // unreadable: nothing to list there
    }
    for (const d of list) {
      const p = path.join(dir, d.name);
      // A plain file or folder is known from the listing; a link is resolved (stat follows it).
      if (!d.isDirectory() && !d.isSymbolicLink() && !match(d.name)) continue;
      let one: fs.Stats;
      try {
        one = fs.statSync(p);
      } catch {
        continue; // gone, or a dangling link
      }
      if (one.isDirectory()) {
        if (depth < maxDepth && !SIDECHAIN_DIRS.has(d.name)) walk(p, one, depth + 1);
        continue;
      }
      if (!match(d.name)) continue;
      if (!one.isFile()) {
        skipped.push(`${path.relative(abs, p)} (${specialKind(one)})`);
        continue;
      }
      const fid = `${one.dev}:${one.ino}`;
      if (seenFiles.has(fid)) continue;
      seenFiles.add(fid);
      found.push({ file: p, mtimeMs: one.mtimeMs });
    }
  };
  walk(abs, top, 0);
  return { files: found.sort(byAge).map((f) => f.file), skipped };
}

// ---- --since ----

const UNIT_MS: Record<string, number> = { h: 3600e3, d: 86400e3, w: 7 * 86400e3 };

/** `7d`, `12h`, `2w` before `now`, or an ISO date/time: the earliest last-modified time that counts. */
export function parseSince(v: string, now: number): number {
  const s = v.trim();
  const rel = /^(\d{1,6})\s*([hdw])$/i.exec(s);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2].toLowerCase()];
  // A bare date is the start of that day and a time without an offset is UTC, as `today` and
  // every time mem prints are (and as --after / --before read them).
  const ms = timeBound(s);
  if (ms !== null) return ms;
  throw usageError(`--since must be an age such as 7d, 12h or 2w, or a date such as 2026-11-01 (got "${v}")`);
}

// ---- where each agent keeps a project's sessions ----

/**
 * Claude Code's folder name for a project: every character of the absolute path other than an
 * ASCII letter or digit becomes "-" (per UTF-16 unit); a name over 200 characters is cut to 200
 * and given a hash suffix that only Claude Code computes (matched by prefix, then by `cwd`).
 */
export function claudeProjectSlug(abs: string): string {
  return abs.replace(/[^a-zA-Z0-9]/g, '-');
}
const CLAUDE_SLUG_MAX = 200;

/** Gemini CLI's legacy folder name for a project: the SHA-256 of its absolute path, hex. */
export function geminiProjectHash(abs: string): string {
  return createHash('sha256').update(abs).digest('hex');
}

/** Whether a session's working folder is the project or a folder inside it. */
export function cwdInside(cwd: string, roots: readonly string[]): boolean {
  const c = path.resolve(cwd);
  const variants = [c];
  try {
    variants.push(fs.realpathSync(c));
  } catch {
    // a folder that is gone: compared as written
  }
  const fold = (p: string) => (process.platform === 'win32' || process.platform === 'darwin' ? p.toLowerCase() : p);
  return variants.some((v) => roots.some((r) => {
    const rel = path.relative(fold(r), fold(v));
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  }));
}

/**
 * The working folder a session ran in, from the first lines of its transcript: Codex's
 * `session_meta` (or `turn_context`) payload, Claude Code's per-record `cwd`, or, in older Codex
 * rollouts without either, the `<cwd>` of the environment context message.
 */
export function sessionCwd(head: string): string | undefined {
  const lines = head.split('\n');
  // The last piece may be cut off mid-record: parsed only when it is the whole head.
  const complete = head.endsWith('\n') || lines.length === 1 ? lines : lines.slice(0, -1);
  for (const line of complete.slice(0, 50)) {
    if (!line.trim()) continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof rec !== 'object' || rec === null) continue;
    const o = rec as Record<string, unknown>;
    const payload = o.payload as Record<string, unknown> | undefined;
    if ((o.type === 'session_meta' || o.type === 'turn_context') && payload && typeof payload.cwd === 'string' && payload.cwd) return payload.cwd;
    if (typeof o.cwd === 'string' && o.cwd) return o.cwd;
  }
  // A first record longer than what was read (Codex puts its whole instructions there): the field itself.
  const field = /"cwd"\s*:\s*"((?:[^"\\]|\\.)+)"/.exec(head) ?? /<cwd>((?:[^<"\\]|\\.)+)<\/cwd>/.exec(head);
  if (!field) return undefined;
  try {
    return JSON.parse(`"${field[1]}"`) as string;
  } catch {
    return field[1];
  }
}

const HEAD_CHUNK = 64 << 10;
/** Codex's first record carries the whole base instructions: up to this much is read for it. */
const HEAD_MAX = 2 << 20;

/** The first bytes of a regular file, up to the first line end past `min` bytes (or `max`); null if not a regular file. */
export function readHead(abs: string, min = HEAD_CHUNK, max = HEAD_MAX): string | null {
  // Without blocking: a FIFO put in a session's place must not stop the search.
  return withRegularFile(abs, (fd) => {
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.alloc(HEAD_CHUNK);
      const n = fs.readSync(fd, buf, 0, HEAD_CHUNK, total);
      if (n === 0) break;
      parts.push(buf.subarray(0, n));
      total += n;
      if ((total >= min && buf.subarray(0, n).includes(10)) || total >= max) break;
    }
    return Buffer.concat(parts).toString('utf8');
  });
}

export interface AgentHomes {
  /** Claude Code's config folder: $CLAUDE_CONFIG_DIR or ~/.claude. */
  claude: string;
  /** Codex's home: $CODEX_HOME or ~/.codex. */
  codex: string;
  /** Gemini CLI's folder: $GEMINI_CLI_HOME/.gemini or ~/.gemini. */
  gemini: string;
}

export function agentHomes(env: NodeJS.ProcessEnv, home = userHome(env)): AgentHomes {
  return {
    claude: path.resolve(env.CLAUDE_CONFIG_DIR || path.join(home, '.claude')),
    codex: path.resolve(env.CODEX_HOME || path.join(home, '.codex')),
    gemini: path.join(path.resolve(env.GEMINI_CLI_HOME || home), '.gemini'),
  };
}

export interface FoundSession {
  agent: AgentName;
  file: string;
  mtimeMs: number;
}

export interface Discovery {
  /** This project's sessions modified since the cutoff, oldest first. */
  sessions: FoundSession[];
  /** Per agent searched: the folders looked in (for "no sessions found" and --json). */
  searched: Partial<Record<AgentName, string[]>>;
  /** Entries with a session's name that are not regular files. */
  skipped: string[];
}

interface Collector {
  add(agent: AgentName, file: string, st: fs.Stats): void;
  skip(file: string, st: fs.Stats): void;
  since: number;
}

/** The files of one folder (not below it) whose names match, through the collector. */
function listFlat(dir: string, agent: AgentName, match: (name: string) => boolean, c: Collector, accept?: (file: string) => boolean): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!match(name)) continue;
    const file = path.join(dir, name);
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      continue;
    }
    if (st.isDirectory()) continue;
    if (!st.isFile()) {
      c.skip(file, st);
      continue;
    }
    // The cheap test (age) before the one that reads the file (its cwd).
    if (st.mtimeMs < c.since) continue;
    if (accept && !accept(file)) continue;
    c.add(agent, file, st);
  }
}

/** Whether a session ran in the project, by the cwd its first lines name; `unknown` when they name none. */
function headCwdInside(file: string, roots: readonly string[], unknown = false): boolean {
  const head = readHead(file);
  const cwd = head === null ? undefined : sessionCwd(head);
  return cwd === undefined ? unknown : cwdInside(cwd, roots);
}

/** Claude Code: <config>/projects/<slug of the project path>/*.jsonl, and folders of the project's subfolders. */
function findClaude(roots: readonly string[], homes: AgentHomes, c: Collector): string[] {
  const base = path.join(homes.claude, 'projects');
  const slugs = [...new Set(roots.map(claudeProjectSlug))];
  let dirs: string[];
  try {
    dirs = fs.readdirSync(base);
  } catch {
    return slugs.map((s) => path.join(base, s));
  }
  const looked: string[] = [];
  const jsonl = (n: string) => n.endsWith('.jsonl');
  for (const name of dirs) {
    for (const slug of slugs) {
      if (name === slug && slug.length <= CLAUDE_SLUG_MAX) {
        // Another path can have the same name (/a/my_app and /a/my-app): a session whose cwd
        // names another folder is that project's; one that names none is taken as this one's.
        looked.push(path.join(base, name));
        listFlat(path.join(base, name), 'claude', jsonl, c, (f) => headCwdInside(f, roots, true));
        break;
      }
      // "-" stands for many characters, and long names end in a hash: a folder that could be
      // this project (cut to 200) or one of its subfolders counts for the sessions whose cwd says so.
      const prefix = slug.length > CLAUDE_SLUG_MAX ? slug.slice(0, CLAUDE_SLUG_MAX) : `${slug}-`;
      if (name.startsWith(prefix)) {
        looked.push(path.join(base, name));
        listFlat(path.join(base, name), 'claude', jsonl, c, (f) => headCwdInside(f, roots));
        break;
      }
    }
  }
  return looked.length > 0 ? looked : slugs.map((s) => path.join(base, s));
}

/**
 * Codex: $CODEX_HOME/sessions/**\/rollout-*.jsonl whose first record's cwd is in the project, and
 * archived_sessions/ (flat), where Codex's archive command moves a rollout.
 */
function findCodex(roots: readonly string[], homes: AgentHomes, c: Collector): string[] {
  const bases = [path.join(homes.codex, 'sessions'), path.join(homes.codex, 'archived_sessions')];
  const seen = new Set<string>();
  const walk = (dir: string, depth: number) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch {
      return;
    }
    const id = `${st.dev}:${st.ino}`;
    if (!st.isDirectory() || seen.has(id)) return;
    seen.add(id);
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of list) {
      const p = path.join(dir, d.name);
      if (d.isDirectory() || (d.isSymbolicLink() && !d.name.endsWith('.jsonl'))) {
        if (depth < 4) walk(p, depth + 1);
      }
    }
    listFlat(dir, 'codex', (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'), c, (f) => headCwdInside(f, roots));
  };
  for (const base of bases) walk(base, 0);
  return bases;
}

/**
 * Gemini CLI: <gemini>/tmp/<id>/chats/session-*.json, where <id> is the SHA-256 of the project
 * path (older versions), or the short name projects.json maps the path to (newer), whose folder
 * holds a .project_root file naming the path.
 */
function findGemini(roots: readonly string[], homes: AgentHomes, c: Collector): string[] {
  const tmp = path.join(homes.gemini, 'tmp');
  const ids = new Set<string>(roots.map(geminiProjectHash));
  try {
    const reg = JSON.parse(readRegular(path.join(homes.gemini, 'projects.json'), 16 << 20) ?? '') as { projects?: Record<string, unknown> };
    for (const [p, id] of Object.entries(reg.projects ?? {})) {
      if (typeof id === 'string' && !id.includes('/') && !id.includes('\\') && id !== '..' && cwdInside(p, roots)) ids.add(id);
    }
  } catch {
    // no registry, or not one we can read: the folders' own markers below still tell
  }
  try {
    for (const d of fs.readdirSync(tmp, { withFileTypes: true })) {
      if (!d.isDirectory() || ids.has(d.name)) continue;
      const marker = readHead(path.join(tmp, d.name, '.project_root'), 4096, 4096);
      if (marker !== null && marker.trim() && cwdInside(marker.trim(), roots)) ids.add(d.name);
    }
  } catch {
    // no tmp folder: no sessions
  }
  const looked = [...ids].map((id) => path.join(tmp, id, 'chats')).filter((d) => fs.existsSync(d));
  for (const dir of looked) listFlat(dir, 'gemini', (n) => n.startsWith('session-') && /\.jsonl?$/.test(n), c);
  return looked.length > 0 ? looked : [path.join(tmp, geminiProjectHash(roots[0]), 'chats')];
}

/**
 * This project's sessions of the given agents, modified at or after `since` (ms), oldest first.
 * `root` is the project folder; a session that ran in a folder inside it counts too.
 */
export function discoverSessions(root: string, opts: { agents: readonly AgentName[]; since: number; env: NodeJS.ProcessEnv; home?: string }): Discovery {
  const roots = [path.resolve(root)];
  try {
    const real = fs.realpathSync(root);
    if (!roots.includes(real)) roots.push(real);
  } catch {
    // the root exists (the vault was opened); a race at worst
  }
  const homes = agentHomes(opts.env, opts.home);
  const all: FoundSession[] = [];
  const seen = new Set<string>();
  const skipped: string[] = [];
  const c: Collector = {
    since: opts.since,
    add(agent, file, st) {
      const id = `${st.dev}:${st.ino}`;
      if (seen.has(id)) return;
      seen.add(id);
      all.push({ agent, file, mtimeMs: st.mtimeMs });
    },
    skip(file, st) {
      skipped.push(`${file} (${specialKind(st)})`);
    },
  };
  const searched: Partial<Record<AgentName, string[]>> = {};
  for (const agent of opts.agents) {
    searched[agent] = agent === 'claude' ? findClaude(roots, homes, c) : agent === 'codex' ? findCodex(roots, homes, c) : findGemini(roots, homes, c);
  }
  all.sort((a, b) => byAge({ file: a.file, mtimeMs: a.mtimeMs }, { file: b.file, mtimeMs: b.mtimeMs }));
  return { sessions: all, searched, skipped };
}

/**
 * The rollout of one Codex thread ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl),
 * for a hook payload that names the thread but not the file; the newest when several match.
 */
export function codexRolloutFor(threadId: string, env: NodeJS.ProcessEnv, home = userHome(env)): string | undefined {
  if (!/^[A-Za-z0-9-]{8,}$/.test(threadId)) return undefined;
  const listing = transcriptsIn(path.join(agentHomes(env, home).codex, 'sessions'), 4, (n) => n.startsWith('rollout-') && n.endsWith(`${threadId}.jsonl`));
  return listing?.files.at(-1);
}

export function parseAgents(v: string | undefined): AgentName[] {
  if (v === undefined) return [...AGENTS];
  const list = v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (list.length === 0) throw usageError('--agent is empty', `use ${AGENTS.join(', ')} (or several, comma-separated)`);
  for (const a of list) if (!(AGENTS as readonly string[]).includes(a)) throw usageError(`unknown agent "${a}"`, `use ${AGENTS.join(', ')} (or several, comma-separated)`);
  return [...new Set(list)] as AgentName[];
}
