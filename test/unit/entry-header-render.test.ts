// How a memory file looks where people read it: rendered as markdown (markdown-it, the renderer
// of VS Code's preview, follows CommonMark as GitHub's cmark-gfm does for headings, rules and
// HTML blocks). The `---` header form turns every entry's metadata into a rule and a large
// heading; the comment form renders as nothing.

import fs from 'node:fs';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { parseMemoryFile, serializeFile } from '../../src/vault/format.js';
import { withHeaderForm } from '../../src/vault/edit.js';

const md = new MarkdownIt('commonmark');
const SAMPLE = fs.readFileSync('examples/sample-vault/MEMORY.md', 'utf8');

/** The sample file with each entry's header in the comment form, its bodies as they are. */
function inCommentForm(text: string): string {
  const p = parseMemoryFile(text, 'MEMORY.md');
  return serializeFile({ ...p, blocks: p.blocks.map((b) => ({ ...b, raw: withHeaderForm(b.raw, 'comment') })) });
}

/** The text a reader sees: tags and comments gone. */
function visibleText(html: string): string {
  return html.replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>]+>/g, '');
}

const count = (html: string, tag: string) => (html.match(new RegExp(`<${tag}[\\s/>]`, 'g')) ?? []).length;

describe('rendered memory files', () => {
  const entries = parseMemoryFile(SAMPLE, 'MEMORY.md').entries;
  const before = md.render(SAMPLE);
  const afterText = inCommentForm(SAMPLE);
  const after = md.render(afterText);

  it('the `---` form: each header renders as a rule and a heading made of its metadata', () => {
    expect(entries.length).toBeGreaterThan(2);
    expect(count(before, 'hr')).toBeGreaterThanOrEqual(entries.length);
    expect(count(before, 'h2')).toBe(2 * entries.length);
    expect(before).toMatch(/<h2>id: [^<]*type: corrective[^<]*reinforcement_count: 3/);
    expect(visibleText(before)).toMatch(/reinforcement_count/);
  });

  it('the comment form: one heading per entry (its title), no rule, no metadata in the text', () => {
    expect(parseMemoryFile(afterText, 'MEMORY.md').entries.map((e) => [e.id, e.title, e.body, e.meta])).toEqual(entries.map((e) => [e.id, e.title, e.body, e.meta]));
    expect(count(after, 'h2')).toBe(entries.length);
    expect(count(after, 'hr')).toBe(0);
    for (const e of entries) expect(after).toContain(`<h2>[${String(e.meta.created_at)}] ${e.title}</h2>`);
    expect(visibleText(after)).not.toMatch(/reinforcement_count|importance|\bid:/);
    // The metadata is in the page source, one comment line per entry.
    expect(after.match(/^<!-- mem \{id: [^\n]*\} -->$/gm)).toHaveLength(entries.length);
    // Every line of the body still renders: the visible text is that of the `---` form minus the metadata.
    const words = (html: string) => visibleText(html).split(/\s+/).filter((w) => w && !/^(---|id:|type:|domain:|importance:|phase:|status:|reinforcement_count:|last_reinforced:|created_at:)$/.test(w));
    expect(words(after).length).toBeGreaterThan(0);
    expect(words(after).every((w) => visibleText(before).includes(w))).toBe(true);
  });
});
