// Changing a few entries' headers in a big memory file (reinforce) without parsing all of it:
// each entry is found by its id in the bytes and checked against where the index holds it,
// parsed alone, changed, the file rewritten atomically with every other byte as it was, and the
// entries' index rows updated in place. Any doubt (the index does not match the file byte for
// byte, an entry is not found as indexed) leaves it to the usual whole-file path.

import fs from 'node:fs';
import type { Diagnostic } from '../errors.js';
import { bytesHash, piecesHash } from '../hash.js';
import type { Entry } from '../vault/entry.js';
import { parseMemoryFile, type Block, type ParsedFile } from '../vault/format.js';
import { headerStartsAfter } from '../vault/locate.js';
import { isFailure, MEMORY_FILE_LIMIT, readRegularBytes } from '../vault/read.js';
import type { Vault, VaultFile } from '../vault/vault.js';

/** Files from this size are edited this way. */
export const BIG_EDIT = 1 << 20;

interface Found {
  start: number;
  end: number;
  text: string;
  blocks: Block[];
  rowid: number;
  ordinal: number;
}

function lines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Edit the entries `ids` of `file` with `change` (which sees only their blocks). Null when this
 * path does not apply (a small file, no usable index, an entry not found as indexed): nothing is
 * written, and the caller edits the file the usual way. Otherwise whether the file was written,
 * and a warning when the index then had to be refreshed the usual way and could not be.
 */
export async function editBigFile(vault: Vault, file: VaultFile, ids: ReadonlySet<string>, change: (parsed: ParsedFile) => ParsedFile | null): Promise<{ written: boolean; lag?: string } | null> {
  let size: number;
  try {
    size = fs.statSync(file.abs).size;
  } catch {
    return null;
  }
  if (size < BIG_EDIT || ids.size === 0) return null;
  const { openIndex } = await import('../index/db.js');
  const { applyEntryEdits } = await import('../index/indexer.js');
  const { prepare } = await import('../index/prepare.js');
  const { acquireLock } = await import('../vault/write.js');
  let db;
  try {
    const opened = openIndex(vault.dbPath);
    if (opened.recreated) {
      opened.db.close();
      return null;
    }
    db = opened.db;
  } catch {
    return null;
  }
  try {
    const lock = acquireLock(file.abs, file.path);
    let pieces: Buffer[];
    let before: string;
    let found: Found[];
    const texts: string[] = [];
    try {
      const buf = readRegularBytes(file.abs, MEMORY_FILE_LIMIT);
      if (isFailure(buf)) return null; // the usual path names what is wrong
      const frow = db.prepare('SELECT id, hash, format, error FROM files WHERE path = ?').get(file.path) as { id: number; hash: string | null; format: string | null; error: string | null } | undefined;
      // The index holds exactly these bytes, parsed without an error: its offsets are this file's.
      if (!frow || frow.format !== 'entries' || frow.error !== null || frow.hash !== bytesHash(buf)) return null;
      before = frow.hash;
      const rowsOf = db.prepare('SELECT rowid, ordinal, char_offset, kind FROM entries WHERE file_id = ? AND entry_id = ?');
      const nextOf = db.prepare('SELECT entry_id, char_offset FROM entries WHERE file_id = ? AND ordinal = ?');
      found = [];
      for (const id of ids) {
        const rows = rowsOf.all(frow.id, id) as { rowid: number; ordinal: number; char_offset: number; kind: string }[];
        if (rows.length !== 1 || rows[0].kind !== 'entry') return null;
        const r = rows[0];
        const next = nextOf.get(frow.id, r.ordinal + 1) as { entry_id: string; char_offset: number } | undefined;
        let hit: Found | null = null;
        for (const start of headerStartsAfter(buf, id, 0, 5)) {
          // The entry's text runs to the next indexed entry: the one whose length is the index's.
          const end = next
            ? headerStartsAfter(buf, next.entry_id, start + 1, 3).find((e) => buf.toString('utf8', start, e).length === next.char_offset - r.char_offset)
            : buf.length;
          if (end === undefined) continue;
          const text = buf.toString('utf8', start, end);
          const parsed = parseMemoryFile(text, file.path);
          if (parsed.diagnostics.length > 0 || parsed.conflict || parsed.format !== 'entries' || parsed.preamble !== '' || parsed.blocks[0]?.entry?.id !== id) continue;
          hit = { start, end, text, blocks: parsed.blocks, rowid: r.rowid, ordinal: r.ordinal };
          break;
        }
        if (!hit) return null;
        found.push(hit);
      }
      found.sort((a, b) => a.start - b.start);
      if (found.some((f, k) => k > 0 && found[k - 1].end > f.start)) return null;
      // The blocks as the whole file's parse has them: lines and offsets in the file.
      const lineAt = new Map<number, number>();
      const offsetAt = new Map<number, number>();
      for (const f of found) {
        const r = db.prepare('SELECT line, char_offset FROM entries WHERE rowid = ?').get(f.rowid) as { line: number; char_offset: number };
        lineAt.set(f.rowid, r.line);
        offsetAt.set(f.rowid, r.char_offset);
      }
      const entries: Entry[] = [];
      const blocks = found.flatMap((f) => f.blocks.map((b) => {
        if (!b.entry) return b;
        const entry = { ...b.entry, line: b.entry.line + lineAt.get(f.rowid)! - 1, offset: b.entry.offset + offsetAt.get(f.rowid)!, ordinal: entries.length };
        entries.push(entry);
        return { ...b, entry };
      }));
      const next = change({ format: 'entries', preamble: '', blocks, entries, diagnostics: [] });
      if (!next) return { written: false };
      // A change maps blocks one to one (reinforce does); anything else is a bug, not a fallback
      // (`change` has run and recorded its decisions).
      if (next.blocks.length !== blocks.length) throw new Error('editBigFile: the change added or removed blocks');
      pieces = [];
      let at = 0;
      let k = 0;
      for (const f of found) {
        const text = next.blocks.slice(k, k + f.blocks.length).map((b) => b.raw).join('');
        k += f.blocks.length;
        texts.push(text);
        pieces.push(buf.subarray(at, f.start), Buffer.from(text, 'utf8'));
        at = f.end;
      }
      pieces.push(buf.subarray(at));
      if (found.every((f, i) => f.text === texts[i])) return { written: false };
      // Written from the pieces: joining 100 MB first costs a copy of it.
      lock.replace(pieces);
    } finally {
      lock.release();
    }
    const st = fs.statSync(file.abs);
    const diags: Diagnostic[] = [];
    const edits = found.map((f, i) => ({
      rowid: f.rowid, ordinal: f.ordinal, prep: prepare(file, { text: texts[i] }, diags), charDelta: texts[i].length - f.text.length, lineDelta: lines(texts[i]) - lines(f.text),
    }));
    try {
      if (diags.length === 0 && applyEntryEdits(db, file, before, st, piecesHash(pieces), edits)) return { written: true };
    } catch {
      // A locked or read-only index: the usual refresh below says so, as a warning.
    }
    db.close();
    const { reindex } = await import('./vault-ops.js');
    return { written: true, lag: await reindex(vault, [file]) };
  } finally {
    if (db.open) db.close();
  }
}
