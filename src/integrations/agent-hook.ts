// What the agent hooks (`mem context --hook`, `mem extract --hook`) share: the hook payloads of
// Claude Code, Codex and Gemini CLI read defensively, the "is this a mem vault" check, the hook
// log under .mem/logs/, the cheap index handling that never blocks the agent, and detaching work.

import fs from 'node:fs';
import path from 'node:path';
import { spawn } from '../child-process.js';
import { MemError } from '../errors.js';
import { readStdinText } from '../stdin.js';
import { appendConfined, writeTarget } from '../vault/boundary.js';
import { memBin } from '../package.js';
import { runSettings } from '../run.js';
import { credentialsIn, displaySafe } from '../secrets/display.js';
import { homeDir, type Vault } from '../vault/vault.js';
import { IN_MODEL_CALL } from '../llm/agent-cli.js';
import type { Db } from '../index/db.js';

export const HOOK_AGENTS = ['claude', 'codex', 'gemini'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

export function parseHookAgent(name: string): HookAgent {
  if ((HOOK_AGENTS as readonly string[]).includes(name)) return name as HookAgent;
  throw new MemError(`unknown hook agent "${name.slice(0, 40)}" (use ${HOOK_AGENTS.join(', ')})`);
}

/** A payload bigger than this is not a hook payload (a prompt with a pasted log fits easily). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
/**
 * The part of a prompt a hook reads: its opening, where the task is said. Matching a pasted
 * multi-megabyte log word by word against the vault took seconds and found nothing better.
 */
export const MAX_PROMPT_CHARS = 16 * 1024;
/**
 * Every hook answers within this long of its start (the agents' own timeouts are 3-10 s, and a
 * killed hook is an error in the agent): with what it has by then, or nothing. MEM_HOOK_DEADLINE_MS
 * sets another (0: answer nothing, for trying the frame).
 */
export const HOOK_DEADLINE_MS = 2000;

/** A hook's deadline: a moment in Date.now() time, from the process's start. */
export interface Deadline {
  at: number;
  /** Milliseconds left (0 once passed). */
  left(): number;
  passed(): boolean;
}

export function deadlineAt(at: number): Deadline {
  return { at, left: () => Math.max(0, at - Date.now()), passed: () => Date.now() >= at };
}

/** The deadline of this hook process: HOOK_DEADLINE_MS (or MEM_HOOK_DEADLINE_MS) after it started. */
export function hookDeadline(env: NodeJS.ProcessEnv): Deadline {
  const v = env.MEM_HOOK_DEADLINE_MS;
  const ms = v !== undefined && v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) >= 0 ? Number(v) : HOOK_DEADLINE_MS;
  return deadlineAt(Date.now() - process.uptime() * 1000 + ms);
}

/** The first `max` characters of `s`, never ending in half a surrogate pair. */
export function headChars(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
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

function boundedPrompt(v: unknown): string | undefined {
  return typeof v === 'string' ? str(headChars(v, MAX_PROMPT_CHARS), MAX_PROMPT_CHARS) : undefined;
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
    prompt: boundedPrompt(o.prompt),
    source: str(o.source, 64) ?? str(o.trigger, 64),
  };
}

/** Whether `text` is a whole JSON value already (a writer may send it and keep the pipe open). */
function wholeJson(text: string): boolean {
  if (!text.trimEnd().endsWith('}')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The hook's input: the argument when it is a JSON object (Codex notify appends its payload as the
 * last argument), else standard input, read up to MAX_PAYLOAD_BYTES + 1. A terminal gives nothing
 * (someone ran the command by hand): a hook must never wait for a person. A pipe is read until it
 * ends or holds a whole JSON object (an agent may leave it open), and never past the deadline:
 * what came by then is the input.
 */
export async function readHookInput(arg: string | undefined, deadline: Deadline): Promise<string> {
  if (arg !== undefined && arg.trim().startsWith('{')) return arg;
  let st: fs.Stats;
  try {
    st = fs.fstatSync(0);
  } catch {
    return '';
  }
  if (st.isCharacterDevice() || st.isDirectory()) return '';
  // A file has an end: read it as it is.
  if (st.isFile()) return readStdinText({ maxBytes: MAX_PAYLOAD_BYTES, maxWaitMs: 0, what: 'the hook payload' });
  const stdin = process.stdin;
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      stdin.removeListener('error', onError);
      // An open pipe would keep the process alive: the hook has read all it will.
      stdin.pause();
      stdin.destroy();
      if (err) reject(err);
      else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total > MAX_PAYLOAD_BYTES) return finish(new MemError(`the hook payload is over ${MAX_PAYLOAD_BYTES / 1024 / 1024} MB`));
      // Only a chunk that ends in `}` can complete an object: the rest are not parsed at all.
      let last = chunk.length - 1;
      while (last >= 0 && (chunk[last] === 0x20 || chunk[last] === 0x0a || chunk[last] === 0x0d || chunk[last] === 0x09)) last--;
      if (last >= 0 && chunk[last] === 0x7d && wholeJson(Buffer.concat(chunks).toString('utf8'))) finish();
    };
    const onEnd = () => finish();
    const onError = (err: Error) => finish(new MemError(`cannot read the hook payload: ${err.message}`));
    const timer = setTimeout(() => finish(), deadline.left());
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
  });
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
  const clean = displaySafe(line.replace(/[\u0000-\u001f\u007f]+/g, ' '), credentialsIn(runSettings().env)).slice(0, 2000);
  try {
    appendConfined(path.join(root, '.mem', 'logs', name), `${new Date().toISOString()} ${clean}\n`, `.mem/logs/${name}`, root);
  } catch {
    // nowhere to log; the agent must still not fail
  }
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
    const child = spawn(process.execPath, [memBin(), ...args], { detached: true, stdio: ['ignore', log, log], cwd: root, env: { ...runSettings().env, NO_COLOR: '1' }, windowsHide: true });
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
/** Most bytes of changed files a hook parses itself (a 25 MB entry takes over a second). */
export const INLINE_REFRESH_BYTES = 2 * 1024 * 1024;
/**
 * Most files a hook checks for changes itself: the check stats every file (about 5 µs each,
 * 0.5 s at 100k files). A bigger vault's hook answers from the index as it is and leaves the
 * check to a background `mem index`.
 */
export const INLINE_CHECK_FILES = 20_000;
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
 * Run `fn` on the vault's index without ever making the agent wait for long: a few small changed
 * files are indexed first; a missing, rebuilt or much-changed index, or one of more files than a
 * hook checks (INLINE_CHECK_FILES), is refreshed by a detached `mem index` while this answer
 * comes from the index as it is (possibly empty). A locked index is read as it is, and so is one
 * whose check ends past the deadline. `note` hears what happened (for the hook log).
 */
export async function withHookIndex<T>(vault: Vault, fn: (db: Db) => T, note: (s: string) => void, deadline?: Deadline): Promise<T> {
  // Waiting seconds for another writer's lock is what a hook must never do.
  runSettings().busyTimeoutMs = HOOK_BUSY_MS;
  const { openIndex, indexFault } = await import('../index/db.js');
  const { planRefresh, planIsEmpty, applyRefresh, staleCount } = await import('../index/indexer.js');
  const { askWatcher } = await import('../index/vouch.js');
  const { watcherVouches } = await import('../index/open.js');
  // A running `mem watch` may vouch that nothing changed: no file is stat-ed then.
  const asked = askWatcher(vault.root);
  let db: Db;
  let recreated: ReturnType<typeof openIndex>['recreated'];
  try {
    ({ db, recreated } = openIndex(vault.dbPath));
  } catch (err) {
    asked?.drop();
    throw err;
  }
  try {
    if (!recreated && (await watcherVouches(db, asked)) !== null) return fn(db);
    asked?.drop();
    const known = (db.prepare('SELECT count(*) FROM files').pluck().get() as number) ?? 0;
    if (known > INLINE_CHECK_FILES) {
      startBackgroundIndex(vault.root, `${known} files: too many to check in a hook`, note);
      return fn(db);
    }
    const plan = planRefresh(db, vault);
    if (!planIsEmpty(plan)) {
      // Files whose stats changed; the rest of the plan re-checks files written just before the
      // last index (same stats, content to be hashed again), cheap only in small numbers.
      const size = staleCount(plan);
      const bytes = plan.work.reduce((n, w) => n + w.st.size, 0);
      if (size <= INLINE_REFRESH_FILES && plan.work.length <= INLINE_RECHECK_FILES && bytes <= INLINE_REFRESH_BYTES && !deadline?.passed()) {
        try {
          applyRefresh(db, plan);
        } catch (err) {
          if (indexFault(err) !== 'locked') throw err;
          note('the index is being written by another process; answered from it as it is');
        }
      } else {
        const why = recreated ? `the index was ${recreated === 'new' ? 'missing' : 'rebuilt'} (${size} files to index)`
          : `${size} files changed since the last index (${plan.work.length} to check, ${Math.ceil(bytes / 1024)} KB)`;
        startBackgroundIndex(vault.root, why, note);
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
  /** When the hook must have answered (see HOOK_DEADLINE_MS). */
  deadline: Deadline;
}

/**
 * Whether this hook run, from `mem hooks install`'s settings entry, stands aside because mem's
 * plugin for the agent is enabled and handles the same event: both would answer (the agent
 * reading mem's context twice) and both would start an extraction. The plugin's own runs say
 * where they come from (its wrapper sets MEM_HOOK_VIA=plugin) and always do the work.
 */
async function pluginDoesIt(agent: HookAgent, p: HookPayload, root: string, cwd: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const { PLUGIN_EVENTS, VIA_ENV, pluginState } = await import('./agents/plugins.js');
  if (env[VIA_ENV] === 'plugin' || p.event === undefined || !PLUGIN_EVENTS[agent].includes(p.event)) return false;
  const st = await pluginState(agent, [p.cwd ?? cwd, root], env);
  if (st.enabled) hookLog(root, 'hooks.log', `${agent} ${p.event}: mem's plugin is enabled (${st.source}) and answers this event; the hook mem hooks install wrote stands aside (remove it: mem hooks uninstall --${agent})`);
  return st.enabled;
}

/**
 * The frame of every hook command: read the payload (`arg` for Codex's notify, else stdin), find
 * the mem vault from its cwd and run `work` there — nothing at all outside a mem vault. An error
 * is logged to `.mem/logs/<logName>` of the vault (of the hook's own folder until the payload
 * names one), never raised: the exit code stays 0. Reading stops at the hook's deadline, and
 * `work` gets it to answer by then with what it has.
 */
export async function runHook(o: { agentName: string; cwd: string; env: NodeJS.ProcessEnv; root?: string; arg?: string; logName: string; what: string }, work: (call: HookCall) => Promise<void>): Promise<void> {
  // An agent CLI that mem runs as its model fires its own hooks (mem's among them, if the user's
  // settings still load): those must neither extract that call nor start another one.
  if (o.env[IN_MODEL_CALL]) return;
  const deadline = hookDeadline(o.env);
  const home = homeDir(o.env);
  let root: string | null = null;
  try {
    root = findMemVault({ cwd: o.cwd, root: o.root, home });
  } catch {
    root = null;
  }
  try {
    const agent = parseHookAgent(o.agentName);
    const input = await readHookInput(o.arg, deadline);
    const late = deadline.passed();
    // Late, a payload cut short is no error of its own: the deadline is what is logged.
    let payload: HookPayload | null = null;
    try {
      payload = parseHookPayload(input);
    } catch (err) {
      if (!late) throw err;
    }
    if (payload) root = findMemVault({ cwd: payload.cwd ?? o.cwd, root: o.root, home });
    if (late || !payload) throw new MemError('the hook\'s deadline passed while its payload was read; nothing done');
    if (root === null) return;
    if (await pluginDoesIt(agent, payload, root, o.cwd, o.env)) return;
    await work({ agent, payload, root, deadline });
  } catch (err) {
    if (root !== null) hookLog(root, o.logName, `${o.agentName.slice(0, 40)} ${o.what}: ${(err as Error).message}`);
  }
}
