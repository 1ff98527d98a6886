import { describe, expect, it } from 'vitest';
import { compactFiles, Compactor } from '../../src/lifecycle/compact.js';
import { applyDecisions, planConsolidation } from '../../src/lifecycle/contradictions.js';
import { planGlobalPromotions, planProjectPromotions, projectSpecific, type Candidate } from '../../src/lifecycle/promote.js';
import { reinforceFile, usageShare } from '../../src/lifecycle/reinforce.js';
import { detectStage, retireStageFile } from '../../src/lifecycle/stage.js';
import { wordSet } from '../../src/lifecycle/words.js';
import { parseMemoryFile, serializeFile } from '../../src/vault/format.js';
import { classifyPath } from '../../src/vault/scope.js';
import { entry } from '../helpers.js';

const words = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}${i + from}`).join(' ');
// Bodies with a chosen Jaccard: 17 shared + 1 / 2 own words → 17/20 = 0.85; 12 shared + 4 / 4 → 0.6.
const J85 = [`${words('w', 17)} aa1`, `${words('w', 17)} bb1 bb2`];
const J60 = [`${words('v', 12)} ${words('aa', 4)}`, `${words('v', 12)} ${words('bb', 4)}`];

function compact(text: string, path = 'MEMORY.md') {
  const parsed = parseMemoryFile(text, path);
  const r = compactFiles([{ path, group: 'project', parsed }]);
  const out = r.files.get(path);
  return { text: out ? serializeFile(out) : text, report: r.report };
}

describe('compaction', () => {
  it('removes retired entries and keeps the others byte-identical', () => {
    const text = `# M\n\n${entry('a', 'keep me')}${entry('r', 'gone', { status: 'retired' })}${entry('b', 'another different learning')}`;
    const { text: out, report } = compact(text);
    expect(report.retired.map((r) => r.id)).toEqual(['r']);
    expect(out).toBe(`# M\n\n${entry('a', 'keep me')}${entry('b', 'another different learning')}`);
  });
  it('keeps the 0.8-importance copy of a duplicated id', () => {
    const { text: out } = compact(entry('d', 'low copy', { importance: 0.3 }) + entry('d', 'high copy', { importance: 0.8 }));
    expect(out).toBe(entry('d', 'high copy', { importance: 0.8 }));
  });
  it('merges a pair at Jaccard 0.85 and leaves a pair at 0.6', () => {
    const merged = compact(entry('s', J85[0], { importance: 0.7, reinforcement_count: 1, last_reinforced: '2026-01-01' }) + entry('t', J85[1], { importance: 0.4, reinforcement_count: 4, last_reinforced: '2026-02-01' }));
    expect(merged.report.merges).toHaveLength(1);
    const e = parseMemoryFile(merged.text, 'MEMORY.md').entries;
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ id: 's', importance: 0.7, status: 'compacted', reinforcement_count: 4, last_reinforced: '2026-02-01', body: J85[1] });
    expect(e[0].meta.compacted_from).toEqual(['t']);
    expect(merged.report.merges[0].absorbed[0].jaccard).toBeCloseTo(0.85);
    const kept = compact(entry('s', J60[0]) + entry('t', J60[1]));
    expect(kept.report.merges).toHaveLength(0);
  });
  it('a second pass changes nothing', () => {
    const text = entry('a', J85[0], { importance: 0.9 }) + entry('b', J85[1]) + entry('r', 'x', { status: 'retired' }) + entry('d', 'dup') + entry('d', 'dup');
    const once = compact(text).text;
    const twice = compact(once);
    expect(twice.text).toBe(once);
    expect(twice.report).toEqual({ retired: [], duplicates: [], merges: [] });
  });
  it('a Compactor fed the files out of order, then reading them again, plans what compactFiles does', () => {
    const texts = [
      entry('a', J85[0], { importance: 0.9 }) + entry('r', 'x', { status: 'retired' }),
      entry('b', J85[1]) + entry('q', `${words('q', 9)} first`),
      entry('c', `${words('q', 9)} second`, { importance: 0.8 }) + entry('d', 'a body with words of its own'),
    ];
    const files = texts.map((t, i) => ({ path: `memory/f${i}.md`, group: 'project', parsed: parseMemoryFile(t, `memory/f${i}.md`) }));
    const whole = compactFiles(files);
    expect(whole.report.merges.length).toBeGreaterThan(0);
    const c = new Compactor(files);
    for (const i of [2, 0, 1]) c.scan(i, files[i].parsed);
    const reads: number[] = [];
    const out = new Map([...c.apply((i) => (reads.push(i), parseMemoryFile(texts[i], files[i].path)))].map((e) => [files[e.fileIdx].path, 'parsed' in e ? serializeFile(e.parsed) : '']));
    expect(c.report).toEqual(whole.report);
    expect(out).toEqual(new Map([...whole.files].map(([p, f]) => [p, serializeFile(f)])));
    expect(reads.length).toBeGreaterThan(0);
  });
  it('a Compactor that parses only the blocks of similar pairs from the text plans what compactFiles does', () => {
    const texts = [
      // A preamble, CRLF line breaks, and a comment-form header.
      `# Memory\r\n\r\n${entry('a', J85[0], { importance: 0.9 }).replace(/\n/g, '\r\n')}<!-- mem {id: c1, importance: 0.5} -->\r\n${words('q', 10)}\r\n\r\n`,
      // A header right under a header with no body (it takes that header's closing rule), and a
      // bare header with no rule at all, which does not parse alone: that file is parsed whole.
      `---\nid: e0\n---\nid: e1\n---\n${J85[1]}\n\n---\nid: u\n\nid: x\n\n${words('q', 10)}.\n`,
      `intro\n\n${entry('z', J60[0])}${entry('w', `${words('q', 10)}!`, { importance: 0.8 })}`,
    ];
    const files = texts.map((t, i) => ({ path: `memory/f${i}.md`, group: 'project', parsed: parseMemoryFile(t, `memory/f${i}.md`) }));
    const whole = compactFiles(files);
    expect(whole.report.merges.length).toBeGreaterThan(1);
    const c = new Compactor(files);
    files.forEach((f, i) => c.scan(i, f.parsed));
    const parses: number[] = [];
    const textReads: number[] = [];
    // The files rewritten from their text give the bytes the parsed ones would.
    const spliced: number[] = [];
    const out = new Map([...c.apply((i) => (parses.push(i), parseMemoryFile(texts[i], files[i].path)), (i) => (textReads.push(i), texts[i]))]
      .map((e) => [files[e.fileIdx].path, 'text' in e ? (spliced.push(e.fileIdx), e.text) : serializeFile(e.parsed)]));
    expect(c.report).toEqual(whole.report);
    expect(out).toEqual(new Map([...whole.files].map(([p, f]) => [p, serializeFile(f)])));
    expect(textReads.length).toBeGreaterThan(0);
    expect(spliced).toEqual([0, 2]);
  });
  it('files rewritten from their text are byte for byte what their parse gives, and lose entries exactly when it does', () => {
    // Seeded variety: near-duplicates within and across files, retired entries, ids repeated in a
    // file and across files, episodes and notes between entries, CRLF files, comment headers.
    let seed = 7;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const bodies = [...J85, ...J60, `${words('x', 20)} tail`, `${words('x', 20)} other`, `${words('x', 20)} other end`, 'short one', `${words('y', 30)}`];
    const texts = Array.from({ length: 12 }, (_, f) => {
      let t = rnd(3) === 0 ? '' : `# File ${f}\n\n`;
      for (let k = 0; k < 6 + rnd(6); k++) {
        const id = `e${rnd(25)}`;
        const meta: Record<string, string | number> = { importance: (1 + rnd(9)) / 10 };
        if (rnd(6) === 0) meta.status = 'retired';
        if (rnd(10) === 0) meta.kind = 'episode';
        const body = `${bodies[rnd(bodies.length)]}${rnd(2) ? '' : `\n\nMore about ${id}.`}`;
        t += rnd(4) === 0 ? `<!-- mem {id: ${id}, importance: ${meta.importance}} -->\n${body}\n\n` : entry(id, body, meta);
      }
      return rnd(3) === 0 ? t.replace(/\n/g, '\r\n') : t;
    });
    // A file that loses a copy of an id but keeps the id.
    texts.push(`${entry('solo', words('solo', 12))}${entry('twice', words('tw', 12), { importance: 0.2 })}${entry('twice', words('tw', 12), { importance: 0.9 })}`);
    const files = texts.map((t, i) => ({ path: `memory/f${i}.md`, group: 'project', parsed: parseMemoryFile(t, `memory/f${i}.md`) }));
    const whole = compactFiles(files);
    const c = new Compactor(files);
    files.forEach((f, i) => c.scan(i, f.parsed));
    let fromText = 0;
    const losing = new Set<boolean>();
    for (const e of c.apply((i) => parseMemoryFile(texts[i], files[i].path), (i) => texts[i])) {
      const want = whole.files.get(files[e.fileIdx].path)!;
      if (!('text' in e)) {
        expect(serializeFile(e.parsed)).toBe(serializeFile(want));
        continue;
      }
      fromText++;
      expect(e.text).toBe(serializeFile(want));
      const now = new Set(want.entries.map((x) => x.id));
      expect(e.loses).toBe(files[e.fileIdx].parsed.entries.some((x) => !now.has(x.id)));
      losing.add(e.loses);
    }
    expect(c.report).toEqual(whole.report);
    expect(fromText).toBeGreaterThan(5);
    expect(losing).toEqual(new Set([true, false]));
    expect([whole.report.retired.length, whole.report.duplicates.length, whole.report.merges.length].every((n) => n > 0)).toBe(true);
  });
  it('only merges within a group', () => {
    const a = parseMemoryFile(entry('a', J85[0]), 'MEMORY.md');
    const b = parseMemoryFile(entry('b', J85[1]), 'institutional.md');
    const r = compactFiles([{ path: 'MEMORY.md', group: 'project|task', parsed: a }, { path: 'institutional.md', group: 'project|institutional', parsed: b }]);
    expect(r.report.merges).toHaveLength(0);
  });
});

describe('text moved or rewritten between files keeps each file\'s line breaks', () => {
  const crlf = (t: string) => t.replace(/\n/g, '\r\n');
  const bareLf = (t: string) => (t.match(/(?<!\r)\n/g) ?? []).length;
  // The survivor (higher importance) in one file, the longer body (two lines) in the other.
  const twoLines = `${words('w', 9)}\n${words('w', 8, 9)} bb1 bb2`;

  it('compaction: a body merged from an LF file into a CRLF file is written with CRLF', () => {
    const target = parseMemoryFile(crlf(`# M\n\n${entry('s', J85[0], { importance: 0.9 })}`), 'MEMORY.md');
    const source = parseMemoryFile(entry('t', twoLines, { importance: 0.3 }), 'memory/x.md');
    const r = compactFiles([{ path: 'MEMORY.md', group: 'p', parsed: target }, { path: 'memory/x.md', group: 'p', parsed: source }]);
    expect(r.report.merges).toHaveLength(1);
    const out = serializeFile(r.files.get('MEMORY.md')!);
    expect(out).toContain(crlf(twoLines));
    expect(bareLf(out)).toBe(0);
    expect(parseMemoryFile(out, 'MEMORY.md').entries[0]).toMatchObject({ id: 's', body: twoLines });
  });

  it('compaction: a body merged from a CRLF file into an LF file is written with LF', () => {
    const target = parseMemoryFile(entry('s', J85[0], { importance: 0.9 }), 'MEMORY.md');
    const source = parseMemoryFile(crlf(entry('t', twoLines, { importance: 0.3 })), 'memory/x.md');
    const out = serializeFile(compactFiles([{ path: 'MEMORY.md', group: 'p', parsed: target }, { path: 'memory/x.md', group: 'p', parsed: source }]).files.get('MEMORY.md')!);
    expect(out).toContain(twoLines);
    expect(out).not.toContain('\r');
  });

  it('stage retirement and consolidation add their keys in the file\'s line breaks', () => {
    const text = crlf(entry('old', 'Use npm to install packages in this repository.', { created_at: '2026-10-01', phase: 'design', domain: 'task' })
      + entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' }));
    const retired = retireStageFile(parseMemoryFile(text, 'M.md'), 'M.md', 'design', '2026-11-25');
    expect(retired.retired.map((r) => r.id)).toEqual(['old']);
    expect(bareLf(serializeFile(retired.file!))).toBe(0);
    const items = parseMemoryFile(text, 'M.md').entries.map((e) => ({ path: 'M.md', entry: e, group: 'project' }));
    const decided = applyDecisions(parseMemoryFile(text, 'M.md'), planConsolidation(items, new Set()), '2026-11-25')!;
    expect(serializeFile(decided)).toContain('superseded_by: new\r\n');
    expect(bareLf(serializeFile(decided))).toBe(0);
  });
});

describe('reinforcement', () => {
  const file = parseMemoryFile(entry('a', 'Run the database migrations first.', { reinforcement_count: 2, last_reinforced: '2026-01-01' }) + entry('r', 'retired one', { status: 'retired' }) + entry('z', 'Deploys need the VPN.'), 'M.md');
  it('+1 and today on live entries; retired skipped', () => {
    const r = reinforceFile(file, 'M.md', new Set(['a', 'r']), { today: '2026-11-25' });
    expect(r.decisions.map((d) => [d.id, d.action, d.after])).toEqual([['a', 'reinforced', 3], ['r', 'skipped-retired', 0]]);
    const e = parseMemoryFile(serializeFile(r.file!), 'M.md').entries;
    expect(e[0]).toMatchObject({ reinforcement_count: 3, last_reinforced: '2026-11-25' });
    expect(e[1].status).toBe('retired');
  });
  it('usage-aware: +1 when the assistant used it, −1 (floor 0, date kept) when not', () => {
    const used = wordSet('I ran the migrations on the database before anything else.');
    expect(usageShare({ title: '', body: 'Run the database migrations first.' }, used)).toBeGreaterThanOrEqual(0.3);
    const r = reinforceFile(file, 'M.md', new Set(['a', 'z']), { today: '2026-11-25', used });
    expect(r.decisions.map((d) => [d.id, d.action, d.after])).toEqual([['a', 'reinforced', 3], ['z', 'unchanged', 0]]);
    const unused = reinforceFile(file, 'M.md', new Set(['a']), { today: '2026-11-25', used: wordSet('nothing relevant here') });
    const e = parseMemoryFile(serializeFile(unused.file!), 'M.md').entries[0];
    expect(e).toMatchObject({ reinforcement_count: 1, last_reinforced: '2026-01-01' });
  });
});

describe('stages', () => {
  it('detects an explicit stage line, else by keywords, else unknown', () => {
    expect(detectStage('# Intent\n\nStage: Review\n').stage).toBe('review');
    expect(detectStage('**Current phase:** implementation').stage).toBe('implementation');
    expect(detectStage('We are designing the architecture and the data model; the schema and interfaces are being drafted.').stage).toBe('design');
    expect(detectStage('Fix bugs, patch the incidents, upgrade dependencies and keep monitoring.').stage).toBe('maintenance');
    expect(detectStage('Hello world.').stage).toBe('unknown');
  });
  it('retires only live task-domain entries of the old stage', () => {
    const text = entry('t1', 'a', { domain: 'task', phase: 'implementation' }) + entry('t2', 'b', { domain: 'team', phase: 'implementation' })
      + entry('t3', 'c', { domain: 'task', phase: 'review' }) + entry('t4', 'd', { domain: 'task', phase: 'implementation', status: 'retired' });
    const file = parseMemoryFile(text, 'institutional.md');
    const r = retireStageFile(file, 'institutional.md', 'implementation', '2026-11-25');
    expect(r.retired.map((x) => x.id)).toEqual(['t1']);
    const again = retireStageFile(parseMemoryFile(serializeFile(r.file!), 'institutional.md'), 'institutional.md', 'implementation', '2026-11-25');
    expect(again.retired).toEqual([]);
    expect(again.file).toBeNull();
  });
});

function cand(id: string, body: string, path: string, meta: Record<string, string | number> = {}): Candidate {
  const e = parseMemoryFile(entry(id, body, meta), path).entries[0];
  return { entry: e, file: { abs: `/x/${path}`, path, isGlobal: false, ...classifyPath(path) } };
}

describe('promotion', () => {
  const lesson = 'Always run the linter before committing changes to avoid failing continuous integration builds';
  it('promotes a lesson found in three distinct jobs, once', () => {
    const src = [cand('a', lesson, '.mem/jobs/j1/MEMORY.md'), cand('b', lesson, '.mem/jobs/j2/MEMORY.md'), cand('c', `${lesson} again`, '.mem/jobs/j3/tasks/t/MEMORY.md')];
    const r = planProjectPromotions(src, []);
    expect(r.promote).toHaveLength(1);
    expect(r.promote[0].from.sort()).toEqual(['a', 'b', 'c']);
    const two = planProjectPromotions(src.slice(0, 2), []);
    expect(two.promote).toHaveLength(0);
    const sameJob = planProjectPromotions([src[0], cand('d', lesson, '.mem/jobs/j1/MEMORY.md'), src[1]], []);
    expect(sameJob.promote).toHaveLength(0);
    const existing = cand('p', lesson, 'MEMORY.md', { promoted_from: 'a' });
    expect(planProjectPromotions(src, [existing]).promote).toHaveLength(0);
  });
  it('counts distinct session ids too', () => {
    const src = ['s1', 's2', 's3'].map((s, i) => cand(`x${i}`, lesson, '.mem/jobs/j1/MEMORY.md', { session_id: s }));
    expect(planProjectPromotions(src, []).promote).toHaveLength(1);
  });
  it('project → global only when project-agnostic', () => {
    const names = ['shopfront'];
    const repo = new Set(['checkout-service', 'readme']);
    expect(projectSpecific(lesson, names, repo)).toBeNull();
    expect(projectSpecific('Shopfront deploys need the VPN', names, repo)).toMatch(/project/);
    expect(projectSpecific('Edit src/routes/cart before', names, repo)).toMatch(/path/);
    expect(projectSpecific('Check package.json first', names, repo)).toMatch(/file/);
    expect(projectSpecific('Call formatMoney at the edge', names, repo)).toMatch(/identifier/);
    expect(projectSpecific('Restart checkout-service after config edits', names, repo)).toMatch(/repository/);
    const proven = cand('p', lesson, 'MEMORY.md', { reinforcement_count: 3 });
    const specific = cand('q', 'Restart checkout-service after config edits', 'MEMORY.md', { reinforcement_count: 5 });
    const fresh = cand('f', 'Some new idea nobody reinforced', 'MEMORY.md');
    const r = planGlobalPromotions([proven, specific, fresh], [], names, repo);
    expect(r.promote.map((p) => p.from[0])).toEqual(['p']);
    expect(r.skipped.map((s) => s.id)).toEqual(['q']);
  });
});

describe('consolidation', () => {
  const items = (text: string) => parseMemoryFile(text, 'M.md').entries.map((e) => ({ path: 'M.md', entry: e, group: 'project' }));
  it('decays the older of a contradicting pair once, retires it when 90+ days older', () => {
    const text = entry('old', 'Use npm to install packages in this repository.', { created_at: '2026-10-01', importance: 0.5 })
      + entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' })
      + entry('other', 'The staging database is reset nightly.', { created_at: '2026-01-01' });
    const d = planConsolidation(items(text), new Set());
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ action: 'decay', id: 'old', by: 'new', importance_before: 0.5, importance_after: 0.35 });
    const file = applyDecisions(parseMemoryFile(text, 'M.md'), d, '2026-11-25')!;
    const out = serializeFile(file);
    expect(parseMemoryFile(out, 'M.md').entries[0].meta).toMatchObject({ importance: 0.35, superseded_by: 'new' });
    expect(out.endsWith(entry('new', 'Never use npm to install packages in this repository; use pnpm.', { created_at: '2026-11-20' }) + entry('other', 'The staging database is reset nightly.', { created_at: '2026-01-01' }))).toBe(true);
    expect(planConsolidation(items(out), new Set()).filter((x) => x.action === 'decay')).toEqual([]);
    const long = text.replace("created_at: '2026-10-01'", "created_at: '2026-05-01'");
    expect(planConsolidation(items(long), new Set())[0]).toMatchObject({ action: 'retire', id: 'old' });
  });
  it('floors importance at 0.1 and sees changed numbers', () => {
    const text = entry('n18', 'The CI image runs Node 18 for the build.', { created_at: '2026-11-01', importance: 0.12 }) + entry('n20', 'The CI image runs Node 20 for the build.', { created_at: '2026-11-22' });
    expect(planConsolidation(items(text), new Set())[0]).toMatchObject({ action: 'decay', id: 'n18', importance_after: 0.1 });
  });
});
