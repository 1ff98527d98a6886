// Reading a transcript for extraction: from a file (JSONL streamed in chunks, so a 200 MB
// session never sits in memory whole) or from stdin; the format detected from the first bytes
// (a longer JSON document from the whole of it) unless forced.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { decodeVaultText, isFailure, specialKind, withRegularFd } from '../vault/read.js';
import type { SecretFinding } from '../secrets/redact.js';
import { detectFormat, detectHead, FORMATS, JsonlLines, JsonlReader, readTranscript, type Transcript, type TranscriptFormat } from './transcript.js';

const CHUNK = 4 << 20;
/** The first bytes of a file, read to tell its format. */
const HEAD = 256 << 10;
/** Whole-document formats (a JSON array, Gemini's session JSON, text) are read at once, up to this size. */
const DOCUMENT_LIMIT = 64 << 20;

export interface LoadedTranscript {
  transcript: Transcript;
  /** Absolute path, or "-" for stdin. */
  path: string;
  /** How the transcript is named in messages. */
  label: string;
  bytes: number;
}

export function checkFormat(f: string | undefined): TranscriptFormat | undefined {
  if (f === undefined) return undefined;
  const norm = f === 'stream-json' ? 'claude' : f === 'json' ? 'messages' : f === 'markdown' || f === 'md' ? 'text' : f;
  if (!(FORMATS as readonly string[]).includes(norm)) {
    throw new MemError(`unknown transcript format "${f}"`, { exitCode: 2, hint: `use one of: ${FORMATS.join(', ')}, stream-json` });
  }
  return norm as TranscriptFormat;
}

function fromText(text: string, label: string, format?: TranscriptFormat): Transcript {
  if (text.trim() === '') throw new MemError('the transcript is empty', { where: { file: label } });
  return readTranscript(text, format);
}

/** `read` on the open file when `abs` is a regular file, else null (see withRegularFd). */
export function withRegularFile<T>(abs: string, read: (fd: number) => T): T | null {
  const r = withRegularFd(abs, (fd) => read(fd));
  return isFailure(r) ? null : r;
}

function notRegular(file: string, st: fs.Stats): MemError {
  return new MemError(`${file} is not a regular file (${specialKind(st)})`, { hint: 'give a transcript file, or "-" to read stdin' });
}

export function loadTranscript(file: string, opts: { format?: TranscriptFormat; cwd: string; stdin?: () => string }): LoadedTranscript {
  if (file === '-') {
    const text = (opts.stdin ?? (() => fs.readFileSync(0, 'utf8')))();
    return { transcript: fromText(text, 'stdin', opts.format), path: '-', label: 'stdin', bytes: Buffer.byteLength(text) };
  }
  const abs = path.resolve(opts.cwd, file);
  let fd: number;
  try {
    // Only regular files: opening a FIFO blocks until a writer comes (forever, in a hook's
    // detached process), and a device never ends. Checked before the open, and again on the
    // open file (non-blocking, so a FIFO swapped in between cannot block it).
    const before = fs.statSync(abs);
    if (before.isDirectory()) throw new MemError('the transcript is a folder, not a file', { where: { file } });
    if (!before.isFile()) throw notRegular(file, before);
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if (err instanceof MemError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new MemError(code === 'ENOENT' ? 'transcript not found' : `cannot read the transcript: ${(err as Error).message}`, { where: { file } });
  }
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) throw new MemError('the transcript is a folder, not a file', { where: { file } });
    if (!st.isFile()) throw notRegular(file, st);
    if (st.size === 0) throw new MemError('the transcript is empty', { where: { file } });
    const head = Buffer.alloc(Math.min(st.size, HEAD));
    fs.readSync(fd, head, 0, head.length, 0);
    if (head.includes(0)) throw new MemError('the transcript is a binary file, not a transcript', { where: { file } });
    // Undefined: a JSON document longer than the head, told once it is read whole (below).
    const format = opts.format ?? (head.length === st.size ? detectFormat(head.toString('utf8')) : detectHead(head.toString('utf8'), () => firstLine(fd)));
    if (format === 'claude' || format === 'codex') {
      const reader = new JsonlReader(format);
      const lines = new JsonlLines((line, cut) => reader.line(line, cut));
      const buf = Buffer.alloc(CHUNK);
      let pos = 0;
      for (;;) {
        const n = fs.readSync(fd, buf, 0, CHUNK, pos);
        if (n === 0) break;
        pos += n;
        lines.push(buf.subarray(0, n));
      }
      lines.end();
      return { transcript: reader.result(), path: abs, label: file, bytes: pos };
    }
    if (st.size > DOCUMENT_LIMIT) {
      throw new MemError(`the transcript is ${Math.round(st.size / 2 ** 20)} MB; ${format ?? 'JSON'} documents over ${DOCUMENT_LIMIT / 2 ** 20} MB are not read`, { where: { file }, hint: 'JSONL transcripts (Claude Code, Codex) of any size are streamed' });
    }
    const all = Buffer.alloc(st.size);
    fs.readSync(fd, all, 0, st.size, 0);
    const decoded = decodeVaultText(all);
    if ('error' in decoded) throw new MemError(decoded.error, { where: { file, line: decoded.line } });
    return { transcript: fromText(decoded.text, file, format), path: abs, label: file, bytes: st.size };
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's first line that is not blank, as JsonlLines passes it on: long strings cut, null when still too long. */
function firstLine(fd: number): string | null {
  let first: string | null | undefined;
  const lines = new JsonlLines((line) => {
    if (first === undefined && (line === null || line.trim() !== '')) first = line;
  });
  const buf = Buffer.alloc(CHUNK);
  for (let pos = 0; first === undefined; ) {
    const n = fs.readSync(fd, buf, 0, CHUNK, pos);
    if (n === 0) {
      lines.end();
      break;
    }
    pos += n;
    lines.push(buf.subarray(0, n));
  }
  return first ?? null;
}

/**
 * The transcript with every message's text redacted (secrets/redact.ts): what mem may show a
 * model, segment into episodes or quote in a note. The same transcript comes back when there is
 * nothing to redact.
 */
export async function redactTranscript(loaded: LoadedTranscript, known: string[] = []): Promise<{ loaded: LoadedTranscript; findings: SecretFinding[] }> {
  const { redactTexts } = await import('../secrets/redact.js');
  const messages = loaded.transcript.messages;
  const { texts, findings } = await redactTexts(messages.map((m) => m.text), known);
  if (findings.length === 0) return { loaded, findings };
  return {
    loaded: { ...loaded, transcript: { ...loaded.transcript, messages: messages.map((m, i) => (texts[i] === m.text ? m : { ...m, text: texts[i] })) } },
    findings,
  };
}
