import { describe, expect, it } from 'vitest';
import { TokenVocab, clusters, jaccardSorted, normTokens, similarEdges, similarPairs, tokenSets, wordHashes, type WordHashes } from '../../src/lifecycle/similarity.js';

function brute(sets: string[][], t: number, strict: boolean) {
  const out: string[] = [];
  for (let a = 0; a < sets.length; a++) {
    for (let b = a + 1; b < sets.length; b++) {
      const A = new Set(sets[a]);
      const B = new Set(sets[b]);
      const inter = [...A].filter((x) => B.has(x)).length;
      const union = A.size + B.size - inter;
      const j = union === 0 ? 0 : inter / union;
      if (A.size > 0 && B.size > 0 && (strict ? j > t : j >= t)) out.push(`${a},${b}`);
    }
  }
  return out.sort();
}

describe('similarPairs (prefix filtering)', () => {
  it('finds exactly the pairs brute force finds, at several thresholds', () => {
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const vocab = Array.from({ length: 60 }, (_, i) => `t${i}`);
    const sets: string[][] = [];
    for (let i = 0; i < 300; i++) {
      if (i > 0 && rand() < 0.4) {
        // a perturbed copy of an earlier set, so high similarities occur
        const base = [...sets[Math.floor(rand() * sets.length)]];
        if (rand() < 0.5 && base.length > 1) base.splice(Math.floor(rand() * base.length), 1);
        if (rand() < 0.5) base.push(vocab[Math.floor(rand() * vocab.length)]);
        sets.push([...new Set(base)]);
      } else {
        const n = 1 + Math.floor(rand() * 12);
        sets.push([...new Set(Array.from({ length: n }, () => vocab[Math.floor(rand() * vocab.length)]))]);
      }
    }
    for (const t of [0.4, 0.6, 0.8, 0.9]) {
      for (const strict of [false, true]) {
        const got = similarPairs(tokenSets(sets), t, { strict }).map((p) => `${p.a},${p.b}`).sort();
        expect(got, `t=${t} strict=${strict}`).toEqual(brute(sets, t, strict));
      }
    }
  });
  it('reports the exact Jaccard and honours canPair', () => {
    const sets = tokenSets([['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'e'], ['a', 'b', 'c', 'd']]);
    const pairs = similarPairs(sets, 0.5);
    expect(pairs.find((p) => p.a === 0 && p.b === 2)?.jaccard).toBe(1);
    expect(pairs.find((p) => p.a === 0 && p.b === 1)?.jaccard).toBeCloseTo(3 / 5);
    expect(similarPairs(sets, 0.5, { canPair: (a, b) => a + b !== 2 }).some((p) => p.a === 0 && p.b === 2)).toBe(false);
  });
  it('normalises tokens and clusters transitively', () => {
    expect(normTokens('The Build, the BUILD and a test!')).toEqual(['build', 'test']);
    const vocab = new TokenVocab();
    const a = vocab.ofText('The Build, the BUILD and a test!');
    expect(a.length).toBe(2);
    expect(jaccardSorted(a, vocab.ofText('test the build: x y zz'))).toBeCloseTo(2 / 3);
    expect(jaccardSorted(Int32Array.from([1, 2, 3]), Int32Array.from([2, 3, 4]))).toBeCloseTo(0.5);
    expect(clusters(4, [{ a: 0, b: 1, jaccard: 1 }, { a: 1, b: 2, jaccard: 1 }]).map((c) => c.sort())).toEqual([[0, 1, 2], [3]]);
  });
});

describe('similarEdges (MinHash LSH above the exact limit)', () => {
  it('forms the same clusters as the exact search on planted near-duplicates', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const sets: string[][] = [];
    for (let i = 0; i < 3000; i++) {
      if (i > 10 && rand() < 0.2) {
        const base = [...sets[Math.floor(rand() * sets.length)]];
        if (rand() < 0.6) base[Math.floor(rand() * base.length)] = `x${i}`;
        sets.push(base);
      } else {
        sets.push(Array.from({ length: 10 + Math.floor(rand() * 30) }, () => `w${Math.floor(Math.pow(rand(), 2) * 5000)}`));
      }
    }
    const norm = (pairs: { a: number; b: number }[]) => clusters(sets.length, pairs as never).filter((c) => c.length > 1).map((c) => c.sort((x, y) => x - y).join(',')).sort();
    const exact = norm(similarPairs(tokenSets(sets), 0.8, { strict: true }));
    const lsh = similarEdges(tokenSets(sets), 0.8, { strict: true, exactLimit: 0 });
    expect(exact.length).toBeGreaterThan(50);
    expect(norm(lsh)).toEqual(exact);
    for (const e of lsh) expect(e.jaccard).toBeGreaterThan(0.8);
  });

  it('joins big buckets of copies, keeps to canPair and never pairs empty sets', () => {
    const a = Array.from({ length: 20 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 25 }, (_, i) => `b${i}`);
    // 150 copies of each text (far more than one bucket compares pair by pair), then empty sets.
    const sets: string[][] = [];
    for (let i = 0; i < 300; i++) sets.push(i % 2 === 0 ? a : b);
    for (let i = 0; i < 50; i++) sets.push([]);
    // Copies in the first and the second half may not pair with each other.
    const canPair = (x: number, y: number) => x < 150 === y < 150;
    const edges = similarEdges(tokenSets(sets), 0.8, { strict: true, exactLimit: 0, canPair });
    const got = clusters(sets.length, edges).filter((c) => c.length > 1).map((c) => c.sort((x, y) => x - y));
    const want = [0, 1, 150, 151].map((start) => Array.from({ length: 75 }, (_, k) => start + 2 * k));
    expect(got.sort((x, y) => x[0] - y[0])).toEqual(want);
    for (const e of edges) expect(canPair(e.a, e.b) && e.a < e.b && e.jaccard === 1).toBe(true);
    // Every pair is tried at most once: far fewer edges than the 4 × 75·74/2 pairs.
    expect(edges.length).toBeLessThan(4 * 75 * 37);
  });
});

describe('TokenVocab', () => {
  it('gives the words normTokens keeps one id each, in ASCII and other text alike', () => {
    const texts = [
      'Run the migrations before the API tests; they fail on a fresh DB.',
      "Café prices: naïve Über drivers in Zürich won't take 2-3 rides",
      'snake_case and kebab-case and CamelCase, x y z, 42 and 7',
      'THE the The tests TESTS',
      '',
    ];
    const vocab = new TokenVocab();
    const byWord = new Map<string, number>();
    for (const t of texts) {
      const words = normTokens(t);
      const ids = vocab.ofText(t);
      expect(ids.length, t).toBe(words.length);
      expect([...ids], t).toEqual([...ids].sort((x, y) => x - y));
      // the same word always gets the same id, whatever text it came in
      const again = words.map((w) => vocab.ofText(w)[0]);
      expect(new Set(again).size).toBe(words.length);
      words.forEach((w, i) => {
        if (byWord.has(w)) expect(byWord.get(w)).toBe(again[i]);
        byWord.set(w, again[i]);
      });
      expect([...ids]).toEqual([...again].sort((x, y) => x - y));
    }
    expect(vocab.ofText('deploy needs vpn')).toEqual(vocab.ofText('vpn — deploy needs')); // non-ASCII text takes the regex path
    // Thousands of distinct words (the table grows) keep distinct, stable ids.
    const many = Array.from({ length: 5000 }, (_, i) => `word${i}x`);
    const ids = many.map((w) => vocab.ofText(w)[0]);
    expect(new Set(ids).size).toBe(5000);
    expect(many.map((w) => vocab.ofText(w)[0])).toEqual(ids);
    // A long text (more words than the small-set sort handles) gives the same set.
    const long = Array.from({ length: 400 }, (_, i) => `w${(i * 37) % 150}`).join(' ');
    expect([...vocab.ofText(long)]).toEqual([...new Set(normTokens(long).map((w) => vocab.ofText(w)[0]))].sort((x, y) => x - y));
    // Explicit token lists keep every token, stopwords and one-letter ones too.
    expect(tokenSets([['a', 'b', 'the', 'build']])[0].length).toBe(4);
  });

  it('gives the same ids from word hashes made elsewhere (a worker thread) as from the texts, in the same order', () => {
    const texts = [
      'Run the database migrations before the API tests.',
      'The staging deploy needs the VPN connection; without it Helm times out.',
      'Café au lait — naïve résumé of the déjà vu', // non-ASCII: the regex path
      'a I x y z', // only one-letter words and stopwords
      '',
      'UPPER lower MiXeD 2026 v2 x86_64 node20',
      Array.from({ length: 300 }, (_, i) => `w${(i * 31) % 120}`).join(' '), // more words than the buffer starts with
      'Run the database migrations before the API tests.', // again: ids already given
    ];
    const direct = new TokenVocab();
    const viaHashes = new TokenVocab();
    // One buffer for several texts, as a file's scan keeps them: each text's hashes start where the last one's end.
    const out: WordHashes = { a: new Int32Array(8) };
    const ends: number[] = [];
    let at = 0;
    for (const t of texts) ends.push((at = wordHashes(t, out, at)));
    texts.forEach((t, k) => {
      expect([...viaHashes.ofHashes(out.a, k === 0 ? 0 : ends[k - 1], ends[k])], t).toEqual([...direct.ofText(t)]);
    });
    expect(viaHashes.size).toBe(direct.size);
    // Two words per number pair; a one-letter word gives none.
    expect(wordHashes('ab cd e', { a: new Int32Array(0) })).toBe(4);
  });
});
