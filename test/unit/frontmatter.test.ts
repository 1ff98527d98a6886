import YAML from 'yaml';
import fs from 'node:fs';
import { fastParseConfig } from '../../src/vault/config.js';
import { describe, expect, it } from 'vitest';
import { formatFrontmatter, formatValue, parseFrontmatter, updateFrontmatter } from '../../src/vault/frontmatter.js';

describe('parseFrontmatter', () => {
  it('agrees with the yaml package on every scalar shape the fast path accepts', () => {
    const values = [
      '0.8', '1', '-3', '+4', '1e3', '.5', '5.', '0x1F', '0o17', '.inf', '-.Inf', '.nan', 'true', 'False', 'TRUE', 'yes', 'no', 'on',
      'null', '~', 'Null', '', "'2026-11-20'", '2026-11-20', '"quoted"', "'it''s'", 'plain text here', 'a: b', 'x #comment',
      'trailing:', '[a, b]', '[]', '[1, two, 3.5]', "['q', b]", '{a: 1}', '&anchor x', '*alias', '!tag x', '|', '>',
      '3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10', 'b1946ac9', 'path/to/file.md', '(paren)', '~home', '$HOME', 'C:\\dir',
      'ünïcode', 'a,b', '@at', '%pct', '`tick`', '-dash', '- item', '?q', ': colon', 'v1.2.3', '12:30', '1_000',
    ];
    for (const v of values) {
      const src = `id: x\nkey: ${v}\n`;
      let expected: unknown;
      let yamlOk = true;
      try {
        expected = YAML.parse(src, { logLevel: 'error' });
      } catch {
        yamlOk = false;
      }
      const got = parseFrontmatter(src);
      if (!yamlOk) {
        expect(got.ok, v).toBe(false);
        continue;
      }
      expect(got.ok, v).toBe(true);
      if (got.ok) expect(got.data, `value ${JSON.stringify(v)}`).toEqual(expected);
    }
  });

  it('agrees with the yaml package on every line shape, fast path or not', () => {
    const lines = [
      'key: value', 'key:value', 'key :  value  ', 'key:\tvalue\t', 'key:', 'key:   ', 'key\t: 1', 'k-e_y9: x', '_k: 1', '9k: 1', '-k: 1',
      'key.x: 1', 'key: a\rb', 'key: a\u2028b', 'key:\u2028', 'key: a \u2028', '  ', '\u00a0', '\t', '', '# comment', 'key: [a, b]  ',
      'key: \'a\'  ', 'key: x\r', '\r', 'key: a:b', 'key: a # c',
    ];
    for (const line of lines) {
      const src = `id: x\n${line}\nother: 2\n`;
      let expected: unknown;
      let yamlOk = true;
      try {
        expected = YAML.parse(src, { logLevel: 'error', uniqueKeys: true });
      } catch {
        yamlOk = false;
      }
      const got = parseFrontmatter(src);
      expect(got.ok, JSON.stringify(line)).toBe(yamlOk);
      if (got.ok && yamlOk) expect(got.data, JSON.stringify(line)).toEqual(expected);
    }
    const simple = parseFrontmatter("id: a\r\ntype: corrective  \r\n\r\nimportance: 0.8\nlast_reinforced: '2026-01-01'");
    expect(simple.ok && simple.simple).toBe(true);
    expect(simple.ok && simple.data).toEqual({ id: 'a', type: 'corrective', importance: 0.8, last_reinforced: '2026-01-01' });
  });

  it('keeps key order and unknown keys', () => {
    const r = parseFrontmatter('id: a\nzeta: 1\nalpha: two\ntype: corrective\n');
    expect(r.ok && Object.keys(r.data)).toEqual(['id', 'zeta', 'alpha', 'type']);
  });

  it('reports malformed YAML with a line', () => {
    const r = parseFrontmatter('id: a\ntags: [unclosed\nother: 1\n');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.line).toBeGreaterThanOrEqual(2);
  });

  it('rejects duplicate keys', () => {
    expect(parseFrontmatter('id: a\nid: b\n').ok).toBe(false);
  });

  it('parses nested YAML through the full parser', () => {
    const r = parseFrontmatter('id: a\nfsrs:\n  stability: 2.3\n  difficulty: 5\n');
    expect(r.ok && r.data.fsrs).toEqual({ stability: 2.3, difficulty: 5 });
    expect(r.ok && r.simple).toBe(false);
  });
});

describe('formatValue / updateFrontmatter', () => {
  it('round-trips values through the parser', () => {
    const data = { id: '3f0c2a4e-8d7b', n: 2, f: 0.75, d: '2026-11-25', s: "it's: tricky", yes: 'yes', num: '42', list: ['a', 'b'], t: true, multi: 'a\nb' };
    const text = formatFrontmatter(data);
    const back = parseFrontmatter(text);
    expect(back.ok && back.data).toEqual(data);
    expect(text).toContain("d: '2026-11-25'");
    expect(formatValue('x', '42')).toBe("'42'");
  });

  it('edits one simple line and leaves the others byte-identical', () => {
    const src = "id: a\ntype: corrective   \nimportance: 0.80\nodd_key: 'kept'\nlast_reinforced: '2026-01-01'\n";
    const out = updateFrontmatter(src, { last_reinforced: '2026-11-25', reinforcement_count: 3 });
    expect(out).toBe("id: a\ntype: corrective   \nimportance: 0.80\nodd_key: 'kept'\nlast_reinforced: '2026-11-25'\nreinforcement_count: 3\n");
  });

  it('keeps comments and order when the block needs the YAML document model', () => {
    const src = 'id: a # the id\nfsrs:\n  stability: 2\ntags:\n  - x\n';
    const out = updateFrontmatter(src, { status: 'retired' });
    expect(out).toContain('# the id');
    expect(out.indexOf('fsrs')).toBeLessThan(out.indexOf('status'));
    const back = parseFrontmatter(out);
    expect(back.ok && back.data).toEqual({ id: 'a', fsrs: { stability: 2 }, tags: ['x'], status: 'retired' });
  });

  it('keeps CRLF line endings', () => {
    const out = updateFrontmatter('id: a\r\nstatus: active\r\n', { status: 'retired' });
    expect(out).toBe('id: a\r\nstatus: retired\r\n');
  });
});

describe('fastParseConfig', () => {
  const template = fs.readFileSync(new URL('../../templates/config.yaml', import.meta.url), 'utf8');

  it('reads the README example (flow maps) as the yaml package does', () => {
    const text = 'include: [docs/**/*.md]\nexclude: [docs/drafts/**]\nscope_multipliers: {global: 1.0, project: 1.2, session: 1.2, team: 1.5}\nsearch: {limit: 10, candidates: 100, rank: prominence}\n';
    expect(fastParseConfig(text)).toEqual(YAML.parse(text));
  });

  it('reads the shipped template exactly as the yaml package does', () => {
    const fast = fastParseConfig(template);
    expect(fast).not.toBeNull();
    expect(fast).toEqual(YAML.parse(template));
  });

  it('agrees with the yaml package on every generated config it accepts, and accepts the usual ones', () => {
    const values = ['10', '-3', '1.5', '1.0', '0', 'true', 'False', 'null', '~', 'prominence', 'docs/**/*.md', "'quoted # not a comment'",
      '"double"', "'it''s'", '[]', '[a, b]', '[project, corrective]', '[1, 2.5]', 'http://localhost:11434/v1', 'a#b', '*alias', '&anchor x',
      '{a: 1}', '{limit: 10, rank: prominence}', '{global: 1.0, team: 1.5}', '{}', '{a: [b]}', '{a}', '{a: }', '{a: 1, a: 2}', '{a:1}', '|', '"unterminated', "'x' # c", '0x1F', '.inf', 'yes', 'a: b', '- x', '[a, [b]]', 'claude-haiku-4-5', '60000 # ms'];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const pick = <T,>(xs: T[]) => xs[rand(xs.length)];
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const lines: string[] = [];
      const keys = ['include', 'exclude', 'search', 'context', 'llm', 'extract', 'scope_multipliers', 'other_key'];
      const n = 1 + rand(5);
      for (let k = 0; k < n; k++) {
        const key = pick(keys);
        if (rand(6) === 0) lines.push(pick(['# a comment', '', '   # indented comment', '  ']));
        const shape = rand(4);
        const ind = ' '.repeat(pick([0, 2, 2, 4]));
        if (shape === 0) lines.push(`${key}: ${pick(values)}`);
        else if (shape === 1) lines.push(`${key}:`, ...Array.from({ length: rand(3) }, () => `${ind}- ${pick(values)}`));
        else if (shape === 2) lines.push(`${key}:${rand(2) ? '   # note' : ''}`, ...Array.from({ length: rand(4) }, (_, j) => `${ind || '  '}${pick(['limit', 'rank', 'model', `k${j}`])}: ${pick(values)}`));
        else lines.push(`${key}:`, `${ind || '  '}${pick(['limit', 'rank'])}:`, `${ind || '  '}  deeper: 1`);
      }
      const text = lines.join(rand(5) === 0 ? '\r\n' : '\n') + '\n';
      const fast = fastParseConfig(text);
      if (fast === null) continue;
      accepted++;
      let expected: unknown;
      try {
        expected = YAML.parse(text);
      } catch (err) {
        throw new Error(`fast path accepted what yaml rejects:\n${text}\n${(err as Error).message}`);
      }
      expect(fast, text).toEqual(expected ?? {});
    }
    expect(accepted).toBeGreaterThan(300);
  });
});
