// Graphviz reads what `mem pattern graph --format dot` prints: every note a node with its title as
// written, hostile characters and all. Skipped where Graphviz is not installed (apt: graphviz).
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { formatPatternNote, type CausalRelation } from '../../src/notes/pattern-note.js';
import { cleanup, mem, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const hasDot = spawnSync('dot', ['-V'], { encoding: 'utf8' }).status === 0;

function writePattern(v: TempVault, name: string, title: string, causal: CausalRelation[]): void {
  v.write(`.mem/patterns/PATTERN-${name}.md`, formatPatternNote({
    name, antipattern: false, title, permalink: `patterns/pattern-${name}`, tags: ['causal', 'pattern'], trigger: 't', success_rate: 1, occurrences: 1,
    last_validated: '2026-11-01', context: '', action: 'a', observations: [], causal, evidence: [], warning: '', relations: [],
  }));
}

/** The text of each <text> element of an SVG, entities decoded. */
function svgTexts(svg: string): string[] {
  const ent: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&(#\d+|\w+);/g, (_s, e: string) => (e.startsWith('#') ? String.fromCodePoint(Number(e.slice(1))) : ent[e] ?? `&${e};`)));
}

describe.skipIf(!hasDot)('mem pattern graph --format dot through Graphviz', () => {
  it('renders, with every label as the note has it', () => {
    const v = tempVault();
    const titles = ['Say "yes" \\ always', 'ends with a backslash \\', 'a -> b [label="x"]; }', '<b>html</b> & \\N \\l'];
    titles.forEach((t, i) => writePattern(v, `p${i}`, t, [{ type: 'causes', target: `PATTERN-p${(i + 1) % titles.length}` }, { type: 'prevents', target: 'no "such" note \\' }]));
    const out = mem(['pattern', 'graph', '--format', 'dot'], { cwd: v.root, home: v.home });
    expect(out.status).toBe(0);
    const svg = spawnSync('dot', ['-Tsvg'], { input: out.stdout, encoding: 'utf8' });
    expect(svg.stderr).toBe('');
    expect(svg.status).toBe(0);
    const texts = svgTexts(svg.stdout);
    for (const t of titles) expect(texts).toContain(t);
    expect(texts).toContain('no "such" note \\ (no such note)');
    expect(texts.filter((t) => t === 'causes')).toHaveLength(titles.length);
    expect(texts.filter((t) => t === 'prevents')).toHaveLength(titles.length);
  });
});
