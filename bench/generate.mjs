// Deterministic synthetic vaults for benchmarks: learnings in mem's entry format (many entries per
// MEMORY.md-style file, spread over project, session and team scopes) or plain markdown notes.
// Same seed → same bytes, so figures are comparable between runs and machines.

import fs from 'node:fs';
import path from 'node:path';

export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

const SUBJECTS = ['the API tests', 'the staging deploy', 'the billing service', 'the login flow', 'the search index', 'the nightly backup', 'the CI pipeline', 'the docs build',
  'the payments webhook', 'the cache layer', 'the mobile client', 'the GraphQL gateway', 'the feature flags', 'the migration scripts', 'the release checklist', 'the Kafka consumers',
  'the image resizer', 'the rate limiter', 'the audit log', 'the session store', 'the e2e suite', 'the Terraform modules', 'the Helm chart', 'the analytics export', 'the email queue'];
const VERBS = ['fails', 'times out', 'needs', 'breaks', 'depends on', 'must run after', 'is slow without', 'leaks memory when', 'retries', 'double-counts', 'skips', 'requires',
  'silently drops', 'caches', 'rejects', 'logs', 'ignores', 'overwrites', 'locks', 'blocks on'];
const OBJECTS = ['database migrations', 'the VPN connection', 'a fresh Redis', 'UTC timestamps', 'integer cents', 'the raw request body', 'a warm cache', 'the feature flag service',
  'idempotency keys', 'the service account token', 'pagination cursors', 'the lockfile hash', 'TLS certificates', 'the S3 bucket policy', 'connection pooling', 'the queue visibility timeout',
  'environment variables', 'a seeded test database', 'the OpenAPI client', 'webhook signatures', 'the CDN purge', 'background jobs', 'the read replica', 'DNS propagation', 'node 20'];
const FIXES = ['Run {x} first.', 'Set {x} explicitly in the config.', 'Pin {x} in the lockfile.', 'Check {x} before retrying.', 'Use {x} instead of guessing.', 'Document {x} in the runbook.',
  'Add a test that covers {x}.', 'Restart the worker after changing {x}.', 'Never commit {x}.', 'Ask the on-call engineer about {x}.'];
const EXTRA = ['This cost us an afternoon in {m}.', 'Seen again during the {m} release.', 'The error message does not say so.', 'CI does this in its setup step.', 'Locally it works by accident.',
  'The fix is one line; finding it is not.', 'Reverting did not help.', 'It only happens under load.', 'Only the first run after a deploy is affected.', 'The logs show a misleading stack trace.'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const TYPES = ['declarative', 'procedural', 'directive', 'corrective'];
const PHASES = ['implementation', 'review', 'design', 'maintenance', 'unknown'];

const pick = (r, a) => a[Math.floor(r() * a.length)];

const WORDS = `account actual add alert analyze approver archive artifact asset auth automatic backoff backup balancer batch body branch broken brotli bucket budget buffer bug build bundle burst cache callback canary cart cents certificate changelog charge checkout checksum chunk chunked cleanup client cluster cold column commit compile complete component compression condition config configure consumer container contract controller cookie correct cost coupon coverage create cron csv currency cursor customer daily dashboard deadline deadlock default delete dependency deploy directory disable discount disk docs downgrade download downstream drain duplicate effect email empty enable encoding endpoint environment error estimate event example exception expected explain explicit fast feature file filter first fix fixture flag flaky font format fresh friday full gateway golden graphql group grow grpc guide gzip hack handler hash header heap histogram hook hot hourly http icon image implicit incident index ingress install interface intermittent inventory investigation invoice issue job json key kill lag large last latency layout leak lenient limit lint listener local lock lockfile log login logout manual memory merge metric migration missing mock model modify monday monthly morning mount newer next night nightly node noisy notification object offset older oncall optimizer optional order ordering organization outage owner package pagination parser partial partition patch path pause payload payment periodic permission pipeline plan playbook pod postmortem previous primary process producer production project proxy quarter query queue quiet quota race ranking rate readme rebase reboot reducer refactor refund registry regression reindex release relevance reload remote remove rename render replica request required resize response rest restart restore resume retry review reviewer role rollback rollout rounding route runbook sample sandbox scale scheduler schema scope search secret sequence serializer server service session shard shipment shrink signature silent slow small snapshot sort spike sprint stack stage staging stale start state statistics step stop storage store stream strict stub style subscriber suite symlink table task tax team template tenant test theme thread throttle throughput thumbnail thursday ticket timeout tls toggle token topic trace transaction tuesday tutorial typecheck uninstall update upgrade upload upstream user utf8 vacuum validator variable vault verbose version view volume warehouse warm webhook websocket wednesday weekend weekly workaround worker workspace wrong yaml`.split(' ');
const GLUE = ['the', 'a', 'to', 'of', 'and', 'in', 'on', 'for', 'with', 'when', 'after', 'before', 'if', 'is', 'it', 'we', 'not', 'only', 'but', 'so'];

// Real learnings name specific things — functions, files, error codes, services — drawn from a
// long-tailed vocabulary (Zipf), which is what makes them findable and mostly distinct.
const SYL = ['ka', 'lo', 'mir', 'ta', 'ven', 'dor', 'qui', 'sel', 'bra', 'nix', 'po', 'zu', 'fen', 'gal', 'hu', 'jor', 'rek', 'sta', 'tul', 'wex', 'yor', 'cal', 'dre', 'mun'];
const CAMEL = ['get', 'set', 'parse', 'load', 'sync', 'build', 'fetch', 'resolve', 'apply', 'render', 'flush', 'merge'];
function makeVocab(size, seed) {
  const r = rng(seed);
  const out = [];
  const seen = new Set();
  while (out.length < size) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += pick(r, SYL);
    const kind = r();
    if (kind < 0.25) w = `${pick(r, CAMEL)}${w.charAt(0).toUpperCase()}${w.slice(1)}`;
    else if (kind < 0.35) w = `${w}_${pick(r, SYL)}`;
    else if (kind < 0.42) w = `E${1000 + Math.floor(r() * 9000)}`;
    else if (kind < 0.5) w = `src/${pick(r, SYL)}${pick(r, SYL)}/${w}.ts`;
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}
const VOCAB = makeVocab(40_000, 7);
const ZIPF_CDF = (() => {
  const c = new Float64Array(VOCAB.length);
  let acc = 0;
  for (let k = 0; k < VOCAB.length; k++) c[k] = acc += 1 / Math.pow(k + 1, 1.05);
  for (let k = 0; k < c.length; k++) c[k] /= acc;
  return c;
})();
function zipf(r) {
  const u = r();
  let lo = 0;
  let hi = ZIPF_CDF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ZIPF_CDF[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo];
}
const pad = (n) => String(n).padStart(2, '0');

function uuid(r) {
  const h = () => Math.floor(r() * 0x10000).toString(16).padStart(4, '0');
  return `${h()}${h()}-${h()}-4${h().slice(1)}-${h()}-${h()}${h()}${h()}`;
}

function date(r) {
  return `2026-${pad(1 + Math.floor(r() * 11))}-${pad(1 + Math.floor(r() * 28))}`;
}

export function learning(r) {
  const subj = pick(r, SUBJECTS);
  const obj = pick(r, OBJECTS);
  const type = pick(r, TYPES);
  const title = `${subj.charAt(0).toUpperCase()}${subj.slice(1)} ${pick(r, VERBS)} ${obj} in \`${zipf(r)}\``;
  const specific = Array.from({ length: 2 + Math.floor(r() * 4) }, () => `\`${zipf(r)}\``);
  const sentences = [`${title}.`, `Look at ${specific.join(', ')} first.`, pick(r, FIXES).replace('{x}', r() < 0.5 ? pick(r, OBJECTS) : `\`${zipf(r)}\``)];
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    if (r() < 0.3) {
      sentences.push(pick(r, EXTRA).replace('{m}', pick(r, MONTHS)));
      continue;
    }
    // A free sentence: everyday engineering words (skewed towards the frequent ones) and glue words.
    const len = 7 + Math.floor(r() * 9);
    const w = [];
    for (let k = 0; k < len; k++) w.push(r() < 0.35 ? pick(r, GLUE) : WORDS[Math.floor(Math.pow(r(), 1.6) * WORDS.length)]);
    if (r() < 0.5) w.splice(Math.floor(r() * w.length), 0, `\`${zipf(r)}\``);
    sentences.push(`${w.join(' ').replace(/^./, (c) => c.toUpperCase())}.`);
  }
  return { type, title, body: sentences.join(' ') };
}

/** One entry; `form` 'comment' writes its header as one `<!-- mem {…} -->` line (the same values). */
export function entryText(r, id, l, form = 'yaml') {
  const created = date(r);
  const fields = [['id', id], ['type', l.type], ['domain', r() < 0.5 ? 'task' : 'team'], ['importance', (0.1 + Math.floor(r() * 9) / 10).toFixed(1)], ['phase', pick(r, PHASES)],
    ['status', r() < 0.03 ? 'retired' : 'active'], ['reinforcement_count', Math.floor(r() * 4)], ['last_reinforced', `'${created}'`], ['created_at', `'${created}'`]];
  const header = form === 'comment'
    ? `<!-- mem {${fields.map(([k, v]) => `${k}: ${v}`).join(', ')}} -->\n`
    : `---\n${fields.map(([k, v]) => `${k}: ${v}\n`).join('')}---\n`;
  return `${header}## [${created}] ${l.type.charAt(0).toUpperCase()}${l.type.slice(1)}: ${l.title}\n\n${l.body}\n\n`;
}

/** A vault of `entries` learnings over `files` files; about `dupShare` of them are near-copies. */
export function generateVault(root, { entries = 100_000, files = 1000, seed = 1, dupShare = 0.02, headerForm = 'yaml' } = {}) {
  const r = rng(seed);
  fs.mkdirSync(path.join(root, '.mem'), { recursive: true });
  const perFile = Math.ceil(entries / files);
  let made = 0;
  const recent = [];
  for (let f = 0; f < files && made < entries; f++) {
    let rel;
    if (f === 0) rel = 'MEMORY.md';
    else if (f % 10 === 1) rel = `.mem/jobs/job-${f}/MEMORY.md`;
    else if (f % 10 === 2) rel = `.mem/jobs/job-${f - 1}/tasks/task-${f}/MEMORY.md`;
    else rel = `memory/area-${f % 37}/notes-${f}.md`;
    let text = `# Memory ${f}\n\n`;
    for (let i = 0; i < perFile && made < entries; i++, made++) {
      let l;
      if (recent.length > 0 && r() < dupShare) {
        const base = pick(r, recent);
        l = { ...base, body: `${base.body} ${pick(r, ['Again.', 'Confirmed.', 'Still true.'])}` };
      } else {
        l = learning(r);
        if (recent.length < 500) recent.push(l);
        else recent[Math.floor(r() * 500)] = l;
      }
      text += entryText(r, uuid(r), l, headerForm);
    }
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
  }
  return made;
}

/** A plain-markdown corpus (no frontmatter): `files` notes of a few heading sections each. */
export function generateNotes(root, { files = 7424, seed = 2 } = {}) {
  const r = rng(seed);
  fs.mkdirSync(path.join(root, '.mem'), { recursive: true });
  fs.writeFileSync(path.join(root, '.mem', 'config.yaml'), 'include:\n  - notes/**/*.md\n');
  for (let f = 0; f < files; f++) {
    const l0 = learning(r);
    let text = `# ${l0.title}\n\n${l0.body}\n`;
    const sections = 2 + Math.floor(r() * 4);
    for (let s = 0; s < sections; s++) {
      const l = learning(r);
      text += `\n## ${l.title}\n\n${l.body} ${learning(r).body}\n`;
    }
    const abs = path.join(root, 'notes', `dir-${f % 64}`, `note-${f}.md`);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, text);
  }
  return files;
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}` && /generate\.mjs$/.test(process.argv[1])) {
  // node bench/generate.mjs vault|notes DIR [count], or node bench/generate.mjs --entries N DIR
  const args = process.argv.slice(2);
  const at = args.indexOf('--entries');
  const entries = at >= 0 ? Number(args.splice(at, 2)[1]) : undefined;
  const [kind, dir, n] = entries !== undefined ? ['vault', args[0], entries] : args;
  if (!kind || !dir || (entries !== undefined && !(entries > 0))) {
    console.error('usage: node bench/generate.mjs vault|notes DIR [count]\n       node bench/generate.mjs --entries N DIR');
    process.exit(2);
  }
  const count = kind === 'notes' ? generateNotes(dir, { files: Number(n ?? 7424) }) : generateVault(dir, { entries: Number(n ?? 100000) });
  console.log(`${kind}: ${count} written to ${dir}`);
}
