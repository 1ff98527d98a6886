// Finding and redacting credentials in text on its way into the vault: secretlint's recommended
// rule set (loaded on first use, only by commands that write) plus the extra rules of rules.ts.
// A redacted value becomes a placeholder that names its kind, `[redacted: github-token]`.

import { applyRedaction, findExtraSecrets, findKnownValues, mergeFindings, type SecretFinding } from './rules.js';

export type { SecretFinding } from './rules.js';
export { placeholder, redactForDisplay, urlForDisplay } from './rules.js';

type LintSource = typeof import('@secretlint/core').lintSource;
let engine: Promise<{ lintSource: LintSource; config: unknown }> | undefined;

function loadEngine(): Promise<{ lintSource: LintSource; config: unknown }> {
  engine ??= (async () => {
    const [{ lintSource }, { creator }, { secretLintProfiler }] = await Promise.all([
      import('@secretlint/core'),
      import('@secretlint/secretlint-rule-preset-recommend'),
      import('@secretlint/profiler'),
    ]);
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
// URL's password, so the learning keeps the scheme, user and host it talks about.
const USERINFO_RE = /^[a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:([^\s/?#@]+)@/i;

function narrowed(text: string, f: SecretFinding): SecretFinding {
  const m = USERINFO_RE.exec(text.slice(f.start, f.end));
  if (!m) return f;
  const end = f.start + m[0].length - 1;
  return { kind: f.kind, start: end - m[1].length, end };
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
