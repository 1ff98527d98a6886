// Reading a vault file as text: UTF-8 only, BOM dropped; binary files and invalid UTF-8 are
// refused with a reason (and the line of the first bad byte).

import fs from 'node:fs';

export type ReadResult = { text: string } | { error: string; line?: number };

/** Read a vault file as UTF-8 text, refusing binary files and invalid UTF-8 with a reason. */
export function readVaultText(abs: string): ReadResult {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { error: code === 'EACCES' ? 'file is not readable (permission denied)' : `cannot read file: ${(err as Error).message}` };
  }
  return decodeVaultText(buf);
}

export function decodeVaultText(buf: Buffer): ReadResult {
  if (buf.subarray(0, 8192).includes(0)) return { error: 'binary file (contains NUL bytes)' };
  try {
    let text = new TextDecoder('utf-8', { fatal: true }).decode(buf);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { text };
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

