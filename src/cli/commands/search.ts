// `mem search`: ranked retrieval from the terminal, scripts (--json, --ids, --batch) and
// prompts (--md).

import type { Command } from 'commander';
import { usageError } from '../../errors.js';
import type { SearchRequest, SearchResult } from '../../retrieve/search.js';
import { addFilterOptions, filterFromOptions, vaultFor, withFreshIndex, type FilterOptions } from '../common.js';
import { commandCtx, parseIntOption, readInputFile, type Ctx } from '../io.js';

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

Episodes (mem segment) with surprise >= 0.7 are key moments: marked \u2605 key moment, and
key_moment: true in --json.

Ranking: relevance × importance × decay × (1 + reinforcement_count) × scope multiplier,
where relevance is BM25 scaled so the best match is 1 and decay halves every 90 days (floor 0.1).
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
    const limit = typeof r.limit === 'number' && Number.isInteger(r.limit) && r.limit > 0 ? r.limit : undefined;
    items.push({ id: r.id ?? null, query: r.query, limit, line: i + 1 });
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
  const { runSearch, policyFor } = await import('../../retrieve/search.js');
  const rank = opts.rank ?? vault.config.search.rank;
  policyFor(rank);
  const now = ctx.now();
  const base: Omit<SearchRequest, 'query'> = {
    limit: limitOpt ?? vault.config.search.limit,
    candidates: Math.max(candidatesOpt ?? vault.config.search.candidates, limitOpt ?? 0),
    filter, rank, maxChars, now, scopeMultipliers: vault.config.scopeMultipliers,
  };

  let batch: { items: BatchItem[]; errors: string[] } | undefined;
  if (opts.batch) {
    const text = readInputFile(ctx, opts.batch, BATCH_LIMIT, 'the batch file');
    batch = parseBatch(text, opts.batch === '-' ? 'stdin' : opts.batch);
  }

  // Embeddings configured: hybrid search (src/retrieve/hybrid.ts); else the lexical path alone.
  const emb = (await import('../../vault/config.js')).embeddingsFrom(vault.config.embeddings, ctx.env);
  await withFreshIndex(ctx, vault, { refresh: opts.refresh !== false, tolerateBusy: true }, async (ix) => {
    const { hitJson, renderHuman, renderMd, styleFor } = await import('../../render/hits.js');
    // The episodes' messages the detail level shows: from the committed file, else the local store.
    const withMessages = detail === 'none' ? (hits: SearchResult['results']) => hits : ((m) => (hits: SearchResult['results']) => m.withMessages(vault.root, hits, detail))(await import('../../episodes/local.js'));
    let hooks: SearchRequest['hybrid'][] | null = null;
    if (emb) {
      const texts = batch ? batch.items.map((it) => it.query) : [query];
      const setup = await (await import('../../retrieve/hybrid.js')).prepareHybrid(ix.db, emb, texts, ctx.env);
      if (setup.warning) ctx.warn(setup.warning);
      hooks = setup.hooks;
    }
    const log: { at: string; query: string; ids: string[] }[] = [];
    const at = new Date(now).toISOString();
    if (batch) {
      const lines: string[] = [];
      for (const [i, item] of batch.items.entries()) {
        const res = runSearch(ix.db, { ...base, query: item.query, limit: item.limit ?? base.limit, candidates: Math.max(base.candidates, item.limit ?? 0), hybrid: hooks?.[i] });
        lines.push(JSON.stringify({ id: item.id, results: withMessages(res.results).map((h, rank) => hitJson(h, Boolean(opts.explain), { rank, detail })) }));
        log.push({ at, query: item.query, ids: res.results.map((h) => h.id) });
      }
      if (lines.length > 0) ctx.out(lines.join('\n'));
      for (const e of batch.errors) ctx.warn(e);
      if (batch.errors.length > 0) ctx.setExitCode(1);
    } else {
      const found: SearchResult = runSearch(ix.db, { ...base, query, hybrid: hooks?.[0] });
      const res: SearchResult = { ...found, results: withMessages(found.results) };
      if (res.truncated) ctx.warn(`the query has more than ${res.terms.length} distinct terms; searched for the first ${res.terms.length}`);
      if (res.onlyStopwords) ctx.warn('the query has only common words (like "the", "what", "is"); nothing to search for');
      log.push({ at, query: query.length > 2000 ? `${query.slice(0, 2000)}…` : query, ids: res.results.map((h) => h.id) });
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
      if (maxChars !== undefined && res.omitted > 0 && !ctx.json) ctx.info(`${res.omitted} more match${res.omitted === 1 ? "" : "es"} omitted for --max-chars ${maxChars} or --limit ${base.limit}; raise them to see more`);
    }
    if (sessionId) {
      const { appendRetrieval } = await import('../../vault/sessions.js');
      appendRetrieval(vault.root, sessionId, log);
    }
  });
}
