// A `mem watch` for the benchmarks, so that the searches they time ask it whether the index is
// fresh instead of stat-ing every file (Linux; see mem watch --help).

import { spawn } from 'node:child_process';

/**
 * Run `fn` while `node BIN watch` runs with `env` (its vault: MEM_ROOT). Waits for the watch's
 * start line, then three seconds, so that what it indexed at start is no longer racy. Returns
 * false without running `fn` when the watch does not answer reads (not Linux, or a build without it).
 */
export async function whileWatched(bin, env, fn) {
  if (process.platform !== 'linux') return false;
  const w = spawn(process.execPath, [bin, 'watch', '--json'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise((resolve) => w.once('exit', resolve));
  try {
    const start = await new Promise((resolve, reject) => {
      let out = '';
      w.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      w.once('exit', (code) => reject(new Error(`mem watch exited (${code})`)));
    });
    if (!start.answers_freshness) return false;
    await new Promise((r) => setTimeout(r, 3000));
    await fn();
    return true;
  } finally {
    w.kill('SIGTERM');
    await exited;
  }
}
