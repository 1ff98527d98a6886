// Entry frontmatter: a fast exact parser for the simple `key: scalar` lines mem itself writes,
// falling back to the real YAML parser (with size caps) for anything else; values written so that
// they always read back as themselves; and header edits that change only the keys they change.
// The fast path must agree with `yaml` (YAML 1.2 core schema) on everything it accepts: a test
// compares the two on generated inputs.

import { MemError } from '../errors.js';
import type * as Yaml from 'yaml';
import { yaml } from './yaml.js';

export type FrontmatterResult =
  | { ok: true; data: Record<string, unknown>; simple: boolean }
  | { ok: false; error: string; line: number };

const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const PLAIN = /^[A-Za-z0-9_.\/(~+$][^\t'"]*$/;
const SINGLE = /^'((?:[^'\n]|'')*)'$/;
const DOUBLE = /^"([^"\\\n]*)"$/;
export const NO_VALUE = Symbol('complex');

/** A plain or quoted YAML scalar the fast path accepts, or NO_VALUE for anything else. */
export function scalar(v: string): unknown {
  const c = v.charCodeAt(0);
  // A letter starts none of the quoted, numeric or special forms: only the keywords and plain text
  // are possible (the common case: types, phases, statuses). Same answers as the full ladder below.
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
    if (v === 'null' || v === 'Null' || v === 'NULL') return null;
    if (v === 'true' || v === 'True' || v === 'TRUE') return true;
    if (v === 'false' || v === 'False' || v === 'FALSE') return false;
    return PLAIN.test(v) && !/: | #|:$/.test(v) ? v : NO_VALUE;
  }
  if (v === '' || v === '~') return null;
  let m = c === 39 /* ' */ ? SINGLE.exec(v) : null;
  if (m) return m[1].includes("''") ? m[1].replace(/''/g, "'") : m[1];
  m = c === 34 /* " */ ? DOUBLE.exec(v) : null;
  if (m) return m[1];
  if (INT.test(v)) return parseInt(v, 10);
  if (FLOAT.test(v)) return parseFloat(v);
  // Hex and octal start with 0; infinities and NaN with a sign or a dot.
  if (c === 48 && (/^0x[0-9a-fA-F]+$/.test(v) || /^0o[0-7]+$/.test(v))) return NO_VALUE;
  if ((c === 43 || c === 45 || c === 46) && /^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/.test(v)) return NO_VALUE;
  if (!PLAIN.test(v) || /: | #|:$/.test(v)) return NO_VALUE;
  return v;
}

/** A flow sequence of scalars (`[a, b]`), or NO_VALUE. */
export function flowSeq(v: string): unknown {
  const inner = v.slice(1, -1).trim();
  if (inner === '') return [];
  if (/[[\]{}"'#]/.test(inner)) return NO_VALUE;
  const out: unknown[] = [];
  for (const part of inner.split(',')) {
    const item = part.trim();
    if (item === '' || item.includes(':')) return NO_VALUE;
    const s = scalar(item);
    if (s === NO_VALUE || s === null) return NO_VALUE;
    out.push(s);
  }
  return out;
}

const isKeyStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isKeyChar = (c: number) => isKeyStart(c) || (c >= 48 && c <= 57) || c === 45;
const isBlank = (c: number) => c === 32 || c === 9;

/**
 * `key: scalar` lines, read by hand: the lines /^([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/ matches (a key, blanks, a colon, then
 * nothing or blanks and a value; trailing blanks dropped; no line or paragraph separator inside),
 * without a regex match and three substrings per line. Null for anything else.
 */
function fastParse(src: string): Record<string, unknown> | null {
  const data: Record<string, unknown> = {};
  const n = src.length;
  for (let start = 0; start <= n; ) {
    let nl = src.indexOf('\n', start);
    if (nl < 0) nl = n;
    let end = nl;
    if (end > start && src.charCodeAt(end - 1) === 13) end--;
    const lineStart = start;
    start = nl + 1;
    if (lineStart === end) continue;
    if (!isKeyStart(src.charCodeAt(lineStart))) {
      // A line of spaces and tabs is nothing; any other (an nbsp, say) is for the full parser.
      let k = lineStart;
      while (k < end && isBlank(src.charCodeAt(k))) k++;
      if (k === end) continue;
      return null;
    }
    let i = lineStart + 1;
    while (i < end && isKeyChar(src.charCodeAt(i))) i++;
    const key = src.slice(lineStart, i);
    while (i < end && isBlank(src.charCodeAt(i))) i++;
    if (i >= end || src.charCodeAt(i) !== 58 /* : */) return null;
    i++;
    if (i < end && !isBlank(src.charCodeAt(i))) return null;
    while (i < end && isBlank(src.charCodeAt(i))) i++;
    let j = end;
    while (j > i && isBlank(src.charCodeAt(j - 1))) j--;
    const v = src.slice(i, j);
    // That regex's "." stops at \r, \u2028 and \u2029: such a line is left to the full parser.
    if (v.includes('\r') || v.includes('\u2028') || v.includes('\u2029')) return null;
    if (Object.prototype.hasOwnProperty.call(data, key) || key === '__proto__') return null;
    const value = v.startsWith('[') && v.endsWith(']') ? flowSeq(v) : scalar(v);
    if (value === NO_VALUE) return null;
    data[key] = value;
  }
  return data;
}

/** The first line of a yaml error message, without its "at line N, column M" (we add file:line). */
export function yamlMessage(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * The largest header mem reads, before and after YAML aliases are expanded. A header is a few
 * hundred bytes; a big one is a mistake or an attack (a large value repeated by ~100 aliases
 * grows a 1 MB file into 100 MB of JSON in the index), and is read as a broken entry instead.
 */
export const MAX_HEADER_CHARS = 64 * 1024;
export const MAX_EXPANDED_CHARS = 64 * 1024;

function kb(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
}

/**
 * The size of `value` written out (strings by length, keys with their colon, one per container
 * or other scalar), counting shared (aliased) parts every time they appear; stops once over `limit`,
 * so a cycle or a huge expansion costs no more than `limit` steps. Never above the size of the
 * YAML text for a header without aliases.
 */
function expandedSize(value: unknown, limit: number): number {
  let size = 0;
  // An explicit stack, not recursion: an alias to its own ancestor makes the data a cycle.
  const todo: unknown[] = [value];
  while (todo.length > 0 && size <= limit) {
    const v = todo.pop();
    size += 1;
    if (typeof v === 'string') size += v.length - 1;
    else if (Array.isArray(v)) for (const x of v) todo.push(x);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        size += k.length + 1;
        todo.push(x);
      }
    }
  }
  return size;
}

function lineOf(src: string, offset: number): number {
  let line = 1;
  for (let i = src.indexOf('\n'); i >= 0 && i < offset; i = src.indexOf('\n', i + 1)) line++;
  return line;
}

/** Parse the text between two `---` lines (`keep.doc` receives the YAML document if one was made). */
export function parseFrontmatter(src: string, keep?: { doc?: Yaml.Document.Parsed }): FrontmatterResult {
  if (src.length > MAX_HEADER_CHARS) {
    return { ok: false, error: `too large: ${kb(src.length)} (the limit is ${kb(MAX_HEADER_CHARS)})`, line: 1 };
  }
  // A one-line flow mapping (the comment header form) has its own fast path.
  if (src.charCodeAt(0) === 123 /* { */) {
    const flow = scanFlow(src);
    if (flow) return { ok: true, data: flow.data, simple: false };
    return fullParse(src, keep);
  }
  const fast = fastParse(src);
  if (fast) return { ok: true, data: fast, simple: true };
  return fullParse(src, keep);
}

/** The full parser; `keep.doc` receives the YAML document (the header editor reuses its positions). */
function fullParse(src: string, keep?: { doc?: Yaml.Document.Parsed }): FrontmatterResult {
  const Y = yaml();
  try {
    const doc = Y.parseDocument(src, { uniqueKeys: true, logLevel: 'silent' });
    if (keep) keep.doc = doc;
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      const line = e.linePos?.[0]?.line ?? 1;
      return { ok: false, error: yamlMessage(e.message), line };
    }
    const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
    // Aliases share one JS value, so toJS stays small; the expansion happens later, when the
    // entry is printed as JSON or stored in the index. Measure it here, where it is cheap.
    if (expandedSize(data, MAX_EXPANDED_CHARS) > MAX_EXPANDED_CHARS) {
      let alias: number | undefined;
      Y.visit(doc, { Alias: (_, node) => ((alias = node.range?.[0]), Y.visit.BREAK) });
      const why = alias === undefined ? '' : ' once its YAML aliases are expanded';
      return { ok: false, error: `too large${why} (the limit is ${kb(MAX_EXPANDED_CHARS)})`, line: alias === undefined ? 1 : lineOf(src, alias) };
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      return { ok: true, data: {}, simple: false };
    }
    return { ok: true, data: data as Record<string, unknown>, simple: false };
  } catch (err) {
    return { ok: false, error: (err as Error).message.split('\n')[0], line: 1 };
  }
}

// ---- Writing ----------------------------------------------------------------------------------

const DATE_KEYS = new Set(['last_reinforced', 'created_at', 'promoted_at', 'updated_at']);
const PLAIN_SAFE = /^[A-Za-z0-9_][A-Za-z0-9_.\/-]*$/;
const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/**
 * A character YAML does not take literally inside single quotes on one line: a line break (also
 * U+0085, U+2028, U+2029), a control other than tab, a BOM, a lone surrogate, U+FFFE/U+FFFF.
 */
const NEEDS_ESCAPE = /[^\t\x20-\x7E\u00A0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]|[\u2028\u2029\uFEFF]/u;

function hex(code: number, width: number): string {
  return code.toString(16).toUpperCase().padStart(width, '0');
}

/** A double-quoted YAML string: the one form that can hold any string on one line. */
function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (!NEEDS_ESCAPE.test(ch)) out += ch;
    else if (c < 0x100) out += `\\x${hex(c, 2)}`;
    else out += `\\u${hex(c, 4)}`; // also a lone surrogate: YAML reads \uD800 back as one
  }
  return `${out}"`;
}

/** Text that would end an HTML comment early: `-->`, and `--!>`, which browsers also take as its end. */
const COMMENT_END = /--!?>/;

function formatString(s: string, quoted: boolean, inComment = false): string {
  if (!quoted && PLAIN_SAFE.test(s) && !/^\d{4}-\d{2}-\d{2}/.test(s) && scalar(s) === s) return s;
  // Inside an HTML comment the string's `>` is written as an escape, so the comment ends where mem
  // means it to (doubleQuoted writes `>` nowhere else).
  if (inComment && COMMENT_END.test(s)) return doubleQuoted(s).replace(/>/g, '\\x3E');
  if (!NEEDS_ESCAPE.test(s)) return `'${s.replace(/'/g, "''")}'`;
  return doubleQuoted(s);
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  return String(n);
}

/** A mapping key: plain when it is a simple word, quoted otherwise. */
export function formatKey(key: string, inComment = false): string {
  return SIMPLE_KEY.test(key) && scalar(key) === key ? key : formatString(key, true, inComment);
}

/**
 * One YAML value as mem writes it, always on one line: plain when that reads back the same, else
 * single-quoted, else double-quoted with escapes; lists and maps in flow style. Dates are
 * single-quoted (`last_reinforced: '2026-03-01'`, as TeaParty writes them). Whatever the value, it
 * parses back (fast and full parser) to itself.
 */
export function formatValue(key: string, value: unknown, inComment = false): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return formatString(value, DATE_KEYS.has(key), inComment);
  if (Array.isArray(value)) return `[${value.map((v) => formatValue('', v, inComment)).join(', ')}]`;
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const parts = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${parts.map(([k, v]) => `${formatKey(k, inComment)}: ${formatValue(k, v, inComment)}`).join(', ')}}`;
  }
  throw new MemError(`cannot write a ${typeof value} as "${key}" in an entry header`);
}

/** Deep equality of parsed YAML data (0 and -0 alike, NaN equal to itself, key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b || (Number.isNaN(a) && Number.isNaN(b))) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

const HAND_EDIT = 'edit the entry header by hand (mem lint checks it)';

function readsBack(text: string, expected: Record<string, unknown>): boolean {
  const back = parseFrontmatter(text);
  return back.ok && sameValue(back.data, expected);
}

/** Throws unless `text` parses back to exactly `expected`: nothing unreadable is ever written. */
function checkReadsBack(text: string, expected: Record<string, unknown>, what: string): void {
  const back = parseFrontmatter(text);
  const hint = HAND_EDIT;
  if (!back.ok) throw new MemError(`${what}: the header would not read back: ${back.error}; nothing was written`, { hint });
  if (!sameValue(back.data, expected)) throw new MemError(`${what}: the header would read back differently; nothing was written`, { hint });
}

/** Serialize a whole mapping as frontmatter lines, in the given key order. */
export function formatFrontmatter(data: Record<string, unknown>): string {
  let out = '';
  const expected: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    out += `${formatKey(k)}: ${formatValue(k, v)}\n`;
    expected[k] = v;
  }
  checkReadsBack(out, expected, 'cannot write this entry');
  return out;
}

/** Where a top-level key sits in a header: its whole lines, and the value text when it is one line. */
interface KeySpan {
  /** Offsets of the key's lines: from its line start to after the end of its value's last line. */
  from: number;
  to: number;
  /** The key's line up to and including the colon, for a line rewritten whole. */
  head?: string;
  /** The value's own text on the key's line; equal ends: no value (`key:`), inserted after the colon. */
  value?: [number, number];
}

interface HeaderLayout {
  keys: Map<string, KeySpan>;
  /** Indentation of the top-level keys. */
  indent: string;
}

const lineEnd = (src: string, at: number): number => {
  const nl = src.indexOf('\n', at);
  return nl < 0 ? src.length : nl + 1;
};

/** The layout of a header the fast parser accepts: one `key: value` line per key. */
function simpleLayout(src: string): HeaderLayout {
  const keys = new Map<string, KeySpan>();
  for (let start = 0; start < src.length; ) {
    const to = lineEnd(src, start);
    let end = to;
    if (end > start && src.charCodeAt(end - 1) === 10) end--;
    if (end > start && src.charCodeAt(end - 1) === 13) end--;
    const from = start;
    start = to;
    if (!isKeyStart(src.charCodeAt(from))) continue;
    let i = from + 1;
    while (i < end && isKeyChar(src.charCodeAt(i))) i++;
    const key = src.slice(from, i);
    while (i < end && isBlank(src.charCodeAt(i))) i++;
    const colon = i;
    i++;
    while (i < end && isBlank(src.charCodeAt(i))) i++;
    let j = end;
    while (j > i && isBlank(src.charCodeAt(j - 1))) j--;
    keys.set(key, { from, to, head: src.slice(from, colon + 1), value: i < j ? [i, j] : [colon + 1, colon + 1] });
  }
  return { keys, indent: '' };
}

/**
 * Where a value's own text ends. A block collection's range runs on over the comments and blank
 * lines after its last item (they belong to whatever follows); its last item's text does not.
 */
function contentEnd(node: unknown): number | undefined {
  const Y = yaml();
  if (Y.isCollection(node) && !node.flow && node.items.length > 0) {
    const last = node.items[node.items.length - 1];
    return Y.isPair(last) ? contentEnd(last.value) ?? contentEnd(last.key) : contentEnd(last);
  }
  return Y.isNode(node) ? node.range?.[1] : undefined;
}

/** The layout of any other header, from the positions the YAML parser records. */
function documentLayout(src: string, doc: Yaml.Document.Parsed): HeaderLayout | null {
  const Y = yaml();
  const map = doc.contents;
  if (doc.errors.length > 0 || !Y.isMap(map) || map.flow) return null;
  const keys = new Map<string, KeySpan>();
  let indent: string | null = null;
  for (const pair of map.items) {
    const k = pair.key;
    if (!Y.isScalar(k) || !k.range) continue;
    const name = String(k.value);
    const from = src.lastIndexOf('\n', k.range[0] - 1) + 1;
    const lead = src.slice(from, k.range[0]);
    // Only a key that starts its own line can be edited by lines (not `? key` or `&a key`).
    if (!/^[ \t]*$/.test(lead)) {
      keys.set(name, { from: -1, to: -1 });
      continue;
    }
    indent ??= lead;
    const v = pair.value;
    const vr = Y.isNode(v) ? v.range : undefined;
    let end = Math.max(contentEnd(v) ?? 0, k.range[1]);
    while (end > k.range[0] && /[ \t\r\n]/.test(src[end - 1])) end--;
    const span: KeySpan = { from, to: lineEnd(src, end - 1) };
    let colon = k.range[1];
    while (colon < src.length && (src[colon] === ' ' || src[colon] === '\t')) colon++;
    if (src[colon] === ':') {
      span.head = src.slice(from, colon + 1);
      const props = Y.isNode(v) && ((v as { anchor?: string }).anchor !== undefined || (v as { tag?: string }).tag !== undefined);
      const oneLine = (a: number, b: number) => !src.slice(a, b).includes('\n');
      if (!v || (Y.isScalar(v) && vr && vr[0] === vr[1] && v.value === null)) {
        if (oneLine(colon, end)) span.value = [colon + 1, colon + 1];
      } else if (vr && !props && (Y.isScalar(v) || Y.isAlias(v) || (Y.isCollection(v) && v.flow)) && oneLine(colon, vr[1])) {
        span.value = [vr[0], vr[1]];
      }
    }
    keys.set(name, span);
  }
  return { keys, indent: indent ?? '' };
}

/**
 * A new string value in the quoting style of the text it replaces (a hand-written plain date
 * stays plain, a double-quoted word stays double-quoted), when that style reads back the same;
 * otherwise mem's own form.
 */
function inStyleOf(old: string, value: unknown, text: string): string {
  if (typeof value !== 'string' || NEEDS_ESCAPE.test(value)) return text;
  const q = old.charCodeAt(0);
  if (q === 34 /* " */) return /["\\]/.test(value) ? text : `"${value}"`;
  if (q === 39 /* ' */) return `'${value.replace(/'/g, "''")}'`;
  if (typeof scalar(old) === 'string' && PLAIN_SAFE.test(value) && scalar(value) === value) return value;
  return text;
}

/**
 * Change some top-level keys of an existing header (undefined removes a key) and leave every
 * other byte as it was: a one-line value has just its text replaced (indentation, spacing and a
 * trailing comment stay), a value over several lines has exactly its key's lines replaced, a
 * removed key loses exactly its lines, a new key becomes a new last line. The result must parse
 * to the old data with only those keys changed; otherwise nothing is returned but a MemError.
 */
export function updateFrontmatter(src: string, changes: Record<string, unknown>): string {
  const keep: { doc?: Yaml.Document.Parsed } = {};
  const before = parseFrontmatter(src, keep);
  if (!before.ok) throw new MemError(`cannot edit a malformed entry header (${before.error})`);
  const old = before.data;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(old, k);
  const keys = Object.keys(changes).filter((k) => (changes[k] === undefined ? has(k) : !(has(k) && sameValue(old[k], changes[k]))));
  if (keys.length === 0) return src;
  const what = `cannot change ${keys.join(', ')} in place`;
  const layout = before.simple ? simpleLayout(src) : keep.doc ? documentLayout(src, keep.doc) : null;
  if (!layout) throw new MemError(`${what}: the header is not a plain YAML mapping; nothing was written`, { hint: HAND_EDIT });
  const eol = src.includes('\r\n') ? '\r\n' : '\n';
  const edits: { from: number; to: number; text: string }[] = [];
  let added = '';
  const expected: Record<string, unknown> = { ...old };
  for (const key of keys) {
    const value = changes[key];
    const span = layout.keys.get(key);
    if (span && span.from < 0) throw new MemError(`${what}: "${key}" is not a plain key line; nothing was written`, { hint: HAND_EDIT });
    if (value === undefined) {
      delete expected[key];
      if (span) edits.push({ from: span.from, to: span.to, text: '' });
      continue;
    }
    expected[key] = value;
    const text = formatValue(key, value);
    if (span?.value) {
      const [a, b] = span.value;
      edits.push({ from: a, to: b, text: a === b ? ` ${text}` : inStyleOf(src.slice(a, b), value, text) });
    } else if (span?.head !== undefined) {
      const lineEol = src.slice(span.to - 2, span.to) === '\r\n' ? '\r\n' : src[span.to - 1] === '\n' ? '\n' : '';
      edits.push({ from: span.from, to: span.to, text: `${span.head} ${text}${lineEol}` });
    } else if (span) {
      throw new MemError(`${what}: "${key}" is not a plain key line; nothing was written`, { hint: HAND_EDIT });
    } else added += `${layout.indent}${formatKey(key)}: ${text}${eol}`;
  }
  const apply = (all: typeof edits) => {
    let out = src;
    for (const e of [...all].sort((x, y) => y.from - x.from || y.to - x.to)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
    return out;
  };
  if (!added) {
    const out = apply(edits);
    checkReadsBack(out, expected, what);
    return out;
  }
  // New keys go after the last line that holds anything, before trailing blank lines; unless
  // those blank lines belong to the value above (a `|+` block scalar): then after them.
  let at = src.length;
  while (at > 0 && /[ \t\r\n]/.test(src[at - 1])) at--;
  const places = at === 0 ? [0] : [lineEnd(src, at - 1)];
  if (places[0] < src.length) places.push(src.length);
  const withAdded = (to: number) => apply([...edits, { from: to, to, text: to === 0 || src[to - 1] === '\n' ? added : eol + added }]);
  for (const to of places.slice(0, -1)) {
    const out = withAdded(to);
    if (readsBack(out, expected)) return out;
  }
  const out = withAdded(places[places.length - 1]);
  checkReadsBack(out, expected, what);
  return out;
}

// ---- The one-line form: a flow mapping `{key: value, …}` --------------------------------------

/** One key of a flow mapping: the item's text (key to end of value) and its value's text. */
interface FlowItem {
  key: string;
  from: number;
  to: number;
  value: [number, number];
}

/**
 * A one-line flow mapping of the values the fast path reads (`{id: a, importance: 0.8, tags: [x, y]}`),
 * read by hand, with where each item sits; null for anything else (nested maps, escapes, a
 * trailing comma, an empty value…), which goes to the full parser. A plain value in a flow
 * mapping ends at `,` or `}` and holds no `[]{}` (YAML 1.2, 7.3.3).
 */
function scanFlow(src: string): { data: Record<string, unknown>; items: FlowItem[] } | null {
  const n = src.length;
  const data: Record<string, unknown> = {};
  const items: FlowItem[] = [];
  if (/[\r\n\u2028\u2029]/.test(src)) return null;
  const blanks = (at: number) => {
    while (at < n && isBlank(src.charCodeAt(at))) at++;
    return at;
  };
  let i = blanks(1);
  if (src.charCodeAt(i) === 125 /* } */) return blanks(i + 1) === n ? { data, items } : null;
  for (;;) {
    const from = i;
    if (!isKeyStart(src.charCodeAt(i))) return null;
    i++;
    while (i < n && isKeyChar(src.charCodeAt(i))) i++;
    const key = src.slice(from, i);
    i = blanks(i);
    if (src.charCodeAt(i) !== 58 /* : */ || !isBlank(src.charCodeAt(i + 1))) return null;
    const start = blanks(i + 1);
    const c = src.charCodeAt(start);
    let end: number;
    if (c === 39 /* ' */) {
      let k = start + 1;
      for (;;) {
        k = src.indexOf("'", k);
        if (k < 0) return null;
        if (src.charCodeAt(k + 1) !== 39) break;
        k += 2;
      }
      end = k + 1;
    } else if (c === 34 /* " */ || c === 91 /* [ */) {
      const k = src.indexOf(c === 34 ? '"' : ']', start + 1);
      if (k < 0) return null;
      end = k + 1;
    } else {
      end = start;
      while (end < n && src.charCodeAt(end) !== 44 /* , */ && src.charCodeAt(end) !== 125 /* } */) end++;
      while (end > start && isBlank(src.charCodeAt(end - 1))) end--;
    }
    const text = src.slice(start, end);
    if (text === '' || (c !== 39 && c !== 34 && c !== 91 && /[[\]{}]/.test(text))) return null;
    const value = c === 91 ? flowSeq(text) : scalar(text);
    if (value === NO_VALUE || Object.prototype.hasOwnProperty.call(data, key) || key === '__proto__') return null;
    data[key] = value;
    items.push({ key, from, to: end, value: [start, end] });
    i = blanks(end);
    const sep = src.charCodeAt(i);
    if (sep === 125 /* } */) return blanks(i + 1) === n ? { data, items } : null;
    if (sep !== 44 /* , */) return null;
    i = blanks(i + 1);
  }
}

/**
 * The items of a one-line flow mapping the fast scan does not read, from the YAML parser's ranges:
 * each item a plain key with a value on the line (a flow collection, a scalar, an alias). Null
 * when any item is not so (a `? key`, a tag or anchor on the value, a key that is not a string),
 * or the text is not one flow mapping on one line.
 */
function flowItemsOf(src: string): { items: FlowItem[] } | null {
  if (/[\r\n\u2028\u2029]/.test(src)) return null;
  const Y = yaml();
  let doc: Yaml.Document.Parsed;
  try {
    doc = Y.parseDocument(src, { uniqueKeys: true, logLevel: 'silent' });
  } catch {
    return null;
  }
  const map = doc.contents;
  if (doc.errors.length > 0 || !Y.isMap(map) || !map.flow) return null;
  const items: FlowItem[] = [];
  for (const pair of map.items) {
    const k = pair.key;
    const v = pair.value;
    if (!Y.isScalar(k) || typeof k.value !== 'string' || !k.range || !Y.isNode(v) || !v.range) return null;
    if ((v as { anchor?: string }).anchor !== undefined || (v as { tag?: string }).tag !== undefined) return null;
    if (!(Y.isScalar(v) || Y.isAlias(v) || (Y.isCollection(v) && v.flow))) return null;
    const [a, b] = [v.range[0], v.range[1]];
    if (a >= b) return null;
    items.push({ key: k.value, from: k.range[0], to: b, value: [a, b] });
  }
  return { items };
}

/**
 * A whole mapping as a one-line flow mapping, in the given key order, fit to stand inside an HTML
 * comment (no `-->` in it). It parses back to exactly `data`, or nothing is returned.
 */
export function formatFlowHeader(data: Record<string, unknown>): string {
  const parts: string[] = [];
  const expected: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    parts.push(`${formatKey(k, true)}: ${formatValue(k, v, true)}`);
    expected[k] = v;
  }
  const out = `{${parts.join(', ')}}`;
  checkReadsBack(out, expected, 'cannot write this entry');
  return out;
}

/**
 * Change some keys of a one-line flow header (undefined removes a key), as updateFrontmatter does
 * for a block header: a changed value has just its text replaced, a removed key loses its item, a
 * new key becomes the last item. A header the fast path cannot read, or an edit that would not
 * read back, is written whole again (it is one line: the diff is that line either way).
 */
export function updateFlowHeader(src: string, changes: Record<string, unknown>): string {
  const before = parseFrontmatter(src);
  if (!before.ok) throw new MemError(`cannot edit a malformed entry header (${before.error})`);
  const old = before.data;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(old, k);
  const keys = Object.keys(changes).filter((k) => (changes[k] === undefined ? has(k) : !(has(k) && sameValue(old[k], changes[k]))));
  if (keys.length === 0) return src;
  const expected: Record<string, unknown> = { ...old };
  for (const k of keys) {
    if (changes[k] === undefined) delete expected[k];
    else expected[k] = changes[k];
  }
  // Where each item sits: by hand for the common values, else from the YAML parser's own ranges
  // (hex and octal numbers, escapes, nested maps), so an edit never respells the other keys.
  const scan = scanFlow(src) ?? flowItemsOf(src);
  if (scan) {
    const edits: { from: number; to: number; text: string }[] = [];
    const added: string[] = [];
    for (const key of keys) {
      const value = changes[key];
      const at = scan.items.findIndex((it) => it.key === key);
      if (at < 0) {
        added.push(`${formatKey(key, true)}: ${formatValue(key, value, true)}`);
        continue;
      }
      const it = scan.items[at];
      if (value !== undefined) {
        const [a, b] = it.value;
        edits.push({ from: a, to: b, text: inStyleOf(src.slice(a, b), value, formatValue(key, value, true)) });
      } else if (at + 1 < scan.items.length) edits.push({ from: it.from, to: scan.items[at + 1].from, text: '' });
      else edits.push({ from: at > 0 ? scan.items[at - 1].to : it.from, to: it.to, text: '' });
    }
    if (added.length > 0) {
      const last = scan.items[scan.items.length - 1];
      const to = last ? last.to : 1;
      edits.push({ from: to, to, text: `${last ? ', ' : ''}${added.join(', ')}` });
    }
    let out = src;
    for (const e of edits.sort((x, y) => y.from - x.from || y.to - x.to)) out = out.slice(0, e.from) + e.text + out.slice(e.to);
    if (!COMMENT_END.test(out) && readsBack(out, expected)) return out;
  }
  return formatFlowHeader(expected);
}
