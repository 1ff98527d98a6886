// `mem stats`'s counts by field come from one grouped pass over the covering index
// entries_learning_status, and equal a count per field over the table.
import { afterEach, describe, expect, it } from 'vitest';
import { withIndex } from '../../src/index/open.js';
import { countsByField } from '../../src/index/stats.js';
import { openVault } from '../../src/vault/vault.js';
import { cleanup, entry, tempVault } from '../helpers.js';

afterEach(cleanup);

describe('countsByField', () => {
  it('equals a GROUP BY per field, most first and ties by value, from the index alone', async () => {
    const v = tempVault();
    const types = ['procedural', 'corrective', 'directive', 'declarative'];
    v.write('MEMORY.md', Array.from({ length: 40 }, (_, i) => entry(`p${i}`, `Project learning ${i}.`, { type: types[i % 4], ...(i % 7 === 0 ? { status: 'retired' } : {}) })).join(''));
    v.write('institutional.md', Array.from({ length: 5 }, (_, i) => entry(`n${i}`, `Norm ${i}.`, { type: 'directive' })).join(''));
    v.write('docs/guide.md', '# Guide\n\n## Setup\nInstall it.\n\n## Use\nRun it.\n');
    v.write('.mem/config.yaml', 'include: [docs/**/*.md]\n');
    const vault = await openVault({ root: v.root, env: { MEM_HOME: v.home } });
    await withIndex(vault, {}, (ix) => {
      const by = countsByField(ix.db);
      for (const field of ['scope', 'type', 'status', 'learning_type', 'kind'] as const) {
        const rows = ix.db.prepare(`SELECT ${field} AS k, count(*) AS n FROM entries GROUP BY ${field}`).all() as { k: string; n: number }[];
        rows.sort((a, b) => b.n - a.n || (a.k < b.k ? -1 : 1));
        expect(Object.entries(by[field])).toEqual(rows.map((r) => [r.k, r.n]));
      }
      expect(Object.keys(by.kind).length).toBeGreaterThan(1);
      expect(by.status.retired).toBe(6);
      const plan = (ix.db.prepare('EXPLAIN QUERY PLAN SELECT learning_type, kind, status, scope, type, count(*) FROM entries GROUP BY learning_type, kind, status, scope, type').all() as { detail: string }[]).map((r) => r.detail).join('\n');
      expect(plan).toMatch(/COVERING INDEX entries_learning_status/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    });
  });
});
