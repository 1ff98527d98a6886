import YAML from 'yaml';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commentHeaderLine, parseMemoryFile, serializeFile, updateBlockMeta } from '../../src/vault/format.js';
import { formatFlowHeader, parseFrontmatter, updateFlowHeader } from '../../src/vault/frontmatter.js';
import { headerFormFor, lastHeaderForm, renderNewEntry, withHeaderForm } from '../../src/vault/edit.js';

const COMMENT_FILE = `# Project memory

<!-- mem {id: a1, type: corrective, domain: task, importance: 0.8, phase: implementation, status: active, reinforcement_count: 3, last_reinforced: '2026-11-18', created_at: '2026-10-02'} -->
## [2026-10-02] Corrective: run migrations before the API tests

The API tests fail on a fresh database.

---

A rule above is body text.
<!-- mem {id: b2, type: directive, tags: [db, ci]} -->
## [2026-10-03] Directive: never edit generated files
<!-- a plain comment stays body text -->
`;

const YAML_ENTRY = `---
id: c3
type: procedural
---
## [2026-10-04] Procedural: regenerate the client
`;

describe('comment-form entry headers', () => {
  it('parse into entries with their metadata, and serialize to the same bytes', () => {
    const p = parseMemoryFile(COMMENT_FILE, 'MEMORY.md');
    expect(p.diagnostics).toEqual([]);
    expect(p.preamble).toBe('# Project memory\n\n');
    expect(p.entries.map((e) => [e.id, e.type, e.importance, e.line, e.title])).toEqual([
      ['a1', 'corrective', 0.8, 3, 'Corrective: run migrations before the API tests'],
      ['b2', 'directive', 0.5, 11, 'Directive: never edit generated files'],
    ]);
    expect(p.entries[0].body).toBe('The API tests fail on a fresh database.\n\n---\n\nA rule above is body text.');
    expect(p.entries[1].meta.tags).toEqual(['db', 'ci']);
    expect(p.entries[1].body).toBe('<!-- a plain comment stays body text -->');
    expect(p.blocks.map((b) => b.header?.form)).toEqual(['comment', 'comment']);
    expect(serializeFile(p)).toBe(COMMENT_FILE);
  });

  it('mix with `---` headers in one file, in either order, each keeping its bytes', () => {
    for (const text of [COMMENT_FILE + '\n' + YAML_ENTRY, '# M\n\n' + YAML_ENTRY + '\n' + COMMENT_FILE.slice(COMMENT_FILE.indexOf('<!--'))]) {
      const p = parseMemoryFile(text, 'MEMORY.md');
      expect(p.diagnostics).toEqual([]);
      expect(p.entries.map((e) => e.id).sort()).toEqual(['a1', 'b2', 'c3']);
      expect(serializeFile(p)).toBe(text);
      for (const e of p.entries) expect(e.title).not.toMatch(/mem|---|id:/);
    }
  });

  it('a comment header inside what looks like a `---` pair ends it: the header is not swallowed', () => {
    const text = '# M\n\n---\nid: x\n<!-- mem {id: d4} -->\nbody d\n---\n';
    const p = parseMemoryFile(text, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['d4']);
    expect(serializeFile(p)).toBe(text);
  });

  it('keeps CRLF line endings and reads a header with no blank line before it', () => {
    const text = COMMENT_FILE.replace(/\n/g, '\r\n');
    const p = parseMemoryFile(text, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['a1', 'b2']);
    expect(serializeFile(p)).toBe(text);
    const changed = updateBlockMeta(p.blocks[1], { importance: 0.9 });
    expect(changed.raw.split('\r\n')[0]).toBe('<!-- mem {id: b2, type: directive, tags: [db, ci], importance: 0.9} -->');
  });

  it('reports a malformed or invalid comment header as broken, and leaves one without an id as body text', () => {
    const bad = parseMemoryFile('# M\n\n<!-- mem {id: a, type: [} -->\n## x\n', 'MEMORY.md');
    expect(bad.diagnostics).toHaveLength(1);
    expect(bad.diagnostics[0]).toMatchObject({ line: 3 });
    expect(bad.diagnostics[0].message).toMatch(/malformed YAML/);
    const noId = parseMemoryFile('# M\n\n<!-- mem {type: corrective} -->\n## x\n', 'MEMORY.md');
    expect(noId.entries).toEqual([]);
    expect(noId.diagnostics).toEqual([]);
    const blankId = parseMemoryFile('# M\n\n<!-- mem {id: \'\'} -->\n## x\n', 'MEMORY.md');
    expect(blankId.diagnostics[0]).toMatchObject({ line: 3 });
  });

  it('updateBlockMeta changes only the header line, keeps the values it does not change as written', () => {
    const text = '# M\n\n<!-- mem {id: a, type: corrective, created_at: 2026-10-02, reinforcement_count: 1, note: "keep  me"} -->\n## t\n\nbody\n';
    const p = parseMemoryFile(text, 'MEMORY.md');
    const b = updateBlockMeta(p.blocks[0], { reinforcement_count: 2, last_reinforced: '2026-11-01', note: undefined });
    expect(b.raw).toBe("<!-- mem {id: a, type: corrective, created_at: 2026-10-02, reinforcement_count: 2, last_reinforced: '2026-11-01'} -->\n## t\n\nbody\n");
    const again = parseMemoryFile(serializeFile({ ...p, blocks: [b] }), 'MEMORY.md');
    expect(again.entries[0].meta).toEqual({ id: 'a', type: 'corrective', created_at: '2026-10-02', reinforcement_count: 2, last_reinforced: '2026-11-01' });
    expect(again.entries[0].meta).toEqual(b.entry!.meta);
  });

  it('a value that would end the comment early is escaped, and reads back as itself', () => {
    const meta = { id: 'x', session_task: 'fix a --> b', other: 'ok --!> no' };
    const line = commentHeaderLine(meta);
    expect(line.slice(4, -3)).not.toMatch(/--!?>/);
    const p = parseMemoryFile(`${line}\n## t\n`, 'MEMORY.md');
    expect(p.entries[0].meta).toEqual(meta);
    // An edit that brings such a value in rewrites the line in the escaped form.
    const q = parseMemoryFile('<!-- mem {id: y} -->\n## t\n', 'MEMORY.md');
    const b = updateBlockMeta(q.blocks[0], { session_task: "it's a --> b" });
    expect(b.raw.split('\n')[0].slice(4, -3)).not.toMatch(/--!?>/);
    expect(parseMemoryFile(b.raw, 'MEMORY.md').entries[0].meta.session_task).toBe("it's a --> b");
  });
});

describe('flow header fast path', () => {
  it('agrees with the yaml package on every value shape it accepts', () => {
    const values = [
      '0.8', '1', '-3', '+4', '1e3', '.5', '0x1F', '.inf', '.nan', 'true', 'False', 'yes', 'null', '~', "'2026-11-20'", '2026-11-20',
      '"quoted"', "'it''s'", "'a, b}'", '"a, b}"', 'plain text here', 'a: b', 'x #comment', 'trailing:', '[a, b]', '[]', "['q', b]",
      '{a: 1}', '&anchor x', '*alias', '!tag x', 'b1946ac9', 'path/to/file.md', 'http://x.y/z', 'a:b', '(paren)', '$HOME', 'ünïcode',
      '@at', '`tick`', '-dash', '?q', 'v1.2.3', '12:30', '"a\\"b"', "'unterminated", '[a, [b]]', 'a]', 'a{', '',
    ];
    const shapes = (v: string) => [`{id: x, key: ${v}}`, `{key: ${v}, id: x}`, `{ key:  ${v} , id: x }`, `{key:\t${v}}`, `{key: ${v},}`, `{key: ${v}} `, `{key: ${v}} x`];
    // The fast path accepts what the yaml package accepts, and reads it the same.
    const agrees = (src: string, same: (got: unknown, want: unknown) => void) => {
      let expected: unknown;
      let yamlOk = true;
      try {
        expected = YAML.parse(src, { logLevel: 'error', uniqueKeys: true });
      } catch {
        yamlOk = false;
      }
      const got = parseFrontmatter(src);
      expect(got.ok, src).toBe(yamlOk);
      if (got.ok && yamlOk) same(got.data, expected);
    };
    for (const v of values) for (const src of shapes(v)) agrees(src, (got, want) => expect(got, src).toEqual(want));
    for (const src of ['{}', '{id: a, id: b}', '{a: 1, b}', '{a: 1 b: 2}', '{a:1}', '{__proto__: 1}', '{a: 1}\u2028']) {
      agrees(src, (got, want) => expect(JSON.stringify(got), src).toBe(JSON.stringify(want)));
    }
  });

  it('formatFlowHeader writes what reads back, updateFlowHeader edits in place', () => {
    const data = { id: 'a', tags: ['x', 'y z'], fsrs: { stability: 1.5, last_review: '2026-01-01' }, n: null, when: '2026-11-01', note: 'a, b: {c}' };
    const flow = formatFlowHeader(data);
    const back = parseFrontmatter(flow);
    expect(back.ok && back.data).toEqual(data);
    expect(updateFlowHeader('{id: a, b: 1}', { b: 1 })).toBe('{id: a, b: 1}');
    expect(updateFlowHeader('{id: a,  b: 1}', { b: 2 })).toBe('{id: a,  b: 2}');
    expect(updateFlowHeader('{id: a, b: 1, c: 2}', { b: undefined })).toBe('{id: a, c: 2}');
    expect(updateFlowHeader('{id: a, b: 1, c: 2}', { c: undefined, d: 'x', e: 3 })).toBe('{id: a, b: 1, d: x, e: 3}');
    // Not read by the fast path (a nested map): written whole again.
    expect(updateFlowHeader('{id: a, fsrs: {s: 1}}', { b: 2 })).toBe('{id: a, fsrs: {s: 1}, b: 2}');
  });

  it('updateFlowHeader keeps the spelling of the keys it does not change, whatever the fast path reads', () => {
    // Hex and octal numbers, an escape in a double-quoted string, a nested map, spacing: only the changed keys differ.
    const src = '{id: a, importance: 0x1F, foo: 0x10, bar: 0o17, s: "x\\ty", fsrs: {s: 1},  n: 1e3}';
    expect(updateFlowHeader(src, { status: 'retired' })).toBe(`${src.slice(0, -1)}, status: retired}`);
    expect(updateFlowHeader(src, { foo: 17 })).toBe(src.replace('foo: 0x10', 'foo: 17'));
    expect(updateFlowHeader(src, { bar: undefined })).toBe(src.replace('bar: 0o17, ', ''));
    expect(updateFlowHeader(src, { n: undefined })).toBe(src.replace(',  n: 1e3', ''));
    // A value the full parser reads, unchanged: nothing to do.
    expect(updateFlowHeader(src, { importance: 31 })).toBe(src);
  });
});

describe('which form new entries get', () => {
  it('a file keeps the form of its last header; a file with none gets the comment form; the setting overrides', () => {
    expect(lastHeaderForm('# M\n')).toBeNull();
    expect(lastHeaderForm(YAML_ENTRY)).toBe('yaml');
    expect(lastHeaderForm(COMMENT_FILE)).toBe('comment');
    expect(lastHeaderForm(COMMENT_FILE + '\n' + YAML_ENTRY)).toBe('yaml');
    expect(lastHeaderForm('## [2026-01-01] legacy\n\nbody\n')).toBeNull();
    // A rule and a `key: value` line in a body are no header.
    expect(lastHeaderForm(`${COMMENT_FILE}\n---\nNote: a rule above, not a header.\n`)).toBe('comment');
    expect(headerFormFor(undefined, null)).toBe('comment');
    expect(headerFormFor('auto', YAML_ENTRY)).toBe('yaml');
    expect(headerFormFor('yaml', null)).toBe('yaml');
    expect(headerFormFor('comment', YAML_ENTRY)).toBe('comment');
  });

  it('renders a new entry in either form to the same entry', () => {
    const { text } = renderNewEntry({ id: 'n1', title: 'Use pnpm', body: 'Line one.\n<!-- mem {id: fake} -->\n---', date: '2026-11-02', extra: { tags: ['a'], session_task: 'x --> y' } });
    const comment = withHeaderForm(text, 'comment');
    expect(comment.split('\n')[0]).toMatch(/^<!-- mem \{id: n1, type: procedural, .*\} -->$/);
    const a = parseMemoryFile(text, 'MEMORY.md');
    const b = parseMemoryFile(comment, 'MEMORY.md');
    expect(b.entries.map((e) => e.id)).toEqual(['n1']);
    expect({ ...b.entries[0], line: 0, offset: 0 }).toEqual({ ...a.entries[0], line: 0, offset: 0 });
    // The body's look-alike header line was escaped, so it stayed body text.
    expect(b.entries[0].body).toContain(' <!-- mem {id: fake} -->');
  });
});

describe('files already in the wild read as before', () => {
  const roots = ['examples/sample-vault'];
  const files = roots.flatMap((r) => fs.readdirSync(r, { recursive: true, withFileTypes: true }).filter((d) => d.isFile() && d.name.endsWith('.md')).map((d) => path.join(d.parentPath, d.name)));
  it.each(files)('%s: no comment headers, parse → serialize unchanged', (f) => {
    const text = fs.readFileSync(f, 'utf8');
    const p = parseMemoryFile(text, f);
    expect(p.blocks.some((b) => b.header?.form)).toBe(false);
    expect(serializeFile(p)).toBe(text);
  });
});
