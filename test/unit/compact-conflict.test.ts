// compactFiles and planConsolidation on pairs that read almost the same but state different facts.
import { describe, expect, it } from 'vitest';
import { compactFiles } from '../../src/lifecycle/compact.js';
import { planConsolidation } from '../../src/lifecycle/contradictions.js';
import { parseMemoryFile, serializeFile } from '../../src/vault/format.js';
import { entry } from '../helpers.js';

function compact(text: string) {
  const parsed = parseMemoryFile(text, 'MEMORY.md');
  const r = compactFiles([{ path: 'MEMORY.md', group: 'project', parsed }]);
  const out = r.files.get('MEMORY.md');
  const final = out ? serializeFile(out) : text;
  return { ids: parseMemoryFile(final, 'MEMORY.md').entries.map((e) => e.id), report: r.report, text: final };
}

const LONG = 'for the build, the unit tests, the CI runners and the release scripts of this repository';

describe('compactFiles keeps conflicting near-duplicates apart', () => {
  it('numbers, negation, names: both kept, reported with the reason', () => {
    const cases: [string, string, string][] = [
      [`Use Node 18 ${LONG}.`, `Use Node 20 ${LONG}.`, 'number'],
      [`Use yarn ${LONG}.`, `Don't use yarn ${LONG}.`, 'negation'],
      [`Use yarn ${LONG}.`, `Use pnpm ${LONG}.`, 'name'],
    ];
    for (const [a, b, kind] of cases) {
      const { ids, report, text } = compact(entry('a', a) + entry('b', b));
      expect(ids).toEqual(['a', 'b']);
      expect(report.merges).toEqual([]);
      expect(report.kept).toMatchObject([{ a: { id: 'a' }, b: { id: 'b' }, kind }]);
      expect(text).toBe(entry('a', a) + entry('b', b));
    }
  });
  it('many copies of two conflicting facts: each fact keeps one survivor', () => {
    let text = '';
    for (let i = 0; i < 30; i++) text += entry(`x${i}`, `Use Node ${i % 2 ? 20 : 18} ${LONG}${i % 3 ? '.' : '!'}`);
    const { ids, report } = compact(text);
    expect(ids).toHaveLength(2);
    expect(report.merges).toHaveLength(2);
    const again = compact(compact(text).text);
    expect(again.report.merges).toEqual([]);
  });
  it('a third entry close to both never merges the two, even when it is the longest', () => {
    const tail = 'to install packages for the web app, the docs site, the CLI tools and the shared component library.';
    for (const vague of ['Use it', 'Use the package manager of the README']) {
      const once = compact(entry('y', `Use yarn ${tail}`, { importance: 0.9 }) + entry('n', `Use npm ${tail}`, { importance: 0.8 }) + entry('v', `${vague} ${tail}`));
      expect(once.ids).toEqual(['y', 'n', 'v']);
      expect(once.report.kept).toMatchObject([{ a: { id: 'y' }, b: { id: 'n' }, kind: 'name' }]);
      expect(compact(once.text).text).toBe(once.text);
    }
  });
  it('a chain of entries never joins two conflicting ends', () => {
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa';
    // a ~ b ~ c ~ d, each step one word added or dropped; a and d differ in a number.
    const a = `Port 5432 ${words}`;
    const b = `Port 5432 ${words} quebec`;
    const c = `Port ${words} quebec`;
    const d = `Port 6543 ${words} quebec`;
    const once = compact(entry('a', a) + entry('b', b) + entry('c', c) + entry('d', d));
    const bodies = parseMemoryFile(once.text, 'MEMORY.md').entries.map((e) => e.body).join('\n');
    expect(bodies).toContain('5432');
    expect(bodies).toContain('6543');
    expect(compact(once.text).text).toBe(once.text);
  });
  it('plain duplicates still merge, beside a conflicting one that stays', () => {
    const { ids } = compact(entry('a', `Use Node 18 ${LONG}.`, { importance: 0.9 }) + entry('b', `use node 18 ${LONG.toUpperCase()}!`) + entry('c', `Use   Node 18\n${LONG}`)
      + entry('d', `Use Node 20 ${LONG}.`));
    expect(ids).toEqual(['a', 'd']);
  });
});

describe('planConsolidation on near-duplicates', () => {
  const items = (text: string) => parseMemoryFile(text, 'M.md').entries.map((e) => ({ path: 'M.md', entry: e, group: 'project' }));
  it('same date: a flag naming both, nothing to apply', () => {
    const d = planConsolidation(items(entry('a', `Use yarn ${LONG}.`, { created_at: '2026-11-20' }) + entry('b', `Never use yarn ${LONG}.`, { created_at: '2026-11-20' })), new Set());
    expect(d).toMatchObject([{ action: 'flag', id: 'a', by: 'b', kind: 'negation' }]);
    expect(d[0].reason).toMatch(/^negation: "never" in one only; same date/);
  });
  it('timestamps on the same day tell which is newer', () => {
    const d = planConsolidation(items(entry('late', `Use Node 20 ${LONG}.`, { created_at: '2026-11-20T15:00:00Z' }) + entry('early', `Use Node 18 ${LONG}.`, { created_at: '2026-11-20T09:00:00Z' })), new Set());
    expect(d).toMatchObject([{ action: 'decay', id: 'early', by: 'late', kind: 'number', reason: 'differ in a number: 18 vs 20' }]);
  });
  it('a name swapped on different days: flagged, older first, never decayed', () => {
    const d = planConsolidation(items(entry('new', `Use pnpm ${LONG}.`, { created_at: '2026-11-20' }) + entry('old', `Use yarn ${LONG}.`, { created_at: '2026-10-01' })), new Set());
    expect(d).toMatchObject([{ action: 'flag', id: 'old', by: 'new', kind: 'name', importance_after: 0.5 }]);
    expect(d[0].reason).toMatch(/^differ in a name: yarn vs pnpm; another name may be a replacement or a second thing: review by hand$/);
  });
  it('short statements that differ only in a name, a number or a negation', () => {
    const d = planConsolidation(items(entry('a', 'Use yarn for installs.', { created_at: '2026-11-01' }) + entry('b', 'Use pnpm for installs.', { created_at: '2026-11-02' })
      + entry('c', 'Builds need 4 cores.', { created_at: '2026-11-01' }) + entry('d', 'Builds need 8 cores.', { created_at: '2026-11-02' })
      + entry('e', 'Cache the lockfile.', { created_at: '2026-11-20' }) + entry('f', 'Never cache the lockfile.', { created_at: '2026-11-20' })), new Set());
    expect(d.map((x) => [x.action, x.id, x.by, x.kind])).toEqual(expect.arrayContaining([['flag', 'a', 'b', 'name'], ['decay', 'c', 'd', 'number'], ['flag', 'e', 'f', 'negation']]));
    expect(d).toHaveLength(3);
  });
  it('a pair already settled by superseded_by is not flagged again; an unsettled one is', () => {
    const d = planConsolidation(items(entry('a', `Use yarn ${LONG}.`, { created_at: '2026-11-20', superseded_by: 'b' }) + entry('b', `Never use yarn ${LONG}.`, { created_at: '2026-11-20' })
      + entry('c', 'Run the schema migrations on 2 workers in staging, then on the replicas, then on the primary database.', { created_at: '2026-11-20' })
      + entry('d', 'Run the schema migrations on 4 workers in staging, then on the replicas, then on the primary database.', { created_at: '2026-11-20' })), new Set());
    expect(d).toMatchObject([{ action: 'flag', id: 'c', by: 'd', reason: 'differ in a number: 2 vs 4; same date, newer unknown: review by hand' }]);
  });
  it('true duplicates are no conflict; a same-day name swap is', () => {
    const d = planConsolidation(items(entry('a', `Use Node 18 ${LONG}.`) + entry('b', `use node 18 ${LONG}`)
      + entry('c', `Deploy with helm ${LONG}.`) + entry('d', `Deploy with kustomize ${LONG}.`)), new Set());
    expect(d).toMatchObject([{ action: 'flag', id: 'c', by: 'd', kind: 'name' }]);
  });
});
