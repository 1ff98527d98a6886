// `mem add`: write one learning to the right scoped file and index it (lifecycle/add.ts).

import type { Command } from 'commander';
import { DOMAINS, ENTRY_TYPES } from '../../vault/entry.js';
import { SCOPES } from '../../vault/scope.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

interface AddOptions {
  type?: string;
  domain?: string;
  importance?: string;
  phase?: string;
  scope?: string;
  job?: string;
  task?: string;
  institutional?: boolean;
  tags?: string;
  title?: string;
  file?: string;
  session?: string;
}

export function registerAdd(program: Command): void {
  program
    .command('add')
    .description('add a learning; prints its id')
    .argument('[text...]', 'the learning, in markdown (or "-" / a pipe for stdin)')
    .option('-t, --type <type>', `${ENTRY_TYPES.join(' | ')} (default procedural)`)
    .option('-d, --domain <domain>', `${DOMAINS.join(' | ')} (default team)`)
    .option('-i, --importance <n>', 'importance from 0.0 to 1.0 (default 0.5)')
    .option('-p, --phase <phase>', 'project stage it belongs to (default unknown)')
    .option('-s, --scope <scope>', `${SCOPES.join(' | ')} (default project)`)
    .option('--job <job>', 'job (session) name, for --scope session or team')
    .option('--task <task>', 'task name, for --scope team')
    .option('--institutional', 'a norm for institutional.md (always loaded by mem context)')
    .option('--tags <tags>', 'comma-separated tags')
    .option('--title <title>', 'title (default: the first heading or sentence of the text)')
    .option('--file <path>', 'write to this memory file instead of the scope\'s file (one mem reads as memory: MEMORY.md, memory/**/*.md, an include: file, …)')
    .option('--session <id>', 'record the session id that produced it (env MEM_SESSION)')
    .addHelpText('after', `
--scope dispatch writes dispatch.md at the root: learnings about handing work to sub-agents.

A learning is at most 256 KB (UTF-8); a longer text is refused (exit 2), nothing written.

The entry's metadata goes on one line above its heading, <!-- mem {id: …, type: …} -->, which
GitHub and editors' previews do not show; a file whose entries have --- YAML headers gets one
too. format.entry_header in .mem/config.yaml (auto | comment | yaml) chooses.

Examples:
  $ mem add "Run npm run db:migrate before the API tests" --type corrective --importance 0.8
  $ mem add --institutional "Every PR needs a test" --type directive
  $ mem add --scope team --job release-2 --task docs "Docs build needs Node 20"
  $ mem add --scope dispatch "Give sub-agents the exact test command; they guess npm test"
  $ git log -1 --format=%B | mem add --type declarative --tags release
  $ mem add --file memory/deploy.md "Deploys go through the CI pipeline"

--file refuses (exit 2, nothing written) a file mem would not read back as memory: outside the
vault, README.md, anything under .git/ or .mem/ but a job's MEMORY.md, an excluded file.

Credentials in the text, title or tags (tokens, keys, passwords) are written as
placeholders that name their kind, e.g. [redacted: github-token], and mem says so on stderr.`)
    .action(async (text: string[], opts: AddOptions, command: Command) => {
      await addCommand(commandCtx(command), text, opts);
    });
}

async function addCommand(ctx: Ctx, textArgs: string[], opts: AddOptions): Promise<void> {
  let text = textArgs.join(' ');
  if (text.trim() === '-' || (textArgs.length === 0 && !ctx.stdinIsTerminal())) text = ctx.readStdin();
  const req = {
    text, type: opts.type, domain: opts.domain, importance: opts.importance, phase: opts.phase, scope: opts.scope,
    job: opts.job, task: opts.task, institutional: opts.institutional, tags: opts.tags, title: opts.title, file: opts.file,
    sessionId: opts.session ?? ctx.env.MEM_SESSION, date: ctx.today(),
  };
  const { addLearning } = await import('../../services/add.js');
  const { added, problems, notes } = await addLearning(req, { vault: () => vaultFor(ctx), cwd: ctx.cwd });
  for (const p of problems) ctx.warn(p);
  if (added.redacted) ctx.warn((await import('../../secrets/redact.js')).describeRedaction(added.redacted));
  if (ctx.json) ctx.out(JSON.stringify((await import('../../render/entries.js')).addedJson(added), null, 2));
  else {
    ctx.out(added.id);
    ctx.info(`added to ${added.file.path}${added.line !== null ? `:${added.line}` : ''} (${added.file.scope})`);
  }
  for (const n of notes) ctx.warn(n);
}
