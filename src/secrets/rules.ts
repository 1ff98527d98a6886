// Credential shapes that secretlint's recommended preset does not cover but that turn up in agent
// sessions: `NAME=value` assignments whose name says secret/token/password/key, passwords in any
// URL, HTTP authorization headers, JWTs, Stripe/OpenAI/Google/GitLab/Hugging Face keys, and
// private-key blocks cut short. Pure and synchronous, so printing paths can use them too.

export interface SecretFinding {
  /** What was found, as a short kebab-case name shown in the placeholder (`github-token`). */
  kind: string;
  /** The secret's span in the text (UTF-16 offsets, end exclusive). */
  start: number;
  end: number;
}

/** The visible stand-in written where a secret was. */
export function placeholder(kind: string): string {
  return `[redacted: ${kind}]`;
}

const PLACEHOLDER_RE = /\[redacted: [a-z0-9-]+\]/g;

/** Spans of placeholders already in the text: nothing inside them is a secret. */
export function placeholderSpans(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const m of text.matchAll(PLACEHOLDER_RE)) out.push([m.index!, m.index! + m[0].length]);
  return out;
}

/** Shannon entropy of a string, in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const n = [...s].length;
  let h = 0;
  for (const c of counts.values()) {
    const p = c / n;
    h -= p * Math.log2(p);
  }
  return h;
}

function classes(s: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(s)).length;
}

/** The parts of an identifier in lower case: API_KEY, apiKey and api-key all give ['api','key']. */
function nameWords(name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

// Names that say the value is a credential, word by word: DB_PASSWORD, clientSecret, API_KEY,
// APIKEY, access-token. A word that merely holds one (KEYBOARD, tokenizer, passenger) does not count.
const PASSWORD_WORD = /^(password|passwd|passphrase|pwd|secrets?)$|(password|passwd|passphrase|secret)$/;
const KEY_WORD = /^(tokens?|keys?|apikey|credentials?|auth)$|(token|apikey|accesskey|secretkey|privatekey|authkey|signingkey)$/;

// Every word the two patterns above accept holds one of these: a name without any is not looked
// at word by word (a vault's headers are a hundred thousand `key: value` lines).
const SECRET_STEM = /pass|pwd|secret|token|key|credential|auth/i;

function namesSecret(name: string): 'password' | 'key' | null {
  if (!SECRET_STEM.test(name)) return null;
  const words = nameWords(name);
  // `pass` alone is too common a word (a test runner's `--- PASS: TestX`); DB_PASS is a password.
  if (words.some((w) => PASSWORD_WORD.test(w)) || (words.length > 1 && words[words.length - 1] === 'pass')) return 'password';
  if (words.some((w) => KEY_WORD.test(w))) return 'key';
  return null;
}

/** Values that are clearly not a credential: references, placeholders, paths, words. */
function notACredential(v: string): boolean {
  if (v.length < 6) return true;
  if (/^\[redacted: /.test(v)) return true;
  if (/^(\$|%|\{\{|<|\*{3}|x{3,}|\.{3}|\u2026)/i.test(v) || /^\$\{.*\}$/.test(v)) return true; // $VAR, ${X}, %X%, {{x}}, <your-key>
  if (/^(true|false|null|none|nil|undefined|changeme|change_me|password|secret|example|redacted|required|optional|string|your[-_ ].*)$/i.test(v)) return true;
  if (/^(\.{0,2}\/|~\/|[A-Za-z]:\\)/.test(v)) return true; // a path
  if (/^[a-z][a-z0-9+.-]*:\/\/[^@\s]*$/i.test(v)) return true; // a URL without credentials
  if (/^(process\.env|os\.environ|env|ENV|getenv|secrets)\b/.test(v)) return true; // code that reads it
  if (/^[A-Z][A-Z0-9_]*$/.test(v) && v.includes('_')) return true; // another variable's name
  if (/\s/.test(v)) return true; // prose, not a token
  if (/^(.)\1+$/.test(v)) return true;
  // An identifier made of words (TestContextValues_Chaining, ProductionDatabase, HTTP_Proxy).
  if (/^[A-Za-z]+([-_.][A-Za-z]+)*$/.test(v)) {
    const chunks = v.split(/[-_.]/).flatMap((p) => p.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g) ?? [p]);
    if (chunks.every((c) => (c.length >= 3 && /^[A-Z]?[a-z]+$/.test(c)) || /^[A-Z]{2,5}$/.test(c))) return true;
  }
  // Word-like: lowercase words or short numbers joined by - _ . (cache-key-v2, user_profile)
  if (/^[a-z]+([-_.][a-z0-9]+)*$/.test(v) && v.split(/[-_.]/).every((p) => /^[a-z]{1,12}\d{0,3}$/.test(p) || /^\d{1,4}$/.test(p))) return true;
  return false;
}

/** Whether `v`, assigned to a name of the given kind, looks like a real credential. */
export function looksLikeCredential(v: string, kind: 'password' | 'key'): boolean {
  if (notACredential(v)) return false;
  if (kind === 'password') return classes(v) >= 2 || entropy(v) >= 3;
  return v.length >= 12 && entropy(v) >= 3 && classes(v) >= 2;
}

// NAME=value, NAME: value, "name": "value", --name=value, with optional export/set and quotes.
const ASSIGNMENT_RE =
  /(?<![A-Za-z0-9_])(?:export\s+|set\s+|--)?(["']?)([A-Za-z_][A-Za-z0-9_.-]{1,63})\1\s*(?::=|=|:)\s*(["'`]?)([^\s"'`,;(){}[\]<>\\]{1,512})\3(?![({[.\w])/g;

function assignments(text: string, out: SecretFinding[]): void {
  const re = new RegExp(ASSIGNMENT_RE.source, 'g');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const name = m[2];
    const value = m[4];
    const start = m.index + m[0].length - m[3].length - value.length;
    const kind = namesSecret(name);
    // A value that is no secret may hold an assignment of its own ("Deploy: API_TOKEN=…",
    // "Set it:" then "DB_PASSWORD=…" on the next line): the search goes on from the value.
    if (!kind || !looksLikeCredential(value, kind)) {
      // Not inside a URL (`https://user:token@host`): the URL rule below reads those.
      if (!value.startsWith('//')) re.lastIndex = start;
      continue;
    }
    // A URL value keeps its shape: the URL rule below redacts only its password.
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
    out.push({ kind: kind === 'password' ? 'password' : 'secret-value', start, end: start + value.length });
  }
}

// scheme://user:password@host — only the password goes (the user and host stay readable).
const URL_USERINFO_RE = /\b[a-z][a-z0-9+.-]{1,31}:\/\/([^\s:/?#@'"`<>]{0,256}):([^\s/?#@'"`<>]{1,512})@(?=[^\s@/]+)/gi;

function urlPasswords(text: string, out: SecretFinding[]): void {
  if (!text.includes('://')) return; // the pattern is tried at every word otherwise
  for (const m of text.matchAll(URL_USERINFO_RE)) {
    const pass = m[2];
    if (/^\[redacted/.test(pass) || /^\$\{?[A-Za-z_]/.test(pass) || /^<.*>$/.test(pass) || /^\*+$/.test(pass)) continue;
    const end = m.index! + m[0].length - 1;
    out.push({ kind: 'url-password', start: end - pass.length, end });
  }
}

// Authorization: Bearer x, Authorization: Basic x, x-api-key: x (headers as typed into curl).
const AUTH_HEADER_RE = /\b(authorization|proxy-authorization)\s*[:=]\s*["']?(?:(bearer|basic|token|digest)\s+)?([A-Za-z0-9._~+/=-]{8,})/gi;
const API_KEY_HEADER_RE = /\b(x-api-key|api-key|x-auth-token|private-token|x-goog-api-key)\s*[:=]\s*["']?([A-Za-z0-9._~+/=-]{8,})/gi;

function headers(text: string, out: SecretFinding[]): void {
  for (const m of text.matchAll(AUTH_HEADER_RE)) {
    const v = m[3];
    if (/^redacted$/i.test(v)) continue;
    const start = m.index! + m[0].length - v.length;
    out.push({ kind: 'authorization', start, end: start + v.length });
  }
  for (const m of text.matchAll(API_KEY_HEADER_RE)) {
    const v = m[2];
    const start = m.index! + m[0].length - v.length;
    out.push({ kind: 'api-key', start, end: start + v.length });
  }
}

// Vendor formats with a distinctive prefix.
const TOKEN_RES: Array<[string, RegExp]> = [
  ['jwt', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
  ['stripe-key', /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/g],
  ['openai-api-key', /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g],
  ['google-api-key', /\bAIza[0-9A-Za-z_-]{35}/g],
  ['gitlab-token', /\bglpat-[0-9A-Za-z_-]{20,}/g],
  ['huggingface-token', /\bhf_[A-Za-z0-9]{30,}/g],
  ['github-token', /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g],
  ['aws-access-key-id', /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g],
];

function tokens(text: string, out: SecretFinding[]): void {
  for (const [kind, re] of TOKEN_RES) {
    for (const m of text.matchAll(re)) out.push({ kind, start: m.index!, end: m.index! + m[0].length });
  }
}

// A private key block, also one cut short (no END line, as a truncated message leaves it): then it
// runs over the lines that are key material and stops at the first that is not, so a key cut short
// in a YAML block scalar leaves the header's closing `---` and whatever follows alone.
const PEM_BEGIN_RE = /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END_RE = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/;
// The rest of the BEGIN line when the key was pasted on one line (blanks or escaped line breaks).
const PEM_SAME_LINE_RE = /^(?:(?:[ \t]+|(?:\\[nr])+)[A-Za-z0-9+/=]+)+/;
// A line of the body: base64 or an encrypted key's header, behind the indentation, quote or
// comment mark a YAML block, a reply or code gives it.
const PEM_LINE_RE = /^([ \t]*(?:>|#|\/\/|\*|["'])?[ \t]*)([A-Za-z0-9+/]+={0,2}|(?:Proc-Type|DEK-Info):[ \t]*[A-Za-z0-9,-]+)(?:\\n)?["',]?[ \t]*$/;
const PEM_PREFIX_RE = /^[ \t]*(?:>|#|\/\/|\*|["'])?[ \t]*$/;

function privateKeys(text: string, out: SecretFinding[]): void {
  const lineEnd = (from: number) => {
    const n = text.indexOf('\n', from);
    return n === -1 ? text.length : n;
  };
  for (const m of text.matchAll(PEM_BEGIN_RE)) {
    const start = m.index!;
    let end = start + m[0].length;
    let eol = lineEnd(end);
    const rest = text.slice(end, eol).replace(/\r$/, '');
    const endHere = PEM_END_RE.exec(rest);
    if (endHere) {
      out.push({ kind: 'private-key', start, end: end + endHere.index + endHere[0].length });
      continue;
    }
    end += PEM_SAME_LINE_RE.exec(rest)?.[0].length ?? 0;
    // An encrypted key's headers are followed by one blank line, then the body. A short line of
    // base64 (a word, as far as its letters go) is the key's last only after a full-width one.
    let afterHeader = false;
    let full = false;
    while (eol < text.length) {
      const from = eol + 1;
      eol = lineEnd(from);
      const line = text.slice(from, eol).replace(/\r$/, '');
      const close = PEM_END_RE.exec(line);
      if (close && PEM_PREFIX_RE.test(line.slice(0, close.index))) {
        end = from + close.index + close[0].length;
        break;
      }
      const body = PEM_LINE_RE.exec(line);
      const short = body !== null && body[2].length < 16 && !body[2].endsWith('=') && !body[2].includes(':');
      if (body && (!short || full)) {
        end = from + body[1].length + body[2].length;
        if (short) break;
        afterHeader = body[2].includes(':');
        full = body[2].length >= 40;
        continue;
      }
      if (!afterHeader || line.trim() !== '') break;
      afterHeader = false;
    }
    out.push({ kind: 'private-key', start, end });
  }
}

/** Every credential the extra rules find in `text` (unordered, possibly overlapping). */
export function findExtraSecrets(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  assignments(text, out);
  urlPasswords(text, out);
  headers(text, out);
  tokens(text, out);
  privateKeys(text, out);
  return out;
}

/** Every place `values` (credentials mem itself holds, e.g. the configured API key) occur. */
export function findKnownValues(text: string, values: Iterable<string | undefined>): SecretFinding[] {
  const out: SecretFinding[] = [];
  for (const v of values) {
    if (!v || v.length < 6) continue;
    for (let i = text.indexOf(v); i !== -1; i = text.indexOf(v, i + v.length)) out.push({ kind: 'api-key', start: i, end: i + v.length });
  }
  return out;
}

// Kinds that say only where a secret sat; a rule that knows the vendor names it better.
const GENERIC_KINDS = new Set(['password', 'secret-value', 'url-password', 'basic-auth']);

/**
 * Overlapping findings become one span; its kind is the narrowest finding's (a GitHub token
 * inside a URL's password is named as the token). Spans inside existing placeholders are dropped.
 */
export function mergeFindings(text: string, findings: SecretFinding[]): SecretFinding[] {
  const held = placeholderSpans(text);
  const inPlaceholder = (f: SecretFinding) => held.some(([s, e]) => f.start >= s && f.end <= e);
  const sorted = findings.filter((f) => f.end > f.start && !inPlaceholder(f)).sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Array<SecretFinding & { width: number }> = [];
  for (const f of sorted) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) {
      const width = f.end - f.start;
      if (width < last.width || (width === last.width && GENERIC_KINDS.has(last.kind) && !GENERIC_KINDS.has(f.kind))) {
        last.kind = f.kind;
        last.width = f.end - f.start;
      }
      last.end = Math.max(last.end, f.end);
    } else out.push({ ...f, width: f.end - f.start });
  }
  return out.map(({ kind, start, end }) => ({ kind, start, end }));
}

/** `text` with each (merged, ordered) finding replaced by its placeholder. */
export function applyRedaction(text: string, merged: SecretFinding[]): string {
  let out = '';
  let at = 0;
  for (const f of merged) {
    out += text.slice(at, f.start) + placeholder(f.kind);
    at = f.end;
  }
  return out + text.slice(at);
}

/**
 * The synchronous redaction for what mem prints or logs (errors from servers, URLs): the extra
 * rules plus the exact values mem knows to be credentials. Writes into the vault use the full
 * rule set in redact.ts.
 */
export function redactForDisplay(text: string, known: Iterable<string | undefined> = []): string {
  const merged = mergeFindings(text, [...findExtraSecrets(text), ...findKnownValues(text, known)]);
  return merged.length === 0 ? text : applyRedaction(text, merged);
}

// scheme://user:password@ or scheme://token@ — the whole userinfo goes.
const URL_USERINFO_SHOWN_RE = /\b([a-z][a-z0-9+.-]{1,31}:\/\/)[^\s/?#@'"`<>]+@/gi;

/** A URL (or any text holding URLs) as it may be shown: no user name or password (`https://***@host/`). */
export function urlForDisplay(text: string): string {
  return text.replace(URL_USERINFO_SHOWN_RE, '$1***@');
}
