import { wordRegexes } from '../../src/retrieve/wordchars.js';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { queryTerms, rarest, words } from '../../src/retrieve/terms.js';
import { queryDates } from '../../src/retrieve/dates.js';

describe('queryTerms', () => {
  it('lowercases, drops stopwords, ORs quoted terms', () => {
    const q = queryTerms('How do we deploy the Database migrations?');
    expect(q.terms).toEqual(['deploy', 'database', 'migrations']);
    expect(q.match).toBe('"deploy" OR "database" OR "migrations"');
  });
  it('adds the forms a stemmer cannot join (won for win), never a stopword or a repeat', () => {
    const q = queryTerms('What did the children win? They won, and we wrote it down');
    expect(q.terms).toEqual(['children', 'win', 'won', 'wrote']);
    expect(q.match).toBe('"children" OR "win" OR "won" OR "wrote" OR "child" OR "write" OR "written"');
    expect(Object.fromEntries(q.forms)).toEqual({ children: ['child'], wrote: ['write', 'written'] });
    // went's other forms (go, gone) are stopwords; a word with another common meaning (saw) is left alone.
    expect(queryTerms('where they went').match).toBe('"went"');
    expect(queryTerms('what she saw').match).toBe('"saw"');
  });
  it('keeps identifiers and paths whole', () => {
    expect(queryTerms('fix src/index.ts and user_id in db.prepare').terms).toEqual(['fix', 'src/index.ts', 'user_id', 'db.prepare']);
  });
  it('drops a stopword contraction whole, not its first half', () => {
    expect(queryTerms("what won't Jon do").terms).toEqual(['jon']);
    expect(queryTerms('they\u2019d rather not deploy').terms).toEqual(['rather', 'deploy']);
    expect(queryTerms("the user's config").terms).toEqual(['user', 'config']);
  });
  it('reads the dates a question names as day or month ranges', () => {
    expect(queryDates('what painting did Mel show on October 13, 2023?')).toEqual([{ from: '2023-10-13', to: '2023-10-13' }]);
    expect(queryDates('on 1 February, 2023 and 2024-02-29')).toEqual([{ from: '2024-02-29', to: '2024-02-29' }, { from: '2023-02-01', to: '2023-02-01' }]);
    expect(queryDates('what did John do in May 2023')).toEqual([{ from: '2023-05-01', to: '2023-05-31' }]);
    expect(queryDates('the 3rd of June 2023')).toEqual([{ from: '2023-06-03', to: '2023-06-03' }]);
    expect(queryDates('what may 2 users do in 2023, or on 31 February 2023')).toEqual([]);
  });
  it('flags a stopword-only query and an empty one', () => {
    expect(queryTerms('what is the').onlyStopwords).toBe(true);
    expect(queryTerms('what is the').match).toBeNull();
    expect(queryTerms('   ').onlyStopwords).toBe(false);
  });
  it('caps the number of terms', () => {
    const big = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
    const q = queryTerms(big);
    expect(q.terms).toHaveLength(64);
    expect(q.truncated).toBe(true);
    expect(q.chosen).toBe('first');
  });
  it('keeps the rarest terms of a long query that the index holds, wherever they stand, in query order', () => {
    // A pasted log: 300 common or unknown words, then the two that name the problem.
    const log = `${Array.from({ length: 300 }, (_, i) => `line${i}`).join(' ')} common ECONNREFUSED sentinel`;
    const df = new Map<string, number>([['econnrefused', 2], ['sentinel', 1], ['common', 900]]);
    for (let i = 0; i < 300; i++) if (i % 3 === 0) df.set(`line${i}`, 500 + i);
    const asked: string[][] = [];
    const q = queryTerms(log, 64, (ts) => {
      asked.push(ts);
      return ts.map((t) => df.get(t) ?? 0);
    });
    expect(asked).toHaveLength(1);
    expect(q.truncated).toBe(true);
    expect(q.chosen).toBe('rarest');
    expect(q.terms).toHaveLength(64);
    expect(q.terms.slice(-2)).toEqual(['econnrefused', 'sentinel']);
    // Words the index does not hold are left out; the common ones fill what is left, rarest first.
    expect(q.terms.every((t) => (df.get(t) ?? 0) > 0)).toBe(true);
    expect(q.terms).not.toContain('common');
    expect(q.match).toContain('"sentinel"');
    // A query within the cap is not looked up at all.
    expect(queryTerms('sentinel failover', 64, () => {
      throw new Error('not asked');
    }).terms).toEqual(['sentinel', 'failover']);
  });
  it('rarest: fewest entries first, none for a word in no entry, ties by position, query order kept', () => {
    expect(rarest(['a', 'b', 'c', 'd', 'e'], [5, 0, 1, 5, 3], 3)).toEqual(['a', 'c', 'e']);
    expect(rarest(['a', 'b'], [0, 0], 3)).toEqual([]);
  });
  it('a long query whose words are in no entry is not taken for stopwords', () => {
    const q = queryTerms(Array.from({ length: 100 }, (_, i) => `zz${i}`).join(' '), 64, (ts) => ts.map(() => 0));
    expect(q.terms).toEqual([]);
    expect(q.match).toBeNull();
    expect(q.onlyStopwords).toBe(false);
  });

  it('never produces an FTS5 syntax error, whatever the input', () => {
    const db = new Database(':memory:');
    db.exec("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')");
    db.prepare('INSERT INTO t(x) VALUES (?)').run('café naïve résumé 東京 test-case AND NOT');
    const nasty = ['"unbalanced', 'a AND', 'NOT b', 'OR', 'x:y', '(paren', 'NEAR(a b)', '*', 'a*', '^start', '-flag', '--', "it's",
      'col:value', '"', '""', 'a"b', '{x}', '[y]', 'C++', 'c#', 'émigré', '東京', '🙂 emoji', 'a\u0000b', '\\', 'x OR y AND NOT z',
      'node.js', 'e.g.', '.hidden', 'trailing-', '-', ':', "''", 'AND OR NOT', 'a+b=c', '100%', '$HOME/.config', '`rm -rf`'];
    for (const s of nasty) {
      const q = queryTerms(s);
      if (q.match) expect(() => db.prepare('SELECT rowid FROM t WHERE t MATCH ?').all(q.match), s).not.toThrow();
    }
    const q = queryTerms('cafe resume');
    expect(db.prepare('SELECT count(*) AS n FROM t WHERE t MATCH ?').get(q.match)).toEqual({ n: 1 });
  });
});

describe('word characters', () => {
  it('the ASCII regexes give the Unicode ones\' answers on ASCII text', () => {
    const ascii = wordRegexes('plain');
    const uni = wordRegexes('ü');
    expect(ascii).not.toBe(uni);
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let i = 0; i < 2000; i++) {
      const s = Array.from({ length: rand(24) }, () => String.fromCharCode(rand(128))).join('');
      expect(s.match(ascii.word), JSON.stringify(s)).toEqual(s.match(uni.word));
      expect(ascii.only.test(s), JSON.stringify(s)).toBe(uni.only.test(s));
      expect(ascii.ident.test(s), JSON.stringify(s)).toBe(uni.ident.test(s));
      expect(s.replace(ascii.edges, ''), JSON.stringify(s)).toBe(s.replace(uni.edges, ''));
      expect(ascii.digit.test(s), JSON.stringify(s)).toBe(uni.digit.test(s));
    }
  });

  it('non-ASCII queries still split on every script\'s letters', () => {
    expect(queryTerms('Zürich café — naïve straße 東京').terms).toEqual(['zürich', 'café', 'naïve', 'straße', '東京']);
    expect(words('Ärger über „Umlaute“')).toEqual(['ärger', 'über', 'umlaute']);
  });
});
