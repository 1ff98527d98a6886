// Reading a vault file as text: UTF-8 only; a BOM is dropped from the text but reported, so a
// rewrite can put it back. Binary files and invalid UTF-8 are refused with a reason (and the line
// of the first bad byte). A text file with a stray NUL is text: the parser skips the one entry.

import fs from 'node:fs';

/** `gone`: the file is not there (any more): removed after it was listed, or a link to nothing. */
export type ReadResult = { text: string; bom?: boolean } | { error: string; line?: number; gone?: boolean };

/** Read a vault file as UTF-8 text, refusing binary files and invalid UTF-8 with a reason. */
export function readVaultText(abs: string): ReadResult {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { error: 'the file is gone (removed, or a link to nothing)', gone: true };
    return { error: code === 'EACCES' ? 'file is not readable (permission denied)' : `cannot read file: ${(err as Error).message}` };
  }
  return decodeVaultText(buf);
}

/**
 * Whether a file is binary, judged on the whole file: more than one byte in 32 is a control byte
 * that text does not hold (NUL, and the C0 controls other than tab, line feed, vertical tab, form
 * feed, carriage return and escape). A real binary file (an image, UTF-16, a core dump) is full of
 * them, while a text file that picked up a stray NUL has one or two and must not lose every
 * other entry for it. A file without a NUL is text here (the native search for one is the fast
 * path); invalid UTF-8 is caught by the decoder.
 */
export function looksBinary(buf: Buffer): boolean {
  if (buf.indexOf(0) === -1) return false;
  let n = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c < 0x20 && (c <= 8 || (c >= 0x0e && c !== 0x1b))) n++;
  }
  return n * 32 > buf.length;
}

export function decodeVaultText(buf: Buffer): ReadResult {
  if (looksBinary(buf)) return { error: 'binary file (contains NUL bytes)' };
  try {
    let text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf);
    const bom = text.charCodeAt(0) === 0xfeff;
    if (bom) text = text.slice(1);
    return bom ? { text, bom } : { text };
  } catch {
    return { error: 'not valid UTF-8', line: invalidUtf8Line(buf) };
  }
}

function invalidUtf8Line(buf: Buffer): number {
  let lo = 0;
  let hi = buf.length;
  const dec = () => new TextDecoder('utf-8', { fatal: true });
  // Binary search for the shortest prefix that fails to decode (streaming keeps partial sequences).
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    try {
      dec().decode(buf.subarray(0, mid + 1), { stream: true });
      lo = mid + 1;
    } catch {
      hi = mid;
    }
  }
  let line = 1;
  for (let i = 0; i < lo && i < buf.length; i++) if (buf[i] === 10) line++;
  return line;
}
