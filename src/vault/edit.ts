// Changing memory files: append a new entry, or rewrite some entries of a file, always under
// the file's lock with an atomic write. Blocks that are not touched keep their exact bytes, and
// the file keeps its BOM and its line-ending style (new text is written in the file's style).

import { createHash, randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { DEFAULTS, KEY_ORDER } from './entry.js';
import { commentHeaderLine, parseMemoryFile, serializeFile, type EntryHeaderSetting, type HeaderForm, type ParsedFile } from './format.js';
import { formatFrontmatter, parseFrontmatter } from './frontmatter.js';
import { firstMarkerLine } from './gitmarkers.js';
import { isFailure, readVaultText, withRegularFd } from './read.js';
import { hasUnsafeControl, newlineOf, safeLine, safeText, withNewline } from './safetext.js';
import { acquireLock, acquireLockAsync, replaceAll, withFileLock, type FileLock } from './write.js';

export interface NewEntry {
  id?: string;
  type?: string;
  domain?: string;
  importance?: number;
  phase?: string;
  status?: string;
  title: string;
  body: string;
  date: string;
  extra?: Record<string, unknown>;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * The text of a new entry: frontmatter in mem's key order, then a dated heading and the body.
 * Every writer's new entry goes through here, so this is where text from outside is made safe
 * for a memory file (safetext.ts): no NUL or other control character, one kind of line break.
 * Header values (tags, a session id) are kept as given: formatValue escapes any control
 * character inside double quotes, so they read back as themselves and never appear raw.
 */
export function renderNewEntry(e: NewEntry): { id: string; text: string } {
  const id = e.id ?? randomUUID();
  const type = e.type ?? DEFAULTS.type;
  const meta: Record<string, unknown> = {
    id,
    type,
    domain: e.domain ?? DEFAULTS.domain,
    importance: e.importance ?? DEFAULTS.importance,
    phase: e.phase ?? DEFAULTS.phase,
    status: e.status ?? DEFAULTS.status,
    reinforcement_count: 0,
    last_reinforced: e.date,
    created_at: e.date,
  };
  for (const [k, v] of Object.entries(e.extra ?? {})) if (!(KEY_ORDER as readonly string[]).includes(k) && v !== undefined) meta[k] = v;
  const title = safeLine(e.title);
  const prefix = title.toLowerCase().startsWith(`${type}:`) ? '' : `${capitalize(type)}: `;
  // A body line that is only `---` could open an entry header; `* * *` is the same rule in markdown.
  // A line git would read as a conflict marker (`<<<<<<< HEAD`, an example in a code block) gets
  // a leading space, which markdown ignores: mem must not write a file it then refuses to touch.
  // A line that reads as a comment-form header (`<!-- mem {…} -->`) gets a leading space too.
  const body = safeText(e.body).replace(/^[ \t]*---+[ \t]*$/gm, '* * *').trim().replace(/^(?=([<>|=])\1{6}(?:[ \t]|$)|<!--[ \t]*mem[ \t])/gm, ' ');
  const text = `---\n${formatFrontmatter(meta)}---\n## [${safeLine(e.date)}] ${prefix}${title}\n${body ? `\n${body}\n` : ''}`;
  // The id and the fixed fields come from mem itself; a control character here is a bug, and
  // must not reach the file.
  if (hasUnsafeControl(text)) throw new Error(`renderNewEntry: unsafe control character in entry ${JSON.stringify(id)}`);
  return { id, text };
}

/**
 * The header form of the last entry in `text` (a file, or its last part), as the parser reads it
 * (a `---` rule in a body is no header), or null when it has none.
 */
export function lastHeaderForm(text: string): HeaderForm | null {
  const blocks = parseMemoryFile(text, 'MEMORY.md').blocks;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const h = blocks[i].header;
    if (h) return h.form ?? 'yaml';
  }
  return null;
}

/** The form new entries get in a file whose text (or last part) is `text` (null: a new file). */
export function headerFormFor(setting: EntryHeaderSetting | undefined, text: string | null): HeaderForm {
  if (setting === 'yaml' || setting === 'comment') return setting;
  return (text === null ? null : lastHeaderForm(text)) ?? 'comment';
}

/**
 * A new entry's text (as renderNewEntry writes it: `---` lines around its YAML) with its header
 * in `form`. The YAML is mem's own, so it reads back exactly, in its key order.
 */
export function withHeaderForm(text: string, form: HeaderForm): string {
  if (form === 'yaml' || !text.startsWith('---\n')) return text;
  const close = text.indexOf('\n---\n', 3);
  if (close < 0) return text;
  const parsed = parseFrontmatter(text.slice(4, close + 1));
  if (!parsed.ok) return text;
  return `${commentHeaderLine(parsed.data)}\n${text.slice(close + 5)}`;
}

/** A file's text as read for a write: without its BOM, which goes back on when it is written. */
interface FileText {
  text: string;
  bom: boolean;
  nl: '\n' | '\r\n';
}

function readForWrite(abs: string, display: string): FileText | null {
  if (!fs.existsSync(abs)) return null;
  const r = readVaultText(abs);
  if ('error' in r) throw new MemError(`${r.error}; not writing to it`, { where: { file: display, line: r.line } });
  // Every writer reads here under the lock: a file left mid-merge is never built on, whatever the
  // command (an entry added to it, or one rewritten, would land in one side of a hunk or be lost).
  const marker = firstMarkerLine(r.text);
  if (marker !== null) {
    throw new MemError(`${display} has unresolved git conflict markers`, {
      where: { file: display, line: marker },
      hint: 'resolve the conflict first (git mergetool, or mem resolve), then run the command again; nothing was written',
    });
  }
  // The line breaks only when asked (an append): a rewrite of every file (a compaction) has no
  // use for them, and counting them took a second or so per pass over a million entries.
  const text = r.text;
  let nl: '\n' | '\r\n' | undefined;
  return {
    text,
    bom: r.bom === true,
    get nl() {
      return (nl ??= newlineOf(text));
    },
  };
}

/** The bytes to write for `out`, the new text of a file read as `f` (its BOM put back). */
function encoded(f: FileText | null, out: string): string {
  return f?.bom ? `\ufeff${out}` : out;
}

/**
 * `texts` (mem's LF text) appended to a file's text, a blank line apart, in the file's style, their
 * headers in `form`.
 */
function appended(current: FileText | null, preamble: string, texts: string[], form: HeaderForm = 'yaml'): string {
  const nl = current?.nl ?? '\n';
  let out = current?.text ?? preamble;
  for (const raw of texts) {
    const t = withHeaderForm(raw, form);
    if (out !== '' && !out.endsWith('\n')) out += nl;
    if (out !== '' && !/\n(\r?\n)$/.test(out)) out += nl;
    out += withNewline(t, nl);
  }
  return out;
}

/** Files from this size get entries appended in place (see FileLock.append), not rewritten whole. */
export const APPEND_IN_PLACE = 1 << 20;
const SCAN_CHUNK = 4 << 20;
/** A file's line-ending style is judged on this much of its beginning and of its end, when it is big. */
const STYLE_SAMPLE = 1 << 20;

/**
 * What an append in place needs of a big file, read in chunks: that it is text mem may write to
 * (no NUL, valid UTF-8, no `<<<<<<<` or `>>>>>>>` anywhere: each needs a look at every byte, done
 * natively), its BOM, its line-ending style (of its first and last megabyte) and its last bytes.
 * Null for a small file, and for one that fails a check: readForWrite then reads it whole and
 * gives the exact reason, or finds it fine after all (a `<<<<<<<` inside a sentence).
 */
function scanForAppend(abs: string): AppendScan | null {
  // Only a regular file, opened without blocking: a FIFO in its place must not hold the lock
  // forever (readForWrite then refuses it by name).
  const r = withRegularFd(abs, (fd, st) => scanOpen(fd, st.size));
  return isFailure(r) ? null : r;
}

type AppendScan = { size: number; nl: '\n' | '\r\n'; tail: string; lastPart: string };

/** How much of a big file's end is looked at for the form of its last header. */
const FORM_SAMPLE = 64 << 10;

function scanOpen(fd: number, size: number): AppendScan | null {
  if (size < APPEND_IN_PLACE) return null;
  const buf = Buffer.allocUnsafe(SCAN_CHUNK + 16);
  let carry = 0;
  for (let pos = 0; pos < size; ) {
    const n = fs.readSync(fd, buf, carry, Math.min(SCAN_CHUNK, size - pos), pos);
    if (n <= 0) return null;
    pos += n;
    const len = carry + n;
    const view = buf.subarray(0, len);
    if (view.indexOf(0) !== -1 || view.indexOf('<<<<<<<') !== -1 || view.indexOf('>>>>>>>') !== -1) return null;
    // UTF-8 up to the last whole character; the bytes after it, and the last 6 (a marker cut in
    // two), go on at the start of the next chunk, from a character's first byte.
    let cut = len;
    if (pos < size) {
      let k = len - 1;
      while (k > len - 4 && (view[k] & 0xc0) === 0x80) k--;
      if (view[k] >= 0xc0) cut = k;
    }
    if (!isUtf8(view.subarray(0, cut))) return null;
    let from = Math.min(cut, len - 6);
    while (from > 0 && (view[from] & 0xc0) === 0x80) from--;
    carry = len - from;
    buf.copy(buf, 0, from, len);
  }
  let crlf = 0;
  let lf = 0;
  const count = (at: number, length: number) => {
    const b = Buffer.allocUnsafe(length);
    fs.readSync(fd, b, 0, length, at);
    for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) {
      if (i > 0 && b[i - 1] === 13) crlf++;
      else lf++;
    }
  };
  count(0, Math.min(size, STYLE_SAMPLE));
  const rest = Math.max(STYLE_SAMPLE, size - STYLE_SAMPLE);
  count(rest, size - rest);
  const last = Buffer.alloc(3);
  fs.readSync(fd, last, 0, 3, size - 3);
  const part = Buffer.alloc(Math.min(size, FORM_SAMPLE));
  fs.readSync(fd, part, 0, part.length, size - part.length);
  return { size, nl: crlf > lf ? '\r\n' : '\n', tail: last.toString('latin1'), lastPart: part.toString('utf8') };
}

/**
 * Append entries to a memory file (creating it with `preamble` if needed). A big file gets them
 * written in place at its end (FileLock.append); a smaller one is replaced whole, atomically.
 */
export function appendEntries(abs: string, display: string, texts: string[], preamble = '', entryHeader?: EntryHeaderSetting): void {
  withFileLock(abs, (lock) => {
    const big = scanForAppend(abs);
    if (big) {
      // Only the file's last bytes decide the separators: appended() looks at nothing else.
      const text = appended({ text: big.tail, bom: false, nl: big.nl }, '', texts, headerFormFor(entryHeader, big.lastPart)).slice(big.tail.length);
      lock.append(Buffer.from(text, 'utf8'), big.size);
      return;
    }
    const current = readForWrite(abs, display);
    lock.replace(encoded(current, appended(current, preamble, texts, headerFormFor(entryHeader, current?.text ?? null))));
  }, display);
}

/**
 * Rewrite a memory file under its lock. `change` gets the parsed file and returns the new one
 * (or null for "no change"). Refuses a file with malformed entries when `strict` is set.
 */
export function rewriteFile(abs: string, display: string, change: (file: ParsedFile) => ParsedFile | null, opts: { strict?: boolean } = {}): boolean {
  return withFileLock(abs, (lock) => {
    const read = readForWrite(abs, display);
    if (read === null) throw new MemError('file not found', { where: { file: display } });
    const text = read.text;
    const parsed = parseMemoryFile(text, display);
    if (opts.strict && parsed.diagnostics.length > 0) {
      const d = parsed.diagnostics[0];
      throw new MemError(`${d.message}; fix it before mem rewrites this file`, { where: { file: display, line: d.line } });
    }
    const next = change(parsed);
    if (!next) return false;
    const out = serializeFile(next);
    if (out === text) return false;
    lock.replace(encoded(read, out));
    return true;
  }, display);
}

/**
 * Rewrite a file's text under its lock, with a change that may wait (null: no change). The text is
 * read under the lock, as every writer reads it (no BOM, which goes back on; a file mid-merge is
 * refused), and whatever `change` leaves alone keeps its bytes.
 */
export async function rewriteTextAsync(abs: string, display: string, change: (text: string) => Promise<string | null>): Promise<boolean> {
  const lock = await acquireLockAsync(abs, display);
  try {
    const read = readForWrite(abs, display);
    if (read === null) throw new MemError('file not found', { where: { file: display } });
    const out = await change(read.text);
    if (out === null || out === read.text) return false;
    lock.replace(encoded(read, out));
    return true;
  } finally {
    lock.release();
  }
}

export interface FileEdit {
  abs: string;
  /** The file's name in messages. */
  path: string;
  change: (file: ParsedFile) => ParsedFile | null;
}

/** Edit several memory files as one step (see editFilesTogether). */
export function editFiles(edits: FileEdit[]): Promise<string[]> {
  return editFilesTogether(edits, (parsed) => parsed.map((p, i) => edits[i].change(p)));
}

/**
 * Edit several memory files as one step: take every lock first, read and parse every file, let
 * `plan` see them all at once, and only then write. A file that is missing, unreadable or has a
 * malformed entry stops the whole step before anything is written, so the vault is never left
 * half-changed. Returns the paths written.
 *
 * With `dryRun` the same reading, checks and plan run, but no lock is taken and nothing is
 * written (a CI check may run on a read-only checkout); it returns the paths that would change.
 */
export async function editFilesTogether(targets: { abs: string; path: string }[], plan: (parsed: ParsedFile[]) => (ParsedFile | null)[], opts: { hint?: string; dryRun?: boolean } = {}): Promise<string[]> {
  const order = targets.map((_, i) => i).sort((a, b) => (targets[a].abs < targets[b].abs ? -1 : targets[a].abs > targets[b].abs ? 1 : 0));
  const locks: FileLock[] = [];
  // Locks are taken in path order (so two writers never wait on each other in a circle), one
  // after another; each file is read and parsed as soon as its lock is held, while the next lock
  // file is being created on the thread pool.
  let taking: Promise<FileLock> | null = null;
  const take = (k: number) => (k < order.length && !opts.dryRun ? acquireLockAsync(targets[order[k]].abs, targets[order[k]].path) : null);
  try {
    const texts: FileText[] = [];
    const parsed: ParsedFile[] = [];
    taking = take(0);
    for (let k = 0; k < order.length; k++) {
      const i = order[k];
      if (taking) locks[i] = await taking;
      taking = take(k + 1);
      const t = targets[i];
      const text = readForWrite(t.abs, t.path);
      if (text === null) throw new MemError('file not found', { where: { file: t.path } });
      const p = parseMemoryFile(text.text, t.path);
      if (p.diagnostics.length > 0) {
        const d = p.diagnostics[0];
        throw new MemError(`${d.message}; fix it before mem rewrites this file`, { where: { file: t.path, line: d.line }, hint: opts.hint });
      }
      texts[i] = text;
      parsed[i] = p;
    }
    const next = plan(parsed);
    const planned: { i: number; text: string }[] = [];
    next.forEach((n, i) => {
      if (!n) return;
      const out = serializeFile(n);
      if (out !== texts[i].text) planned.push({ i, text: encoded(texts[i], out) });
    });
    // Files that lose entries are renamed into place last: the renames are one after another, and
    // a kill between them must leave an entry twice (a merge's survivor written, the entry it
    // absorbed still in its old file; the next compaction merges them again), never nowhere.
    const loses = (i: number) => {
      const now = new Set(next[i]!.entries.map((e) => e.id));
      return parsed[i].entries.some((e) => !now.has(e.id));
    };
    planned.sort((a, b) => Number(loses(a.i)) - Number(loses(b.i)));
    if (opts.dryRun) return planned.map((p) => targets[p.i].path);
    await replaceAll(planned.map((p) => ({ lock: locks[p.i], text: p.text })));
    return planned.map((p) => targets[p.i].path);
  } finally {
    // A lock still being taken when something failed is released once it is held.
    if (taking) await taking.then((l) => l.release(), () => undefined);
    for (const i of [...order].reverse()) locks[i]?.release();
  }
}

/**
 * editFilesTogether for edits too big to hold at once (a whole vault): the same locks, checks and
 * order of renames, but nothing kept of a file between passes except a digest. Every file is
 * locked, read and checked first (in path order), and `scan` sees each parse; `plan` then reads
 * files again through `read` (the same text, or the run stops: a file changed under its lock by
 * something that is not mem; `text` reads and checks the text alone, for a pass that parses
 * only parts of a file) and yields each changed file's new version, which is staged (written
 * beside the file, not yet renamed) as it comes. Returns the paths written, as editFilesTogether.
 *
 * With `offload`, a worker thread shares the first pass of a big vault (from OFFLOAD_MIN bytes):
 * it reads and checks the files it is sent as firstRead does here, and answers with what
 * `offload.summarize` would make of each parse; `offload.take` gets every file's answer in file
 * order, in `scan`'s stead. Messages: {i, abs, path, hint} in; {i, digest, result} or {i, error}
 * out, in order.
 */
const SETTLE_CHARS = 192 << 20;

/**
 * Below this much markdown, the first pass stays on one thread: a worker thread takes tens of
 * milliseconds to start and to warm up (measured: slower at 12 MB, even at 29 MB, ahead from about
 * 100k entries, 185 MB).
 */
export const OFFLOAD_MIN = 32 << 20;

/**
 * A file's new version from a pass: as parsed blocks, or as its text (made from the text `text`
 * gave, without a parse of the whole file), with whether it lost an entry id the file held.
 */
export type PassEdit = { fileIdx: number; parsed: ParsedFile } | { fileIdx: number; text: string; loses: boolean };

/** What the first pass of editFilesInPasses has of a file. */
export interface FirstRead {
  text: FileText;
  parsed: ParsedFile;
  /** What the later passes check the file's text against. */
  digest: string;
}

function digestOf(t: FileText): string {
  return createHash('sha256').update(t.text).digest('base64') + (t.bom ? '+bom' : '');
}

/** Read, parse and check a file for editFilesInPasses; throws a MemError when it cannot be rewritten. */
export function firstRead(t: { abs: string; path: string }, hint?: string): FirstRead {
  const text = readForWrite(t.abs, t.path);
  if (text === null) throw new MemError('file not found', { where: { file: t.path } });
  const parsed = parseMemoryFile(text.text, t.path);
  if (parsed.diagnostics.length > 0) {
    const d = parsed.diagnostics[0];
    throw new MemError(`${d.message}; fix it before mem rewrites this file`, { where: { file: t.path, line: d.line }, hint });
  }
  return { text, parsed, digest: digestOf(text) };
}

/** What an offloading worker sends back for a file (see editFilesInPasses). */
export type OffloadReply = { i: number; digest: string; result: unknown } | { i: number; error: { message: string; where?: { file?: string; line?: number }; hint?: string; exitCode?: number } };

export interface Offload {
  /** The worker thread's script (an ES module file; see editFilesInPasses for its messages). */
  script: URL;
  /** What the worker answers for a file, made here from its parse: `scan` is take(i, summarize(i, parsed)). */
  summarize: (i: number, parsed: ParsedFile) => unknown;
  /** A file's answer, from the worker or from summarize, taken in file order where `scan` would have been called. */
  take: (i: number, result: unknown) => void;
  /** Told when the worker failed, and its files are read on this thread instead. */
  onFailure?: (err: unknown) => void;
}

/** Whether a worker thread shares the first pass: a big vault of several files, and the worker's script is there. */
function shareable(targets: { abs: string }[], offload: Offload): boolean {
  if (targets.length < 2 || offload.script.protocol !== 'file:' || !fs.existsSync(offload.script)) return false;
  let bytes = 0;
  for (const t of targets) {
    bytes += fs.statSync(t.abs, { throwIfNoEntry: false })?.size ?? 0;
    if (bytes >= OFFLOAD_MIN) return true;
  }
  return false;
}

/** A failure of a file read on this thread, already recorded (see editFilesInPasses). */
const LOCAL = -1;

/** Files sent to the worker and not answered yet, at most (while more than a few are left). */
const OFFLOAD_IN_FLIGHT = 2;

export async function editFilesInPasses(targets: { abs: string; path: string }[], scan: (i: number, parsed: ParsedFile) => void,
  plan: (read: (i: number) => ParsedFile, text: (i: number) => string) => Iterable<PassEdit>,
  opts: { hint?: string; dryRun?: boolean; settle?: () => void; offload?: Offload } = {}): Promise<string[]> {
  // Every SETTLE_CHARS of text read, `settle` may collect the garbage of the files read so far
  // (their texts are big strings, freed only by a full collection).
  let readChars = 0;
  const counted = (t: FileText) => {
    readChars += t.text.length;
    if (readChars >= SETTLE_CHARS && opts.settle) {
      readChars = 0;
      opts.settle();
    }
    return t;
  };
  const order = targets.map((_, i) => i).sort((a, b) => (targets[a].abs < targets[b].abs ? -1 : targets[a].abs > targets[b].abs ? 1 : 0));
  const locks: FileLock[] = [];
  const digests: string[] = [];
  let taking: Promise<FileLock> | null = null;
  const take = (k: number) => (k < order.length && !opts.dryRun ? acquireLockAsync(targets[order[k]].abs, targets[order[k]].path) : null);
  const staged: { i: number; loses: boolean; text?: string }[] = [];
  let helper: PassWorker | null = null;
  try {
    taking = take(0);
    for (let k = 0; k < order.length; k++) {
      const i = order[k];
      if (taking) locks[i] = await taking;
      taking = take(k + 1);
    }
    // Read in the targets' order (the order `scan` may depend on); of several files that cannot
    // be rewritten, the first in path order is the one reported, as editFilesTogether does.
    const rank = new Int32Array(targets.length);
    order.forEach((i, k) => (rank[i] = k));
    // Set from callbacks too: typed so that its checks are not narrowed away.
    let problem = null as { rank: number; err: unknown } | null;
    const fail = (i: number, err: unknown) => {
      if (!problem || rank[i] < problem.rank) problem = { rank: rank[i], err };
    };
    if (opts.offload && shareable(targets, opts.offload)) {
      // Files go to the worker a few at a time, in order, and this thread reads the next file no
      // one has taken while it waits: whichever thread is faster takes more. What each file gives
      // is taken in file order, as without the worker.
      const { summarize, take: taken } = opts.offload;
      helper = await PassWorker.start(opts.offload.script, targets, opts.hint);
      const ready = new Map<number, OffloadReply>();
      const readHere = (i: number) => {
        if (problem && rank[i] > problem.rank) {
          ready.set(i, { i: LOCAL, error: { message: 'skipped' } });
          return;
        }
        try {
          const r = firstRead(targets[i], opts.hint);
          counted(r.text);
          ready.set(i, { i, digest: r.digest, result: summarize(i, r.parsed) });
        } catch (err) {
          fail(i, err);
          ready.set(i, { i: LOCAL, error: { message: 'failed' } });
        }
      };
      // A worker that fails (it cannot start, it ran out of memory) only reads: its files are read
      // here instead, and the run goes on on one thread.
      const lost = (err: unknown) => {
        const { answered, unanswered } = helper!.abandon();
        helper = null;
        opts.offload!.onFailure?.(err);
        for (const r of answered) ready.set(r.i, r);
        for (const i of unanswered) readHere(i);
      };
      const replyOf = (i: number): OffloadReply | undefined => {
        const r = ready.get(i);
        if (r || !helper) return r;
        try {
          return helper.reply(i);
        } catch (err) {
          lost(err);
          return ready.get(i);
        }
      };
      let nextTake = 0;
      let nextFree = 0;
      for (;;) {
        // Two files waiting keep the worker busy while this thread reads one; near the end (or in a
        // vault of a few big files) one, so that this thread is not left with nothing to read.
        while (helper && helper.inFlight < (targets.length - nextFree > 4 ? OFFLOAD_IN_FLIGHT : 1) && nextFree < targets.length) helper.send(nextFree++);
        for (let r = replyOf(nextTake); r !== undefined; r = replyOf(nextTake)) {
          ready.delete(nextTake);
          // A file read here that failed is in `problem` already (or was skipped after one).
          if ('error' in r) {
            if (r.i !== LOCAL) fail(nextTake, new MemError(r.error.message, { where: r.error.where, hint: r.error.hint, exitCode: r.error.exitCode }));
          } else {
            digests[nextTake] = r.digest;
            if (!problem) taken(nextTake, r.result);
          }
          nextTake++;
        }
        if (nextTake === targets.length) break;
        if (nextFree < targets.length) {
          readHere(nextFree++);
          // Let the worker's replies in.
          if (helper) await new Promise((resolve) => setImmediate(resolve));
        } else if (helper) {
          await helper.next().catch(lost);
        }
      }
    } else {
      for (let i = 0; i < targets.length; i++) {
        if (problem && rank[i] > problem.rank) continue;
        try {
          const r = firstRead(targets[i], opts.hint);
          counted(r.text);
          digests[i] = r.digest;
          if (!problem) scan(i, r.parsed);
        } catch (err) {
          fail(i, err);
        }
      }
    }
    await helper?.stop();
    helper = null;
    if (problem) throw problem.err;
    // The last file read, kept for the write that usually follows its read.
    let last: { i: number; text: FileText; parsed: ParsedFile } | null = null;
    // The last text read, for the write that follows a plan's read of it.
    let lastText: { i: number; text: FileText } | null = null;
    const textAgain = (i: number): FileText => {
      if (last?.i === i) return last.text;
      if (lastText?.i === i) return lastText.text;
      const t = targets[i];
      const text = readForWrite(t.abs, t.path);
      if (text === null || digestOf(text) !== digests[i]) {
        throw new MemError(`${t.path} changed while mem was rewriting it; nothing was written`, { where: { file: t.path }, hint: 'run the command again' });
      }
      lastText = { i, text };
      return counted(text);
    };
    const readAgain = (i: number) => {
      if (last?.i === i) return last;
      const text = textAgain(i);
      last = { i, text, parsed: parseMemoryFile(text.text, targets[i].path) };
      return last;
    };
    for (const edit of plan((i) => readAgain(i).parsed, (i) => textAgain(i).text)) {
      const i = edit.fileIdx;
      let cur: FileText;
      let out: string;
      let loses: boolean;
      if ('text' in edit) {
        cur = textAgain(i);
        out = edit.text;
        if (out === cur.text) continue;
        loses = edit.loses;
      } else {
        const again = readAgain(i);
        cur = again.text;
        out = serializeFile(edit.parsed);
        if (out === cur.text) continue;
        // Files that lose entries are renamed into place last (see editFilesTogether).
        const now = new Set(edit.parsed.entries.map((e) => e.id));
        loses = again.parsed.entries.some((e) => !now.has(e.id));
      }
      const bytes = encoded(cur, out);
      if (opts.dryRun) staged.push({ i, loses });
      else if (locks[i].stage(bytes)) staged.push({ i, loses });
      // A file gone since it was read is written whole, after the others (as replaceAll does).
      else staged.push({ i, loses, text: bytes });
    }
    last = null;
    lastText = null;
    staged.sort((a, b) => Number(a.loses) - Number(b.loses));
    if (opts.dryRun) return staged.map((s) => targets[s.i].path);
    const failed = (await Promise.allSettled(staged.filter((s) => s.text === undefined).map((s) => locks[s.i].syncStaged()))).find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    for (const s of staged) if (s.text === undefined) locks[s.i].commitStaged();
    for (const s of staged) if (s.text !== undefined) locks[s.i].replace(s.text);
    return staged.map((s) => targets[s.i].path);
  } finally {
    await helper?.stop();
    if (taking) await taking.then((l) => l.release(), () => undefined);
    for (const i of [...order].reverse()) locks[i]?.release();
  }
}

/** The worker thread of a shared first pass: sends it files and keeps its replies by file. */
class PassWorker {
  private readonly replies = new Map<number, OffloadReply>();
  private failure: Error | null = null;
  private wake: { resolve: () => void; reject: (err: Error) => void } | null = null;
  private sent = 0;
  private answered = 0;
  /** Files sent and not answered yet. */
  private readonly out = new Set<number>();

  private constructor(private readonly worker: import('node:worker_threads').Worker, private readonly targets: { abs: string; path: string }[], private readonly hint: string | undefined) {
    worker.on('message', (r: OffloadReply) => {
      this.answered++;
      this.out.delete(r.i);
      this.replies.set(r.i, r);
      this.wake?.resolve();
      this.wake = null;
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      this.wake?.reject(this.failure);
      this.wake = null;
    };
    worker.on('error', (err: unknown) => fail(err instanceof Error ? err : new Error(String(err))));
    worker.on('exit', (code) => fail(new Error(`it stopped (exit code ${code})`)));
  }

  static async start(script: URL, targets: { abs: string; path: string }[], hint: string | undefined): Promise<PassWorker> {
    // Loaded here: most commands never need it.
    const { Worker } = await import('node:worker_threads');
    return new PassWorker(new Worker(script), targets, hint);
  }

  get inFlight(): number {
    return this.sent - this.answered;
  }

  send(i: number): void {
    this.sent++;
    this.out.add(i);
    this.worker.postMessage({ i, abs: this.targets[i].abs, path: this.targets[i].path, hint: this.hint });
  }

  /** The reply for file `i`, once it came; throws once the worker failed. */
  reply(i: number): OffloadReply | undefined {
    const r = this.replies.get(i);
    if (r) this.replies.delete(i);
    else if (this.failure) throw this.failure;
    return r;
  }

  /** Until the next reply (or the worker's failure). */
  next(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.wake = { resolve, reject }));
  }

  /**
   * After a failure: the answers not taken yet, and the files it was sent and had not answered
   * (in order; they are read again elsewhere). The worker is stopped without waiting for it.
   */
  abandon(): { answered: OffloadReply[]; unanswered: number[] } {
    const answered = [...this.replies.values()];
    this.replies.clear();
    this.worker.removeAllListeners('exit');
    void this.worker.terminate();
    return { answered, unanswered: [...this.out].sort((a, b) => a - b) };
  }

  async stop(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

export interface Append {
  abs: string;
  path: string;
  /** Text a new file starts with. */
  preamble: string;
  texts: string[];
  /** How the new entries' headers are written (`format.entry_header`; default auto). */
  entryHeader?: EntryHeaderSetting;
}

/**
 * Append entries to several files as one step: every lock first, every file read and checked
 * (a malformed entry or an unreadable file stops everything before a byte is written), then
 * each file written atomically. `check` sees the parsed files first and may drop texts (duplicates).
 */
export async function appendTogether(appends: Append[], check?: (parsed: (ParsedFile | null)[]) => void): Promise<string[]> {
  const order = appends.map((_, i) => i).sort((a, b) => (appends[a].abs < appends[b].abs ? -1 : appends[a].abs > appends[b].abs ? 1 : 0));
  const locks: FileLock[] = [];
  try {
    for (const i of order) {
      fs.mkdirSync(path.dirname(appends[i].abs), { recursive: true });
      locks[i] = acquireLock(appends[i].abs, appends[i].path);
    }
    const texts = appends.map((a) => readForWrite(a.abs, a.path));
    const parsed = texts.map((t, i) => {
      if (t === null) return null;
      const p = parseMemoryFile(t.text, appends[i].path);
      if (p.diagnostics.length > 0) {
        const d = p.diagnostics[0];
        throw new MemError(`${d.message}; fix it before mem adds to this file`, { where: { file: appends[i].path, line: d.line }, hint: 'nothing was written; fix the file (mem lint shows every problem) and run the command again' });
      }
      return p;
    });
    check?.(parsed);
    const written: string[] = [];
    const replacing: { lock: FileLock; text: string }[] = [];
    appends.forEach((a, i) => {
      if (a.texts.length === 0) return;
      const form = headerFormFor(a.entryHeader, texts[i]?.text ?? null);
      replacing.push({ lock: locks[i], text: encoded(texts[i], appended(texts[i], a.preamble, a.texts, form)) });
      written.push(a.path);
    });
    await replaceAll(replacing);
    return written;
  } finally {
    for (const i of [...order].reverse()) locks[i]?.release();
  }
}
