// The short start path of a plain `mem index`: what git hooks (post-merge, post-checkout) and the
// agent hooks' background refresh run, most often to find nothing changed. bin/mem.js loads this
// small bundle (dist/quick.cjs) instead of the whole CLI when the command word is `index`; it
// runs the same command (indexCommand, the same output and errors) without commander and the
// other commands' code. It declines anything else (other options, --help, a mistake) and a run
// that may show a spinner (stderr a terminal), which the whole CLI then handles. Measured at 100k
// entries: docs/benchmarks.md.

import { inRun, settingsFrom } from '../run.js';
import { indexCommand } from './commands/index.js';
import { makeCtx, processIo, type GlobalOptions, type Io } from './io.js';
import { reportError } from './report.js';

/**
 * The global options of `argv` when it is `mem index` with nothing but global options (--json,
 * -q/--quiet, --debug, --no-color, --root <dir> or --root=<dir>, in any order, before or after
 * the word); null for anything else, including an empty or missing --root value.
 */
export function plainIndex(argv: readonly string[]): GlobalOptions | null {
  const g: GlobalOptions = {};
  let word = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === 'index' && !word) word = true;
    else if (a === '--json') g.json = true;
    else if (a === '-q' || a === '--quiet') g.quiet = true;
    else if (a === '--debug') g.debug = true;
    else if (a === '--no-color') g.color = false;
    else if (a === '--root' && i + 1 < argv.length && argv[i + 1] !== '') g.root = argv[++i];
    else if (a.startsWith('--root=') && a.length > '--root='.length) g.root = a.slice('--root='.length);
    else return null;
  }
  return word ? g : null;
}

/**
 * Run `argv` when it is a plain `mem index` (see plainIndex) that shows no progress (--quiet, or
 * stderr not a terminal) and return its exit status, as main() would; undefined, having done
 * nothing, when it is not.
 */
export async function quick(argv: readonly string[], io: Io = processIo()): Promise<number | undefined> {
  const g = plainIndex(argv);
  // A terminal may get a progress spinner (ora, which this bundle leaves out): the whole CLI.
  if (g === null || (!g.quiet && io.stderrTTY)) return undefined;
  return inRun(settingsFrom(io.env), async () => {
    try {
      await indexCommand(makeCtx(g, io), {});
      return io.exitCode ?? 0;
    } catch (err) {
      return reportError(err, Boolean(g.debug), io);
    }
  });
}

