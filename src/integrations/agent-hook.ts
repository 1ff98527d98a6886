// What the agent hooks (`mem context --hook`, `mem extract --hook`) share: the hook payloads of
// Claude Code, Codex and Gemini CLI read defensively, the "is this a mem vault" check, the hook
// log under .mem/logs/, the cheap index handling that never blocks the agent, and detaching work.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { MemError } from '../errors.js';
import { readStdinText } from '../stdin.js';
import { appendConfined, writeTarget } from '../vault/boundary.js';
import { credentialsIn, displaySafe } from '../secrets/display.js';
import { homeDir, type Vault } from '../vault/vault.js';
import type { Db } from '../index/db.js';

export const HOOK_AGENTS = ['claude', 'codex', 'gemini'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

export function parseHookAgent(name: string): HookAgent {
  if ((HOOK_AGENTS as readonly string[]).includes(name)) return name as HookAgent;
  throw new MemError(`unknown hook agent "${name.slice(0, 40)}" (use ${HOOK_AGENTS.join(', ')})`);
}

/** A payload bigger than this is not a hook payload (a prompt with a pasted log fits easily). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
const MAX_PATH = 4096;
const MAX_ID = 1024;

/** The fields mem uses from a hook payload; anything missing or of the wrong type is undefined. */
export interface HookPayload {
  /** hook_event_name (Codex notify: its `type`, e.g. agent-turn-complete). */
  event?: string;
  /** session_id (Codex notify: thread-id), as sent: made usable with usableSessionId. */
  sessionId?: string;
  /** transcript_path, when absolute. */
  transcript?: string;
  /** cwd, when absolute. */
  cwd?: string;
  /** The prompt (Claude/Codex UserPromptSubmit, Gemini BeforeAgent). */
  prompt?: string;
  /** SessionStart's source (startup, resume, clear, compact). */
  source?: string;
}

function str(v: unknown, max: number): string | undefined {
  return typeof v === 'string' && v.trim() !== '' && v.length <= max && !v.includes('\0') ? v : undefined;
}

function absPath(v: unknown): string | undefined {
  const s = str(v, MAX_PATH);
  return s !== undefined && path.isAbsolute(s) ? s : undefined;
}

/**
 * The payload of any of the three agents: they share the snake_case fields (session_id,
 * transcript_path, cwd, hook_event_name); Codex's notify program gets `thread-id` and `type`.
 * Throws a MemError when the text is not a JSON object or is too big.
 */
export function parseHookPayload(text: string): HookPayload {
  if (Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES) throw new MemError(`the hook payload is over ${MAX_PAYLOAD_BYTES / 1024 / 1024} MB`);
  if (text.trim() === '') throw new MemError('no hook payload on stdin');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new MemError('the hook payload is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new MemError('the hook payload is not a JSON object');
  const o = v as Record<string, unknown>;
  return {
    event: str(o.hook_event_name, 64) ?? str(o.type, 64),
    sessionId: str(o.session_id, MAX_ID) ?? str(o['thread-id'], MAX_ID) ?? str(o.thread_id, MAX_ID) ?? str(o.sessionId, MAX_ID),
    transcript: absPath(o.transcript_path) ?? absPath(o.transcriptPath),
    cwd: absPath(o.cwd),
    prompt: str(o.prompt, MAX_PAYLOAD_BYTES),
    source: str(o.source, 64) ?? str(o.trigger, 64),
  };
}

/**
 * The hook's input: the argument when it is a JSON object (Codex notify appends its payload as the
 * last argument), else standard input, read up to MAX_PAYLOAD_BYTES + 1. A terminal gives nothing
 * (someone ran the command by hand): a hook must never wait for a person.
 */
export function readHookInput(arg?: string): string {
  if (arg !== undefined && arg.trim().startsWith('{')) return arg;
  let st: fs.Stats;
  try {
    st = fs.fstatSync(0);
  } catch {
    return '';
  }
  if (st.isCharacterDevice() || st.isDirectory()) return '';
  // A non-blocking pipe with nothing yet: wait a little, never long.
  return readStdinText({ maxBytes: MAX_PAYLOAD_BYTES, maxWaitMs: 500, what: 'the hook payload' });
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether `dir` is a mem vault: it has a `.mem/` folder or a MEMORY.md. A bare git repository is
 * not one here (user-level hooks fire in every project), and neither is the home folder through
 * its MEMORY.md alone: that file is the global memory, not a project.
 */
export function isMemVault(dir: string, home: string): boolean {
  if (isDir(path.join(dir, '.mem'))) return true;
  return path.resolve(dir) !== path.resolve(home) && isFile(path.join(dir, 'MEMORY.md'));
}

/**
 * The mem vault a hook works in: the explicit root (--root, MEM_ROOT) when it is one, else the
 * nearest vault from `cwd` upwards. Null outside a vault: the hook then does nothing at all.
 */
export function findMemVault(opts: { cwd: string; root?: string; home: string }): string | null {
  if (opts.root) {
    const r = path.resolve(opts.cwd, opts.root);
    return isMemVault(r, opts.home) ? r : null;
  }
  if (!path.isAbsolute(opts.cwd) || !isDir(opts.cwd)) return null;
  for (let dir = path.resolve(opts.cwd); ; dir = path.dirname(dir)) {
    if (isMemVault(dir, opts.home)) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** One line in `.mem/logs/<name>` of the vault; never through a link out of it, never raises. */
export function hookLog(root: string, name: string, line: string): void {
  // A log is kept on disk: nothing secret goes in (a key in an error, a password in a URL).
  const clean = displaySafe(line.replace(/[\u0000-\u001f\u007f]+/g, ' '), credentialsIn(process.env)).slice(0, 2000);
  try {
    appendConfined(path.join(root, '.mem', 'logs', name), `${new Date().toISOString()} ${clean}\n`, `.mem/logs/${name}`, root);
  } catch {
    // nowhere to log; the agent must still not fail
  }
}

/** The launcher of this mem (bin/mem.js next to the built dist/). */
export function memBin(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mem.js');
}

/**
 * Run `mem ARGS` in the background, detached from the agent: its output goes to
 * `.mem/logs/<logName>` (opened through the vault boundary check), `header` is written first.
 */
export function detachMem(root: string, args: string[], logName: string, header: string): void {
  const logFile = writeTarget(path.join(root, '.mem', 'logs', logName), `.mem/logs/${logName}`, root);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.openSync(logFile, 'a');
  try {
    fs.writeSync(log, `${new Date().toISOString()} ${header}\n`);
    const child = spawn(process.execPath, [memBin(), ...args], { detached: true, stdio: ['ignore', log, log], cwd: root, env: { ...process.env, NO_COLOR: '1' }, windowsHide: true });
    child.on('error', (err) => hookLog(root, logName, `cannot start mem ${args[0]}: ${err.message}`));
    child.unref();
  } finally {
    fs.closeSync(log);
  }
}

/** Most files a hook indexes itself before answering; a bigger refresh runs in the background. */
export const INLINE_REFRESH_FILES = 20;
/** Most files a hook re-checks itself (written just before the last index, stats unchanged). */
export const INLINE_RECHECK_FILES = 200;
/** A background `mem index` started less than this long ago is not started again. */
const INDEX_AGAIN_MS = 30_000;
/** How long a hook waits for the index's write lock before answering from the index as it is. */
const HOOK_BUSY_MS = 50;

function startBackgroundIndex(root: string, why: string, note: (s: string) => void): void {
  const log = path.join(root, '.mem', 'logs', 'index.log');
  try {
    const st = fs.statSync(log, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs < INDEX_AGAIN_MS) {
      note(`${why}; a background index started recently`);
      return;
    }
    detachMem(root, ['index', '--quiet', '--root', root], 'index.log', `hook: ${why}; indexing in the background`);
    note(`${why}; started mem index in the background`);
  } catch (err) {
    note(`${why}; cannot start mem index: ${(err as Error).message}`);
  }
}

/**
 * Run `fn` on the vault's index without ever making the agent wait for long: a few changed
 * files are indexed first; a missing, rebuilt or much-changed index is refreshed by a detached
 * `mem index` while this answer comes from the index as it is (possibly empty). A locked index
 * is read as it is. `note` hears what happened (for the hook log).
 */
export async function withHookIndex<T>(vault: Vault, fn: (db: Db) => T, note: (s: string) => void): Promise<T> {
  // Waiting seconds for another writer's lock is what a hook must never do.
  process.env.MEM_BUSY_TIMEOUT_MS = String(HOOK_BUSY_MS);
  const { openIndex, indexFault } = await import('../index/db.js');
  const { planRefresh, planIsEmpty, applyRefresh, staleCount } = await import('../index/indexer.js');
  const { db, recreated } = openIndex(vault.dbPath);
  try {
    const plan = planRefresh(db, vault);
    if (!planIsEmpty(plan)) {
      // Files whose stats changed; the rest of the plan re-checks files written just before the
      // last index (same stats, content to be hashed again), cheap only in small numbers.
      const size = staleCount(plan);
      if (size <= INLINE_REFRESH_FILES && plan.work.length <= INLINE_RECHECK_FILES) {
        try {
          applyRefresh(db, plan);
        } catch (err) {
          if (indexFault(err) !== 'locked') throw err;
          note('the index is being written by another process; answered from it as it is');
        }
      } else {
        startBackgroundIndex(vault.root, recreated ? `the index was ${recreated === 'new' ? 'missing' : 'rebuilt'} (${size} files to index)` : `${size} files changed since the last index (${plan.work.length} to check)`, note);
      }
    }
    return fn(db);
  } finally {
    db.close();
  }
}

/** Longest stretch of a transcript read for its first prompt. */
const TRANSCRIPT_HEAD = 512 * 1024;
/** Longest first prompt used as the session's task. */
export const MAX_TASK_CHARS = 2000;

/**
 * The first few hundred KB of the agent's transcript, only when it is a regular file: never
 * through a symlink (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK), checked on the open
 * descriptor so nothing can be swapped in between. Null otherwise.
 */
export function readTranscriptHead(file: string, max = TRANSCRIPT_HEAD): string | null {
  const c = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(file, c.O_RDONLY | (c.O_NOFOLLOW ?? 0) | (c.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return null;
    const buf = Buffer.alloc(max);
    let got = 0;
    while (got < max) {
      const n = fs.readSync(fd, buf, got, max - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got).toString('utf8');
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Text an agent wrote into the user's turn rather than the person: Claude's command and
 * system-reminder tags, Codex's environment context and AGENTS.md instructions.
 */
function machineWritten(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('<') || t.startsWith('# AGENTS.md') || t.startsWith('Caveat:');
}

/**
 * The session's first prompt from the head of its transcript (any format mem reads), or
 * undefined: a new session has none yet.
 */
export async function firstPrompt(file: string): Promise<string | undefined> {
  const head = readTranscriptHead(file);
  if (!head || head.trim() === '') return undefined;
  const { readTranscript } = await import('../extract/transcript.js');
  // A JSONL head cut mid-line only loses that line (counted as broken).
  const t = readTranscript(head);
  if (t.format === 'text') return undefined;
  const first = t.messages.find((m) => m.role === 'user' && m.kind === 'text' && !m.isSidechain && !machineWritten(m.text));
  return first ? first.text.slice(0, MAX_TASK_CHARS) : undefined;
}

/** What `context --hook` does for an event: the session's context, a prompt's few learnings, or nothing. */
export type HookMode = 'session' | 'prompt';

const PROMPT_EVENTS: Record<HookAgent, string> = { claude: 'UserPromptSubmit', codex: 'UserPromptSubmit', gemini: 'BeforeAgent' };

/** The mode for the payload's event and the event name to answer with; null for events mem does not answer. */
export function hookMode(agent: HookAgent, p: HookPayload): { mode: HookMode; event: string } | null {
  const event = p.event ?? (p.prompt !== undefined ? PROMPT_EVENTS[agent] : 'SessionStart');
  if (event === 'SessionStart') return { mode: 'session', event };
  if (event === PROMPT_EVENTS[agent]) return { mode: 'prompt', event };
  return null;
}

/**
 * The JSON each agent reads from a SessionStart / prompt hook's stdout. The three agree on
 * `hookSpecificOutput.additionalContext`; Claude and Codex require `hookEventName` there too
 * (Codex's schema: a constant per event), and Gemini ignores it.
 */
export function hookOutput(event: string, additionalContext: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext } });
}

/** What a hook's work gets: the agent, its payload, and the mem vault the payload's cwd is in. */
export interface HookCall {
  agent: HookAgent;
  payload: HookPayload;
  root: string;
}

/**
 * The frame of every hook command: read the payload (`arg` for Codex's notify, else stdin), find
 * the mem vault from its cwd and run `work` there — nothing at all outside a mem vault. An error
 * is logged to `.mem/logs/<logName>` of the vault (of the hook's own folder until the payload
 * names one), never raised: the exit code stays 0.
 */
export async function runHook(o: { agentName: string; cwd: string; root?: string; arg?: string; logName: string; what: string }, work: (call: HookCall) => Promise<void>): Promise<void> {
  process.exitCode = 0;
  const home = homeDir();
  let root: string | null = null;
  try {
    root = findMemVault({ cwd: o.cwd, root: o.root, home });
  } catch {
    root = null;
  }
  try {
    const agent = parseHookAgent(o.agentName);
    const payload = parseHookPayload(readHookInput(o.arg));
    root = findMemVault({ cwd: payload.cwd ?? o.cwd, root: o.root, home });
    if (root !== null) await work({ agent, payload, root });
  } catch (err) {
    if (root !== null) hookLog(root, o.logName, `${o.agentName.slice(0, 40)} ${o.what}: ${(err as Error).message}`);
  }
  process.exitCode = 0;
}
