import { afterEach, describe, expect, it } from 'vitest';
import { formatObservationNote } from '../../src/notes/observation-note.js';
import { formatPatternNote, type CausalRelation } from '../../src/notes/pattern-note.js';
import { cleanup, tempVault, type TempVault } from '../helpers.js';
import { run as runMem } from '../run.js';

afterEach(cleanup);

const run = (v: TempVault, args: string[]) => runMem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: '2026-11-20' } });

function writePattern(v: TempVault, name: string, causal: CausalRelation[], opts: { anti?: boolean; title?: string } = {}): void {
  const kind = opts.anti ? 'ANTIPATTERN' : 'PATTERN';
  v.write(`.mem/patterns/${kind}-${name}.md`, formatPatternNote({
    name, antipattern: Boolean(opts.anti), title: opts.title ?? `${kind}-${name}`, permalink: `patterns/${kind.toLowerCase()}-${name}`, tags: ['causal', 'pattern'],
    trigger: 't', success_rate: 1, occurrences: 1, last_validated: '2026-11-01', context: '', action: 'a', observations: [], causal, evidence: [], warning: '', relations: [],
  }));
}

function writeOutcome(v: TempVault, name: string, causal: CausalRelation[] = []): void {
  v.write(`.mem/patterns/OUTCOME-${name}.md`, formatObservationNote({ name, kind: 'outcome', title: `OUTCOME-${name}`, permalink: `patterns/outcome-${name}`, tags: ['causal', 'observation', 'outcome'], context: name, observations: [], causal, relations: [] }));
}

/** A chain migrations → flaky tests → retry-until-green → red CI, a side branch, and one broken link. */
function chainVault(): TempVault {
  const v = tempVault();
  writePattern(v, 'run-migrations-first', [{ type: 'prevents', target: 'flaky-api-tests' }, { type: 'enables', target: 'OUTCOME-green-ci' }]);
  writePattern(v, 'flaky-api-tests', [{ type: 'causes', target: 'ANTIPATTERN-retry-until-green' }]);
  writePattern(v, 'retry-until-green', [{ type: 'causes', target: 'OUTCOME-red-ci' }, { type: 'correlates', target: 'Slow deploys' }], { anti: true });
  writeOutcome(v, 'green-ci');
  writeOutcome(v, 'red-ci');
  return v;
}

describe('mem pattern graph', () => {
  it('prints a mermaid flowchart of the notes by default, the same bytes every run', async () => {
    const v = chainVault();
    const r = await run(v, ['pattern', 'graph']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`flowchart LR
  %% 5 notes, 5 links
  %% 1 broken link (dashed)
  n1["Slow deploys (no such note)"]
  n2{{"ANTIPATTERN-retry-until-green"}}
  n3(["OUTCOME-green-ci"])
  n4(["OUTCOME-red-ci"])
  n5("PATTERN-flaky-api-tests")
  n6("PATTERN-run-migrations-first")
  n2 -.->|correlates| n1
  n2 -->|causes| n4
  n5 -->|causes| n2
  n6 -->|enables| n3
  n6 -->|prevents| n5
  classDef pattern fill:#e6f4ea,stroke:#2e7d32,color:#1b5e20
  class n5,n6 pattern
  classDef antipattern fill:#fdecea,stroke:#c62828,color:#b71c1c
  class n2 antipattern
  classDef outcome fill:#e3f2fd,stroke:#1565c0,color:#0d47a1
  class n3,n4 outcome
  classDef missing fill:#ffffff,stroke:#9e9e9e,stroke-dasharray:5 5,color:#757575
  class n1 missing
`);
    expect(r.stderr).toBe('1 broken link drawn dashed (mem validate lists them)\n');
    expect((await run(v, ['pattern', 'graph'])).stdout).toBe(r.stdout);
    const md = await run(v, ['pattern', 'graph', '--md']);
    expect(md.stdout).toBe(`\`\`\`mermaid\n${r.stdout}\`\`\`\n`);
  });

  it('starts from a note named as mem pattern path names it, within --depth', async () => {
    const v = chainVault();
    const r = await run(v, ['pattern', 'graph', '--from', 'flaky', '--depth', '1', '--no-broken']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('  %% 2 notes, 1 link\n');
    expect(r.stdout).toContain('("PATTERN-flaky-api-tests")');
    expect(r.stdout).toContain('{{"ANTIPATTERN-retry-until-green"}}');
    expect(r.stdout).not.toContain('OUTCOME-red-ci');
    // Depth 2 reaches the outcome; the broken link out of the anti-pattern is left out, and said so.
    const two = await run(v, ['pattern', 'graph', '--from', 'PATTERN-flaky-api-tests', '--depth', '2', '--no-broken']);
    expect(two.stdout).toContain('(["OUTCOME-red-ci"])');
    expect(two.stdout).toContain('  %% 1 broken link not shown\n');
    expect(two.stderr).toBe('1 broken link left out (mem validate lists them)\n');
    // A name that matches several notes is an error naming them; so is one that matches none.
    const amb = await run(v, ['pattern', 'graph', '--from', 'ci']);
    expect(amb.status).toBe(1);
    expect(amb.stderr).toMatch(/^mem: "ci" matches 2 notes: OUTCOME-green-ci, OUTCOME-red-ci/);
    expect((await run(v, ['pattern', 'graph', '--from', 'nothing-like-it'])).stderr).toMatch(/^mem: no pattern matches "nothing-like-it"/);
  });

  it('says on stderr and in the diagram when --max-nodes cuts it', async () => {
    const v = chainVault();
    const r = await run(v, ['pattern', 'graph', '--max-nodes', '2', '--no-broken']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('  %% 3 more notes not shown (max nodes)\n');
    expect(r.stderr).toContain('showing 2 of 5 notes; raise --max-nodes, or start --from a note\n');
    // The most connected are kept: the anti-pattern (3 links), then the flaky tests (2, before
    // run-migrations-first's 2 by id).
    expect(r.stdout).toContain('ANTIPATTERN-retry-until-green');
    expect(r.stdout).toContain('PATTERN-flaky-api-tests');
    expect(r.stdout).not.toContain('PATTERN-run-migrations-first');
  });

  it('prints Graphviz DOT, and the nodes and edges as JSON', async () => {
    const v = chainVault();
    const dot = await run(v, ['pattern', 'graph', '--format', 'dot']);
    expect(dot.status).toBe(0);
    expect(dot.stdout).toMatch(/^digraph causal \{\n/);
    expect(dot.stdout).toContain('  "patterns/pattern-flaky-api-tests" -> "patterns/antipattern-retry-until-green" [label="causes"];\n');
    expect(dot.stdout).toContain('  "patterns/antipattern-retry-until-green" -> "missing/slow-deploys" [label="correlates", style=dashed];\n');
    expect((await run(v, ['pattern', 'graph', '--format', 'DOT', '--md'])).stdout).toMatch(/^```dot\ndigraph causal \{\n[^]*\}\n```\n$/);
    const j = (await run(v, ['--json', 'pattern', 'graph'])).json();
    expect(Object.keys(j)).toEqual(['from', 'depth', 'nodes', 'edges', 'total_notes', 'omitted_notes', 'broken_links', 'broken_shown']);
    expect(j.nodes).toHaveLength(6);
    expect(j.nodes[0]).toEqual({ id: 'missing/slow-deploys', label: 'Slow deploys (no such note)', type: 'missing', path: null });
    expect(j.edges.find((e: { broken: boolean }) => e.broken)).toMatchObject({ source: 'patterns/antipattern-retry-until-green', target_text: 'Slow deploys', type: 'correlates', path: '.mem/patterns/ANTIPATTERN-retry-until-green.md' });
  });

  it('refuses bad options with one line, and an empty vault draws an empty graph', async () => {
    const v = tempVault();
    const empty = await run(v, ['pattern', 'graph']);
    expect(empty.status).toBe(0);
    expect(empty.stdout).toBe('flowchart LR\n  %% 0 notes, 0 links\n');
    expect(empty.stderr).toBe('no pattern notes yet (mem pattern add writes them)\n');
    for (const [args, msg] of [
      [['--format', 'svg'], '--format must be mermaid or dot'],
      [['--depth', '2'], '--depth needs --from'],
      [['--max-nodes', '0'], '--max-nodes must be an integer from 1 to'],
    ] as const) {
      const r = await run(v, ['pattern', 'graph', ...args]);
      expect(r.status).not.toBe(0);
      expect(r.stderr.split('\n')[0]).toContain(`mem: ${msg}`);
    }
  });

  it('keeps hostile titles and link targets in their labels', async () => {
    const v = tempVault();
    // Titles as a person might write them by hand in the frontmatter.
    writePattern(v, 'quotes', [{ type: 'causes', target: 'PATTERN-arrows' }], { title: 'Say "yes" [always] | never' });
    writePattern(v, 'arrows', [{ type: 'causes', target: 'a --> b; end' }], { title: 'n1 --> n2 -.-> end %%{init: {"theme":"dark"}}%%' });
    writePattern(v, 'markup', [{ type: 'enables', target: 'PATTERN-quotes' }], { title: '`code` <b>bold</b> & #quot; entity' });
    const r = await run(v, ['pattern', 'graph']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('  n2("n1 --#62; n2 -.-#62; end #37;#37;{init: {#34;theme#34;:#34;dark#34;}}#37;#37;")\n');
    expect(r.stdout).toContain('  n4("Say #34;yes#34; [always] | never")\n');
    expect(r.stdout).toContain('  n3("#96;code#96; #60;b#62;bold#60;/b#62; #38; #35;quot; entity")\n');
    expect(r.stdout).toContain('  n1["a --#62; b; end (no such note)"]\n');
    // Outside the quoted labels only mem's own syntax.
    const outside = r.stdout.replace(/"[^"\n]*"/g, '""');
    expect(outside).not.toMatch(/-->\s*n\d+\s*;|%%\{|\bdark\b|\bbold\b/);
  });
});
