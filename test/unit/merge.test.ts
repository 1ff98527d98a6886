import { describe, expect, it } from 'vitest';
import { mergeMemoryFile, splitConflictMarkers } from '../../src/integrations/merge.js';
import { parseMemoryFile } from '../../src/vault/format.js';

const PRE = '# Project memory\n\nLearnings about this project.\n\n';

interface E {
  id: string;
  count?: number;
  last?: string;
  status?: string;
  body?: string;
  tags?: string;
}

function entry(e: E): string {
  return [
    '---',
    `id: ${e.id}`,
    'type: procedural',
    `status: ${e.status ?? 'active'}`,
    `reinforcement_count: ${e.count ?? 0}`,
    `last_reinforced: '${e.last ?? '2026-11-01'}'`,
    "created_at: '2026-11-01'",
    ...(e.tags ? [`tags: [${e.tags}]`] : []),
    '---',
    `## [2026-11-01] Procedural: entry ${e.id}`,
    '',
    e.body ?? `The body of ${e.id}.`,
    '',
  ].join('\n');
}

function file(entries: E[], pre = PRE): string {
  return pre + entries.map(entry).join('\n');
}

const merge = (b: string, o: string, t: string, p = 'MEMORY.md') => mergeMemoryFile(b, o, t, p);
const ids = (text: string) => parseMemoryFile(text, 'MEMORY.md').entries.map((e) => e.id);
const metaOf = (text: string, id: string) => parseMemoryFile(text, 'MEMORY.md').entries.find((e) => e.id === id)!.meta;

describe('mergeMemoryFile: byte stability', () => {
  const base = file([{ id: 'a' }, { id: 'b' }]);
  const changed = file([{ id: 'a', count: 3 }, { id: 'b' }, { id: 'c' }]);
  it('merge(X, X, X) = X, merge(base, ours, base) = ours, merge(base, base, theirs) = theirs', () => {
    for (const x of [base, changed, '', 'plain text\n', '\ufeff' + base, base.replace(/\n/g, '\r\n')]) {
      expect(merge(x, x, x).text).toBe(x);
      expect(merge(base, x, base).text).toBe(x);
      expect(merge(base, base, x).text).toBe(x);
      expect(merge(base, x, x).text).toBe(x);
    }
  });

  it('entries changed on neither side come out byte for byte (odd spacing, comments, key order)', () => {
    const odd = '---\nid:   odd   # a comment\nzeta: 1\nalpha: [x,  y]\nreinforcement_count: 0\n---\nBody with a rule:\n\n---\n\nand more.\n\n\n';
    const b = PRE + odd + entry({ id: 'b' });
    const o = PRE + odd + entry({ id: 'b', count: 1 });
    const t = PRE + odd + entry({ id: 'b' }) + '\n' + entry({ id: 'c' });
    const r = merge(b, o, t);
    expect(r.conflicts).toBe(0);
    expect(r.text.startsWith(PRE + odd)).toBe(true);
    expect(ids(r.text)).toEqual(['odd', 'b', 'c']);
    expect(metaOf(r.text, 'b').reinforcement_count).toBe(1);
  });
});

describe('mergeMemoryFile: rules', () => {
  it('both sides append: ours in its order, then theirs new entries in theirs order', () => {
    const b = file([{ id: 'a' }]);
    const o = file([{ id: 'a' }, { id: 'o1' }, { id: 'o2' }]);
    const t = file([{ id: 'a' }, { id: 't1' }, { id: 't2' }]);
    const r = merge(b, o, t);
    expect(r.conflicts).toBe(0);
    expect(ids(r.text)).toEqual(['a', 'o1', 'o2', 't1', 't2']);
    // Each entry keeps its exact text, a blank line apart.
    expect(r.text).toBe(file([{ id: 'a' }, { id: 'o1' }, { id: 'o2' }, { id: 't1' }, { id: 't2' }]));
  });

  it('counters both sides moved add up from the base; dates take the later, whichever side has it', () => {
    const b = file([{ id: 'a', count: 1, last: '2026-11-01' }, { id: 'b', count: 5 }, { id: 'c', count: 0 }, { id: 'd', count: 3 }]);
    const o = file([{ id: 'a', count: 4, last: '2026-11-03' }, { id: 'b', count: 6, last: '2026-11-09' }, { id: 'c', count: 1, last: '2026-11-04' }, { id: 'd', count: 2 }]);
    const t = file([{ id: 'a', count: 2, last: '2026-11-05' }, { id: 'b', count: 9, last: '2026-11-02' }, { id: 'c', count: 1, last: '2026-11-04' }, { id: 'd', count: 5 }]);
    const r = merge(b, o, t);
    expect(r.conflicts).toBe(0);
    expect(metaOf(r.text, 'a')).toMatchObject({ reinforcement_count: 5, last_reinforced: '2026-11-05' });
    expect(metaOf(r.text, 'b')).toMatchObject({ reinforcement_count: 10, last_reinforced: '2026-11-09' });
    // Both reinforced once from 0: 2, though both wrote 1.
    expect(metaOf(r.text, 'c')).toMatchObject({ reinforcement_count: 2, last_reinforced: '2026-11-04' });
    // Weakened on one side, reinforced twice on the other: 3 - 1 + 2.
    expect(metaOf(r.text, 'd')).toMatchObject({ reinforcement_count: 4 });
  });

  it('counters without a base (the entry added on both sides) take the larger; never below 0', () => {
    const b = file([{ id: 'a', count: 1 }]);
    const r = merge(b, file([{ id: 'a', count: 0 }, { id: 'n', count: 2, tags: 'x' }]), file([{ id: 'a', count: 0 }, { id: 'n', count: 5, tags: 'x' }]));
    expect(r.conflicts).toBe(0);
    expect(metaOf(r.text, 'n').reinforcement_count).toBe(5);
    expect(metaOf(r.text, 'a').reinforcement_count).toBe(0);
  });

  it('FSRS state after reviews on both sides: the later review\'s state, reps and lapses counted from both', () => {
    const withFsrs = (id: string, count: number, fsrs: string) => entry({ id, count }).replace("created_at: '2026-11-01'\n", `created_at: '2026-11-01'\nfsrs: ${fsrs}\n`);
    const b = PRE + withFsrs('a', 1, "{stability: 3, difficulty: 5, last_review: '2026-11-01T10:00:00.000Z', reps: 2, lapses: 1, state: review}");
    const o = PRE + withFsrs('a', 2, "{stability: 7, difficulty: 4.8, last_review: '2026-11-05T10:00:00.000Z', reps: 3, lapses: 1, state: review}");
    const t = PRE + withFsrs('a', 2, "{stability: 1.5, difficulty: 6, last_review: '2026-11-08T10:00:00.000Z', reps: 3, lapses: 2, state: relearning}");
    for (const [x, y] of [[o, t], [t, o]]) {
      const r = merge(b, x, y);
      expect(r.conflicts).toBe(0);
      expect(metaOf(r.text, 'a')).toMatchObject({
        reinforcement_count: 3,
        fsrs: { stability: 1.5, difficulty: 6, last_review: '2026-11-08T10:00:00.000Z', reps: 4, lapses: 2, state: 'relearning' },
      });
    }
  });

  it('a retirement wins over a reinforcement, on either side; the count is the max', () => {
    const b = file([{ id: 'a', count: 1 }]);
    const retired = file([{ id: 'a', count: 1, status: 'retired' }]);
    const reinforced = file([{ id: 'a', count: 3, last: '2026-11-20' }]);
    for (const [o, t] of [[retired, reinforced], [reinforced, retired]]) {
      const r = merge(b, o, t);
      expect(r.conflicts).toBe(0);
      expect(metaOf(r.text, 'a')).toMatchObject({ status: 'retired', reinforcement_count: 3, last_reinforced: '2026-11-20' });
    }
  });

  it('a body edited on one side and reinforced on the other: both changes kept', () => {
    const b = file([{ id: 'a' }, { id: 'b' }]);
    const o = file([{ id: 'a', body: 'A better body.' }, { id: 'b' }]);
    const t = file([{ id: 'a', count: 2 }, { id: 'b' }]);
    for (const [x, y] of [[o, t], [t, o]]) {
      const r = merge(b, x, y);
      expect(r.conflicts).toBe(0);
      expect(r.text).toBe(file([{ id: 'a', body: 'A better body.', count: 2 }, { id: 'b' }]));
    }
  });

  it('deleted on one side and unchanged on the other: deleted; changed on the other: kept', () => {
    const b = file([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    const o = file([{ id: 'a' }, { id: 'c' }]);
    const t = file([{ id: 'a' }, { id: 'b', count: 1 }, { id: 'c' }]);
    expect(ids(merge(b, o, b.replace('a.', 'a!')).text)).toEqual(['a', 'c']);
    const kept = merge(b, o, t);
    expect(kept.conflicts).toBe(0);
    expect(ids(kept.text)).toEqual(['a', 'c', 'b']);
    expect(ids(merge(b, t, o).text)).toEqual(['a', 'b', 'c']);
  });

  it('a body edited differently on both sides: markers around that entry alone, the rest merged', () => {
    const b = file([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    const o = file([{ id: 'a', count: 2 }, { id: 'b', body: 'Ours says this.' }, { id: 'c' }, { id: 'o1' }]);
    const t = file([{ id: 'a' }, { id: 'b', body: 'Theirs says that.', count: 4 }, { id: 'c', status: 'retired' }, { id: 't1' }]);
    const r = merge(b, o, t);
    expect(r.conflicts).toBe(1);
    expect(r.conflictIds).toEqual(['b']);
    const lines = r.text.split('\n');
    const open = lines.indexOf('<<<<<<< ours');
    const mid = lines.indexOf('=======');
    const close = lines.indexOf('>>>>>>> theirs');
    expect(open).toBeGreaterThan(0);
    expect(lines.filter((l) => /^(<<<<<<<|=======|>>>>>>>)/.test(l))).toHaveLength(3);
    const inside = lines.slice(open, close + 1).join('\n');
    expect(inside).toContain('Ours says this.');
    expect(inside).toContain('Theirs says that.');
    expect(inside).not.toContain('id: a');
    expect(inside).not.toContain('id: c');
    // The counter merged on both versions inside the markers.
    expect(lines.slice(open, mid).join('\n')).toContain('reinforcement_count: 4');
    expect(lines.slice(mid, close).join('\n')).toContain('reinforcement_count: 4');
    const outside = [...lines.slice(0, open), ...lines.slice(close + 1)].join('\n');
    expect(outside).toContain('id: o1');
    expect(outside).toContain('id: t1');
    expect(outside).toMatch(/id: c\n[^]*status: retired/);
  });

  it('the same key set differently on both sides is a conflict; the same change on both is not', () => {
    const b = file([{ id: 'a', tags: 'x' }]);
    expect(merge(b, file([{ id: 'a', tags: 'y' }]), file([{ id: 'a', tags: 'z' }])).conflicts).toBe(1);
    const same = merge(b, file([{ id: 'a', tags: 'y', count: 1 }]), file([{ id: 'a', tags: 'y', count: 2 }]));
    expect(same.conflicts).toBe(0);
    expect(metaOf(same.text, 'a')).toMatchObject({ tags: ['y'], reinforcement_count: 3 });
  });

  it('the same id added on both sides: identical once, different texts in conflict', () => {
    const b = file([{ id: 'a' }]);
    expect(ids(merge(b, file([{ id: 'a' }, { id: 'n' }]), file([{ id: 'a' }, { id: 'n' }, { id: 'm' }])).text)).toEqual(['a', 'n', 'm']);
    const r = merge(b, file([{ id: 'a' }, { id: 'n', body: 'one' }]), file([{ id: 'a' }, { id: 'n', body: 'two' }]));
    expect(r.conflicts).toBe(1);
  });

  it('the preamble merges: one side changed it, that side wins; both differently, markers around it only', () => {
    const b = file([{ id: 'a' }]);
    const o = file([{ id: 'a' }, { id: 'o' }], '# Memory of the API\n\n');
    const t = file([{ id: 'a' }, { id: 't' }]);
    const r = merge(b, o, t);
    expect(r.conflicts).toBe(0);
    expect(r.text.startsWith('# Memory of the API\n\n---\nid: a')).toBe(true);
    const both = merge(b, o, file([{ id: 'a' }, { id: 't' }], '# Theirs title\n\n'));
    expect(both.conflicts).toBe(1);
    expect(both.text.startsWith('<<<<<<< ours\n# Memory of the API\n')).toBe(true);
    expect(ids(both.text.slice(both.text.indexOf('>>>>>>> theirs')))).toEqual(['a', 'o', 't']);
  });

  it('CRLF: the current side keeps its line endings, entries from the other side are converted', () => {
    const crlf = (s: string) => s.replace(/\n/g, '\r\n');
    const b = file([{ id: 'a' }]);
    const r = merge(crlf(b), crlf(file([{ id: 'a', count: 1 }, { id: 'o' }])), file([{ id: 'a' }, { id: 't' }]));
    expect(r.conflicts).toBe(0);
    expect(r.text).toBe(crlf(file([{ id: 'a', count: 1 }, { id: 'o' }, { id: 't' }])));
    const lf = merge(b, file([{ id: 'a' }, { id: 'o' }]), crlf(file([{ id: 'a', count: 2 }, { id: 't' }])));
    expect(lf.text).toBe(file([{ id: 'a', count: 2 }, { id: 'o' }, { id: 't' }]));
  });

  it('a BOM on the current side is kept', () => {
    const b = '\ufeff' + file([{ id: 'a' }]);
    const r = merge(b, '\ufeff' + file([{ id: 'a' }, { id: 'o' }]), '\ufeff' + file([{ id: 'a' }, { id: 't' }]));
    expect(r.text).toBe('\ufeff' + file([{ id: 'a' }, { id: 'o' }, { id: 't' }]));
  });

  it('legacy ## [ files merge by their content-derived ids', () => {
    const sec = (d: string, t: string, body: string) => `## [${d}] ${t}\n\n${body}\n\n`;
    const b = '# Memory\n\n' + sec('2025-01-02', 'One', 'Use the old build.') + sec('2025-01-03', 'Two', 'Staging is slow.');
    const o = b + sec('2025-02-01', 'Ours', 'Ours learned this.');
    const t = '# Memory\n\n' + sec('2025-01-02', 'One', 'Use the old build.') + sec('2025-01-03', 'Two', 'Staging is slow; use the fast box.') + sec('2025-02-02', 'Theirs', 'Theirs learned that.');
    const r = merge(b, o, t);
    expect(r.conflicts).toBe(0);
    expect(r.text).toContain('Staging is slow; use the fast box.');
    const titles = parseMemoryFile(r.text, 'MEMORY.md').entries.map((e) => e.title);
    expect(titles).toEqual(['One', 'Two', 'Ours', 'Theirs']);
    // Both sides editing one legacy section: a conflict there.
    const c = merge(b, b.replace('Use the old build.', 'Ours build.'), b.replace('Use the old build.', 'Theirs build.'));
    expect(c.conflicts).toBe(1);
  });

  it('plain notes and sides with conflict markers or NUL bytes go to the text merge', () => {
    const calls: string[] = [];
    const textMerge = (b: string, o: string, t: string) => {
      calls.push(b);
      return { text: `${o}|${t}`, conflicts: 7 };
    };
    const notes = '# Notes\n\nsome text\n';
    const r = mergeMemoryFile(notes, notes + 'ours\n', notes + 'theirs\n', 'memory/notes.md', { textMerge });
    expect(r.fallback).toBeTruthy();
    expect(r.conflicts).toBe(7);
    const b = file([{ id: 'a' }]);
    const marked = `${b}<<<<<<< HEAD\n${entry({ id: 'x' })}=======\n${entry({ id: 'y' })}>>>>>>> other\n`;
    expect(mergeMemoryFile(b, marked, file([{ id: 'a' }, { id: 't' }]), 'MEMORY.md', { textMerge }).fallback).toMatch(/markers/);
    expect(mergeMemoryFile(b, b + '\u0000', file([{ id: 'a' }, { id: 't' }]), 'MEMORY.md', { textMerge }).fallback).toMatch(/binary/);
    // A fresh proxy file (plain text, no entries) that gets entries on both sides merges by entry.
    const fresh = '# Proxy memory\n';
    const p = mergeMemoryFile(fresh, file([{ id: 'o' }], fresh + '\n'), file([{ id: 't' }], fresh + '\n'), 'proxy-alice.md', { textMerge });
    expect(p.fallback).toBeUndefined();
    expect(ids(p.text)).toEqual(['o', 't']);
  });

  it('duplicate ids on a side (a union merge) are all kept', () => {
    const b = file([{ id: 'a' }, { id: 'a', body: 'second copy' }]);
    const r = merge(b, file([{ id: 'a' }, { id: 'a', body: 'second copy' }, { id: 'o' }]), file([{ id: 'a', count: 1 }, { id: 'a', body: 'second copy' }]));
    expect(ids(r.text)).toEqual(['a', 'a', 'o']);
    expect(r.conflicts).toBe(0);
  });
});

describe('mergeMemoryFile: old header shapes', () => {
  it('an empty header (no text) is kept by id; a bare header keeps reading as one', () => {
    const empty = '---\nid: hollow\n---\n\n';
    const b = PRE + empty + entry({ id: 'a' });
    const r = merge(b, PRE + empty + entry({ id: 'a', count: 1 }), PRE + empty + entry({ id: 'a' }) + '\n' + entry({ id: 't' }));
    expect(r.conflicts).toBe(0);
    expect(r.text).toBe(PRE + empty + entry({ id: 'a', count: 1 }) + '\n' + entry({ id: 't' }));
    // Two headers sharing one `---` (the second is bare): drop the first on one side.
    const pair = '---\nid: x\n---\nid: y\nstatus: active\n---\nBody of y.\n';
    const p = parseMemoryFile(PRE + pair, 'MEMORY.md');
    expect(p.blocks.map((x) => x.entry?.id ?? x.empty?.id)).toEqual(['x', 'y']);
    const withoutX = PRE + '---\nid: y\nstatus: active\n---\nBody of y.\n';
    const out = merge(PRE + pair, withoutX, PRE + pair + '\n' + entry({ id: 't' }));
    expect(out.conflicts).toBe(0);
    const parsed = parseMemoryFile(out.text, 'MEMORY.md');
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.entries.map((e) => e.id)).toEqual(['y', 't']);
  });
});

describe('mergeMemoryFile: random edits on two sides (property)', () => {
  // A small deterministic generator, so a failure can be replayed.
  function rng(seed: number) {
    let s = seed >>> 0;
    return () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
  }

  it('no id is lost unless deleted on one side and unchanged on the other; no duplicate ids; rules hold', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = rng(seed);
      const n = 1 + Math.floor(rand() * 6);
      const base: E[] = Array.from({ length: n }, (_, i) => ({ id: `e${i}`, count: Math.floor(rand() * 3) }));
      const edit = (side: string): { list: E[]; deleted: Set<string>; changed: Set<string> } => {
        const deleted = new Set<string>();
        const changed = new Set<string>();
        const list: E[] = [];
        for (const e of base) {
          const r = rand();
          if (r < 0.15) deleted.add(e.id);
          else if (r < 0.4) {
            list.push({ ...e, count: (e.count ?? 0) + 1 + Math.floor(rand() * 3), last: `2026-11-${10 + Math.floor(rand() * 9)}` });
            changed.add(e.id);
          } else if (r < 0.5) {
            list.push({ ...e, status: 'retired' });
            changed.add(e.id);
          } else list.push({ ...e });
        }
        const adds = Math.floor(rand() * 3);
        for (let i = 0; i < adds; i++) list.push({ id: `${side}${i}` });
        return { list, deleted, changed };
      };
      const o = edit('o');
      const t = edit('t');
      const r = merge(file(base), file(o.list), file(t.list));
      expect(r.conflicts, `seed ${seed}`).toBe(0);
      const got = ids(r.text);
      expect(new Set(got).size, `seed ${seed}: duplicate ids`).toBe(got.length);
      const expected = new Set([...o.list, ...t.list].map((e) => e.id));
      for (const e of base) {
        const gone = (o.deleted.has(e.id) && !t.changed.has(e.id)) || (t.deleted.has(e.id) && !o.changed.has(e.id));
        if (gone) expected.delete(e.id);
      }
      expect(new Set(got), `seed ${seed}`).toEqual(expected);
      const parsed = parseMemoryFile(r.text, 'MEMORY.md');
      expect(parsed.diagnostics, `seed ${seed}`).toEqual([]);
      for (const e of parsed.entries) {
        const versions = [...o.list, ...t.list].filter((x) => x.id === e.id);
        // Each side's change to the count adds to the base's.
        const from = base.find((x) => x.id === e.id)?.count ?? 0;
        const want = versions.length === 1 ? versions[0].count ?? 0 : from + versions.reduce((sum, x) => sum + (x.count ?? 0) - from, 0);
        expect(e.meta.reinforcement_count, `seed ${seed} ${e.id}`).toBe(want);
        expect(e.meta.status, `seed ${seed} ${e.id}`).toBe(versions.some((x) => x.status === 'retired') ? 'retired' : 'active');
      }
      // Ours' order first.
      const oursOrder = o.list.map((x) => x.id).filter((id) => got.includes(id));
      expect(got.slice(0, oursOrder.length), `seed ${seed}`).toEqual(oursOrder);
    }
  });
});

describe('splitConflictMarkers', () => {
  it('splits merge and diff3 markers into the sides; CRLF lines too', () => {
    const t = 'common\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> b\ntail\n';
    expect(splitConflictMarkers(t)).toEqual({ ours: 'common\nours\ntail\n', theirs: 'common\ntheirs\ntail\n', base: 'common\ntail\n', regions: 1 });
    const d3 = 'c\r\n<<<<<<< ours\r\no\r\n||||||| base\r\nb\r\n=======\r\nt\r\n>>>>>>> theirs\r\n';
    expect(splitConflictMarkers(d3)).toEqual({ ours: 'c\r\no\r\n', theirs: 'c\r\nt\r\n', base: 'c\r\nb\r\n', regions: 1 });
  });

  it('null for markers that do not pair up, nest, or are absent', () => {
    for (const t of ['no markers\n', '<<<<<<< a\nx\n', '<<<<<<< a\nx\n>>>>>>> b\n', '<<<<<<< a\n<<<<<<< b\n=======\n>>>>>>> c\n', '=======\n>>>>>>> b\n']) {
      expect(splitConflictMarkers(t), t).toBeNull();
    }
  });

  it('a setext heading underline (=======) outside a conflict is text', () => {
    const t = 'Title\n=======\n<<<<<<< a\nx\n=======\ny\n>>>>>>> b\n';
    expect(splitConflictMarkers(t)?.ours).toBe('Title\n=======\nx\n');
  });
});
