// Entry frontmatter: a fast exact parser for the simple `key: scalar` lines mem itself writes,
// falling back to the real YAML parser for anything else; and scalar serialization for rewrites.
// The fast path must agree with `yaml` (YAML 1.2 core schema) on everything it accepts: a test
// compares the two on generated inputs.

import { yaml } from './yaml.js';

export type FrontmatterResult =
  | { ok: true; data: Record<string, unknown>; simple: boolean }
  | { ok: false; error: string; line: number };

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;
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
 * `key: scalar` lines, read by hand: the same lines KEY_LINE accepts (a key, blanks, a colon, then
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
    // KEY_LINE's "." stops at \r, \u2028 and \u2029: such a line is left to the full parser.
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

/** Parse the text between two `---` lines. */
export function parseFrontmatter(src: string): FrontmatterResult {
  const fast = fastParse(src);
  if (fast) return { ok: true, data: fast, simple: true };
  try {
    const doc = yaml().parseDocument(src, { uniqueKeys: true, logLevel: 'silent' });
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      const line = e.linePos?.[0]?.line ?? 1;
      return { ok: false, error: yamlMessage(e.message), line };
    }
    const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      return { ok: true, data: {}, simple: false };
    }
    return { ok: true, data: data as Record<string, unknown>, simple: false };
  } catch (err) {
    return { ok: false, error: (err as Error).message.split('\n')[0], line: 1 };
  }
}

const DATE_KEYS = new Set(['last_reinforced', 'created_at', 'promoted_at', 'updated_at']);
const PLAIN_SAFE = /^[A-Za-z0-9_][A-Za-z0-9_.\/-]*$/;

/** One YAML scalar (or flow list) as mem writes it. Dates are single-quoted, as in the design. */
export function formatValue(key: string, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return `[${value.map((v) => formatValue('', v)).join(', ')}]`;
  }
  if (typeof value === 'string') {
    const isDate = DATE_KEYS.has(key) || /^\d{4}-\d{2}-\d{2}/.test(value);
    if (!isDate && PLAIN_SAFE.test(value) && scalar(value) === value) return value;
    if (!value.includes('\n')) return `'${value.replace(/'/g, "''")}'`;
  }
  return yaml().stringify(value, { lineWidth: 0 }).trimEnd();
}

/** Serialize a whole mapping as frontmatter lines, in the given key order. */
export function formatFrontmatter(data: Record<string, unknown>): string {
  let out = '';
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined) continue;
    const f = formatValue(k, v);
    out += f.includes('\n') ? `${k}:\n${f.replace(/^/gm, '  ')}\n` : `${k}: ${f}\n`;
  }
  return out;
}

/**
 * Change some keys of an existing frontmatter text, keeping every other line as it was.
 * Simple `key: value` lines are edited in place; new keys are appended; anything else goes
 * through the YAML document model, which keeps key order, comments and quoting.
 */
export function updateFrontmatter(src: string, changes: Record<string, unknown>): string {
  const nl = src.includes('\r\n') ? '\r\n' : '\n';
  const simple = fastParse(src) !== null;
  if (simple) {
    const lines = src.split('\n');
    const trailing = lines.length > 0 && lines[lines.length - 1] === '' ? lines.pop() : undefined;
    for (const [key, value] of Object.entries(changes)) {
      const idx = lines.findIndex((l) => KEY_LINE.exec(l.replace(/\r$/, ''))?.[1] === key);
      const formatted = formatValue(key, value);
      if (value === undefined) {
        if (idx >= 0) lines.splice(idx, 1);
        continue;
      }
      if (formatted.includes('\n')) return updateViaDocument(src, changes);
      const cr = nl === '\r\n' ? '\r' : '';
      if (idx >= 0) lines[idx] = `${key}: ${formatted}${cr}`;
      else lines.push(`${key}: ${formatted}${cr}`);
    }
    if (trailing !== undefined) lines.push(trailing);
    return lines.join('\n');
  }
  return updateViaDocument(src, changes);
}

function updateViaDocument(src: string, changes: Record<string, unknown>): string {
  const nl = src.includes('\r\n') ? '\r\n' : '\n';
  const doc = yaml().parseDocument(src);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) doc.delete(key);
    else {
      const node = doc.createNode(value);
      if (typeof value === 'string' && DATE_KEYS.has(key) && yaml().isScalar(node)) node.type = 'QUOTE_SINGLE';
      doc.set(key, node);
    }
  }
  let out = doc.toString({ lineWidth: 0 });
  if (nl === '\r\n') out = out.replace(/\r?\n/g, '\r\n');
  if (!src.endsWith('\n')) out = out.replace(/\r?\n$/, '');
  return out;
}
