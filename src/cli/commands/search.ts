// `mem search`: ranked retrieval from the terminal, scripts (--json, --ids, --batch) and
// prompts (--md).

import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import { addFilterOptions, filterFromOptions, vaultFor, type FilterOptions } from '../common.js';
import { commandCtx, parseIntOption, progressFactory, readInputFile, type Ctx } from '../io.js';

/** A batch of queries, one a line: far more than any run needs. */
const BATCH_LIMIT = 16 << 20;

interface SearchOptions extends FilterOptions {
  limit?: string;
  candidates?: string;
  rank?: string;
  maxChars?: string;
  explain?: boolean;
  md?: boolean;
  ids?: boolean;
  batch?: string;
  session?: string;
  detail?: string;
  refresh?: boolean;
}

export function registerSearch(program: Command): void {
  const cmd = program
    .command('search')
    .description('find the memories that best match a query')
    .argument('[query...]', 'what to look for, in plain words ("-" reads it from stdin)')
    .option('-n, --limit <n>', 'how many results (default 10, or search.limit in config)')
    .option('--candidates <n>', 'BM25 candidates to rank (default 100)')
    .option('--rank <policy>', 'ranking policy: prominence (default), fsrs (FSRS retrievability) or relevance')
    .option('--max-chars <n>', 'pack results into this many characters, skipping any that do not fit (stderr says how many were left out)')
    .option('--explain', 'show how each score was made')
    .option('--md', 'print a markdown block for a prompt')
    .option('--ids', 'print only ids, one per line')
    .option('--batch <file>', 'run many queries: JSONL {"id","query"} in (file or -), JSONL {"id","results"} out')
    .option('--session <id>', 'log returned ids for `mem reinforce --session` (env MEM_SESSION)')
    .option('--detail <level>', 'episodes\' messages: none (default), auto (key moments ranked 1-2), full (every episode shown)')
    .option('--no-refresh', 'do not bring the index up to date first');
  addFilterOptions(cmd);
  cmd.addHelpText('after', `
Examples:
  $ mem search "database migrations fail in CI"
  $ mem search migrations --type corrective --scope project --limit 5
  $ mem search "flaky tests" --json --explain | jq '.results[0].components'
  $ mem search "deploy steps" --md --max-chars 3000 >> prompt.md
  $ printf '{"id":"q1","query":"sqlite locking"}\\n' | mem search --batch - --limit 50
  $ mem search "shadow branch" --kind episode --detail auto   # messages of the top key moments
  $ mem search "deploy cache" --conversation 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10
  $ mem search "deploy cache" --after 2026-11-27T06:00 --before 2026-11-27T12:00
  $ mem search - < build-error.log      # a long query keeps its rarest words in memory (or a model's key terms)

--conversation ID: only entries and episodes whose recorded session_id is ID (mem extract,
mem segment and mem add --session record it); entries with none belong to no conversation.
--after/--before TIME: an ISO date (the start of that day) or date-time, UTC unless it has an
offset (2026-11-27T07:00+01:00). An episode spans start_at..end_at; a learning happened at its
created_at (a date: that whole day). --after keeps what ended at or after TIME, --before what
started before it.

Episodes (mem segment) with surprise >= 0.7 are key moments: marked \u2605 key moment, and
key_moment: true in --json.

Ranking: relevance × importance × decay × (1 + reinforcement_count) × scope multiplier,
where relevance is BM25 scaled so the best match is 1 and decay halves every 90 days (floor 0.1).
Then diversity (MMR): a result like one above it moves down. The score shown is the one after
diversity, so scores fall in rank order; "0.25 (0.48 before diversity: like #2)" marks a result
moved below results of lower score. --json has both: score and final_score.

A query of more than 64 distinct terms (a pasted log) searches its 64 rarest in memory; with a
language model configured (as for mem extract) the model first picks its 5-8 key terms (one
request; on failure the rarest terms; retrieval.model_terms: false in .mem/config.yaml: never).
With --rank fsrs: relevance × R(t) × scope multiplier, R the FSRS-6 retrievability of the
entry's \`fsrs:\` state (mem review), e.g. $ mem search deploy --rank fsrs --explain

With embeddings configured (embeddings: in .mem/config.yaml, or MEM_EMBED_MODEL and
MEM_EMBED_BASE_URL; vectors filled by mem index), relevance is the vector and BM25 ranks fused
by RRF (k = 60), or 0.7 × cosine + 0.3 × BM25 with search.fusion: blend; search.vector_weight
(0..2, default 1) scales the vector list's share, e.g. 0.3 for a weak embedding model; --explain
shows both ranks, the cosine and the fused score. An unreachable endpoint: a warning, then BM25 results.`);
  cmd.action(async (query: string[], opts: SearchOptions, command: Command) => {
    const ctx = commandCtx(command);
    await searchCommand(ctx, query, opts);
  });
}

interface BatchItem {
  id: unknown;
  query: string;
  limit?: number;
  line: number;
}

function parseBatch(text: string, file: string): { items: BatchItem[]; errors: string[] } {
  const items: BatchItem[] = [];
  const errors: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${file}:${i + 1}`;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      errors.push(`invalid JSON (${where}); skipped`);
      return;
    }
    const r = rec as { id?: unknown; query?: unknown; limit?: unknown };
    if (typeof rec !== 'object' || rec === null || typeof r.query !== 'string') {
      errors.push(`each line needs a "query" string (${where}); skipped`);
      return;
    }
    if (r.limit !== undefined && r.limit !== null && !(Number.isSafeInteger(r.limit) && (r.limit as number) > 0)) {
      errors.push(`"limit" must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER} (${where}); skipped`);
      return;
    }
    items.push({ id: r.id ?? null, query: r.query, limit: (r.limit ?? undefined) as number | undefined, line: i + 1 });
  });
  return { items, errors };
}

async function searchCommand(ctx: Ctx, queryArgs: string[], opts: SearchOptions): Promise<void> {
  const limitOpt = parseIntOption('--limit', opts.limit, 1);
  const candidatesOpt = parseIntOption('--candidates', opts.candidates, 1);
  const maxChars = parseIntOption('--max-chars', opts.maxChars, 1);
  const detail = (await import('../../episodes/detail.js')).detailLevel(opts.detail, 'none');
  const filter = filterFromOptions(opts);
  if (filter.statuses?.includes('retired')) {
    throw usageError('search never returns retired entries', 'use `mem list --status retired` to see them');
  }
  const modes = [opts.md, opts.ids, ctx.json].filter(Boolean).length;
  if (modes > 1) throw usageError('choose one output format: --json, --md or --ids');
  const sessionId = opts.session ?? ctx.env.MEM_SESSION;
  let query = queryArgs.join(' ');
  if (!opts.batch && query.trim() === '-') query = ctx.readStdin();
  if (!opts.batch && query.trim() === '') throw usageError('empty query', 'say what to look for: mem search "how do we run migrations"');
  if (opts.batch && queryArgs.length > 0) throw usageError('give either a query or --batch, not both');

  if (sessionId) (await import('../../vault/sessions.js')).checkSessionId(sessionId);
  const vault = await vaultFor(ctx);

  let batch: { items: BatchItem[]; errors: string[] } | undefined;
  if (opts.batch) {
    const text = readInputFile(ctx, opts.batch, BATCH_LIMIT, 'the batch file');
    batch = parseBatch(text, opts.batch === '-' ? 'stdin' : opts.batch);
  }
  const { searchMemory } = await import('../../services/search.js');
  const found = await searchMemory(vault, {
    queries: batch ? batch.items.map((it) => ({ query: it.query, limit: it.limit })) : [{ query }],
    filter, limit: limitOpt, candidates: candidatesOpt, rank: opts.rank, maxChars, detail,
  }, { env: ctx.env, now: ctx.now(), session: sessionId, refresh: opts.refresh, progressFor: progressFactory(ctx), warn: (w) => ctx.warn(w) });
  const { hitJson, renderHuman, renderMd, styleFor } = await import('../../render/hits.js');
  if (batch) {
    const lines = batch.items.map((item, i) => JSON.stringify({ id: item.id, results: found.answers[i].results.map((h, rank) => hitJson(h, Boolean(opts.explain), { rank, detail })) }));
    if (lines.length > 0) ctx.out(lines.join('\n'));
    for (const e of batch.errors) ctx.warn(e);
    if (batch.errors.length > 0) ctx.setExitCode(1);
    return;
  }
  const res = found.answers[0];
  for (const w of res.warnings) ctx.warn(w);
  if (ctx.json) {
    ctx.out(JSON.stringify({ query, results: res.results.map((h, rank) => hitJson(h, Boolean(opts.explain), { rank, detail })) }, null, 2));
  } else if (opts.ids) {
    if (res.results.length > 0) ctx.out(res.results.map((h) => h.id).join('\n'));
  } else if (opts.md) {
    ctx.out(renderMd(query, res.results));
  } else if (res.results.length === 0) {
    if (!ctx.quiet) ctx.io.stderr(`no memories match ${JSON.stringify(query.length > 80 ? `${query.slice(0, 80)}…` : query)}\n`);
  } else {
    ctx.out(renderHuman(res.results, res.terms, await styleFor(ctx.color), Boolean(opts.explain), detail));
  }
  // A budget that left matches out says so (the results alone cannot tell).
  if (maxChars !== undefined && res.omitted > 0 && !ctx.json) ctx.info(`${res.omitted} more match${res.omitted === 1 ? "" : "es"} omitted for --max-chars ${maxChars} or --limit ${found.limit}; raise them to see more`);
}
