// Pieces several commands share: filter options, opening the vault and a fresh index, and
// printing what the indexer had to say.

import type { Command } from 'commander';
import { formatWhere, usageError, type Diagnostic } from '../errors.js';
import type { EntryFilter } from '../index/queries.js';
import type { FreshIndex } from '../index/open.js';
import { ENTRY_TYPES, DOMAINS, STATUSES } from '../vault/entry.js';
import { SCOPES, LEARNING_TYPES } from '../vault/scope.js';
import type { Vault } from '../vault/vault.js';
import { conversationList, timeBounds } from '../vault/origin.js';
import { collect, listOption, noteVault, progressFactory, type Ctx } from './io.js';

export interface FilterOptions {
  type?: string[];
  scope?: string[];
  domain?: string[];
  phase?: string[];
  status?: string[];
  learningType?: string[];
  kind?: string[];
  outcome?: string[];
  conversation?: string[];
  after?: string;
  before?: string;
}

/** What `--kind` accepts, and the index kinds each stands for (a learning is an entry or a legacy section). */
export const KIND_CHOICES: Readonly<Record<string, readonly string[]>> = {
  episode: ['episode'],
  learning: ['entry', 'legacy'],
  note: ['note'],
  pattern: ['pattern'],
};

/** Episode outcomes, for `--outcome`. */
export const OUTCOME_CHOICES: readonly string[] = ['success', 'partial', 'failure'];

export function addFilterOptions(cmd: Command): Command {
  return cmd
    .option('--type <types>', `only these types (${ENTRY_TYPES.join(', ')}); comma-separated or repeated`, collect)
    .option('--scope <scopes>', `only these scopes (${SCOPES.join(', ')})`, collect)
    .option('--domain <domains>', `only these domains (${DOMAINS.join(', ')})`, collect)
    .option('--phase <phases>', 'only these phases (e.g. implementation, review)', collect)
    .option('--status <statuses>', `only these statuses (${STATUSES.join(', ')})`, collect)
    .option('--learning-type <kinds>', `only these learning types (${LEARNING_TYPES.join(', ')})`, collect)
    .option('--kind <kinds>', `only these kinds (${Object.keys(KIND_CHOICES).join(', ')})`, collect)
    .option('--outcome <outcomes>', `only episode notes with these outcomes (${OUTCOME_CHOICES.join(', ')})`, collect)
    .option('--conversation <ids>', 'only what these conversations recorded: entries and episodes whose session_id is one of them', collect)
    .option('--after <time>', 'only what happened at or after this ISO date or date-time (UTC unless it has an offset: 2026-11-27T06:00, 2026-11-27T07:00+01:00)')
    .option('--before <time>', 'only what happened before this ISO date or date-time (same forms as --after)');
}

function checked(name: string, values: string[] | undefined, allowed: readonly string[]): string[] | undefined {
  for (const v of values ?? []) {
    if (!allowed.includes(v)) throw usageError(`unknown ${name} "${v}"`, `use one of: ${allowed.join(', ')}`);
  }
  return values;
}

export function filterFromOptions(o: FilterOptions): EntryFilter {
  return {
    types: checked('type', listOption(o.type), ENTRY_TYPES),
    scopes: checked('scope', listOption(o.scope), SCOPES),
    domains: checked('domain', listOption(o.domain), DOMAINS),
    phases: listOption(o.phase),
    statuses: checked('status', listOption(o.status), STATUSES),
    learningTypes: checked('learning type', listOption(o.learningType), LEARNING_TYPES),
    kinds: checked('kind', listOption(o.kind), Object.keys(KIND_CHOICES))?.flatMap((k) => KIND_CHOICES[k]),
    outcomes: checked('outcome', listOption(o.outcome), OUTCOME_CHOICES),
    conversations: conversationList(o.conversation),
    ...timeBounds(o.after, o.before),
  };
}

export async function vaultFor(ctx: Ctx, opts: { noConfig?: boolean } = {}): Promise<Vault> {
  const { openVault } = await import('../vault/vault.js');
  const vault = await openVault({ root: ctx.root, cwd: ctx.cwd, env: ctx.env, noConfig: opts.noConfig });
  // What its walks leave out is said at the end of the run if the command did not say it (see runProgram).
  noteVault(ctx.io, vault);
  return vault;
}

export function printDiagnostics(ctx: Ctx, diags: Diagnostic[]): void {
  for (const d of diags) ctx.warn(formatWhere(d.message, { file: d.file, line: d.line }));
}

export function printIndexNotes(ctx: Ctx, ix: FreshIndex): void {
  for (const n of ix.notes) ctx.warn(n);
  if (ix.report) printDiagnostics(ctx, ix.report.diagnostics);
}

/** Open a fresh index for `vault` (a busy one answered around) and run `fn`; warnings go to stderr. */
export async function withFreshIndex<T>(ctx: Ctx, vault: Vault, opts: { refresh?: boolean }, fn: (ix: FreshIndex) => T | Promise<T>): Promise<T> {
  const { readFresh } = await import('../services/fresh.js');
  return (await readFresh(vault, { refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) }, (ix) => fn(ix))).value;
}

export function globals(cmd: Command): Record<string, unknown> {
  return cmd.optsWithGlobals();
}
