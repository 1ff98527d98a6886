// `mem pattern add|list|path|graph|antipatterns`: pattern and anti-pattern notes and the causal graph
// over them (add_pattern, query_patterns, get_causal_path, get_antipatterns, as the MCP tools).

import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import type { AddPatternInput, CausalRelation } from '../../notes/pattern-note.js';
import type { PatternSummary } from '../../notes/pattern-query.js';
import { vaultFor } from '../common.js';
import { commandCtx, collect, type Ctx, parseFloatOption, parseIntOption } from '../io.js';
import { oneLine } from '../../quote.js';

interface AddOpts {
  name?: string;
  trigger?: string;
  action?: string;
  description?: string;
  successRate?: string;
  evidenceEpisode?: string;
  relation?: string[];
  antipattern?: boolean;
  dryRun?: boolean;
}

const CAUSAL = ['causes', 'enables', 'prevents', 'correlates'];

export function registerPattern(program: Command): void {
  const pattern = program
    .command('pattern')
    .description('pattern and anti-pattern notes (.mem/patterns/) and the causal graph over them')
    .addHelpText('after', `
Examples:
  $ mem pattern add --name run-migrations-first --trigger "API tests fail on a fresh database" --action "run npm run db:migrate first"
  $ mem pattern list --min-success-rate 0.7
  $ mem pattern path run-migrations-first flaky-api-tests
  $ mem pattern graph --md > causal-graph.md
  $ mem pattern antipatterns --json`);

  pattern
    .command('add')
    .description('add a pattern, or record one more occurrence of an existing one (upsert by name)')
    .argument('[input]', '"-": read the add_pattern JSON (as the MCP tool takes it) from stdin (also read when no --name is given and stdin is not a terminal)')
    .option('--name <name>', 'pattern name (kebab-case; the note is PATTERN-<name>.md)')
    .option('--trigger <text>', 'the condition that calls for the pattern (needed for a new pattern)')
    .option('--action <text>', 'what to do (needed for a new pattern)')
    .option('--description <text>', 'when and why it applies (the Context section)')
    .option('--success-rate <r>', 'how well it went this time, 0 to 1 (default 1.0)')
    .option('--evidence-episode <id>', 'the episode that shows it (linked as [[EPISODE-<id>]])')
    .option('--relation <type:target>', `a causal relationship, repeatable: ${CAUSAL.join('|')}:TARGET (a pattern or outcome named as you would name it to mem pattern path)`, collect)
    .option('--antipattern', 'an anti-pattern (ANTIPATTERN-<name>.md)')
    .option('--dry-run', 'say what would happen, write nothing')
    .addHelpText('after', `
A new name creates .mem/patterns/PATTERN-<name>.md (occurrences 1). An existing one (same file
name, or a pattern note whose title matches) is updated in place: occurrences + 1, success_rate
becomes the running average ((old x n + new) / (n + 1)), last_validated today, and the evidence
link and causal relationships are added unless already there. Nothing else in the note changes.

Examples:
  $ mem pattern add --name run-migrations-first --trigger "API tests fail on a fresh database" \\
      --action "run npm run db:migrate before the tests" --relation prevents:flaky-api-tests
  $ mem pattern add --name run-migrations-first --success-rate 0 --evidence-episode 2026-11-02-session-4
  $ mem pattern add --name skip-failing-tests --antipattern --trigger "CI is red" --action "mark tests skipped" --success-rate 0.1
  $ echo '{"name":"retry-once","trigger":"network flake","action":"retry","success_rate":0.8}' | mem pattern add -`)
    .action(async (input: string | undefined, opts: AddOpts, command: Command) => {
      await addCommand(commandCtx(command), input, opts);
    });

  pattern
    .command('list')
    .description('list pattern notes, best success rate first')
    .option('--trigger <text>', 'only patterns whose trigger contains this text (case ignored)')
    .option('--min-success-rate <r>', 'only patterns with at least this success rate (0-1)')
    .option('--min-occurrences <n>', 'only patterns seen at least this often')
    .option('-n, --limit <n>', 'at most this many (default 20, max 100)')
    .addHelpText('after', `
Examples:
  $ mem pattern list
  $ mem pattern list --trigger "database" --min-success-rate 0.7 --min-occurrences 3
  $ mem pattern list --json | jq '.patterns[].title'`)
    .action(async (opts: { trigger?: string; minSuccessRate?: string; minOccurrences?: string; limit?: string }, command: Command) => {
      const ctx = commandCtx(command);
      const { queryPatterns } = await import('../../notes/pattern-query.js');
      const vault = await vaultFor(ctx);
      const res = queryPatterns(vault.root, {
        trigger: opts.trigger,
        min_success_rate: parseFloatOption('--min-success-rate', opts.minSuccessRate, 0, 1),
        min_occurrences: parseIntOption('--min-occurrences', opts.minOccurrences, 0),
        limit: parseIntOption('--limit', opts.limit, 1),
      });
      await (await import('../unreadable-notes.js')).warnUnreadable(ctx, vault.root, '.mem/patterns');
      if (ctx.json) return ctx.out(JSON.stringify(res, null, 2));
      if (res.patterns.length === 0) return ctx.info('no pattern notes match (mem pattern add writes them)');
      printPatterns(ctx, res.patterns);
      if (res.total > res.patterns.length) ctx.info(`${res.total - res.patterns.length} more; raise --limit`);
    });

  pattern
    .command('path')
    .description('the shortest chain of causal relationships from one pattern to another (or to an outcome)')
    .argument('<from>', 'a pattern (or outcome, error, decision, event note): its name as written, title or permalink, or a unique prefix or part of one')
    .argument('<to>', 'another pattern, or an outcome')
    .option('--max-depth <n>', 'at most this many steps (default 5, max 10)')
    .addHelpText('after', `
Follows the "- causes|enables|prevents|correlates [[X]]" lines of the notes' Causal Relationships
sections, in their direction, breadth first, through pattern notes and the outcome, error,
decision and event notes mem import ai-agents writes beside them. A name matches as written
(case ignored), then normalised as pattern add names notes ("Stop old job before cutover" is
PATTERN-stop-old-job-before-cutover), then by a unique prefix of words ("Stop old job"), then by a
unique part; an unknown or ambiguous name is an error listing the candidates. The targets of
[[links]] in the notes resolve the same way (a part of a name is not enough there).
Exit status: 0 when a path was found; 1 when there is none within --max-depth (the reason is
printed; with --json, {"found": false, "reason": …}) or a name does not resolve.

Examples:
  $ mem pattern path run-migrations-first flaky-api-tests
  $ mem pattern path "Stop old job" "No duplicate invoices"
  $ mem pattern path migrations deploy --max-depth 10 --json`)
    .action(async (from: string, to: string, opts: { maxDepth?: string }, command: Command) => {
      const ctx = commandCtx(command);
      const depth = parseIntOption('--max-depth', opts.maxDepth, 1);
      if (depth !== undefined && depth > 10) throw usageError(`--max-depth must be at most 10 (got ${depth})`);
      const { causalPath } = await import('../../notes/pattern-query.js');
      const vault = await vaultFor(ctx);
      const res = causalPath(vault.root, from, to, depth);
      if (ctx.json) ctx.out(JSON.stringify(res, null, 2));
      else if (res.found) {
        ctx.out(res.path.map((s) => (s.via ? ` —${s.via}→ ${oneLine(s.label)}` : oneLine(s.label))).join(''));
        ctx.info(`${res.depth} step${res.depth === 1 ? '' : 's'}`);
      } else ctx.out(`no path: ${oneLine(res.reason ?? '')}`);
      if (!res.found) ctx.setExitCode(1);
    });

  pattern
    .command('graph')
    .description('draw the causal graph: a mermaid flowchart (GitHub renders it in markdown) or Graphviz DOT')
    .option('--format <format>', 'mermaid (default) or dot')
    .option('--md', 'wrap the diagram in a fenced block (```mermaid or ```dot) to paste into markdown')
    .option('--from <name>', 'only the notes reachable from this one, named as for mem pattern path')
    .option('--depth <n>', 'with --from: at most this many steps from it')
    .option('--max-nodes <n>', 'at most this many notes (default 100): the most connected are kept, or the nearest to --from')
    .option('--no-broken', 'leave out links to no note (or to several) rather than drawing them dashed to a placeholder')
    .addHelpText('after', `
One node per pattern note and per outcome, error, decision and event note of .mem/patterns/, one
arrow per line of their Causal Relationships sections, labelled causes, enables, prevents or
correlates. Shapes by type: pattern (rounded box), anti-pattern (hexagon), outcome (stadium),
error (flag), decision (parallelogram), event (double box); a link no single note answers to is
dashed, to a dashed placeholder (--no-broken leaves it out). Labels are the notes' titles on one
line, cut at a word after 60 characters; the output is sorted, so the same notes give the same
bytes. Counts (notes left out, broken links) go to stderr and into the diagram as comments.
--json gives the nodes and edges instead.

Examples:
  $ mem pattern graph --md > docs/causal-graph.md      # GitHub renders the mermaid block
  $ mem pattern graph --from "Stop old job" --depth 2
  $ mem pattern graph --format dot | dot -Tsvg > causal.svg
  $ mem pattern graph --max-nodes 30 --no-broken
  $ mem pattern graph --json | jq '.edges[] | select(.broken)'`)
    .action(async (opts: { format?: string; md?: boolean; from?: string; depth?: string; maxNodes?: string; broken?: boolean }, command: Command) => {
      const ctx = commandCtx(command);
      const format = (opts.format ?? 'mermaid').trim().toLowerCase();
      if (format !== 'mermaid' && format !== 'dot') throw usageError(`--format must be mermaid or dot (got "${opts.format}")`);
      const depth = parseIntOption('--depth', opts.depth, 0);
      if (depth !== undefined && opts.from === undefined) throw usageError('--depth needs --from', 'e.g. mem pattern graph --from run-migrations-first --depth 2');
      const maxNodes = parseIntOption('--max-nodes', opts.maxNodes, 1);
      const { causalGraphView } = await import('../../notes/pattern-query.js');
      const vault = await vaultFor(ctx);
      const view = causalGraphView(vault.root, { from: opts.from, depth, max_nodes: maxNodes, show_broken: opts.broken !== false });
      await (await import('../unreadable-notes.js')).warnUnreadable(ctx, vault.root, '.mem/patterns');
      if (ctx.json) ctx.out(JSON.stringify(view, null, 2));
      else {
        const { mermaidFlowchart, fenced } = await import('../../render/mermaid.js');
        const text = format === 'dot' ? (await import('../../render/dot.js')).dotGraph(view) : mermaidFlowchart(view);
        ctx.out(opts.md ? fenced(format === 'dot' ? 'dot' : 'mermaid', text) : text);
      }
      if (view.total_notes === 0) ctx.info(opts.from === undefined ? 'no pattern notes yet (mem pattern add writes them)' : 'no notes');
      if (view.omitted_notes > 0) ctx.info(`showing ${view.total_notes - view.omitted_notes} of ${view.total_notes} notes; raise --max-nodes${opts.from === undefined ? ', or start --from a note' : ''}`);
      if (view.broken_links > 0) {
        const n = `${view.broken_links} broken link${view.broken_links === 1 ? '' : 's'}`;
        ctx.info(`${view.broken_shown ? `${n} drawn dashed` : `${n} left out`} (mem validate lists them)`);
      }
    });

  pattern
    .command('antipatterns')
    .description('patterns that keep failing: low success rate over several occurrences, worst first')
    .option('--max-success-rate <r>', 'at most this success rate (default 0.3)')
    .option('--min-occurrences <n>', 'seen at least this often (default 2: one failure is a fluke)')
    .option('-n, --limit <n>', 'at most this many (default 20, max 100)')
    .addHelpText('after', `
Examples:
  $ mem pattern antipatterns
  $ mem pattern antipatterns --max-success-rate 0.5 --min-occurrences 3 --json`)
    .action(async (opts: { maxSuccessRate?: string; minOccurrences?: string; limit?: string }, command: Command) => {
      const ctx = commandCtx(command);
      const { antipatterns } = await import('../../notes/pattern-query.js');
      const vault = await vaultFor(ctx);
      const res = antipatterns(vault.root, {
        max_success_rate: parseFloatOption('--max-success-rate', opts.maxSuccessRate, 0, 1),
        min_occurrences: parseIntOption('--min-occurrences', opts.minOccurrences, 1),
        limit: parseIntOption('--limit', opts.limit, 1),
      });
      if (ctx.json) return ctx.out(JSON.stringify(res, null, 2));
      if (res.patterns.length === 0) return ctx.info('no anti-patterns: nothing has failed repeatedly');
      printPatterns(ctx, res.patterns);
    });
}

function printPatterns(ctx: Ctx, list: PatternSummary[]): void {
  for (const p of list) {
    const rate = p.success_rate === null ? ' ?  ' : p.success_rate.toFixed(2);
    const occ = p.occurrences === null ? '?' : String(p.occurrences);
    ctx.out(`${rate}  ×${occ.padEnd(3)} ${oneLine(p.title)}  — ${oneLine(p.trigger)}`);
  }
}

function parseRelation(s: string): CausalRelation {
  const m = /^\s*([a-z]+)\s*:(.*)$/i.exec(s);
  if (!m || !CAUSAL.includes(m[1].toLowerCase()) || m[2].trim() === '') {
    throw usageError(`--relation must be TYPE:TARGET with TYPE one of ${CAUSAL.join(', ')} (got "${s}")`, 'e.g. --relation prevents:flaky-api-tests');
  }
  return { type: m[1].toLowerCase() as CausalRelation['type'], target: m[2].trim() };
}

/** The add_pattern input, read from JSON, checked field by field (nulls count as absent). */
async function inputFromJson(raw: string): Promise<AddPatternInput> {
  let data: unknown;
  try {
    data = JSON.parse(raw.replace(/^\ufeff/, ''));
  } catch (err) {
    throw new MemError(`stdin is not JSON: ${(err as Error).message}`, { hint: 'give an add_pattern object: {"name", "trigger", "action", ...}' });
  }
  const { parseAddPatternArgs } = await import('../../notes/pattern-input.js');
  return parseAddPatternArgs(data, 'stdin');
}

async function addCommand(ctx: Ctx, input: string | undefined, opts: AddOpts): Promise<void> {
  if (input !== undefined && input !== '-') throw usageError(`unexpected argument "${input}"`, 'use --name …, or "-" to read JSON from stdin');
  const flags = opts.name !== undefined || opts.trigger !== undefined || opts.action !== undefined;
  let args: AddPatternInput;
  if (input === '-' || (!flags && !ctx.stdinIsTerminal())) {
    if (flags) throw usageError('give the pattern as flags or as JSON on stdin, not both');
    const raw = ctx.readStdin();
    if (raw.trim() === '') throw usageError('no pattern given', 'mem pattern add --name NAME --trigger TEXT --action TEXT (or JSON on stdin)');
    args = await inputFromJson(raw);
    if (opts.antipattern) args.is_antipattern = true;
  } else {
    if (opts.name === undefined) throw usageError('missing --name', 'mem pattern add --name NAME --trigger TEXT --action TEXT');
    args = {
      name: opts.name, trigger: opts.trigger, action: opts.action, description: opts.description,
      success_rate: parseFloatOption('--success-rate', opts.successRate, 0, 1),
      evidence_episode: opts.evidenceEpisode,
      causal_relationships: (opts.relation ?? []).map(parseRelation),
      is_antipattern: opts.antipattern ? true : undefined,
    };
  }
  const vault = await vaultFor(ctx);
  const { addPattern } = await import('../../notes/pattern-note.js');
  const res = await addPattern(vault.root, args, { today: ctx.today(), dryRun: opts.dryRun });
  if (res.redacted) ctx.warn((await import('../../secrets/redact.js')).describeRedaction(res.redacted));
  if (ctx.json) return ctx.out(JSON.stringify({ ...(opts.dryRun ? { dry_run: true } : {}), ...res }, null, 2));
  const extra = [
    ...res.added_evidence.map((e) => `evidence +${e}`),
    ...res.added_relations.map((r) => `+${r.type} ${r.target}`),
  ];
  const verb = opts.dryRun ? `would be ${res.action}` : res.action;
  ctx.out(`${verb}: ${oneLine(res.title)} (${res.path}): success rate ${res.success_rate.toFixed(2)} over ${res.occurrences} occurrence${res.occurrences === 1 ? '' : 's'}${extra.length ? `; ${oneLine(extra.join(', '))}` : ''}`);
  if (opts.dryRun) ctx.info('dry run: nothing written');
}
