// What one run of mem (a command, an agent hook, an MCP server) settles at its start and the
// layers below consult: its environment, how long to wait for another writer's lock or for the
// index, and the folders its writes are confined to. Kept per run, not per process: a test runs
// many commands in one process, each with its own environment and vault, and none may see
// another's settings. Runs in one process follow one another (main awaits its command), so the
// run in progress is simply the one inRun set last; it is put back when that run ends.
// (node:async_hooks' AsyncLocalStorage would also allow runs side by side, but on Node 20 it
// hooks every promise: measured 4-12 ms more per command, mem context the most.)

export interface RunSettings {
  /** The run's environment variables (the command's, not necessarily this process's). */
  env: NodeJS.ProcessEnv;
  /** How long a write waits for another writer's lock on a file (MEM_LOCK_TIMEOUT_MS). */
  lockTimeoutMs: number;
  /** How long SQLite waits for another connection's lock on the index (MEM_BUSY_TIMEOUT_MS). */
  busyTimeoutMs: number;
  /** The folders writes are confined to (the vault root and the global folder), set when a vault is opened. */
  writeBases: string[];
}

export const LOCK_TIMEOUT_MS = 10_000;
export const BUSY_TIMEOUT_MS = 5000;

function msFrom(v: string | undefined, dflt: number): number {
  const n = Number(v);
  return v !== undefined && v.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : dflt;
}

/** The settings of a run in `env`: the timeouts it names, or the defaults. */
export function settingsFrom(env: NodeJS.ProcessEnv): RunSettings {
  return {
    env,
    lockTimeoutMs: msFrom(env.MEM_LOCK_TIMEOUT_MS, LOCK_TIMEOUT_MS),
    busyTimeoutMs: msFrom(env.MEM_BUSY_TIMEOUT_MS, BUSY_TIMEOUT_MS),
    writeBases: [],
  };
}

/** For code called outside any run (the library used directly, unit tests): this process's environment and the default timeouts. */
const outside: RunSettings = { env: process.env, lockTimeoutMs: LOCK_TIMEOUT_MS, busyTimeoutMs: BUSY_TIMEOUT_MS, writeBases: [] };

let current: RunSettings | undefined;

/**
 * Run `fn` to its end (a promise it returns included) with `settings`; the settings before it
 * are back afterwards, whatever happens.
 */
export function inRun<T>(settings: RunSettings, fn: () => T): T {
  const before = current;
  current = settings;
  let result: T;
  try {
    result = fn();
  } catch (err) {
    current = before;
    throw err;
  }
  if (result instanceof Promise) {
    return result.finally(() => {
      current = before;
    }) as T;
  }
  current = before;
  return result;
}

/** The settings of the run in progress (the defaults outside any). */
export function runSettings(): RunSettings {
  return current ?? outside;
}
