import { describe, expect, it } from 'vitest';
import { parseMemoryFile, serializeFile, updateBlockMeta } from '../../src/vault/format.js';

const FILE = `# Project memory

Preamble text, kept verbatim.

---
id: e1
type: corrective
domain: task
importance: 0.8
zeta_custom: keep me
phase: implementation
status: active
reinforcement_count: 2
last_reinforced: '2026-11-20'
created_at: '2026-11-02'
---
## [2026-11-02] Corrective: run migrations before the API tests

The API tests fail when the database is fresh.

---

A horizontal rule above is body text, not a new entry.

---
id: e2
type: declarative
---
Second entry without a heading. It has one sentence.
---
id: e3
importance: 0.3
---
## Third
body three
`;

describe('parseMemoryFile: entries', () => {
  const f = parseMemoryFile(FILE, 'MEMORY.md');

  it('finds every entry after the preamble', () => {
    expect(f.format).toBe('entries');
    expect(f.entries.map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
    expect(f.preamble).toBe('# Project memory\n\nPreamble text, kept verbatim.\n\n');
  });

  it('treats a --- rule inside a body as body text', () => {
    expect(f.entries[0].body).toContain('A horizontal rule above is body text');
    expect(f.entries[0].body).toContain('---');
  });

  it('reads typed fields with defaults and keeps unknown keys in order', () => {
    const [e1, e2, e3] = f.entries;
    expect(e1).toMatchObject({ type: 'corrective', domain: 'task', importance: 0.8, phase: 'implementation', reinforcement_count: 2, last_reinforced: '2026-11-20', created_at: '2026-11-02', line: 5 });
    expect(Object.keys(e1.meta)).toEqual(['id', 'type', 'domain', 'importance', 'zeta_custom', 'phase', 'status', 'reinforcement_count', 'last_reinforced', 'created_at']);
    expect(e1.title).toBe('Corrective: run migrations before the API tests');
    expect(e2).toMatchObject({ type: 'declarative', domain: 'team', importance: 0.5, status: 'active', phase: 'unknown', reinforcement_count: 0 });
    expect(e2.title).toBe('Second entry without a heading. It has one sentence.');
    expect(e3.importance).toBe(0.3);
    expect(e3.body).toBe('body three');
  });

  it('serializes back to the same bytes', () => {
    expect(serializeFile(f)).toBe(FILE);
  });

  it('changing one entry leaves every other byte identical', () => {
    const blocks = f.blocks.map((b) => (b.entry?.id === 'e2' ? updateBlockMeta(b, { status: 'retired', reinforcement_count: 1 }) : b));
    const out = serializeFile({ ...f, blocks });
    expect(out).toContain('id: e2\ntype: declarative\nstatus: retired\nreinforcement_count: 1\n---\n');
    const again = parseMemoryFile(out, 'MEMORY.md');
    expect(again.entries.map((e) => [e.id, e.status])).toEqual([['e1', 'active'], ['e2', 'retired'], ['e3', 'active']]);
    expect(out.replace('status: retired\nreinforcement_count: 1\n', '')).toBe(FILE);
  });

  it('keeps CRLF files intact', () => {
    const crlf = FILE.replace(/\n/g, '\r\n');
    const p = parseMemoryFile(crlf, 'MEMORY.md');
    expect(p.entries.map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
    expect(serializeFile(p)).toBe(crlf);
  });

  it('reports a malformed header with its line and keeps the other entries', () => {
    const text = `---\nid: ok1\n---\nfine\n---\nid: bad\ntags: [unclosed\n---\nbroken body\n---\nid: ok2\n---\nalso fine\n`;
    const p = parseMemoryFile(text, 'm.md');
    expect(p.entries.map((e) => e.id)).toEqual(['ok1', 'ok2']);
    expect(p.diagnostics).toHaveLength(1);
    expect(p.diagnostics[0].line).toBeGreaterThanOrEqual(6);
    expect(p.diagnostics[0].message).toMatch(/malformed YAML/);
    expect(serializeFile(p)).toBe(text);
  });

  it('does not take a file-level frontmatter without id for an entry', () => {
    const text = `---\ntitle: Notes\n---\n# Hello\n\n---\nid: x1\n---\nentry\n`;
    const p = parseMemoryFile(text, 'm.md');
    expect(p.entries.map((e) => e.id)).toEqual(['x1']);
    expect(p.preamble).toBe('---\ntitle: Notes\n---\n# Hello\n\n');
  });
});

describe('parseMemoryFile: legacy ## [ files', () => {
  const LEGACY = `# Memory\n\n## [2026-01-05] Corrective: never push to main\nUse a PR.\n\n## [2026-02-01] Use pnpm\nThe repo uses pnpm.\n`;
  it('splits on ## [ headings with stable ids', () => {
    const a = parseMemoryFile(LEGACY, 'MEMORY.md');
    const b = parseMemoryFile(LEGACY, 'MEMORY.md');
    expect(a.format).toBe('legacy');
    expect(a.entries).toHaveLength(2);
    expect(a.entries.map((e) => e.id)).toEqual(b.entries.map((e) => e.id));
    expect(a.entries[0].id).toMatch(/^legacy-[0-9a-f]{12}$/);
    expect(a.entries[0]).toMatchObject({ type: 'corrective', created_at: '2026-01-05', title: 'Corrective: never push to main', body: 'Use a PR.' });
    expect(serializeFile(a)).toBe(LEGACY);
  });
  it('stays entries, with the same ids, after frontmatter entries are appended (mem add, mem extract)', () => {
    const a = parseMemoryFile(LEGACY, 'MEMORY.md');
    const mixed = `${LEGACY}\n---\nid: new-1\ntype: directive\n---\n## [2026-11-01] Directive: run the linter\n\nBefore every commit.\n`;
    const b = parseMemoryFile(mixed, 'MEMORY.md');
    expect(b.format).toBe('entries');
    expect(b.preamble).toBe('# Memory\n\n');
    expect(b.entries.map((e) => [e.id, e.kind, e.ordinal])).toEqual([[a.entries[0].id, 'legacy', 0], [a.entries[1].id, 'legacy', 1], ['new-1', 'entry', 2]]);
    expect(b.entries[1].body).toBe('The repo uses pnpm.');
    expect(serializeFile(b)).toBe(mixed);
  });
  it('keeps an id when an unrelated entry is added', () => {
    const a = parseMemoryFile(LEGACY, 'MEMORY.md');
    const b = parseMemoryFile(`${LEGACY}\n## [2026-03-01] New one\nx\n`, 'MEMORY.md');
    expect(b.entries.slice(0, 2).map((e) => e.id)).toEqual(a.entries.map((e) => e.id));
  });
});

describe('parseMemoryFile: plain notes', () => {
  const NOTE = `---\ntitle: Setup guide\n---\nIntro paragraph.\n\n# Install\nRun npm ci.\n\n## Node version\nUse Node 20.\n\n\`\`\`sh\n# not a heading\n\`\`\`\n\n#### Deep heading stays inside\ntext\n\n# Install\nSecond install section.\n`;
  it('chunks by #–### headings, ignoring headings inside code fences', () => {
    const p = parseMemoryFile(NOTE, 'docs/setup.md');
    expect(p.format).toBe('notes');
    expect(p.entries.map((e) => e.title)).toEqual(['Setup guide', 'Install', 'Node version', 'Install']);
    expect(p.entries.map((e) => e.id)).toEqual(['docs/setup.md#setup-guide', 'docs/setup.md#install', 'docs/setup.md#node-version', 'docs/setup.md#install-2']);
    expect(p.entries[2].body).toContain('# not a heading');
    expect(p.entries[2].body).toContain('#### Deep heading');
    expect(p.entries[2].trail).toBe('Setup guide › Install');
    expect(p.entries[1].line).toBe(6);
    expect(serializeFile(p)).toBe(NOTE);
  });
  it('splits long sections at paragraph boundaries', () => {
    const para = (i: number) => `Paragraph ${i} ${'word '.repeat(60)}`;
    const text = `# Long\n\n${Array.from({ length: 20 }, (_, i) => para(i)).join('\n\n')}\n`;
    const p = parseMemoryFile(text, 'long.md');
    expect(p.entries.length).toBeGreaterThan(2);
    for (const e of p.entries) expect(e.body.length).toBeLessThanOrEqual(2000);
    expect(p.entries[1].id).toBe('long.md#long~2');
    expect(serializeFile(p)).toBe(text);
  });
  it('handles an empty file', () => {
    const p = parseMemoryFile('', 'empty.md');
    expect(p.entries).toEqual([]);
    expect(serializeFile(p)).toBe('');
  });
});
