// Codex's config.toml, edited by hand but checked by a real TOML parser: mem changes only the
// lines of its own key (top-level `notify`) or table (`[mcp_servers.mem]`), keeps every other byte
// (comments included), then parses the result and refuses when any other value came out different.
// Headers and keys are looked for only on lines that start outside every string and value.

import { MemError } from '../../errors.js';

type Toml = Record<string, unknown>;
type Parse = (text: string) => Toml;

/** smol-toml's parse, loaded only by the commands that edit Codex's config. */
export async function tomlParser(): Promise<Parse> {
  const { parse } = await import('smol-toml');
  return (text) => parse(text) as Toml;
}

export function parseToml(parse: Parse, text: string, file: string): Toml {
  try {
    return parse(text);
  } catch (err) {
    throw new MemError(`cannot edit ${file}: it is not valid TOML (${(err as Error).message.split('\n')[0]}); nothing was changed`, { hint: 'fix the file (codex reports the same error), then run this again' });
  }
}

/** A TOML basic string (JSON's escapes are TOML's). */
export function tomlString(s: string): string {
  return JSON.stringify(s);
}

export function tomlArray(a: string[]): string {
  return `[${a.map(tomlString).join(', ')}]`;
}

const HEADER = /^\s*\[\[?\s*[^\]\s,{}=#][^\],{}=#]*\]\]?\s*(#.*)?\r?$/;

/** The file's lines (split at LF), each with whether it starts outside every string and value. */
interface Lines {
  lines: string[];
  /** top[i]: line i starts at the top level (a header, a key, a comment or a blank line can be there). */
  top: boolean[];
}

function split(text: string): Lines {
  return { lines: text.split('\n'), top: topLevelLines(text) };
}

/**
 * For each line of `text`, whether it starts at the top level of the document: not inside a
 * multi-line string (basic """ or literal '''), an array or an inline table. Follows TOML's
 * lexical rules: basic strings have backslash escapes, literal strings none, `#` starts a comment
 * outside strings, and `[` at the start of a top-level line opens a table header, not an array.
 */
export function topLevelLines(text: string): boolean[] {
  const top: boolean[] = [true];
  const n = text.length;
  let depth = 0;
  let header = false;
  let head = true;
  let i = 0;
  while (i < n) {
    const c = text[i];
    if (c === '\n') {
      top.push(depth === 0);
      head = true;
      header = false;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      head = false;
      const basic = c === '"';
      if (text.startsWith(c + c + c, i)) {
        i += 3;
        for (;;) {
          if (i >= n) break;
          if (basic && text[i] === '\\') i += 2;
          else if (text.startsWith(c + c + c, i)) {
            // Up to two more quotes may end the content (""""" closes after a quote).
            i += 3;
            for (let k = 0; k < 2 && text[i] === c; k++) i++;
            break;
          } else {
            if (text[i] === '\n') top.push(false);
            i++;
          }
        }
      } else {
        i++;
        while (i < n && text[i] !== c && text[i] !== '\n') i += basic && text[i] === '\\' ? 2 : 1;
        if (text[i] === c) i++;
      }
    } else {
      if (c === '[' && head && depth === 0) header = true;
      else if (c === ']' && header) {
        if (text[i + 1] === ']') i++;
        header = false;
      } else if (!header && (c === '[' || c === '{')) depth++;
      else if (!header && (c === ']' || c === '}')) depth = Math.max(0, depth - 1);
      if (c === '[' && header && text[i + 1] === '[') i++;
      head = false;
      i++;
    }
  }
  return top;
}

/** Whether line i is a table header. */
function isHeader(l: Lines, i: number): boolean {
  return l.top[i] && HEADER.test(l.lines[i]);
}

/** The index of the first table header line (the end of the top-level keys). */
function firstHeader(l: Lines): number {
  for (let i = 0; i < l.lines.length; i++) if (isHeader(l, i)) return i;
  return l.lines.length;
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function without(t: Toml, keyPath: string[]): Toml {
  const copy = structuredClone(t) as Toml;
  let o: Toml | undefined = copy;
  for (const k of keyPath.slice(0, -1)) o = o?.[k] as Toml | undefined;
  if (o && typeof o === 'object') delete o[keyPath[keyPath.length - 1]];
  if (keyPath.length > 1) {
    const parent = copy[keyPath[0]];
    if (parent && typeof parent === 'object' && Object.keys(parent).length === 0) delete copy[keyPath[0]];
  }
  return copy;
}

/** Check the edit: `after` parses, every value but `keyPath` is unchanged, and keyPath is `want` (undefined: absent). */
function verify(parse: Parse, before: string, after: string, keyPath: string[], want: unknown, file: string): string {
  let a: Toml;
  try {
    a = parse(after);
  } catch {
    throw new MemError(`cannot edit ${file} safely (its layout is not one mem can change by a line edit); nothing was changed`, { hint: `edit it by hand: ${keyPath.join('.')}` });
  }
  const b = parse(before);
  let got: unknown = a;
  for (const k of keyPath) got = got && typeof got === 'object' ? (got as Toml)[k] : undefined;
  if (!same(without(a, keyPath), without(b, keyPath)) || !same(got, want)) {
    throw new MemError(`cannot edit ${file} safely (the edit would change other settings); nothing was changed`, { hint: `edit it by hand: ${keyPath.join('.')}` });
  }
  return after;
}

/** The line range [from, to] of a top-level key's `key = value` (a value may span lines), or null. */
function keyLines(parse: Parse, l: Lines, key: string): [number, number] | null {
  const { lines } = l;
  const end = firstHeader(l);
  const re = new RegExp(`^\\s*(${key}|"${key}"|'${key}')\\s*=`);
  const from = lines.findIndex((line, i) => i < end && l.top[i] && re.test(line));
  if (from < 0) return null;
  for (let to = from; to < end; to++) {
    try {
      if (key in parse(lines.slice(from, to + 1).join('\n').replace(/\r$/, ''))) return [from, to];
    } catch {
      // the value goes on
    }
  }
  return null;
}

export type EditAction = 'created' | 'added' | 'updated' | 'unchanged' | 'removed' | 'absent';

/**
 * What removing mem's lines left: null (no file) when nothing is left of a file that ended with a
 * line break, which is how mem writes a file it creates; an empty file it found stays one (mem
 * keeps a missing final line break missing, so that file never got one).
 */
function removed(before: string, after: string): string | null {
  return after === '' && before.endsWith('\n') ? null : after;
}

/**
 * Remove lines [from, to) of `lines`. When they run to the end of a file with no final line
 * break, the line break mem put before them goes too: the `\r` of a CRLF one would be left.
 */
function cutLines(lines: string[], from: number, to: number): void {
  const toEnd = to === lines.length;
  lines.splice(from, to - from);
  if (toEnd && from > 0) lines[from - 1] = lines[from - 1].replace(/\r$/, '');
}

/**
 * `text` with the top-level `notify` set to `want` (null: removed; the text is null when the
 * file then goes). A notify that is not mem's (`mine` says) is never replaced: a clear error instead.
 */
export function editNotify(parse: Parse, text: string, file: string, want: string[], mine: (v: unknown) => boolean): { text: string; action: EditAction };
export function editNotify(parse: Parse, text: string, file: string, want: null, mine: (v: unknown) => boolean): { text: string | null; action: EditAction };
export function editNotify(parse: Parse, text: string, file: string, want: string[] | null, mine: (v: unknown) => boolean): { text: string | null; action: EditAction } {
  const before = parseToml(parse, text, file);
  const cur = before.notify;
  const split_ = split(text);
  const { lines } = split_;
  const eol = eolOf(text);
  const cr = eol === '\r\n' ? '\r' : '';
  if (cur !== undefined && !mine(cur)) {
    if (want === null) return { text, action: 'absent' };
    throw new MemError(`${file} already has a notify program (${JSON.stringify(cur)}); Codex runs only one, and mem does not replace it`, {
      hint: `keep yours and have it also run: ${want.map((w) => (/\s/.test(w) ? `'${w}'` : w)).join(' ')} "$1" (Codex passes the JSON as the last argument), or remove your notify line and run this again`,
    });
  }
  if (want === null) {
    if (cur === undefined) return { text, action: 'absent' };
    const at = keyLines(parse, split_, 'notify');
    if (!at) throw new MemError(`cannot find the notify line of ${file}; nothing was changed`, { hint: 'remove the notify setting by hand' });
    cutLines(lines, at[0], at[1] + 1);
    return { text: removed(text, verify(parse, text, lines.join('\n'), ['notify'], undefined, file)), action: 'removed' };
  }
  if (same(cur, want)) return { text, action: 'unchanged' };
  const line = `notify = ${tomlArray(want)}${cr}`;
  if (cur !== undefined) {
    const at = keyLines(parse, split_, 'notify');
    if (!at) throw new MemError(`cannot find the notify line of ${file}; nothing was changed`, { hint: `set notify = ${tomlArray(want)} by hand` });
    lines.splice(at[0], at[1] - at[0] + 1, line);
    return { text: verify(parse, text, lines.join('\n'), ['notify'], want, file), action: 'updated' };
  }
  // A new top-level key goes after the last top-level line (a key must come before any table).
  const end = firstHeader(split_);
  let k = 0;
  // A line inside a value (a multi-line string's text) is part of that value, whatever it looks like.
  for (let i = 0; i < end; i++) if (!split_.top[i] || (lines[i].trim() !== '' && !lines[i].trim().startsWith('#'))) k = i + 1;
  let out: string;
  // After a last line with no line break, the new line gets none either (nor in an empty file).
  if (text === '') out = line;
  else if (k === lines.length) out = `${text}${eol}${line.replace(/\r$/, '')}`;
  else {
    lines.splice(k, 0, line);
    out = lines.join('\n');
  }
  return { text: verify(parse, text, out, ['notify'], want, file), action: 'added' };
}

const MCP_HEADER = /^\s*\[\s*mcp_servers\s*\.\s*(mem|"mem"|'mem')\s*\]\s*(#.*)?\r?$/;

/**
 * `text` with the table [mcp_servers.mem] set to `want` (null: removed; the text is null when the
 * file then goes); one that is not mem's is never touched.
 */
export function editMcpTable(parse: Parse, text: string, file: string, want: { command: string; args: string[] }, mine: (v: unknown) => boolean): { text: string; action: EditAction };
export function editMcpTable(parse: Parse, text: string, file: string, want: null, mine: (v: unknown) => boolean): { text: string | null; action: EditAction };
export function editMcpTable(parse: Parse, text: string, file: string, want: { command: string; args: string[] } | null, mine: (v: unknown) => boolean): { text: string | null; action: EditAction } {
  const before = parseToml(parse, text, file);
  const servers = before.mcp_servers as Toml | undefined;
  const cur = servers && typeof servers === 'object' ? servers.mem : undefined;
  const eol = eolOf(text);
  const cr = eol === '\r\n' ? '\r' : '';
  if (cur !== undefined && !mine(cur)) {
    if (want === null) return { text, action: 'absent' };
    throw new MemError(`${file} already has an MCP server named "mem" that is not this mem's`, { hint: 'rename or remove [mcp_servers.mem], then run this again' });
  }
  if (cur === undefined && want === null) return { text, action: 'absent' };
  if (want !== null && same(cur, want)) return { text, action: 'unchanged' };
  const block = want === null ? [] : ['[mcp_servers.mem]', `command = ${tomlString(want.command)}`, `args = ${tomlArray(want.args)}`].map((l) => l + cr);
  const split_ = split(text);
  const { lines } = split_;
  if (cur !== undefined) {
    const h = lines.findIndex((l, i) => split_.top[i] && MCP_HEADER.test(l));
    if (h < 0) throw new MemError(`cannot find the [mcp_servers.mem] table of ${file} (is it written inline?); nothing was changed`, { hint: 'edit mcp_servers.mem by hand' });
    let end = lines.findIndex((_, i) => i > h && isHeader(split_, i));
    if (end < 0) end = lines.length;
    while (end - 1 > h && lines[end - 1].trim() === '') end--;
    let from = h;
    // Removing: the blank line mem put before its table (after other text only) goes with it.
    if (want === null && from > 0 && lines[from - 1].trim() === '' && lines.slice(0, from - 1).some((l) => l.trim() !== '')) from--;
    if (want === null) cutLines(lines, from, end);
    else lines.splice(from, end - from, ...block);
    const out = verify(parse, text, lines.join('\n'), ['mcp_servers', 'mem'], want ?? undefined, file);
    return want === null ? { text: removed(text, out), action: 'removed' } : { text: out, action: 'updated' };
  }
  // The table goes at the end, after a blank line when other text comes before it; the file keeps
  // ending as it did: with a line break, or (an empty file too) without one.
  let out = text;
  if (out !== '' && !out.endsWith('\n')) out += eol;
  if (out.trim() !== '') out += eol;
  out += block.map((l) => l.replace(/\r$/, '')).join(eol);
  if (text.endsWith('\n')) out += eol;
  return { text: verify(parse, text, out, ['mcp_servers', 'mem'], want, file), action: 'added' };
}
