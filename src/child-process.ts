// Stands in for node:child_process in the bundle (esbuild --alias): commander requires it when it
// loads, for subcommands run as separate executables, which mem never uses; loading the real
// module (with net, dgram and their streams) costs about 3 ms of every command. The functions
// below load it on first use.

import { createRequire } from 'node:module';
import type * as ChildProcess from 'node:child_process';

let real: typeof ChildProcess | undefined;
const load = (): typeof ChildProcess => (real ??= createRequire(import.meta.url)('node:child_process') as typeof ChildProcess);

export const spawn: typeof ChildProcess.spawn = ((...args: Parameters<typeof ChildProcess.spawn>) => load().spawn(...args)) as typeof ChildProcess.spawn;
export const spawnSync: typeof ChildProcess.spawnSync = ((...args: Parameters<typeof ChildProcess.spawnSync>) => load().spawnSync(...args)) as typeof ChildProcess.spawnSync;
export const execFileSync: typeof ChildProcess.execFileSync = ((...args: Parameters<typeof ChildProcess.execFileSync>) => load().execFileSync(...args)) as typeof ChildProcess.execFileSync;
export const execSync: typeof ChildProcess.execSync = ((...args: Parameters<typeof ChildProcess.execSync>) => load().execSync(...args)) as typeof ChildProcess.execSync;
export const execFile: typeof ChildProcess.execFile = ((...args: unknown[]) => (load().execFile as (...a: unknown[]) => unknown)(...args)) as typeof ChildProcess.execFile;
