// Stands in for node:child_process in the bundle (esbuild --alias): commander requires it when it
// loads, for subcommands run as separate executables, which mem never uses; loading the real
// module (with net, dgram and their streams) costs about 3 ms of every command. The functions
// below load it on first use.

import { createRequire } from 'node:module';
import type * as ChildProcess from 'node:child_process';
import { runSettings } from './run.js';

let real: typeof ChildProcess | undefined;
const load = (): typeof ChildProcess => (real ??= createRequire(import.meta.url)('node:child_process') as typeof ChildProcess);

/**
 * The options of a child mem starts for its run (git, mostly): the run's environment unless the
 * caller gives one, so a command run with its own environment (in a test, in-process) passes it on.
 */
function withRunEnv<T>(opts: T): T {
  if (opts === null || typeof opts !== 'object' || 'env' in (opts as object)) return opts;
  return { ...opts, env: runSettings().env };
}

export const spawn: typeof ChildProcess.spawn = ((cmd: string, args: readonly string[], opts?: ChildProcess.SpawnOptions) => load().spawn(cmd, args, withRunEnv(opts ?? {}))) as typeof ChildProcess.spawn;
export const spawnSync: typeof ChildProcess.spawnSync = ((cmd: string, args: readonly string[], opts?: ChildProcess.SpawnSyncOptions) => load().spawnSync(cmd, args, withRunEnv(opts ?? {}))) as typeof ChildProcess.spawnSync;
export const execFileSync: typeof ChildProcess.execFileSync = ((file: string, args: readonly string[], opts?: ChildProcess.ExecFileSyncOptions) => load().execFileSync(file, args, withRunEnv(opts ?? {}))) as typeof ChildProcess.execFileSync;
export const execSync: typeof ChildProcess.execSync = ((...args: Parameters<typeof ChildProcess.execSync>) => load().execSync(...args)) as typeof ChildProcess.execSync;
export const execFile: typeof ChildProcess.execFile = ((...args: unknown[]) => (load().execFile as (...a: unknown[]) => unknown)(...args)) as typeof ChildProcess.execFile;
