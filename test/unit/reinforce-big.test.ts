import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openIndex } from '../../src/index/db.js';
import { rebuildIndex } from '../../src/index/indexer.js';
import { withIndex } from '../../src/index/open.js';
import { BIG_EDIT } from '../../src/lifecycle/big-file-edit.js';
import { reinforceFile } from '../../src/lifecycle/reinforce.js';
import { reinforceIds } from '../../src/lifecycle/reinforce-ids.js';
import { inRun, settingsFrom } from '../../src/run.js';
import { editFiles, withHeaderForm } from '../../src/vault/edit.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';
import { indexRows } from '../index-rows.js';

afterEach(cleanup);

/** Long bodies: the file is over 1 MB with a few hundred entries (indexing time goes by entries, not bytes). */
const DETAIL = ' Check the runbook, the dashboards and the on-call channel before and after it.'.repeat(20);

/** Over 1 MB: titled and untitled entries, some with comments and quoting a rewrite must keep. */
function bigText(crlf: boolean, form: 'yaml' | 'comment' = 'yaml'): string {
  let text = '\ufeff# Memory\n\n';
  for (let i = 0; i < 700; i++) {
    text += i % 4 !== 1
      ? withHeaderForm(entry(`e${i}`, `## [2026-01-02] Procedural: step ${i}\n\nThe deploy step ${i} needs the vpn.${DETAIL}`, { last_reinforced: '2026-01-02' }), form)
      : form === 'comment'
        ? `<!-- mem { id: "e${i}",  type: procedural, importance: .25, reinforcement_count: 9, last_reinforced: '2026-01-01' } -->\nnote ${i} about the ledger — café.${DETAIL}\n\n`
        : `---\nid: "e${i}"   # quoted, with a comment\ntype: procedural\nimportance: 0x1\nreinforcement_count: 9\nlast_reinforced: '2026-01-01'\n---\nnote ${i} about the ledger — café.${DETAIL}\n\n`;
  }
  return crlf ? text.replace(/\n/g, '\r\n') : text;
}

async function setUp(crlf: boolean, form: 'yaml' | 'comment' = 'yaml') {
  const v = tempVault();
  v.write('MEMORY.md', bigText(crlf, form));
  expect(fs.statSync(v.path('MEMORY.md')).size).toBeGreaterThan(BIG_EDIT);
  const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
  await withIndex(vault, {}, () => undefined);
  return { v, vault, abs: path.join(v.root, 'MEMORY.md') };
}

describe('reinforcing entries of a big file', () => {
  const cases = [['LF', false, false, 'yaml'], ['CRLF, with a review (a header line added)', true, true, 'yaml'], ['comment headers, CRLF, with a review', true, true, 'comment']] as const;
  for (const [label, crlf, review, form] of cases) {
    it(`writes what the whole-file path writes and indexes what a rebuild indexes (${label})`, async () => {
      const ids = ['e5', 'e301', 'e698'];
      const opts = { today: '2026-03-01', ...(review && { review: { now: Date.parse('2026-03-01T10:00:00Z') } }) };
      // The reference: the same vault reinforced through the whole-file edit.
      const ref = await setUp(crlf, form);
      await editFiles([{ abs: ref.abs, path: 'MEMORY.md', change: (p) => reinforceFile(p, 'MEMORY.md', new Set(ids), opts).file }]);

      const { vault, abs } = await setUp(crlf, form);
      const db = openIndex(vault.dbPath).db;
      // A mark only a parse of the whole file would put right.
      db.prepare("UPDATE entries SET row_hash = 'stale' WHERE ordinal = 0").run();
      db.close();
      const ino = fs.statSync(abs).ino;
      const r = await reinforceIds(vault, { typed: ids }, opts);
      expect(r.lag).toBeUndefined();
      expect(r.decisions.map((d) => [d.id, d.action, d.before, d.after])).toEqual([['e5', 'reinforced', 9, 10], ['e301', 'reinforced', 9, 10], ['e698', 'reinforced', 0, 1]]);
      const lines = bigText(crlf, form).split('\n');
      expect(r.decisions.find((d) => d.id === 'e301')!.line).toBe(form === 'comment' ? lines.findIndex((l) => l.includes('id: "e301"')) + 1 : lines.findIndex((l) => l.startsWith('id: "e301"')));
      if (form === 'comment') {
        // Only the changed values changed, in place: the spacing and quoting of the rest stay.
        const after = fs.readFileSync(abs, 'utf8').split('\r\n').find((l) => l.includes('id: "e301"'));
        expect(after).toMatch(/^<!-- mem \{ id: "e301",  type: procedural, importance: \.25, reinforcement_count: 10, last_reinforced: '2026-03-01', fsrs: \{.*\} \} -->$/);
      }
      expect(fs.readFileSync(abs).equals(fs.readFileSync(ref.abs))).toBe(true);
      expect(fs.statSync(abs).ino).not.toBe(ino); // replaced atomically, as every rewrite is

      const incremental = indexRows(vault.dbPath);
      expect(incremental.entries[0].row_hash).toBe('stale');
      await rebuildIndex(vault);
      const full = indexRows(vault.dbPath);
      incremental.entries[0].row_hash = full.entries[0].row_hash;
      expect(incremental).toEqual(full);
    }, 120_000);
  }

  it('leaves a file whose index is out of date to the whole-file path', async () => {
    const { vault, abs } = await setUp(false);
    // Changed behind the index's back: its offsets are not this file's any more.
    fs.writeFileSync(abs, fs.readFileSync(abs, 'utf8').replace('The deploy step 2 needs', 'The deploy step 2 (and 3) needs'));
    const r = await reinforceIds(vault, { typed: ['e301'] }, { today: '2026-03-01' });
    expect(r.decisions.map((d) => d.action)).toEqual(['reinforced']);
    expect(indexRows(vault.dbPath).entries.find((e: any) => e.entry_id === 'e301').reinforcement_count).toBe(10);
    expect(fs.readFileSync(abs, 'utf8')).toContain('The deploy step 2 (and 3) needs');
  }, 120_000);

  it('keeps the edit when the index cannot be written then, with a warning', async () => {
    const { vault, abs } = await setUp(false);
    const other = openIndex(vault.dbPath).db;
    other.exec('BEGIN EXCLUSIVE');
    // Held for the whole call: a short busy timeout gives up as SQLite's default 5 s would, sooner.
    try {
      const r = await inRun(settingsFrom({ MEM_BUSY_TIMEOUT_MS: '100' }), () => reinforceIds(vault, { typed: ['e301'] }, { today: '2026-03-01' }));
      expect(r.decisions.map((d) => d.action)).toEqual(['reinforced']);
      expect(r.lag).toMatch(/index/);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(fs.readFileSync(abs, 'utf8')).toMatch(/id: "e301"   # quoted, with a comment\ntype: procedural\nimportance: 0x1\nreinforcement_count: 10\nlast_reinforced: '2026-03-01'/);
  }, 120_000);
});
