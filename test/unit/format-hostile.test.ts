// Parsing hostile memory files: teaparty's empty-entry runs, odd ids, NUL bytes; and the pure
// helpers behind them (entryId, safetext, binary detection).
import { describe, expect, it } from 'vitest';
import { entryId } from '../../src/vault/entry.js';
import { parseMemoryFile, serializeFile, type ParsedFile } from '../../src/vault/format.js';
import { decodeVaultText, looksBinary } from '../../src/vault/read.js';
import { hasUnsafeControl, newlineOf, safeLine, safeText, withNewline } from '../../src/vault/safetext.js';
import { renderNewEntry } from '../../src/vault/edit.js';
import { idMaker, tpMake, tpRewrite, tpSerializeFile } from '../fixtures/teaparty.js';

const idLines = (text: string) => [...text.matchAll(/^id: *(\S+?)\r?$/gm)].map((m) => m[1]);
const allIds = (p: ParsedFile) => [...p.entries.map((e) => e.id), ...p.blocks.flatMap((b) => (b.empty ? [b.empty.id] : []))];
const summary = (p: ParsedFile) => p.entries.map((e) => `${e.id}|${e.title}|${e.body}`);

function teaparty(seed: number, rounds: number, bodies = 3): string {
  const next = idMaker(seed);
  const d = '2026-04-23';
  const entries = [
    tpMake('## [2026-04-23] Observation\n**Signal:** keep it small', next, d, { domain: 'task', importance: 0.95 }),
    tpMake('## [2026-04-23] Release\nBuild first.\n---\nThen tag.', next, d, { importance: 0.7 }),
    tpMake('## [2026-04-23] Tooling\nUse pnpm.\n\n---\n\nNot npm.', next, d),
    tpMake('## [2026-04-23] Last\nThe last one.', next, d, { session_id: 'session-1' }),
  ].slice(0, bodies + 1);
  let text = `${tpSerializeFile(entries)}\n`;
  for (let r = 0; r < rounds; r++) text = tpRewrite(text, next, d, (seed + r) % 2 === 0);
  return text;
}

/** A small deterministic PRNG for choosing subsets. */
function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('teaparty empty-entry runs', () => {
  const files: [string, string][] = [];
  for (const seed of [1, 2, 3, 4]) for (const rounds of [1, 2, 4]) files.push([`seed ${seed}, ${rounds} rewrites`, teaparty(seed, rounds)]);
  files.push(['CRLF', teaparty(5, 3).replace(/\n/g, '\r\n')]);
  files.push(['no final newline', teaparty(6, 3).trimEnd()]);

  for (const [name, text] of files) {
    it(`finds every id and never reads a header as a body (${name})`, () => {
      const p = parseMemoryFile(text, 'MEMORY.md');
      expect(p.diagnostics).toEqual([]);
      expect(allIds(p).sort()).toEqual(idLines(text).sort());
      for (const e of p.entries) {
        expect(e.title).not.toBe('');
        expect(`${e.title}\n${e.body}`).not.toMatch(/^(id|type|reinforcement_count|created_at):/m);
      }
      expect(serializeFile(p)).toBe(text);
      expect(p.warnings?.length).toBe(p.blocks.filter((b) => b.empty).length);
    });

    it(`any blocks can be removed and the rest still reads the same (${name})`, () => {
      const p = parseMemoryFile(text, 'MEMORY.md');
      const rand = rng(text.length);
      for (let trial = 0; trial < 20; trial++) {
        const keep = p.blocks.filter(() => rand() < 0.6);
        const out = serializeFile({ ...p, blocks: keep });
        const q = parseMemoryFile(out, 'MEMORY.md');
        const kept = new Set(keep.flatMap((b) => (b.entry ? [b.entry.id] : b.empty ? [b.empty.id] : [])));
        expect(new Set(allIds(q))).toEqual(kept);
        expect(summary(q)).toEqual(keep.flatMap((b) => (b.entry ? [`${b.entry.id}|${b.entry.title}|${b.entry.body}`] : [])));
      }
    });
  }

  it('reads the hostile layouts: shared --- lines, a header after a blank line, one at the end', () => {
    const h = (id: string) => `id: ${id}\ntype: procedural\nimportance: 0.5\n`;
    const text = `---\n${h('a')}---\n${h('b')}\n---\n${h('c')}---\n${h('d')}---\n## Real\nbody of d\n\n---\n${h('e')}---\n\n\n---\n${h('f')}---\n${h('g')}`;
    const p = parseMemoryFile(text, 'MEMORY.md');
    expect(allIds(p).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(p.entries.map((e) => [e.id, e.title, e.body])).toEqual([['d', 'Real', 'body of d']]);
    expect(p.warnings?.map((w) => w.line)).toEqual([1, 5, 10, 22, 29, 33]);
    expect(serializeFile(p)).toBe(text);
  });

  it('a header after a blank line with no --- of its own gets one back when the block before it goes', () => {
    const text = `---\nid: a\n---\nid: b\n\nid: c\ntype: x\n\n---\nid: d\n---\n## D\nbody\n`;
    const p = parseMemoryFile(text, 'MEMORY.md');
    expect(allIds(p).sort()).toEqual(['a', 'b', 'c', 'd']);
    const c = p.blocks.find((b) => b.empty?.id === 'c')!;
    expect(c.bare).toBeTruthy();
    const out = serializeFile({ ...p, blocks: p.blocks.filter((b) => b.empty?.id !== 'b') });
    expect(out).toBe(`---\nid: a\n---\nid: c\ntype: x\n\n---\nid: d\n---\n## D\nbody\n`);
    expect(allIds(parseMemoryFile(out, 'MEMORY.md')).sort()).toEqual(['a', 'c', 'd']);
  });

  it('keeps prose that starts with id: in a body as body text', () => {
    const text = `---\nid: x\n---\nid: the user's login name\n\n## Title\nfirst\n\n---\nid: y\n---\n## Y\nbody\n\n---\nid: 5 is a number\n`;
    const p = parseMemoryFile(text, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['x', 'y']);
    expect(p.entries[0].body).toContain("id: the user's login name");
    expect(p.entries[1].body).toContain('id: 5 is a number');
    expect(p.warnings).toBeUndefined();
    expect(p.diagnostics).toEqual([]);
  });
});

describe('ids as written', () => {
  const y = (v: string) => `id: ${v}\n`;
  it('keeps the source text of numbers and booleans', () => {
    expect(entryId(1000, y('1e3'))).toEqual({ id: '1e3' });
    expect(entryId(7, y('007'))).toEqual({ id: '007' });
    expect(entryId(16, y('0x10  # hex'))).toEqual({ id: '0x10' });
    expect(entryId(true, y('true'))).toEqual({ id: 'true' });
    expect(entryId('1000', y("'1000'"))).toEqual({ id: '1000' });
    expect(entryId(' spaced ', y("' spaced '"))).toEqual({ id: 'spaced' });
  });
  it('refuses empty, collections, control characters and over-long ids', () => {
    for (const v of [null, undefined, '', '   ', [1, 2], { a: 1 }, 'a\nb', 'a\u0000b', 'a\u2028b', 'x'.repeat(201)]) {
      expect(entryId(v, y('whatever'))).toHaveProperty('problem');
    }
  });
  it('parses 1e3 and 1000 as two different ids; an invalid id is a broken block with the id line', () => {
    const text = `# M\n\n---\nid: 1e3\n---\none\n---\nid: '1000'\n---\ntwo\n---\ntype: x\nid: null\n---\nthree\n---\nid: ok\n---\nfour\n`;
    const p = parseMemoryFile(text, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['1e3', '1000', 'ok']);
    expect(p.diagnostics).toEqual([{ severity: 'error', message: 'invalid id in entry header: id is empty or null', file: 'MEMORY.md', line: 13 }]);
    expect(p.entries[1].body).toBe('two');
    expect(serializeFile(p)).toBe(text);
  });
});

describe('NUL bytes in a file', () => {
  it('skip only the block that holds one, in every format', () => {
    const entries = `---\nid: a\n---\nalpha\n---\nid: b\n---\nbe\u0000ta\n---\nid: c\n---\ngamma\n`;
    const p = parseMemoryFile(entries, 'MEMORY.md');
    expect(p.entries.map((e) => [e.id, e.ordinal])).toEqual([['a', 0], ['c', 1]]);
    expect(p.diagnostics).toMatchObject([{ line: 8, message: 'NUL byte in an entry' }]);
    expect(serializeFile(p)).toBe(entries);
    for (const rule of ['\u0000---', '---\u0000', '-\u0000--']) {
      const t = `---\nid: a\n---\nalpha\n${rule}\nid: b\n---\nbeta\n---\nid: c\n---\ngamma\n`;
      const q = parseMemoryFile(t, 'MEMORY.md');
      expect(q.entries.map((e) => [e.id, e.body])).toEqual([['a', 'alpha'], ['c', 'gamma']]);
      expect(q.diagnostics).toMatchObject([{ line: 5 }]);
      expect(serializeFile(q)).toBe(t);
    }
    const start = parseMemoryFile(`\u0000---\nid: a\n---\nalpha\n---\nid: b\n---\nbeta\n`, 'MEMORY.md');
    expect(start.entries.map((e) => e.id)).toEqual(['b']);
    expect(start.diagnostics).toMatchObject([{ line: 1 }]);
    const legacy = `# M\n\n## [2026-01-01] One\nx\n\n## [2026-01-02] Two\ny\u0000\n\n## [2026-01-03] Three\nz\n`;
    expect(parseMemoryFile(legacy, 'MEMORY.md').entries.map((e) => e.title)).toEqual(['One', 'Three']);
    const notes = `# Notes\n\n## One\nx\n\n## Two\ny\u0000\n\n## Three\nz\n`;
    const n = parseMemoryFile(notes, 'memory/notes.md');
    expect(n.entries.map((e) => e.title)).not.toContain('Two');
    expect(n.diagnostics[0].line).toBe(7);
  });
});

describe('safe text and binary detection', () => {
  it('replaces control characters with visible marks and keeps tab and newline', () => {
    expect(safeText('a\u0000b\tc\nd\u001be\u007ff\u0085g')).toBe('a\u2400b\tc\nd\u241be\u2421f\ufffdg');
    expect(safeText('a\r\nb\rc\u2028d')).toBe('a\nb\nc\nd');
    expect(safeLine(' a\n b\u0000 ')).toBe('a b\u2400');
    expect(hasUnsafeControl(safeText('x\u0000\u0001\u0002\r\u2029'))).toBe(false);
    expect(hasUnsafeControl('x\u0000')).toBe(true);
  });
  it('renderNewEntry writes no control character whatever the input', () => {
    const all = Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join('');
    // (A line break inside a header value is item 6's: formatValue's.)
    const oneLine = all.replace(/[\n\r]/g, '');
    const { text } = renderNewEntry({ title: `t${all}`, body: `b${all}`, date: '2026-01-01', extra: { tags: [`x${oneLine}`], source: oneLine } });
    expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text)).toBe(false);
    const p = parseMemoryFile(text, 'MEMORY.md');
    expect(p.entries).toHaveLength(1);
    expect(p.diagnostics).toEqual([]);
  });
  it('judges binary on the whole file, by the share of control bytes', () => {
    const text = Buffer.from(`# M\n\n${'word '.repeat(4000)}\n`);
    expect(looksBinary(text)).toBe(false);
    expect(looksBinary(Buffer.concat([Buffer.from([0]), text]))).toBe(false);
    expect(looksBinary(Buffer.concat([text, Buffer.from([0, 0])]))).toBe(false);
    expect(looksBinary(Buffer.from('kafka notes', 'utf16le'))).toBe(true);
    expect(looksBinary(Buffer.concat([text, Buffer.alloc(4096)]))).toBe(true);
    expect(decodeVaultText(Buffer.from('\ufeffhello'))).toEqual({ text: 'hello', bom: true });
    expect(decodeVaultText(Buffer.from('hello'))).toEqual({ text: 'hello' });
  });
  it('finds the dominant line ending and converts new text to it', () => {
    expect(newlineOf('a\r\nb\r\nc\n')).toBe('\r\n');
    expect(newlineOf('a\nb\r\nc\n')).toBe('\n');
    expect(newlineOf('')).toBe('\n');
    expect(withNewline('a\nb\n', '\r\n')).toBe('a\r\nb\r\n');
  });
});
