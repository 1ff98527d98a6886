// Surgical edits of a JSON (or JSON-with-comments) settings file: a parser that keeps every
// value's position, and edits that splice text in or out, so every byte mem does not own —
// key order, indentation, line endings, comments, how arrays are wrapped — stays as it was.
// Removing takes out exactly what adding put in: a container mem created goes with its last
// element, one that was there before (even empty) stays as it was.

import { MemError } from '../../errors.js';

export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: Member[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'string' | 'number' | 'literal'; start: number; end: number };

export interface Member {
  key: string;
  /** Where the member starts (its key) and ends (its value's end). */
  start: number;
  end: number;
  value: JsonNode;
}

export interface JsonDoc {
  text: string;
  root: JsonNode;
  comments: boolean;
}

class ParseError extends Error {}

/** Parse `text` (no BOM) keeping positions. Comments only with `comments` (Gemini's JSONC); no trailing commas, no duplicate keys. */
export function parseJsonc(text: string, opts: { comments?: boolean } = {}): JsonDoc {
  let i = 0;
  let sawComment = false;
  const fail = (what: string): never => {
    const line = text.slice(0, i).split('\n').length;
    throw new ParseError(`${what} at line ${line}`);
  };
  const ws = (): void => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
        if (!opts.comments) fail('a comment (not JSON)');
        sawComment = true;
        if (text[i + 1] === '/') {
          while (i < text.length && text[i] !== '\n') i++;
        } else {
          const close = text.indexOf('*/', i + 2);
          if (close < 0) fail('an unclosed comment');
          i = close + 2;
        }
      } else return;
    }
  };
  const str = (): JsonNode => {
    const start = i;
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined || c === '\n') fail('an unterminated string');
      if (c === '\\') i += 2;
      else if (c === '"') break;
      else i++;
    }
    i++;
    try {
      JSON.parse(text.slice(start, i));
    } catch {
      fail('a bad string');
    }
    return { kind: 'string', start, end: i };
  };
  // Containers are parsed with an explicit stack, not recursion: valid JSON nested thousands of
  // levels deep (JSON.parse reads it) is read, never mistaken for invalid text.
  type Frame = { node: Extract<JsonNode, { kind: 'object' | 'array' }>; seen?: Set<string>; key?: { key: string; start: number } };
  const scalar = (): JsonNode => {
    const start = i;
    if (text[i] === '"') return str();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail('a value was expected');
    i += m![0].length;
    return { kind: /^[tfn]/.test(m![0]) ? 'literal' : 'number', start, end: i };
  };
  /** After an object's `{` or `,`: its next key and `:`, recorded on the frame. */
  const memberKey = (f: Frame): void => {
    ws();
    if (text[i] !== '"') fail('a key was expected');
    const k = str();
    const key = JSON.parse(text.slice(k.start, k.end)) as string;
    if (f.seen!.has(key)) fail(`a duplicate key "${key}"`);
    f.seen!.add(key);
    ws();
    if (text[i] !== ':') fail('":" was expected');
    i++;
    f.key = { key, start: k.start };
  };
  const value = (): JsonNode => {
    const stack: Frame[] = [];
    for (;;) {
      ws();
      const start = i;
      let done: JsonNode | null = null;
      if (text[i] === '{') {
        i++;
        const f: Frame = { node: { kind: 'object', start, end: -1, members: [] }, seen: new Set() };
        ws();
        if (text[i] === '}') {
          f.node.end = ++i;
          done = f.node;
        } else {
          memberKey(f);
          stack.push(f);
          continue;
        }
      } else if (text[i] === '[') {
        i++;
        const f: Frame = { node: { kind: 'array', start, end: -1, items: [] } };
        ws();
        if (text[i] === ']') {
          f.node.end = ++i;
          done = f.node;
        } else {
          stack.push(f);
          continue;
        }
      } else done = scalar();
      // A value is complete: hand it to the containers it closes, innermost first.
      for (;;) {
        const f = stack[stack.length - 1];
        if (!f) return done;
        if (f.node.kind === 'object') f.node.members.push({ key: f.key!.key, start: f.key!.start, end: done.end, value: done });
        else f.node.items.push(done);
        ws();
        const close = f.node.kind === 'object' ? '}' : ']';
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === close) fail('a trailing comma');
          if (f.node.kind === 'object') memberKey(f);
          break;
        }
        if (text[i] === close) {
          f.node.end = ++i;
          stack.pop();
          done = f.node;
          continue;
        }
        fail(`"," or "${close}" was expected`);
      }
    }
  };
  try {
    const root = value();
    ws();
    if (i < text.length) fail('text after the end');
    return { text, root, comments: sawComment };
  } catch (err) {
    if (err instanceof ParseError) throw new MemError(err.message);
    throw err;
  }
}

/**
 * The plain value of a node (objects keep their key order). JSON.parse reads the node's text
 * (comments blanked first), so depth costs no recursion here; a `__proto__` key is an own
 * property, as JSON.parse makes it.
 */
export function valueOf(doc: JsonDoc, node: JsonNode): unknown {
  const t = doc.text.slice(node.start, node.end);
  return JSON.parse(doc.comments ? withoutComments(t) : t);
}

/** `text` with each comment replaced by spaces (strings left alone). */
function withoutComments(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) => (m.startsWith('"') ? m : m.replace(/[^\n]/g, ' ')));
}

export function member(node: JsonNode | undefined, key: string): Member | undefined {
  return node?.kind === 'object' ? node.members.find((m) => m.key === key) : undefined;
}

// ---- formatting ------------------------------------------------------------------------------

export interface Style {
  eol: string;
  unit: string;
}

/** The file's line ending and indentation unit (2 spaces when it has none to copy). */
export function styleOf(text: string): Style {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let unit = '';
  for (const line of text.split('\n')) {
    const m = /^([ \t]+)\S/.exec(line);
    if (!m) continue;
    if (m[1].startsWith('\t')) {
      unit = '\t';
      break;
    }
    if (unit === '' || m[1].length < unit.length) unit = m[1];
  }
  return { eol, unit: unit || '  ' };
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** The whitespace a line starts with. */
function indentAt(text: string, pos: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, pos)))![0];
}

function multiline(text: string, node: JsonNode): boolean {
  return text.slice(node.start, node.end).includes('\n');
}

/** `value` as text for a place indented by `indent`: pretty in a multi-line file, compact on one line. */
export function render(value: unknown, style: Style, indent: string, pretty: boolean): string {
  if (!pretty) return compact(value);
  return JSON.stringify(value, null, style.unit).split('\n').join(style.eol + indent);
}

function compact(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(compact).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${compact(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

function splice(text: string, start: number, end: number, insert: string): string {
  return text.slice(0, start) + insert + text.slice(end);
}

// ---- edits -----------------------------------------------------------------------------------

/**
 * Add `key: value` at the end of the object `obj` (text in, text out). `fresh`: `obj` is the `{}`
 * a new file starts from, written out one member per line rather than kept on its line.
 */
export function addMember(doc: JsonDoc, obj: JsonNode, key: string, value: unknown, opts: { fresh?: boolean } = {}): string {
  if (obj.kind !== 'object') throw new Error('not an object');
  return addElement(doc, obj, obj.members, (indent, pretty) => `${JSON.stringify(key)}: ${render(value, styleOf(doc.text), indent, pretty)}`, opts.fresh === true);
}

/** Add `value` at the end of the array `arr`. */
export function addItem(doc: JsonDoc, arr: JsonNode, value: unknown): string {
  if (arr.kind !== 'array') throw new Error('not an array');
  return addElement(doc, arr, arr.items, (indent, pretty) => render(value, styleOf(doc.text), indent, pretty), false);
}

function addElement(doc: JsonDoc, container: JsonNode, elems: { start: number; end: number }[], text: (indent: string, pretty: boolean) => string, fresh: boolean): string {
  const t = doc.text;
  const style = styleOf(t);
  const last = elems[elems.length - 1];
  if (last && !multiline(t, container)) {
    // A container written on one line stays on one line.
    return splice(t, last.end, last.end, `, ${text('', false)}`);
  }
  if (last) {
    const indent = indentAt(t, last.start);
    return splice(t, last.end, last.end, `,${style.eol}${indent}${text(indent, true)}`);
  }
  if (fresh) {
    const outer = indentAt(t, container.start);
    const indent = outer + style.unit;
    return splice(t, container.start + 1, container.end - 1, `${style.eol}${indent}${text(indent, true)}${style.eol}${outer}`);
  }
  // A container that was there, empty, gets the element on its own line, a space inside each
  // bracket, and keeps whatever stood between its brackets (spaces, line breaks, comments) after
  // it: `{}` becomes `{ "k": … }`. That shape is no container's that mem creates (`{"k": …}`, or
  // one element per line), so removeElement gives back `{}` and keeps it (see createdShape).
  return splice(t, container.start + 1, container.start + 1, ` ${text('', false)} `);
}

function hasComment(text: string): boolean {
  return /\/[/*]/.test(text.replace(/"(?:[^"\\\n]|\\.)*"/g, '""'));
}

/**
 * Remove element `index` of an object's members or an array's items: the exact reverse of
 * addElement for an element it added, so an install and an uninstall give back the same bytes.
 * A comment next to the element is kept.
 */
export function removeElement(doc: JsonDoc, container: JsonNode, index: number): string {
  const t = doc.text;
  const elems = elementsOf(container);
  const el = elems[index];
  const prev = elems[index - 1];
  const next = elems[index + 1];
  if (!prev && !next) {
    // The element addElement put into a container that was empty: what stood there comes back.
    if (t.slice(container.start + 1, el.start) === ' ' && t[el.end] === ' ') return splice(t, container.start + 1, el.end + 1, '');
    const inner = t.slice(container.start + 1, container.end - 1);
    if (!hasComment(inner)) return splice(t, container.start + 1, container.end - 1, '');
    return splice(t, el.start, el.end, '');
  }
  if (next) {
    const between = t.slice(el.end, next.start);
    if (!hasComment(between)) {
      // The element, its comma and the space up to the next one.
      const from = prev || t.slice(lineStart(t, el.start), el.start).trim() !== '' ? el.start : lineStart(t, el.start);
      const to = from === el.start ? next.start : lineStart(t, next.start);
      return splice(t, from, to, '');
    }
    const comma = t.indexOf(',', el.end);
    return splice(t, el.start, comma + 1, '');
  }
  const between = t.slice(prev!.end, el.end);
  if (!hasComment(between)) return splice(t, prev!.end, el.end, '');
  const comma = t.indexOf(',', prev!.end);
  return splice(splice(t, el.start, el.end, ''), comma, comma + 1, '');
}

function elementsOf(container: JsonNode): { start: number; end: number }[] {
  return container.kind === 'object' ? container.members : container.kind === 'array' ? container.items : [];
}

/**
 * Whether `container` holds one element, laid out as addMember and addItem write a container
 * they create: on one line with nothing else inside the brackets (`{"k": …}`), or the element
 * alone between a line break after the opening bracket and one before the closing bracket. A
 * container that was there before mem added to it never has this shape while it holds mem's
 * element (addElement writes `{ "k": … }` into an empty one).
 */
function createdShape(doc: JsonDoc, container: JsonNode): boolean {
  const elems = elementsOf(container);
  if (elems.length !== 1) return false;
  const before = doc.text.slice(container.start + 1, elems[0].start);
  const after = doc.text.slice(elems[0].end, container.end - 1);
  return (before === '' && after === '') || (/^\r?\n[ \t]*$/.test(before) && /^\r?\n[ \t]*$/.test(after));
}

/**
 * What a document that is one member written out in a new file (`{`, the member on its own
 * lines, `}` at the start of a line, then nothing but whitespace) leaves when the member goes:
 * null (no file) when a line break follows, as in every file mem creates; otherwise the
 * whitespace, the empty or blank file mem started from. Undefined for any other document.
 */
function newFileRest(doc: JsonDoc): string | null | undefined {
  const root = doc.root;
  if (root.start !== 0 || !createdShape(doc, root)) return undefined;
  const el = elementsOf(root)[0];
  if (!/^\r?\n[ \t]+$/.test(doc.text.slice(1, el.start)) || !/^\r?\n$/.test(doc.text.slice(el.end, root.end - 1))) return undefined;
  const rest = doc.text.slice(root.end);
  if (rest.trim() !== '') return undefined;
  return rest === '\n' ? null : rest;
}

export interface Step {
  /** A container on the way down from the root (the first step's is the root, for the file to go with it). */
  container: JsonNode;
  /** The index, in it, of the next step's container, or of the element to remove. */
  index: number;
}

/**
 * Remove the element at the end of `path`, with each container above it that holds nothing
 * else and has the shape of one mem created (createdShape), up to the root; a container that was
 * there before stays, even empty, and gets back its bytes. Null when what goes is all a file mem
 * created held: the file goes too.
 */
export function removePath(doc: JsonDoc, path: Step[]): string | null {
  let k = path.length - 1;
  while (k > 0 && createdShape(doc, path[k].container)) k--;
  const { container, index } = path[k];
  if (container === doc.root && elementsOf(container).length === 1) {
    const rest = newFileRest(doc);
    if (rest !== undefined) return rest;
  }
  return removeElement(doc, container, index);
}

/** Replace a node's text with `value`, rendered for where it stands. */
export function replaceNode(doc: JsonDoc, node: JsonNode, value: unknown): string {
  const t = doc.text;
  return splice(t, node.start, node.end, render(value, styleOf(t), indentAt(t, node.start), multiline(t, node)));
}
