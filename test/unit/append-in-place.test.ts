import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { APPEND_IN_PLACE, appendEntries, renderNewEntry } from '../../src/vault/edit.js';
import { parseMemoryFile } from '../../src/vault/format.js';
import { withFileLock } from '../../src/vault/write.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);

/** A memory file just over the in-place size: entries with multi-byte text, in `nl` style. */
function bigFile(nl: '\n' | '\r\n', bom: boolean, end = ''): string {
  let text = bom ? '\ufeff# Memory\n\n' : '# Memory\n\n';
  for (let i = 0, size = 0; size < APPEND_IN_PLACE + 4096; i++) {
    const e = `---\nid: e${i}\ntype: procedural\n---\n## [2026-01-01] Procedural: step ${i} — café ✓ 😀\n\nThe deploy step ${i} needs the vpn.\n\n`;
    text += e;
    size += Buffer.byteLength(e);
  }
  return (text.trimEnd() + '\n' + end).replace(/\n/g, nl);
}

const newEntry = renderNewEntry({ id: 'new-one', title: 'The ledger needs a lock', body: 'Take the ledger lock first.', date: '2026-02-01' }).text;

describe('appending to a big memory file', () => {
  for (const [label, nl, bom, end] of [['LF', '\n', false, ''], ['CRLF with a BOM', '\r\n', true, ''], ['no line break at the end', '\n', false, 'last words']] as const) {
    it(`writes the entry in place at the end, every byte before it kept (${label})`, () => {
      const d = tempDir();
      const file = path.join(d, 'MEMORY.md');
      const before = bigFile(nl, bom, end);
      fs.writeFileSync(file, before);
      const ino = fs.statSync(file).ino;
      appendEntries(file, 'MEMORY.md', [newEntry]);
      const after = fs.readFileSync(file, 'utf8');
      // The same file (not a copy renamed over it), grown at its end only.
      expect(fs.statSync(file).ino).toBe(ino);
      expect(after.startsWith(before)).toBe(true);
      const added = after.slice(before.length);
      const lead = before.endsWith(`${nl}${nl}`) ? '' : before.endsWith(nl) ? nl : `${nl}${nl}`;
      expect(added).toBe(`${lead}${newEntry.replace(/\n/g, nl)}`);
      const parsed = parseMemoryFile(bom ? after.slice(1) : after, 'MEMORY.md');
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.entries.at(-1)!.id).toBe('new-one');
      expect(fs.readdirSync(d)).toEqual(['MEMORY.md']);
    });
  }

  it('refuses a big file with conflict markers as a small one is refused, writing nothing', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    const text = bigFile('\n', false).replace('id: e5\n', 'id: e5\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> other\n');
    fs.writeFileSync(file, text);
    expect(() => appendEntries(file, 'MEMORY.md', [newEntry])).toThrow(/unresolved git conflict markers/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a big file with invalid UTF-8 deep inside, writing nothing', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    const buf = Buffer.from(bigFile('\n', false));
    buf[Math.floor(buf.length * 0.7)] = 0xff;
    fs.writeFileSync(file, buf);
    expect(() => appendEntries(file, 'MEMORY.md', [newEntry])).toThrow(/not valid UTF-8/);
    expect(fs.readFileSync(file).equals(buf)).toBe(true);
  });
});

describe('an append its writer did not finish', () => {
  /** What a writer killed mid-append leaves: its lock holding the append record, part of the bytes written. */
  function leftOver(file: string, bytes: Buffer, written: number): void {
    const size = fs.statSync(file).size;
    fs.writeFileSync(path.join(path.dirname(file), `.${path.basename(file)}.lock`), `999999999\nappend ${size} ${bytes.length} ${zlib.crc32(bytes)}\n`);
    fs.appendFileSync(file, bytes.subarray(0, written));
  }

  it('is cut off by the next writer, which then writes its own', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    const text = bigFile('\n', false);
    fs.writeFileSync(file, text);
    leftOver(file, Buffer.from(`\n${newEntry.replace('new-one', 'half')}`), 40);
    expect(fs.statSync(file).size).toBe(Buffer.byteLength(text) + 40);
    appendEntries(file, 'MEMORY.md', [newEntry]);
    const after = fs.readFileSync(file, 'utf8');
    expect(after).toBe(`${text}\n${newEntry}`);
    expect(fs.readdirSync(d)).toEqual(['MEMORY.md']);
  });

  it('is kept when all of it was written', () => {
    const d = tempDir();
    const file = path.join(d, 'MEMORY.md');
    const text = bigFile('\n', false);
    fs.writeFileSync(file, text);
    const whole = Buffer.from(`\n${newEntry}`);
    leftOver(file, whole, whole.length);
    withFileLock(file, () => undefined, 'MEMORY.md');
    expect(fs.readFileSync(file, 'utf8')).toBe(`${text}\n${newEntry}`);
    expect(fs.readdirSync(d)).toEqual(['MEMORY.md']);
  });
});
