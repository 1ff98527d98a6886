// `mem eval FIXTURE`: how well the default pipeline finds the right memories — recall@k, MRR
// and nDCG@k over a fixture of queries with their relevant ids, in one process.

import fs from 'node:fs';
import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import type { Judged, Scores } from '../../eval/metrics.js';
import { addFilterOptions, filterFromOptions, globals, vaultFor, withFreshIndex, type FilterOptions } from '../common.js';
import { makeCtx, nowMs, parseIntOption, type Ctx } from '../io.js';

interface EvalOptions extends FilterOptions {
  k?: string;
  limit?: string;
  rank?: string;
  refresh?: boolean;
  misses?: boolean;
}

export function registerEval(program: Command): void {
  const cmd = program
    .command('eval')
    .description('measure retrieval: recall@k, MRR and nDCG@k over queries with known relevant ids')
    .argument('<fixture>', 'JSON array or JSONL of {"query", "relevant": [ids], "id"?, "category"?} ("-" = stdin)')
    .option('--k <list>', 'cut-offs, comma-separated (default 5,10,25,50)')
    .option('-n, --limit <n>', 'results retrieved per query (default: the largest k)')
    .option('--rank <policy>', 'ranking policy (default prominence)')
    .option('--misses', 'list the queries whose relevant ids were not all found in the top k (largest k)')
    .option('--no-refresh', 'do not bring the index up to date first');
  addFilterOptions(cmd);
  cmd.addHelpText('after', `
Fixture lines may name the relevant ids "relevant", "relevant_ids" or "evidence". A query with
no relevant ids counts as found. With "category" on the queries, figures are also given per category.

Examples:
  $ mem eval queries.jsonl
  $ mem eval queries.json --k 1,5,10 --json
  $ npm run eval:locomo          # the LoCoMo benchmark (builds its own vaults)`);
  cmd.action(async (fixture: string, opts: EvalOptions, command: Command) => {
    await evalCommand(makeCtx(globals(command)), fixture, opts);
  });
}

interface Query {
  id: unknown;
  query: string;
  relevant: string[];
  category?: string;
}

export function parseFixture(text: string, name: string): Query[] {
  const t = text.trim();
  let records: unknown[];
  if (t.startsWith('[')) {
    try {
      records = JSON.parse(t) as unknown[];
    } catch (err) {
      throw new MemError(`invalid JSON: ${(err as Error).message}`, { where: { file: name } });
    }
  } else {
    records = [];
    t.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      try {
        records.push(JSON.parse(line));
      } catch {
        throw new MemError('invalid JSON line', { where: { file: name, line: i + 1 } });
      }
    });
  }
  return records.map((r, i) => {
    const o = r as Record<string, unknown>;
    const rel = o.relevant ?? o.relevant_ids ?? o.evidence;
    if (typeof o.query !== 'string' || !Array.isArray(rel)) {
      throw new MemError(`query ${i + 1} needs "query" (string) and "relevant" (array of ids)`, { where: { file: name } });
    }
    return { id: o.id ?? i + 1, query: o.query, relevant: rel.map(String), category: o.category === undefined ? undefined : String(o.category) };
  });
}

async function evalCommand(ctx: Ctx, fixture: string, opts: EvalOptions): Promise<void> {
  const ks = (opts.k ?? '5,10,25,50').split(',').map((x) => parseIntOption('--k', x.trim(), 1)!);
  if (ks.length === 0) throw usageError('--k needs at least one cut-off');
  const limit = parseIntOption('--limit', opts.limit, 1) ?? Math.max(...ks);
  let text: string;
  try {
    text = fs.readFileSync(fixture === '-' ? 0 : fixture, 'utf8');
  } catch (err) {
    throw new MemError(`cannot read the fixture: ${(err as Error).message}`, { where: { file: fixture } });
  }
  const queries = parseFixture(text, fixture);
  const vault = await vaultFor(ctx);
  const { runSearch, policyFor } = await import('../../retrieve/search.js');
  const { score } = await import('../../eval/metrics.js');
  const rank = opts.rank ?? vault.config.search.rank;
  policyFor(rank);
  const filter = filterFromOptions(opts);
  const now = nowMs();
  const started = Date.now();
  const judged: (Judged & { q: Query })[] = await withFreshIndex(ctx, vault, { refresh: opts.refresh !== false, tolerateBusy: true }, (ix) =>
    queries.map((q) => {
      const res = runSearch(ix.db, { query: q.query, limit, candidates: Math.max(limit, vault.config.search.candidates), filter, rank, now, scopeMultipliers: vault.config.scopeMultipliers });
      return { ranked: res.results.map((h) => h.id), relevant: q.relevant, category: q.category, q };
    }));
  const ms = Date.now() - started;
  const overall = score(judged, ks);
  const cats = [...new Set(judged.map((j) => j.category).filter((c): c is string => c !== undefined))].sort();
  const perCategory: Record<string, Scores> = Object.fromEntries(cats.map((c) => [c, score(judged.filter((j) => j.category === c), ks)]));
  const kMax = String(Math.max(...ks));
  const { recallAt } = await import('../../eval/metrics.js');
  const misses = opts.misses ? judged.filter((j) => recallAt(j, Number(kMax)) < 1).map((j) => ({ id: j.q.id, query: j.q.query, relevant: j.relevant, top: j.ranked.slice(0, 5) })) : undefined;
  if (ctx.json) {
    ctx.out(JSON.stringify({ fixture, queries: queries.length, ms, overall, categories: perCategory, ...(misses ? { misses } : {}) }, null, 2));
    return;
  }
  const pct = (x: number) => (100 * x).toFixed(1).padStart(5);
  const head = `${'set'.padEnd(14)}${'n'.padStart(6)}  ${ks.map((k) => `R@${k}`.padStart(6)).join('')}  ${'MRR'.padStart(6)}  ${ks.map((k) => `nDCG@${k}`.padStart(8)).join('')}`;
  const line = (name: string, s: Scores) => `${name.padEnd(14)}${String(s.queries).padStart(6)}  ${ks.map((k) => pct(s.recall[k]).padStart(6)).join('')}  ${pct(s.mrr).padStart(6)}  ${ks.map((k) => pct(s.ndcg[k]).padStart(8)).join('')}`;
  ctx.out([head, line('all', overall), ...cats.map((c) => line(`category ${c}`, perCategory[c]))].join('\n'));
  for (const m of misses ?? []) ctx.out(`miss ${String(m.id)}: ${m.query}  relevant ${m.relevant.join(',')}  top ${m.top.join(',')}`);
  ctx.info(`${queries.length} queries in ${ms} ms`);
}
