// Running an agent's command line as a model, one request at a time: the prompt on standard
// input, no terminal, its own process group (killed whole on timeout), output read up to a cap.

import { spawn } from '../child-process.js';

/** Most bytes of standard output read from an agent CLI: a model's answer is a few KB. */
export const MAX_CLI_STDOUT = 8 * 1024 * 1024;
/** Most bytes of standard error read: only an excerpt of it is ever shown. */
export const MAX_CLI_STDERR = 1024 * 1024;

export interface CliRun {
  command: string;
  args: string[];
  /** Written to the child's standard input, which is then closed. */
  input: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs: number;
  maxStdout?: number;
  maxStderr?: number;
}

export interface CliOutcome {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Killed at the timeout. */
  timedOut: boolean;
  /** Killed for writing more than the cap (which stream). */
  tooBig?: 'stdout' | 'stderr';
  /** It could not be started (ENOENT, EACCES): the error's code. */
  spawnError?: string;
}

/** A Windows batch shim (npm's claude.cmd, …) runs only through the shell; each argument quoted for cmd.exe. */
function forShell(command: string, args: string[]): { command: string; args: string[]; shell: boolean } {
  if (process.platform !== 'win32' || !/\.(cmd|bat)$/i.test(command)) return { command, args, shell: false };
  const q = (a: string) => `"${a.replace(/"/g, '""')}"`;
  return { command: q(command), args: args.map(q), shell: true };
}

/**
 * Run the CLI to its end, or until the timeout or the output cap, whichever comes first; the
 * whole process group is killed then (the agent may have started children of its own). Never
 * rejects: what happened is in the outcome.
 */
export function runCli(o: CliRun): Promise<CliOutcome> {
  const maxOut = o.maxStdout ?? MAX_CLI_STDOUT;
  const maxErr = o.maxStderr ?? MAX_CLI_STDERR;
  return new Promise<CliOutcome>((resolve) => {
    const how = forShell(o.command, o.args);
    const posix = process.platform !== 'win32';
    let child: ReturnType<typeof spawn>;
    try {
      // detached: a process group of its own, so a kill reaches everything it started, and no
      // controlling terminal; stdio are all pipes, so it never sees one of ours either.
      child = spawn(how.command, how.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'], detached: posix, windowsHide: true, shell: how.shell });
    } catch (err) {
      resolve({ code: null, stdout: '', stderr: '', timedOut: false, spawnError: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let tooBig: CliOutcome['tooBig'];
    let spawnError: string | undefined;
    let settled = false;
    const kill = () => {
      try {
        if (posix && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, o.timeoutMs);
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), timedOut, tooBig, spawnError });
    };
    child.stdout!.on('data', (b: Buffer) => {
      if (tooBig) return;
      outBytes += b.length;
      if (outBytes > maxOut) {
        tooBig = 'stdout';
        kill();
        return;
      }
      out.push(b);
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (tooBig) return;
      errBytes += b.length;
      if (errBytes > maxErr) {
        tooBig = 'stderr';
        kill();
        return;
      }
      err.push(b);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      spawnError = e.code ?? e.message;
      finish(null);
    });
    child.on('close', (code) => finish(code));
    // A child that exits without reading its input breaks the pipe: that is its answer, not ours to raise.
    child.stdin!.on('error', () => {});
    child.stdin!.end(o.input);
  });
}
