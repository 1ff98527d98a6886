// Finding and redacting credentials in text on its way into the vault: secretlint's recommended
// rule set (loaded on first use, only by commands that write) plus the extra rules of rules.ts.
// A redacted value becomes a placeholder that names its kind, `[redacted: github-token]`.

import { applyRedaction, findExtraSecrets, findKnownValues, mergeFindings, type SecretFinding } from './rules.js';

export type { SecretFinding } from './rules.js';
export { placeholder, redactForDisplay, urlForDisplay } from './rules.js';

type LintSource = typeof import('./engine.js').lintSource;
let engine: Promise<{ lintSource: LintSource; config: unknown }> | undefined;

function loadEngine(): Promise<{ lintSource: LintSource; config: unknown }> {
  engine ??= (async () => {
    const { lintSource, creator, secretLintProfiler } = await import('./engine.js');
    // secretlint marks every rule's start and end on Node's global performance timeline, and its
    // observer looks each new mark up among all the earlier ones: the marks are never cleared, so
    // a thousand files (mem lint on a 10k-entry vault) took seconds, growing with the square of
    // the count. mem never reads that profile.
    secretLintProfiler.mark = () => undefined;
    return { lintSource, config: { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] } };
  })();
  return engine;
}

/** `AWSAccessKeyID` → `aws-access-key-id`, `GITHUB_TOKEN` → `github-token`. */
export function kindOf(messageId: string): string {
  return messageId
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'secret';
}

// A finding that covers a whole URL (basic auth, a database connection string) is narrowed to the
// URL's password, so the learning keeps the scheme, user and host it talks about; its placeholder
// then names what it stands for, the URL's password (the scheme beside it says which database).
const USERINFO_RE = /^[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:([^\s/?#@]+)@/i;

function narrowed(text: string, f: SecretFinding): SecretFinding {
  const m = USERINFO_RE.exec(text.slice(f.start, f.end));
  if (!m) return f;
  const end = f.start + m[0].length - 1;
  return { kind: 'url-password', start: end - m[1].length, end };
}

async function secretlintFindings(text: string): Promise<SecretFinding[]> {
  const { lintSource, config } = await loadEngine();
  const result = await lintSource({
    source: { content: text, filePath: 'memory.md', ext: '.md', contentType: 'text' },
    options: { config: config as never, noPhysicFilePath: true },
  });
  return result.messages.map((m) => narrowed(text, { kind: kindOf(m.messageId), start: m.range[0], end: m.range[1] }));
}

/**
 * Every credential in `text`, merged and in order (spans in the original text). `known`: values
 * mem holds that are credentials whatever their shape (a configured API key).
 */
export async function findSecrets(text: string, known: Iterable<string | undefined> = []): Promise<SecretFinding[]> {
  if (text.length === 0) return [];
  const found = [...(await secretlintFindings(text)), ...findExtraSecrets(text), ...findKnownValues(text, known)];
  return mergeFindings(text, found);
}

export interface Redacted {
  text: string;
  /** What was replaced (spans in the original text). */
  findings: SecretFinding[];
}

/** `text` with every credential replaced by its placeholder. Redacting twice changes nothing. */
export async function redactSecrets(text: string, known: Iterable<string | undefined> = []): Promise<Redacted> {
  const findings = await findSecrets(text, known);
  return { text: findings.length === 0 ? text : applyRedaction(text, findings), findings };
}

/** Kinds found, for a one-line note ("redacted 2 secrets: github-token, password"). */
export function describeFindings(findings: SecretFinding[]): string {
  const kinds = [...new Set(findings.map((f) => f.kind))];
  return `${findings.length} secret${findings.length === 1 ? '' : 's'} (${kinds.join(', ')})`;
}

/** What a write redacted, as commands and tools report it: how many secrets, of which kinds. */
export interface RedactionReport {
  count: number;
  kinds: string[];
}

/** The report of some findings; undefined when there are none (nothing to say). */
export function redactionReport(findings: readonly SecretFinding[]): RedactionReport | undefined {
  if (findings.length === 0) return undefined;
  return { count: findings.length, kinds: [...new Set(findings.map((f) => f.kind))].sort() };
}

/** The one line a command prints on stderr: "redacted 2 secrets (github-token, password) before writing". */
export function describeRedaction(r: RedactionReport): string {
  return `redacted ${r.count} secret${r.count === 1 ? '' : 's'} (${r.kinds.join(', ')}) before writing`;
}

// Texts scanned together are joined by blank lines, so no rule reads one text's end and the
// next one's start as a single secret; a finding that still reaches past its text is cut there.
const JOIN = '\n\n\n';

/** Text scanned in one run at most (a long session is scanned in parts: memory stays flat). */
const RUN_CHARS = 1 << 20;

/**
 * Each of `texts` redacted, in as few runs of the rule set as fit RUN_CHARS (a run has a fixed
 * cost, and a transcript has thousands of messages). Returns the texts in order and every finding.
 */
export async function redactTexts(texts: readonly string[], known: Iterable<string | undefined> = []): Promise<{ texts: string[]; findings: SecretFinding[] }> {
  const knownList = [...known].filter((v): v is string => v !== undefined);
  const out: string[] = [];
  const findings: SecretFinding[] = [];
  for (let from = 0; from < texts.length;) {
    let to = from + 1;
    for (let size = texts[from].length; to < texts.length && size + texts[to].length + JOIN.length <= RUN_CHARS; to++) size += texts[to].length + JOIN.length;
    const run = await redactRun(texts.slice(from, to), knownList);
    // One by one: a spread of a few hundred thousand values overflows the stack.
    for (const t of run.texts) out.push(t);
    for (const f of run.findings) findings.push(f);
    from = to;
  }
  return { texts: out, findings };
}

async function redactRun(texts: readonly string[], known: readonly string[]): Promise<{ texts: string[]; findings: SecretFinding[] }> {
  const starts: number[] = [];
  let at = 0;
  for (const t of texts) {
    starts.push(at);
    at += t.length + JOIN.length;
  }
  const joined = texts.join(JOIN);
  const found = await findSecrets(joined, known);
  if (found.length === 0) return { texts: [...texts], findings: [] };
  const out: string[] = [];
  const findings: SecretFinding[] = [];
  let k = 0;
  texts.forEach((t, i) => {
    const s = starts[i];
    const e = s + t.length;
    const mine: SecretFinding[] = [];
    for (; k < found.length && found[k].start < e + JOIN.length; k++) {
      const f = found[k];
      if (f.start >= e) continue; // inside the join: nothing of a text
      mine.push({ kind: f.kind, start: Math.max(f.start, s) - s, end: Math.min(f.end, e) - s });
    }
    for (const f of mine) findings.push(f);
    out.push(mine.length === 0 ? t : applyRedaction(t, mine));
  });
  return { texts: out, findings };
}

/**
 * `value` with every string in it redacted (plain objects and arrays walked, keys and other
 * values kept), for a record on its way into a note or an entry: no field can be forgotten.
 */
export async function redactDeep<T>(value: T, known: Iterable<string | undefined> = []): Promise<{ value: T; findings: SecretFinding[] }> {
  const strings: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (isPlainObject(v)) Object.values(v).forEach(collect);
  };
  collect(value);
  if (strings.every((s) => s.length === 0)) return { value, findings: [] };
  const { texts, findings } = await redactTexts(strings, known);
  if (findings.length === 0) return { value, findings };
  let i = 0;
  const rebuild = (v: unknown): unknown => {
    if (typeof v === 'string') return texts[i++];
    if (Array.isArray(v)) return v.map(rebuild);
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([key, x]) => [key, rebuild(x)]));
    return v;
  };
  return { value: rebuild(value) as T, findings };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
