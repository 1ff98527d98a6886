// What the index's parse worker leaves out of its answer in a refresh: the entries that keep their
// index row unchanged come back as their position only, matched to the old rows exactly as the
// main thread matches them (matchRows), and a slimmed answer that the main thread's own match
// does not bear out is caught (slimHolds).
import { describe, expect, it } from 'vitest';
import { matchRows, prepare, slimHolds, slimKept, type Prepared } from '../../src/index/prepare.js';
import type { VaultFile } from '../../src/vault/vault.js';
import { entry } from '../helpers.js';

const FILE = { abs: '/vault/MEMORY.md', path: 'MEMORY.md', isGlobal: false, scope: 'project', learningType: 'task' } as VaultFile;

function prep(text: string): Prepared {
  return prepare(FILE, { text, bom: false } as never, []);
}

/** The index rows a file's entries were written as (what Writer keeps of them). */
function rowsOf(p: Prepared) {
  return p.entries.map((e, i) => ({ entry_id: e.id, fts_hash: p.fts[i].hash, row_hash: p.rows[i].rowHash }));
}

const before = '# Memory\n\n'
  + entry('a', '## [2026-01-02] Procedural: warm the cache\n\nWarm the cache before the deploy.')
  + entry('b', '## [2026-01-03] Procedural: retired one\n\nAn old way of doing it.', { status: 'retired' })
  + entry('c', '## [2026-01-04] Declarative: the queue\n\nThe queue retries three times.', { importance: 0.6 })
  + entry('c', '## [2026-01-04] Declarative: the queue\n\nThe queue retries three times.', { importance: 0.6 })
  + entry('d', '## [2026-01-05] Directive: logs\n\nLogs rotate daily.')
  + entry('e', 'an untitled note about the cache');

describe('slimKept', () => {
  it('keeps only the position of entries whose row stays as it is, and all of the others', () => {
    const old = rowsOf(prep(before));
    // b dropped (its neighbours move), d's metadata changed, a new entry f, e's untitled context changed.
    const after = before.replace(/---\nid: b[\s\S]*?(?=---\nid: c)/, '').replace(/(id: d\n[\s\S]*?)importance: 0.5/, '$1importance: 0.9')
      + entry('f', '## [2026-01-06] Procedural: new\n\nA new learning.');
    const full = prep(after);
    const slim = prep(after);
    slimKept(slim, old);
    // a and both c keep their rows unchanged; d keeps its row with new metadata; e's context changed; f is new.
    expect(slim.slim).toEqual([0, 1, 2]);
    for (const i of slim.slim!) {
      const { id, ordinal, offset, line } = full.entries[i];
      expect(slim.entries[i]).toEqual({ id, ordinal, offset, line });
      expect(slim.fts[i]).toEqual({ context: '', hash: full.fts[i].hash });
      expect(slim.rows[i]).toEqual({ rowHash: full.rows[i].rowHash });
    }
    for (const i of [3, 4, 5]) {
      expect(slim.entries[i]).toEqual(full.entries[i]);
      expect(slim.rows[i]).toEqual(full.rows[i]);
    }
    // Two rows with one id and text: each copy keeps one, first come first served.
    const match = matchRows(old, slim);
    expect([match.get(1), match.get(2)]).toEqual([2, 3]);
    expect(match.has(4)).toBe(false);
    expect(slimHolds(slim, match, old)).toBe(true);
  });

  it('is caught when the rows it was matched against are not the rows of the index', () => {
    const old = rowsOf(prep(before));
    const slim = prep(before);
    slimKept(slim, old);
    expect(slim.slim).toHaveLength(6);
    // Another row hash for one of them, or a row missing: the main thread parses the file itself.
    const changed = old.map((r, k) => (k === 2 ? { ...r, row_hash: 'x' } : r));
    expect(slimHolds(slim, matchRows(changed, slim), changed)).toBe(false);
    const fewer = old.slice(0, 5);
    expect(slimHolds(slim, matchRows(fewer, slim), fewer)).toBe(false);
    // Nothing slimmed holds whatever the rows.
    const none = prep(before);
    slimKept(none, []);
    expect(none.slim).toBeUndefined();
    expect(slimHolds(none, new Map(), [])).toBe(true);
  });
});
