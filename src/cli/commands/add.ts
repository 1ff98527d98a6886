// `mem add`: write one learning to the right scoped file and index it.

import path from 'node:path';
import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { DOMAINS, ENTRY_TYPES } from '../../vault/entry.js';
import { SCOPES } from '../../vault/scope.js';
import { globals, printDiagnostics, vaultFor } from '../common.js';
import { makeCtx, parseFloatOption, readStdin, today, type Ctx } from '../io.js';

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
    .option('--file <path>', 'write to this memory file instead of the scope\'s file')
    .option('--session <id>', 'record the session id that produced it (env MEM_SESSION)')
    .addHelpText('after', `
Examples:
  $ mem add "Run npm run db:migrate before the API tests" --type corrective --importance 0.8
  $ mem add --institutional "Every PR needs a test" --type directive
  $ mem add --scope team --job release-2 --task docs "Docs build needs Node 20"
  $ git log -1 --format=%B | mem add --type declarative --tags release`)
    .action(async (text: string[], opts: AddOptions, command: Command) => {
      await addCommand(makeCtx(globals(command)), text, opts);
    });
}

function firstSentence(text: string): string {
  const line = text.trim().split('\n')[0].replace(/^#+\s*/, '').trim();
  const m = /^(.{10,}?[.!?])(\s|$)/.exec(line);
  const s = m ? m[1] : line;
  return s.length > 80 ? `${s.slice(0, 77).trimEnd()}…` : s;
}

async function addCommand(ctx: Ctx, textArgs: string[], opts: AddOptions): Promise<void> {
  let text = textArgs.join(' ');
  if (text.trim() === '-' || (textArgs.length === 0 && !process.stdin.isTTY)) text = readStdin();
  if (text.trim() === '') throw usageError('nothing to add', 'give the learning as an argument or on stdin');
  const type = opts.type?.toLowerCase();
  if (type && !(ENTRY_TYPES as readonly string[]).includes(type)) throw usageError(`unknown type "${opts.type}"`, `use one of: ${ENTRY_TYPES.join(', ')}`);
  const domain = opts.domain?.toLowerCase();
  if (domain && !(DOMAINS as readonly string[]).includes(domain)) throw usageError(`unknown domain "${opts.domain}"`, `use one of: ${DOMAINS.join(', ')}`);
  const importance = parseFloatOption('--importance', opts.importance, 0, 1);
  const phase = opts.phase?.toLowerCase();
  if (phase !== undefined && !/^[a-z][a-z0-9_-]*$/.test(phase)) throw usageError(`--phase must be one word (got "${opts.phase}")`);
  const scope = (opts.scope ?? 'project').toLowerCase();
  if (!(SCOPES as readonly string[]).includes(scope)) throw usageError(`unknown scope "${opts.scope}"`, `use one of: ${SCOPES.join(', ')}`);
  const sessionId = opts.session ?? process.env.MEM_SESSION;

  const vault = await vaultFor(ctx);
  const name = opts.institutional ? 'institutional.md' : 'MEMORY.md';
  const safe = (v: string | undefined, what: string) => {
    if (!v) throw usageError(`--scope ${scope} needs --${what}`);
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v)) throw usageError(`invalid --${what} "${v}"`, 'use letters, digits, ".", "_" and "-"');
    return v;
  };
  let abs: string;
  if (opts.file) abs = path.resolve(ctx.cwd, opts.file);
  else if (scope === 'global') abs = path.join(vault.home, name);
  else if (scope === 'project') abs = path.join(vault.root, name);
  else if (scope === 'session') abs = path.join(vault.root, '.mem', 'jobs', safe(opts.job, 'job'), name);
  else abs = path.join(vault.root, '.mem', 'jobs', safe(opts.job, 'job'), 'tasks', safe(opts.task, 'task'), 'MEMORY.md');
  if (!/\.(md|markdown)$/i.test(abs)) throw usageError('--file must be a markdown file (.md)');

  const { titleAndBody } = await import('../../vault/format.js');
  const { renderNewEntry, appendEntries } = await import('../../vault/store.js');
  const { describeFile } = await import('../../vault/vault.js');
  const parts = titleAndBody(text);
  const title = opts.title?.trim() || (parts.fromHeading ? parts.title : firstSentence(text));
  const body = parts.fromHeading ? parts.body : text.trim();
  const bodyOut = !opts.title && !parts.fromHeading && body.replace(/\s+/g, ' ') === title ? '' : body;
  // Commas and line breaks both separate tags (a pasted list, `$(cmd)` output): a tag never holds a line break.
  const tags = opts.tags?.split(/[,\r\n\u0085\u2028\u2029]/).map((t) => t.trim()).filter(Boolean);
  const { id, text: entryText } = renderNewEntry({
    type, domain, importance, phase, title, body: bodyOut, date: today(),
    extra: { tags: tags && tags.length > 0 ? tags : undefined, session_id: sessionId, source: 'manual' },
  });
  const file = describeFile(vault, abs, ctx.cwd);
  const preamble = name === 'institutional.md' ? '# Institutional memory\n' : scope === 'global' ? '# Global memory\n' : '# Memory\n';
  appendEntries(abs, file.path, [entryText], preamble);

  // Index the new entry now, so `--no-refresh` searches see it too. The entry is written: from
  // here on nothing fails the command (an index that cannot be updated is a warning).
  const { indexWritten } = await import('../../index/open.js');
  const indexed = await indexWritten(vault, [file], (db) => db.prepare('SELECT line FROM entries WHERE entry_id = ?').get(id) as { line: number } | undefined);
  if (indexed.report) printDiagnostics(ctx, indexed.report.diagnostics.filter((d) => d.file === file.path));
  const row = indexed.value;
  if (ctx.json) ctx.out(JSON.stringify({ id, path: file.path, line: row?.line ?? null, scope: file.scope }, null, 2));
  else {
    ctx.out(id);
    ctx.info(`added to ${file.path}${row ? `:${row.line}` : ''} (${file.scope})`);
  }
  for (const n of indexed.notes) ctx.warn(n);
  if (indexed.warning) ctx.warn(indexed.warning);
}
