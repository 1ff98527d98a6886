import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rebuildIndex } from '../../src/index/indexer.js';
import { openIndex } from '../../src/index/db.js';
import { withIndex } from '../../src/index/open.js';
import { appendEntries, renderNewEntry, withHeaderForm } from '../../src/vault/edit.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';
import { indexRows } from '../index-rows.js';

afterEach(cleanup);

/** Every indexed row of the vault, in file order, without the rowids a refresh may renumber. */
function snapshot(dbPath: string) {
  // The FTS rows, through what they are found by: each entry's own words and its context's.
  return indexRows(dbPath, (db) => db.prepare("SELECT e.entry_id, e.ordinal FROM entries_fts f JOIN entries e ON e.rowid = f.rowid WHERE entries_fts MATCH 'context : (vpn OR tail OR ledger)' ORDER BY e.ordinal").all());
}

/** Entries in the big file: over 1 MB through long titled bodies (indexing time goes by entries, not bytes). */
const BIG_N = 900;
const DETAIL = ' Check the runbook, the dashboards and the on-call channel before and after it.'.repeat(50);

/** Untitled one-line entries between titled ones: their context comes from their neighbours. */
function start(big: boolean, form: 'yaml' | 'comment' = 'yaml'): string {
  let text = '# Memory\n\n';
  const n = big ? BIG_N : 12;
  for (let i = 0; i < n; i++) {
    const e = i % 3 === 0 ? entry(`e${i}`, `## [2026-01-0${1 + (i % 9)}] Procedural: step ${i} of the deploy\n\nThe deploy step ${i} needs the vpn.${big ? DETAIL : ''}`) : entry(`e${i}`, `note ${i} about the ledger`);
    text += withHeaderForm(e, form);
  }
  return text;
}

describe('refreshing a file that grew at its end', () => {
  const cases = [['small', false, false, 'yaml'], ['over 1 MB (native hash)', true, false, 'yaml'], ['BOM and CRLF', false, true, 'yaml'], ['comment headers, over 1 MB', true, false, 'comment'], ['comment headers, CRLF', false, true, 'comment']] as const;
  for (const [label, big, crlf, form] of cases) {
    it(`gives the rows a full rebuild gives, parsing only the end (${label})`, async () => {
      const v = tempVault();
      v.write('MEMORY.md', crlf ? `\ufeff${start(big, form).replace(/\n/g, '\r\n')}` : start(big, form));
      const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
      await withIndex(vault, {}, () => undefined);
      const abs = path.join(v.root, 'MEMORY.md');
      if (big) expect(fs.statSync(abs).size).toBeGreaterThan(1 << 20);
      // A mark in the first row, which only a parse of the whole file would put right: it stays
      // when the refresh reads the end alone.
      const db = openIndex(vault.dbPath).db;
      db.prepare("UPDATE entries SET title = 'untouched', row_hash = 'stale' WHERE ordinal = 0").run();
      db.close();

      // An untitled entry's neighbours change (its context), the last entry's body grows, new entries come.
      const nl = crlf ? '\r\n' : '\n';
      fs.appendFileSync(abs, `a line that extends the last entry, about the tail${nl}${nl}`);
      appendEntries(abs, 'MEMORY.md', [renderNewEntry({ title: 'The ledger needs a lock', body: 'Take the ledger lock before the tail job.', date: '2026-02-01' }).text]);
      fs.appendFileSync(abs, `${withHeaderForm(entry('u1', 'a bare note about the vpn tail'), form)}${withHeaderForm(entry('u2', 'and one more'), form)}`.replace(/\n/g, nl));
      await withIndex(vault, {}, () => undefined);
      const incremental = snapshot(vault.dbPath);
      expect(incremental.entries[0].title).toBe('untouched');
      expect(incremental.entries[0].row_hash).toBe('stale');

      await rebuildIndex(vault);
      const full = snapshot(vault.dbPath);
      expect(full.entries[0].title).not.toBe('untouched');
      incremental.entries[0].title = full.entries[0].title;
      incremental.entries[0].row_hash = full.entries[0].row_hash;
      expect(incremental).toEqual(full);
      expect(full.files[0].entry_count).toBe(big ? BIG_N + 3 : 15);
    }, 60_000);
  }

  it('parses the whole file when its indexed part changed too', async () => {
    const v = tempVault();
    v.write('MEMORY.md', start(false));
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, () => undefined);
    const abs = path.join(v.root, 'MEMORY.md');
    fs.writeFileSync(abs, `${fs.readFileSync(abs, 'utf8').replace('note 1 about', 'NOTE 1 ABOUT')}${entry('u1', 'a new note')}`);
    await withIndex(vault, {}, () => undefined);
    const after = snapshot(vault.dbPath);
    await rebuildIndex(vault);
    expect(after).toEqual(snapshot(vault.dbPath));
    expect(after.entries.find((e: any) => e.entry_id === 'e1').body).toBe('NOTE 1 ABOUT the ledger');
  });
});
