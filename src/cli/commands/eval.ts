// `mem eval FIXTURE`: how well the default pipeline finds the right memories — recall@k, MRR
// and nDCG@k over a fixture of queries with their relevant ids, in one process. `mem eval
// extract`: how good the learnings of `mem extract` are, against labelled transcripts.

import path from 'node:path';
import type { Command } from 'commander';
import { MemError, usageError } from '../../errors.js';
import type { Judged, Scores } from '../../eval/metrics.js';
import type { ExtractEvalReport } from '../../eval/extract-run.js';
import { addFilterOptions, filterFromOptions, vaultFor, withFreshIndex, type FilterOptions } from '../common.js';
import { commandCtx, parseIntOption, readInputFile, type Ctx } from '../io.js';

/** An evaluation fixture (queries and their relevant ids) larger than this is not one. */
const FIXTURE_LIMIT = 64 << 20;

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
    await evalCommand(commandCtx(command), fixture, opts);
  });
  registerEvalExtract(cmd);
}

interface EvalExtractOptions {
  labels?: string;
  provider?: string;
  model?: string;
  baseUrl?: string;
  timeout?: string;
  scopes?: string;
  minPrecision?: string;
  minOfflineRecall?: string;
}

// A subcommand of `eval`: commander dispatches `mem eval extract …` to it and any other first
// word to the retrieval eval above (a fixture file named "extract" is given as ./extract).
function registerEvalExtract(parent: Command): void {
  parent
    .command('extract')
    .description('measure extraction: run mem extract on labelled transcripts; precision, recall, noise and misses')
    .option('--labels <dir>', 'a folder of label files (.yaml/.json), or one file (default test/fixtures/extract-labels)')
    .option('--provider <name>', 'heuristic (default: the offline rules), anthropic, openai, claude-cli, codex-cli or gemini-cli')
    .option('--model <model>', 'model name for anthropic/openai')
    .option('--base-url <url>', 'OpenAI-compatible server')
    .option('--timeout <ms>', 'per-request timeout for the model (default 60000)')
    .option('--scopes <list>', 'extraction scopes, comma-separated (default project,corrective: what a new vault extracts; add observations,interventions to measure preferences and interruptions, written to proxy.md)')
    .option('--min-precision <pct>', 'exit 1 when the overall precision is below this percentage (for CI)')
    .option('--min-offline-recall <pct>', 'exit 1 when the recall of offline (explicit-signal) labels is below this percentage')
    .addHelpText('after', `
Each label file names a transcript (a relative path is looked up from the label file's folder
and each folder above it) and lists what a careful engineer would keep from that session, by
key phrases a learning's title or body must contain ("a|b": either), each marked offline: true
(an explicit signal the heuristics must catch) or false (needs a language model), and the noise
that must never appear. Each transcript goes through the real extract pipeline in a throw-away
vault. Precision = learnings that match a keep label / learnings written: a learning matching
no label counts as not worth keeping. Recall is given for offline labels and for all labels.
A learning never holds a NUL, raw tool-call JSON or the transcript's file name: those count as
noise too. Exits 0 unless a --min-* threshold is missed.

Examples:
  $ mem eval extract
  $ npm run eval:extract
  $ mem eval extract --labels test/fixtures/extract-labels/example-fix-checkout-tests.yaml
  $ mem eval extract --json | jq '.overall'
  $ mem eval extract --scopes project,corrective,observations,interventions
  $ mem eval extract --min-precision 80 --min-offline-recall 100
  $ ANTHROPIC_API_KEY=… mem eval extract --provider anthropic`)
    .action(async (opts: EvalExtractOptions, command: Command) => {
      await evalExtractCommand(commandCtx(command), opts);
    });
}

function percentOption(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v.trim().replace(/%$/, ''));
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw usageError(`${name} must be a percentage from 0 to 100, not "${v}"`);
  return n / 100;
}

async function evalExtractCommand(ctx: Ctx, opts: EvalExtractOptions): Promise<void> {
  const minPrecision = percentOption('--min-precision', opts.minPrecision);
  const minRecall = percentOption('--min-offline-recall', opts.minOfflineRecall);
  const timeout = parseIntOption('--timeout', opts.timeout, 1);
  const { resolveProviderConfig } = await import('../../llm/provider.js');
  // The heuristics unless asked: an eval should not change with whichever API key is set.
  const provider = resolveProviderConfig(ctx.env, { provider: opts.provider ?? 'heuristic', providerSource: '--provider', model: opts.model, baseUrl: opts.baseUrl });
  const labels = path.resolve(ctx.cwd, opts.labels ?? path.join('test', 'fixtures', 'extract-labels'));
  const { runExtractEval } = await import('../../eval/extract-run.js');
  const { parseScopeList } = await import('../../extract/scopes.js');
  const scopes = opts.scopes === undefined ? undefined : parseScopeList(opts.scopes);
  const report = await runExtractEval(labels, { provider, client: { timeoutMs: timeout ?? 60_000, maxRetries: 2, env: ctx.env }, today: ctx.today(), scopes });
  const rel = (p: string) => path.relative(ctx.cwd, p) || p;
  if (ctx.json) {
    ctx.out(JSON.stringify({ ...report, labels: rel(report.labels), transcripts: report.transcripts.map((t) => ({ ...t, labels_file: rel(t.labels_file) })), skipped: report.skipped.map((s) => ({ ...s, labels_file: rel(s.labels_file) })) }, null, 2));
  } else {
    ctx.out(renderExtractEval(report, rel));
  }
  for (const s of report.skipped) ctx.warn(`${rel(s.labels_file)}: ${s.reason}; skipped`);
  const o = report.overall;
  if (minPrecision !== undefined && o.precision !== null && o.precision < minPrecision) {
    throw new MemError(`precision ${pct(o.precision)} is below --min-precision ${pct(minPrecision)}`);
  }
  if (minRecall !== undefined && o.recall.offline !== null && o.recall.offline < minRecall) {
    throw new MemError(`offline recall ${pct(o.recall.offline)} is below --min-offline-recall ${pct(minRecall)}`);
  }
}

const pct = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(0)}%`);
const frac = (n: number, d: number) => `${n}/${d}${d ? ` (${pct(n / d)})` : ''}`;

function renderExtractEval(r: ExtractEvalReport, rel: (p: string) => string): string {
  const lines: string[] = [`extraction eval: provider ${r.provider.name}${r.provider.name === 'heuristic' ? '' : ` (${r.provider.model})`}, labels ${rel(r.labels)}`];
  for (const t of r.transcripts) {
    lines.push('', `${path.basename(t.labels_file)}  ${t.transcript}`);
    lines.push(`  written ${t.written}  worth keeping ${t.matched}  precision ${pct(t.precision)}  recall offline ${frac(t.found.offline, t.labels.offline)}  all ${frac(t.found.all, t.labels.all)}  noise ${t.noise.length}`);
    for (const n of t.noise) lines.push(`  noise      "${n.phrase}" in: ${n.learning}`);
    for (const m of t.misses) lines.push(`  missed     ${m.offline ? '[offline] ' : ''}${m.id}: ${m.match}`);
    for (const u of t.unmatched) lines.push(`  unmatched  ${u}`);
  }
  const o = r.overall;
  lines.push('', `overall: ${o.transcripts} transcripts${r.skipped.length ? ` (${r.skipped.length} skipped)` : ''}, ${o.written} learnings written, ${o.matched} worth keeping: precision ${pct(o.precision)}`);
  lines.push(`  recall of offline labels ${frac(o.found.offline, o.labels.offline)}, of all labels ${frac(o.found.all, o.labels.all)}; noise hits ${o.noise}`);
  lines.push('  (a learning that matches no keep label counts as not worth keeping)');
  return lines.join('\n');
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
  if (!Array.isArray(records) || records.length === 0) throw new MemError(Array.isArray(records) ? 'the fixture holds no queries' : 'the fixture is not a JSON array or JSON lines', { where: { file: name } });
  return records.map((r, i) => {
    const o = (r ?? {}) as Record<string, unknown>;
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
  const text = readInputFile(ctx, fixture, FIXTURE_LIMIT, 'the fixture');
  const queries = parseFixture(text, fixture);
  const vault = await vaultFor(ctx);
  const { runSearch, policyFor } = await import('../../retrieve/search.js');
  const { score } = await import('../../eval/metrics.js');
  const rank = opts.rank ?? vault.config.search.rank;
  policyFor(rank);
  const filter = filterFromOptions(opts);
  const now = ctx.now();
  const started = Date.now();
  let unknown: string[] = [];
  const judged: (Judged & { q: Query })[] = await withFreshIndex(ctx, vault, { refresh: opts.refresh }, (ix) => {
    // Relevant ids the vault does not hold: those queries can never be found (a fixture for
    // another vault, ids mistyped), said rather than scored as misses in silence.
    const has = ix.db.prepare('SELECT 1 FROM entries WHERE entry_id = ? LIMIT 1').pluck();
    unknown = [...new Set(queries.flatMap((q) => q.relevant))].filter((id) => has.get(id) === undefined);
    return queries.map((q) => {
      const res = runSearch(ix.db, { query: q.query, limit, candidates: Math.max(limit, vault.config.search.candidates), filter, rank, now, scopeMultipliers: vault.config.scopeMultipliers });
      return { ranked: res.results.map((h) => h.id), relevant: q.relevant, category: q.category, q };
    });
  });
  if (unknown.length > 0) {
    const missing = new Set(unknown);
    const none = queries.filter((q) => q.relevant.length > 0 && q.relevant.every((id) => missing.has(id))).length;
    ctx.warn(`${unknown.length} relevant id${unknown.length === 1 ? ' is' : 's are'} not in this vault (${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', …' : ''}); ${none} quer${none === 1 ? 'y has' : 'ies have'} none that can be found`);
  }
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
