// Writing headers: every value mem writes reads back as itself (fast and full parser), header
// edits change only the lines of the keys they change, and oversized or alias-amplified headers
// are parse failures.

import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import {
  formatFrontmatter, formatValue, MAX_EXPANDED_CHARS, MAX_HEADER_CHARS, parseFrontmatter, sameValue, updateFrontmatter,
} from '../../src/vault/frontmatter.js';

let seed = 12345;
const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
const pick = <T,>(xs: readonly T[]): T => xs[rand(xs.length)];

const PIECES = [
  'a', 'b', 'word', 'é', 'ß', '😀', '中文', ' ', '  ', '\t', '\n', '\r', '\r\n', '\n\n', ': ', ':', ' #', '#', '# c', '-', '- ', '?', '? ',
  '[', ']', '{', '}', ',', '*', '&', '!', '|', '>', '%', '@', '`', "'", '"', '\\', '\\n', "''", '\u2028', '\u2029', '\u0085', '\u00a0',
  '\0', '\x01', '\x07', '\x1b', '\x7f', '\x80', '\x9b', '\x9f', '\uFEFF', '\uFFFE', '\uFFFF', '\uD800', '\uDC00', '\uDBFF\uDFFF',
  'null', 'Null', 'true', 'False', 'yes', 'no', 'on', '~', '0', '007', '-1', '+1', '1.5', '.5', '1e3', '0x1F', '0o17', '.inf', '-.Inf',
  '.nan', '1_000', '2026-01-01', '2026-01-01T10:00:00Z', '12:30', '---', '...', '<<', '=', 'http://x.y/z?q=1#f', 'C:\\dir', '$HOME', '(x)',
];
const WHOLE = ['', ' ', ' a', 'a ', '\t', '\n', 'null', 'NULL', '~', 'true', 'TRUE', 'no', '123', '-0', '0.0', '1e3', '0x1F', '0o17', '.inf',
  '.NaN', '2026-11-26', '---', '- a', '? a', '[a]', '{a: 1}', '*a', '&a b', '!t x', '| x', '> x', '%x', '@x', '`x`', 'a: b', 'a #b', 'a#b', "'", '"'];

function hostileString(): string {
  if (rand(8) === 0) return pick(WHOLE);
  if (rand(50) === 0) return pick(PIECES).repeat(1 + rand(3)) + 'x'.repeat(2000 + rand(6000)) + pick(PIECES);
  let s = '';
  const n = 1 + rand(6);
  for (let i = 0; i < n; i++) s += pick(PIECES);
  return s;
}

function hostileNumber(): number {
  return pick([0, -0, 1, -1, 42, 0.5, -2.25, 1e21, 1e-7, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, -(2 ** 60), 1.7976931348623157e308,
    NaN, Infinity, -Infinity, rand(100000) / 7, -rand(1000)]);
}

function hostileValue(depth = 0): unknown {
  const r = rand(depth > 1 ? 3 : 6);
  if (r === 0) return hostileNumber();
  if (r === 1) return rand(2) === 0 ? pick([true, false, null]) : hostileString();
  if (r === 2) return hostileString();
  if (r === 3) return Array.from({ length: rand(4) }, () => (rand(3) === 0 ? hostileNumber() : hostileString()));
  if (r === 4) return Array.from({ length: rand(3) }, () => hostileValue(depth + 1));
  return Object.fromEntries(Array.from({ length: rand(3) }, () => [hostileString(), hostileValue(depth + 1)]));
}

/** What the full parser (the yaml package, as parseFrontmatter uses it) reads. */
function fullRead(text: string): unknown {
  return YAML.parse(text, { uniqueKeys: true, logLevel: 'silent' });
}

describe('formatValue / formatFrontmatter: every value reads back as itself', () => {
  it('round-trips thousands of generated hostile strings, numbers and lists through both parsers', () => {
    let fast = 0;
    for (let i = 0; i < 4000; i++) {
      const data: Record<string, unknown> = { id: hostileString() || 'x' };
      const n = 1 + rand(4);
      for (let k = 0; k < n; k++) data[pick(['tags', 'session_id', 'session_task', 'phase', 'type', 'source', 'title', 'created_at', 'ticket'])] = hostileValue();
      const text = formatFrontmatter(data);
      const label = JSON.stringify(data);
      // One line per key, whatever the value holds.
      expect(text.split('\n').length - 1, label).toBe(Object.keys(data).length);
      const got = parseFrontmatter(text);
      expect(got.ok, label).toBe(true);
      if (!got.ok) continue;
      if (got.simple) fast++;
      expect(sameValue(got.data, data), `${label}\n${text}\n${JSON.stringify(got.data)}`).toBe(true);
      expect(sameValue(fullRead(text), data), `${label}\n${text}`).toBe(true);
    }
    expect(fast).toBeGreaterThan(100); // the fast path still takes the plain cases
  });

  it('writes plain values plainly and escapes what cannot stand literally', () => {
    expect(formatValue('type', 'procedural')).toBe('procedural');
    expect(formatValue('created_at', '2026-11-26')).toBe("'2026-11-26'");
    expect(formatValue('x', '42')).toBe("'42'");
    expect(formatValue('x', "it's: #x")).toBe("'it''s: #x'");
    expect(formatValue('x', 'a\nb')).toBe('"a\\nb"');
    expect(formatValue('x', 'nul\0 esc\x1b ls\u2028 nel\u0085')).toBe('"nul\\x00 esc\\x1B ls\\u2028 nel\\x85"');
    expect(formatValue('tags', ['a\nb', 'c', '1'])).toBe('["a\\nb", c, \'1\']');
    expect(formatValue('n', NaN)).toBe('.nan');
    expect(formatFrontmatter({ id: 'a', 'odd key': 1, tags: [] })).toBe("id: a\n'odd key': 1\ntags: []\n");
  });

  it('refuses (MemError) a header it could not read back, such as one over the size cap', () => {
    expect(() => formatFrontmatter({ id: 'a', title: 'x'.repeat(MAX_HEADER_CHARS) })).toThrow(MemError);
    expect(() => formatValue('x', new Date())).toThrow(MemError);
  });
});

describe('updateFrontmatter: only the changed keys change', () => {
  const HOSTILE_HEADER = [
    '# leading comment',
    'id: 3f0c # trailing comment',
    'ticket: 9007199254740993',
    'hex: 0x1F',
    'oct: 0o17',
    'exp: 1e3',
    'nothing: ~',
    'quoted: "tab\\there \\u00e9 \\"q\\""',
    "single: 'it''s'",
    'flow: {a: 1, b: [x, y]}',
    'tags:',
    '  - alpha   # first',
    '  - "beta"',
    '',
    '   # indented own-line comment',
    'anchor: &base keep',
    'alias: *base',
    'block: |',
    '  line one',
    '  line two',
    '',
    'status:    active    # spaced',
    'importance: 0.80',
    'reinforcement_count: 0x02',
    "last_reinforced: '2026-01-01'",
    '',
  ];

  function lines(s: string): string[] {
    return s.split('\n');
  }

  it('replaces just the value text of a one-line key, keeping spacing and comments', () => {
    const src = HOSTILE_HEADER.join('\n');
    const out = updateFrontmatter(src, { status: 'retired', reinforcement_count: 3, last_reinforced: '2026-11-26', id: 'new-id' });
    const a = lines(src);
    const b = lines(out);
    expect(b.length).toBe(a.length);
    const changed = a.map((l, i) => (l === b[i] ? null : [l, b[i]])).filter(Boolean);
    expect(changed).toEqual([
      ['id: 3f0c # trailing comment', 'id: new-id # trailing comment'],
      ['status:    active    # spaced', 'status:    retired    # spaced'],
      ['reinforcement_count: 0x02', 'reinforcement_count: 3'],
      ["last_reinforced: '2026-01-01'", "last_reinforced: '2026-11-26'"],
    ]);
  });

  it('leaves a key whose value does not change untouched (0x02 stays when 2 is set)', () => {
    const src = HOSTILE_HEADER.join('\n');
    expect(updateFrontmatter(src, { reinforcement_count: 2, hex: 31, ticket: 9007199254740992 })).toBe(src);
  });

  it('replaces exactly the lines of a multi-line value, removes exactly a key\'s lines, appends new keys', () => {
    const src = HOSTILE_HEADER.join('\n');
    const out = updateFrontmatter(src, { tags: ['gamma'], block: undefined, retired_at: '2026-11-26', flow: 'flat' });
    const expected = HOSTILE_HEADER.slice();
    expected.splice(expected.indexOf('block: |'), 3);
    expected.splice(expected.indexOf('tags:'), 3, 'tags: [gamma]');
    expected[expected.indexOf('flow: {a: 1, b: [x, y]}')] = 'flow: flat';
    expected.splice(expected.length - 1, 0, "retired_at: '2026-11-26'");
    expect(out).toBe(expected.join('\n'));
  });

  it('keeps CRLF, and writes new lines with CRLF', () => {
    const src = HOSTILE_HEADER.join('\r\n');
    const out = updateFrontmatter(src, { status: 'retired', superseded_by: 'x y', tags: ['a'] });
    expect(out.replace(/\r\n/g, '')).not.toContain('\n');
    expect(out).toContain('status:    retired    # spaced\r\n');
    expect(out).toContain("superseded_by: 'x y'\r\n");
    expect(out).toContain('tags: [a]\r\n\r\n   # indented own-line comment\r\n');
  });

  it('edits an empty value and a value after an own-line comment', () => {
    expect(updateFrontmatter('id: a\nphase:\n# c\nstatus: active\n', { phase: 'design' })).toBe('id: a\nphase: design\n# c\nstatus: active\n');
    expect(updateFrontmatter('id: a\nphase:   # later\n', { phase: 'design' })).toBe('id: a\nphase: design   # later\n');
    expect(updateFrontmatter('id: a\nstatus: active\n\n\n', { status: undefined, n: 1 })).toBe('id: a\nn: 1\n\n\n');
    expect(updateFrontmatter('  id: a\n  status: active\n', { more: true })).toBe('  id: a\n  status: active\n  more: true\n');
  });

  it('refuses (MemError, nothing returned) an edit that would change another key', () => {
    // The anchored value is also read through the alias: changing it would change `alias` too.
    expect(() => updateFrontmatter('id: a\nanchor: &x one\nalias: *x\n', { anchor: 'two' })).toThrow(MemError);
    // A keep-chomped block scalar owns the blank lines after it: a new key goes after them.
    expect(updateFrontmatter('id: a\nblock: |+\n  text\n\n', { n: 1 })).toBe('id: a\nblock: |+\n  text\n\nn: 1\n');
    expect(() => updateFrontmatter('{id: a, n: 1}\n', { n: 2 })).toThrow(MemError);
  });

  it('round-trips generated hostile values through an edit of a hostile header, other lines byte-identical', () => {
    const src = HOSTILE_HEADER.join('\n');
    const before = parseFrontmatter(src);
    if (!before.ok) throw new Error('fixture');
    for (let i = 0; i < 1500; i++) {
      const key = pick(['status', 'tags', 'flow', 'new_key', 'session_task', 'id', 'nothing', 'block', 'quoted']);
      const value = rand(10) === 0 ? undefined : hostileValue();
      const out = updateFrontmatter(src, { [key]: value });
      const got = parseFrontmatter(out);
      const expected = { ...before.data, [key]: value };
      if (value === undefined) delete expected[key];
      expect(got.ok && sameValue(got.data, expected), `${key} = ${JSON.stringify(value)}\n${out}`).toBe(true);
      expect(sameValue(fullRead(out), expected)).toBe(true);
      // Every line of the old header not belonging to the key is still there, in order.
      const keep = lines(src).filter((l, j, all) => {
        const owner = all.slice(0, j + 1).reverse().find((x) => /^[a-z_]+:/.test(x));
        return !owner?.startsWith(`${key}:`) || (l.trim() === '' || l.trim().startsWith('#'));
      });
      const outLines = lines(out);
      let at = 0;
      for (const l of keep) {
        at = outLines.indexOf(l, at);
        expect(at, `line ${JSON.stringify(l)} lost when setting ${key}\n${out}`).toBeGreaterThanOrEqual(0);
        at++;
      }
    }
  });

  it('round-trips on a simple (fast-path) header too', () => {
    const src = "id: a\ntype: corrective   \nimportance: 0.80\nodd_key: 'kept'\nlast_reinforced: '2026-01-01'\n";
    for (let i = 0; i < 1500; i++) {
      const key = pick(['type', 'odd_key', 'tags', 'session_id', 'fresh']);
      const value = hostileValue();
      const out = updateFrontmatter(src, { [key]: value });
      const got = parseFrontmatter(out);
      expect(got.ok && sameValue(got.data, { ...(parseFrontmatter(src) as { data: object }).data, [key]: value }), `${JSON.stringify(value)}\n${out}`).toBe(true);
      const other = lines(src).filter((l) => !l.startsWith(`${key}:`));
      for (const l of other) expect(lines(out)).toContain(l);
    }
  });
});

describe('parseFrontmatter: size caps', () => {
  it('reads a large string repeated by aliases as a failure, with the line of the first alias', () => {
    const big = 'x'.repeat(2000);
    const src = `id: bomb\nbig: &a "${big}"\nnote: plain\nrefs: [${Array(99).fill('*a').join(', ')}]\n`;
    const r = parseFrontmatter(src);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(/aliases/);
      expect(r.line).toBe(4);
    }
  });

  it('catches nested amplification (aliases of aliases) and block lists of aliases', () => {
    const nested = 'id: b\na: &a [xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx, xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n';
    expect(parseFrontmatter(nested).ok).toBe(false);
    const block = `id: c\nv: &v ${'y'.repeat(5000)}\nlist:\n${'  - *v\n'.repeat(20)}`;
    expect(parseFrontmatter(block).ok).toBe(false);
  });

  it('reads an alias to its own ancestor (a cycle) as too large, not as a crash', () => {
    for (const src of ['id: a\nx: &a [1, *a]\n', 'id: a\nm: &m {k: *m, j: [*m]}\n']) {
      const r = parseFrontmatter(src);
      expect(r).toMatchObject({ ok: false, line: 2 });
      if (!r.ok) expect(r.error).toMatch(/aliases/);
    }
  });

  it('accepts a few small aliases and a header just under the caps', () => {
    expect(parseFrontmatter('id: a\nx: &x hello\ny: *x\n')).toMatchObject({ ok: true, data: { y: 'hello' } });
    const near = `id: a\nbody: '${'z'.repeat(MAX_EXPANDED_CHARS - 100)}'\n`;
    expect(parseFrontmatter(near).ok).toBe(true);
  });

  it('reads an over-long header (one 6 MB line) as a failure without parsing it', () => {
    const r = parseFrontmatter(`id: a\nbig: ${'q'.repeat(6_000_000)}\n`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/too large: 5.7 MB \(the limit is 64 KB\)/);
  });
});

describe('updateFrontmatter keeps the quoting style of the value it replaces', () => {
  it('plain stays plain, double stays double, single stays single, when it reads back the same', () => {
    const src = "id: a\nlast_reinforced: 2026-01-01\nstatus: \"active\"\nphase: 'design'\ncount: 5\n";
    expect(updateFrontmatter(src, { last_reinforced: '2026-11-26', status: 'retired', phase: 'review' }))
      .toBe("id: a\nlast_reinforced: 2026-11-26\nstatus: \"retired\"\nphase: 'review'\ncount: 5\n");
    // A value the old style cannot hold falls back to mem's own form.
    expect(updateFrontmatter(src, { status: 'say "hi"\n', last_reinforced: '123', count: 'five' }))
      .toBe("id: a\nlast_reinforced: '123'\nstatus: \"say \\\"hi\\\"\\n\"\nphase: 'design'\ncount: five\n");
  });
});
