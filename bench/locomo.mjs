#!/usr/bin/env node
// `npm run eval:locomo`: retrieval on LoCoMo, built exactly as ../shared/data/locomo-dev/README.md
// describes — one vault per conversation, one file per session, one entry per turn (id = dia_id)
// — then every question searched with `mem search --batch --limit 50` in one process per vault.
// Reports R@5/10/25/50 overall and per category.
// Usage: node bench/locomo.mjs [DATA.json] [--json] [--keep] [--embeddings-url URL --model M
//          [--fusion rrf|blend] [--vector-weight W]]
// --fusion and --vector-weight are written into each vault's .mem/config.yaml (search.fusion,
// search.vector_weight), so the run measures exactly what a user with that config gets.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(repo, 'bin', 'mem.js');
const args = process.argv.slice(2);
// --embeddings-url URL --model M: hybrid search through that OpenAI-compatible endpoint.
const valueOf = (flag) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const embedUrl = valueOf('--embeddings-url');
const embedModel = valueOf('--model');
if (Boolean(embedUrl) !== Boolean(embedModel)) {
  console.error('mem: --embeddings-url and --model go together');
  process.exit(2);
}
const fusionArg = valueOf('--fusion');
const weightArg = valueOf('--vector-weight');
if ((fusionArg !== undefined || weightArg !== undefined) && !embedUrl) {
  console.error('mem: --fusion and --vector-weight need --embeddings-url and --model');
  process.exit(2);
}
if (fusionArg !== undefined && fusionArg !== 'rrf' && fusionArg !== 'blend') {
  console.error(`mem: --fusion must be rrf or blend (got ${JSON.stringify(fusionArg)})`);
  process.exit(2);
}
if (weightArg !== undefined && !/^\d+(\.\d+)?$/.test(weightArg)) {
  console.error(`mem: --vector-weight must be a number (got ${JSON.stringify(weightArg)})`);
  process.exit(2);
}
const searchConfig = [
  ...(fusionArg ? [`  fusion: ${fusionArg}`] : []),
  ...(weightArg !== undefined ? [`  vector_weight: ${weightArg}`] : []),
];
const valued = new Set(['--embeddings-url', '--model', '--fusion', '--vector-weight'].flatMap((f) => (args.includes(f) ? [args.indexOf(f) + 1] : [])));
const dataPath = args.find((a, i) => !a.startsWith('--') && !valued.has(i)) ?? path.join(repo, '..', 'shared', 'data', 'locomo-dev', 'locomo-dev.json');
const mode = embedUrl ? `hybrid, ${embedModel}, fusion ${fusionArg ?? 'rrf'}, vector weight ${weightArg ?? 1}` : 'offline';
const asJson = args.includes('--json');
const keep = args.includes('--keep');
const KS = [5, 10, 25, 50];
const CATEGORIES = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };
const MONTHS = { january: 1, february: 2, march: 3, april: 4, may: 5, june: 6, july: 7, august: 8, september: 9, october: 10, november: 11, december: 12 };

if (!fs.existsSync(dataPath)) {
  console.error(`mem: LoCoMo data not found (${dataPath})`);
  console.error('hint: pass the path of locomo-dev.json (or another LoCoMo file) as the first argument');
  process.exit(1);
}

/** "1:56 pm on 8 May, 2023" → "2023-05-08". */
function sessionDate(s) {
  const m = /(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/.exec(s ?? '');
  if (!m || !MONTHS[m[2].toLowerCase()]) return null;
  return `${m[3]}-${String(MONTHS[m[2].toLowerCase()]).padStart(2, '0')}-${m[1].padStart(2, '0')}`;
}

function evidenceIds(ev) {
  return (ev ?? []).flatMap((e) => String(e).split(/[;,\s]+/)).filter((e) => /^D\d+:\d+$/.test(e));
}

const q = (v) => `'${String(v).replace(/'/g, "''")}'`;

function buildVault(sample, root) {
  fs.mkdirSync(path.join(root, '.mem'), { recursive: true });
  const conv = sample.conversation;
  const sessions = Object.keys(conv).filter((k) => /^session_\d+$/.test(k)).sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
  let turns = 0;
  for (const key of sessions) {
    const date = sessionDate(conv[`${key}_date_time`]);
    let text = '';
    for (const t of conv[key]) {
      const body = `${t.speaker}: ${t.text}${t.blip_caption ? ` [image: ${t.blip_caption}]` : ''}`;
      const dates = date ? `last_reinforced: ${q(date)}\ncreated_at: ${q(date)}\n` : '';
      text += `---\nid: ${q(t.dia_id)}\ntype: declarative\nimportance: 0.5\nstatus: active\n${dates}---\n${body}\n\n`;
      turns++;
    }
    const file = path.join(root, 'memory', sample.sample_id, `${key}.md`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  return turns;
}

const data = JSON.parse(fs.readFileSync(dataPath, 'utf8'));
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-locomo-'));
const home = path.join(base, 'home');
fs.mkdirSync(home);
const rows = [];
let searchMs = 0;
for (const sample of data) {
  const root = path.join(base, sample.sample_id);
  const turns = buildVault(sample, root);
  const env = { ...process.env, MEM_HOME: home, MEM_ROOT: root };
  delete env.MEM_SESSION;
  // Offline means lexical, whatever the caller's environment says.
  for (const k of Object.keys(env)) if (k.startsWith('MEM_EMBED_')) delete env[k];
  if (embedUrl) Object.assign(env, { MEM_EMBED_BASE_URL: embedUrl, MEM_EMBED_MODEL: embedModel });
  if (searchConfig.length > 0) {
    fs.mkdirSync(path.join(root, '.mem'), { recursive: true });
    fs.writeFileSync(path.join(root, '.mem', 'config.yaml'), `search:\n${searchConfig.join('\n')}\n`);
  }
  const idx = spawnSync(process.execPath, [bin, 'index', '--quiet', ...(embedUrl ? ['--embed'] : [])], { env, encoding: 'utf8' });
  if (idx.status !== 0) throw new Error(`mem index failed: ${idx.stderr}`);
  const batch = sample.qa.map((x, i) => JSON.stringify({ id: i, query: String(x.question) })).join('\n');
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [bin, 'search', '--batch', '-', '--limit', '50', ...(embedUrl ? [] : ['--quiet'])], { env, input: batch, encoding: 'utf8', maxBuffer: 1 << 30 });
  // A hybrid run that fell back to lexical search would report the wrong figures.
  if (embedUrl && /lexical results only/.test(r.stderr)) throw new Error(`hybrid search fell back to lexical: ${r.stderr.trim()}`);
  searchMs += Date.now() - t0;
  if (r.status !== 0) throw new Error(`mem search failed: ${r.stderr}`);
  const results = new Map(r.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((o) => [o.id, o.results.map((h) => h.id)]));
  sample.qa.forEach((x, i) => {
    const relevant = evidenceIds(x.evidence);
    const ranked = results.get(i) ?? [];
    const recall = Object.fromEntries(KS.map((k) => {
      if (relevant.length === 0) return [k, 1];
      const top = new Set(ranked.slice(0, k));
      return [k, relevant.filter((e) => top.has(e)).length / relevant.length];
    }));
    rows.push({ sample: sample.sample_id, category: x.category, recall });
  });
  if (!asJson) process.stderr.write(`${sample.sample_id}: ${turns} turns, ${sample.qa.length} questions\n`);
}

const mean = (list, k) => (100 * list.reduce((s, r) => s + r.recall[k], 0)) / (list.length || 1);
const summary = {
  data: path.basename(dataPath),
  questions: rows.length,
  ...(embedUrl ? { mode } : {}),
  search_ms: searchMs,
  overall: Object.fromEntries(KS.map((k) => [`R@${k}`, +mean(rows, k).toFixed(1)])),
  categories: Object.fromEntries(Object.entries(CATEGORIES).map(([c, name]) => {
    const list = rows.filter((r) => String(r.category) === c);
    return [`${c} ${name}`, { n: list.length, ...Object.fromEntries(KS.map((k) => [`R@${k}`, +mean(list, k).toFixed(1)])) }];
  })),
  // How far one conversation is from another: the spread to expect on conversations not seen here.
  conversations: Object.fromEntries(data.map((sample) => {
    const list = rows.filter((r) => r.sample === sample.sample_id);
    return [sample.sample_id, { n: list.length, ...Object.fromEntries(KS.map((k) => [`R@${k}`, +mean(list, k).toFixed(1)])) }];
  })),
};
if (asJson) console.log(JSON.stringify(summary, null, 2));
else {
  console.log(`LoCoMo retrieval (${summary.data}, ${summary.questions} questions, mem search --batch --limit 50, ${mode})`);
  console.log(`${'set'.padEnd(18)}${'n'.padStart(5)}${KS.map((k) => `R@${k}`.padStart(8)).join('')}`);
  console.log(`${'all'.padEnd(18)}${String(rows.length).padStart(5)}${KS.map((k) => summary.overall[`R@${k}`].toFixed(1).padStart(8)).join('')}`);
  for (const [name, s] of [...Object.entries(summary.categories), ...Object.entries(summary.conversations)]) {
    console.log(`${name.padEnd(18)}${String(s.n).padStart(5)}${KS.map((k) => s[`R@${k}`].toFixed(1).padStart(8)).join('')}`);
  }
  console.log('reference: FTS5 BM25 baseline 54.9 / 63.3 / 71.7 / 77.3; DRAGON (paper) 56.7 / 66.2 / 76.7 / 82.7');
}
if (keep) console.error(`vaults kept in ${base}`);
else fs.rmSync(base, { recursive: true, force: true });
