// `mem lint`: check memory files (all, some, or the staged versions for a pre-commit hook).

import { execFileSync } from '../../child-process.js';
import path from 'node:path';
import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import { apiKeysIn } from '../../secrets/display.js';
import type { ParsedFile } from '../../vault/format.js';
import type { SecretPlace } from '../../lint/secrets.js';
import type { LintFinding, LintInput } from '../../lint/entries.js';
import type { Vault, VaultFile } from '../../vault/vault.js';
import { settleCheck } from '../check.js';
import { vaultFor } from '../common.js';
import { commandCtx, type Ctx } from '../io.js';

interface LintOptions {
  fix?: boolean;
  removeEmpty?: boolean;
  staged?: boolean;
  check?: boolean;
}

export function registerLint(program: Command): void {
  program
    .command('lint')
    .description('check memory files and notes: YAML, unique ids, enums, ranges, dates, FSRS state, secrets (exit 1 on problems)')
    .argument('[files...]', 'files to check (default: every file of the vault)')
    .option('--fix', 'normalise what can be normalised (case of enums, numbers given as text, date formats, ranges; a NUL byte becomes a visible ␀) and replace each secret by [redacted: kind]')
    .option('--remove-empty', 'with --fix (or --check): also remove empty entries (a header with no text, as the earlier teaparty system left them)')
    .option('--check', 'write nothing; exit 1 on any problem or when --fix would change a file (CI)')
    .option('--staged', 'check the versions staged in git (for a pre-commit hook)')
    .addHelpText('after', `
Examples:
  $ mem lint
  $ mem lint MEMORY.md --fix
  $ mem lint --fix --remove-empty
  $ mem lint --staged          # in .git/hooks/pre-commit
  $ mem lint --check           # CI: problems, or normalisations --fix would make, fail

Dotfiles (an editor's lock or temp copy) and links to nothing are not memory files. A memory
file under a case variant of its name (memory.md, Institutional.md) is not read: a warning names it.

A credential in a file (a token, a key, a password) is an error, shown by its file, line, column
and kind, never by its value:
  MEMORY.md:14: secret (github-token) at column 8; mem lint --fix replaces it with [redacted: github-token]`)
    .action(async (files: string[], opts: LintOptions, command: Command) => {
      await lintCommand(commandCtx(command), files, opts);
    });
}

function git(root: string, args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const msg = ((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new MemError(`git ${args[0]} failed: ${msg}`, { hint: '--staged needs a git repository' });
  }
}

/**
 * The vault as the commit will have it, for --staged: with the config in git's index when the
 * config is there (an unstaged edit to it, even a broken one, is not what is committed), else the
 * file on disk.
 */
async function stagedVault(ctx: Ctx): Promise<Vault> {
  const { openVault, resolveRoot } = await import('../../vault/vault.js');
  const { CONFIG_PATH } = await import('../../vault/config.js');
  const root = resolveRoot({ root: ctx.root, cwd: ctx.cwd, env: ctx.env });
  const top = path.resolve(git(root, ['rev-parse', '--show-toplevel']).trim());
  const rel = path.relative(top, path.join(root, CONFIG_PATH)).split(path.sep).join('/');
  let configText: Buffer | undefined;
  try {
    configText = execFileSync('git', ['show', `:${rel}`], { cwd: top, maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    // Not in the index (never added): the file on disk.
  }
  return openVault({ root, cwd: ctx.cwd, env: ctx.env, configText });
}

async function inputs(vault: Vault, ctx: Ctx, files: string[], opts: LintOptions): Promise<{ list: LintInput[]; targets: VaultFile[] }> {
  const { discoverFiles, describeFile } = await import('../../vault/vault.js');
  const { readVaultText, decodeVaultText } = await import('../../vault/read.js');
  const all = discoverFiles(vault);
  let targets: VaultFile[];
  const staged = new Map<string, Buffer>();
  if (opts.staged) {
    const names = git(vault.root, ['diff', '--cached', '--name-only', '--diff-filter=ACMR', '-z']).split('\0').filter(Boolean);
    const top = path.resolve(git(vault.root, ['rev-parse', '--show-toplevel']).trim());
    const byAbs = new Map(all.map((f) => [f.abs, f]));
    targets = [];
    for (const n of names) {
      const abs = path.join(top, n);
      const f = byAbs.get(abs);
      if (!f) continue;
      staged.set(f.abs, execFileSync('git', ['show', `:${n}`], { cwd: top, maxBuffer: 1 << 30 }));
      targets.push(f);
    }
  } else if (files.length > 0) {
    targets = files.map((f) => describeFile(vault, f, ctx.cwd));
  } else {
    targets = all;
  }
  const targetSet = new Set(targets.map((t) => t.abs));
  // A file the walk listed that is gone when read (removed since, a link to nothing) is not a
  // memory file any more, as the index sees it: passed by. A file named by the user must be there.
  const named = files.length > 0 && !opts.staged;
  const list: LintInput[] = [];
  const kept: VaultFile[] = [];
  for (const t of targets) {
    const read = staged.has(t.abs) ? decodeVaultText(staged.get(t.abs)!) : readVaultText(t.abs);
    if (!named && 'gone' in read && read.gone) continue;
    list.push({ path: t.path, read });
    kept.push(t);
  }
  for (const f of all) {
    if (targetSet.has(f.abs)) continue;
    const read = readVaultText(f.abs);
    if (!('gone' in read && read.gone)) list.push({ path: f.path, read, idsOnly: true });
  }
  return { list, targets: kept };
}

async function lintCommand(ctx: Ctx, files: string[], opts: LintOptions): Promise<void> {
  if (opts.fix && opts.staged) throw usageError('--fix works on the files on disk, not on staged versions', 'run mem lint --fix, then git add');
  if (opts.fix && opts.check) throw usageError('--check writes nothing and --fix writes: give one of them', 'mem lint --check in CI, mem lint --fix to normalise');
  if (opts.removeEmpty && !opts.fix && !opts.check) throw usageError('--remove-empty is a kind of --fix', 'run mem lint --fix --remove-empty');
  const vault = opts.staged ? await stagedVault(ctx) : await vaultFor(ctx);
  const { lintFiles, fixParsedFile } = await import('../../lint/entries.js');
  let { list, targets } = await inputs(vault, ctx, files, opts);
  const { skipNotices, takeNotRegularFiles } = await import('../../vault/vault.js');
  // A memory file that is not a regular file (a FIFO, a folder) is a problem of the vault when
  // lint checks all of it; a file named here is reported by its own read; any other is said below.
  const whole = files.length === 0 && !opts.staged;
  const named = new Set(targets.map((t) => t.path));
  const notRegular = takeNotRegularFiles(vault, (p) => whole || named.has(p));
  // Links out of the vault the walk skipped, folders it could not list, those other files: said, never silent.
  for (const n of skipNotices(vault)) ctx.warn(n);
  let fixed = 0;
  let fixedFiles = 0;
  let removed = 0;
  // The one normalisation --fix applies and --check looks for: both paths call it.
  const fixOf = (parsed: ParsedFile, file: string) => fixParsedFile(parsed, { removeEmpty: opts.removeEmpty, path: file });
  let resolved = 0;
  let redacted = 0;
  let redactedFiles = 0;
  const secretCache = new Map<string, { text: string; places: SecretPlace[] }>();
  if (opts.fix) {
    // Git conflict markers first: resolved by entry id, as mem resolve does (not staged: lint
    // leaves git's index to the user); what cannot be resolved stays marked and lint reports it.
    const { resolveConflicts } = await import('../../integrations/resolve.js');
    const { firstMarkerLine } = await import('../../vault/gitmarkers.js');
    const { readVaultText } = await import('../../vault/read.js');
    const marked = targets.filter((t) => {
      const r = readVaultText(t.abs);
      return 'text' in r && firstMarkerLine(r.text) !== null;
    });
    if (marked.length > 0) {
      for (const o of resolveConflicts(ctx.cwd, marked.map((t) => t.abs), false) ?? []) {
        if (o.resolved && o.changed) resolved++;
        else if (!o.resolved) ctx.warn(`${o.path}: ${o.conflicts > 0 ? `entries ${o.conflict_ids.join(', ') || '(the preamble)'} edited on both sides stay between conflict markers` : o.note ?? 'not resolved'}; resolve them by hand`);
      }
      if (resolved > 0) ({ list, targets } = await inputs(vault, ctx, files, opts));
    }
    const { rewriteFile } = await import('../../vault/edit.js');
    for (const t of targets) {
      let n = 0;
      let r0 = 0;
      // A file mem cannot read or parse cleanly is left as it is; lint reports why below.
      let changed = false;
      try {
        changed = rewriteFile(t.abs, t.path, (parsed) => {
          const r = fixOf(parsed, t.path);
          n = r?.fixes ?? 0;
          r0 = r?.removed ?? 0;
          return r?.file ?? null;
        });
      } catch (err) {
        if (!(err instanceof MemError)) throw err;
        ctx.warn(err.message + (err.where?.file ? ` (${err.where.file}${err.where.line ? `:${err.where.line}` : ''})` : ''));
      }
      if (changed) {
        fixed += n;
        removed += r0;
        fixedFiles++;
      }
    }
    if (fixed + removed > 0) ({ list, targets } = await inputs(vault, ctx, files, opts));
    // Secrets last: found on the texts just read, then each file that holds one is read again,
    // searched again and rewritten under its lock (only the secrets' bytes change).
    const { rewriteTextAsync } = await import('../../vault/edit.js');
    const { redactFileText } = await import('../../lint/secrets.js');
    const holding = new Set((await secretFindings(list, secretCache, knownSecrets(ctx))).map((f) => f.file));
    for (const t of targets) {
      if (!holding.has(t.path)) continue;
      let n = 0;
      try {
        const changed = await rewriteTextAsync(t.abs, t.path, async (text) => {
          const r = await redactFileText(text, t.path, knownSecrets(ctx));
          n = r.count;
          return r.text;
        });
        if (changed) {
          redacted += n;
          redactedFiles++;
        }
      } catch (err) {
        if (!(err instanceof MemError)) throw err;
        ctx.warn(err.message + (err.where?.file ? ` (${err.where.file}${err.where.line ? `:${err.where.line}` : ''})` : ''));
      }
    }
    if (redacted > 0) ({ list, targets } = await inputs(vault, ctx, files, opts));
  }
  // --check: what --fix would change, worked out on the texts lint read (staged ones with
  // --staged), with the same normalisation and the same "did the bytes change" test as rewriteFile.
  const pending: { file: string; fixes: number; removed: number }[] = [];
  if (opts.check) {
    const { parseMemoryFile, serializeFile } = await import('../../vault/format.js');
    for (const input of list) {
      if (input.idsOnly || 'error' in input.read) continue;
      const r = fixOf(parseMemoryFile(input.read.text, input.path), input.path);
      if (r && serializeFile(r.file) !== input.read.text) pending.push({ file: input.path, fixes: r.fixes, removed: r.removed });
    }
  }
  // The typed notes' links may point at any file's name or at an entry's id or title: taken from the parse lint makes anyway.
  const { linkTargetsOf } = await import('../../notes/validate.js');
  const linkTargets: string[] = [];
  const entryFindings = lintFiles(list, ctx.now(), (input, parsed) => {
    for (const t of linkTargetsOf(input.path, parsed)) linkTargets.push(t);
  });
  // Worded as the read of a named one is (such a file is never opened: a FIFO would block).
  const notRegularFindings = whole ? notRegular.map(([file, what]): LintFinding => ({ file, line: null, severity: 'error', message: `not a regular file (${what})` })) : [];
  const findings: LintFinding[] = [...entryFindings, ...notRegularFindings, ...(await secretFindings(list, secretCache, knownSecrets(ctx)))].sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0));
  findings.push(...(await typedNoteFindings(vault, linkTargets, files.length > 0 || opts.staged ? targets.map((t) => t.path) : null)));
  // A memory file under a case variant of its name (memory.md, Institutional.md) is not read: said.
  if (files.length === 0 && !opts.staged) {
    const { discoverFiles } = await import('../../vault/vault.js');
    const { misnamedMemoryFiles, misnamedMessage } = await import('../../vault/misnamed.js');
    for (const m of misnamedMemoryFiles(vault, discoverFiles(vault))) findings.push({ file: m.path, line: null, severity: 'warning', message: misnamedMessage(m) });
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const check = settleCheck(ctx, opts.check, errors === 0 && pending.length === 0);
  if (ctx.json) {
    ctx.out(JSON.stringify({ ...(opts.check ? { dry_run: true, ...check } : {}), files: targets.length, problems: findings.map((f) => ({ ...f })), ...(opts.check ? { fixed: pending.reduce((n, p) => n + p.fixes, 0), removed: pending.reduce((n, p) => n + p.removed, 0), would_fix: pending } : { fixed, removed, resolved, redacted }) }, null, 2));
  } else {
    for (const f of findings) ctx.out(`${f.file}${f.line ? `:${f.line}` : ''}: ${f.severity === 'warning' ? 'warning: ' : ''}${f.message}`);
    for (const p of pending) ctx.out(`${p.file}: mem lint --fix would ${[p.fixes ? `fix ${p.fixes} value${p.fixes === 1 ? '' : 's'}` : '', p.removed ? `remove ${p.removed} empty entr${p.removed === 1 ? 'y' : 'ies'}` : ''].filter(Boolean).join(' and ')}`);
    if (pending.length > 0) ctx.info(`check: mem lint --fix would change ${pending.length} file${pending.length === 1 ? '' : 's'}`);
    if (fixed > 0) ctx.info(`fixed ${fixed} problem${fixed === 1 ? '' : 's'} in ${fixedFiles} file${fixedFiles === 1 ? '' : 's'}`);
    if (redacted > 0) ctx.info(`redacted ${redacted} secret${redacted === 1 ? '' : 's'} in ${redactedFiles} file${redactedFiles === 1 ? '' : 's'}`);
    if (resolved > 0) ctx.info(`resolved the git conflict markers of ${resolved} file${resolved === 1 ? "" : "s"} by entry id`);
    if (removed > 0) ctx.info(`removed ${removed} empty entr${removed === 1 ? 'y' : 'ies'}`);
    if (findings.length > 0) ctx.info(`${findings.length} problem${findings.length === 1 ? '' : 's'} in ${new Set(findings.map((f) => f.file)).size} file(s)`);
    else ctx.info(`${targets.length} file${targets.length === 1 ? '' : 's'} checked, no problems`);
  }
  if (errors > 0) ctx.setExitCode(1);
}

/** Values mem itself holds as credentials (its API keys), whatever their shape. */
function knownSecrets(ctx: Ctx): string[] {
  return apiKeysIn(ctx.env);
}

/**
 * A finding for each secret in the files lint checks (not those it reads only for their ids),
 * searched on the text lint read: the staged one with --staged. `cache`: places found before, by
 * file, reused while the text is the same.
 */
async function secretFindings(list: LintInput[], cache: Map<string, { text: string; places: SecretPlace[] }>, known: string[]): Promise<LintFinding[]> {
  const { secretPlaces } = await import('../../lint/secrets.js');
  const { placeholder } = await import('../../secrets/rules.js');
  const out: LintFinding[] = [];
  for (const input of list) {
    if (input.idsOnly || 'error' in input.read) continue;
    const text = input.read.text;
    let hit = cache.get(input.path);
    if (hit?.text !== text) {
      hit = { text, places: await secretPlaces(text, known) };
      cache.set(input.path, hit);
    }
    for (const p of hit.places) {
      out.push({ file: input.path, line: p.line, column: p.column, kind: p.kind, severity: 'error', message: `secret (${p.kind}) at column ${p.column}; mem lint --fix replaces it with ${placeholder(p.kind)}` });
    }
  }
  return out;
}

/**
 * The checks of `mem validate` (typed notes: schema, [[links]], causal edges), as lint findings.
 * `known`: the link targets outside the typed notes (linkTargetsOf each file lint read). `only`:
 * the paths lint was asked about (files given, or staged); null: the whole vault.
 */
async function typedNoteFindings(vault: Vault, known: string[], only: string[] | null): Promise<LintFinding[]> {
  const { validateTypedNotes } = await import('../../notes/validate.js');
  const report = validateTypedNotes(vault.root, { known });
  const keep = only === null ? null : new Set(only);
  return report.diagnostics
    .filter((d) => keep === null || keep.has(d.file))
    .map((d) => ({ file: d.file, line: d.line ?? null, severity: d.severity, message: d.message }));
}
