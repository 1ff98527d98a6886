// The near-duplicate search with half of its sets sketched on a worker thread (the built
// dist/scan-worker.js, sketch-sharing.ts): the same edges in the same order as on one thread, and
// a worker that answers with an error, or never answers, leaves its half to this thread.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sketchSharing } from '../../src/lifecycle/sketch-sharing.js';
import { similarEdges, type SketchSharing, type TokenSet } from '../../src/lifecycle/similarity.js';
import { REPO, cleanup, tempDir } from '../helpers.js';

afterAll(cleanup);

const WORKER = pathToFileURL(path.join(REPO, 'dist', 'scan-worker.js'));

/** Token sets with many near-copies (a token changed), exact copies and some empty sets. */
function sets(n: number): TokenSet[] {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const out: TokenSet[] = [];
  for (let i = 0; i < n; i++) {
    let t: number[];
    if (i > 0 && rand() < 0.3) {
      t = [...out[Math.floor(rand() * i)]];
      if (rand() < 0.7 && t.length > 3) t[Math.floor(rand() * t.length)] = Math.floor(rand() * 50_000);
    } else t = i % 500 === 0 ? [] : Array.from({ length: 8 + Math.floor(rand() * 30) }, () => Math.floor(rand() * 50_000));
    out.push(Int32Array.from(new Set(t)).sort());
  }
  return out;
}

/** `share`, counting the answers that came from the other thread. */
function counted(share: SketchSharing): SketchSharing & { answers: number } {
  const c = {
    answers: 0,
    start: (s: TokenSet[], from: number) => share.start(s, from),
    result: () => {
      const r = share.result();
      if (r) c.answers++;
      return r;
    },
    end: () => share.end(),
  };
  return c;
}

describe('the near-duplicate search with a worker thread', () => {
  it('gives the same edges, in the same order, as on one thread', () => {
    const s = sets(40_000);
    const alone = similarEdges(s, 0.8, { strict: true, exactLimit: 0 });
    expect(alone.length).toBeGreaterThan(1000);
    // A patience far past any busy machine's delay: the worker's answer is what is tested here.
    const share = counted(sketchSharing(WORKER, 600_000)!);
    expect(similarEdges(s, 0.8, { strict: true, exactLimit: 0, share, shareMin: 0 })).toEqual(alone);
    // The worker did answer (a failed one would give the same edges, made here).
    expect(share.answers).toBe(1);
    // With a rule that refuses some pairs, as compaction's groups do.
    const canPair = (a: number, b: number) => a % 7 === b % 7 || a % 3 === 0;
    expect(similarEdges(s, 0.8, { strict: true, exactLimit: 0, canPair, share: sketchSharing(WORKER), shareMin: 0 })).toEqual(similarEdges(s, 0.8, { strict: true, exactLimit: 0, canPair }));
  });

  it('takes its half back from a worker that fails or never answers', () => {
    const s = sets(20_000);
    const alone = similarEdges(s, 0.8, { strict: true, exactLimit: 0 });
    const dir = tempDir();
    // One that answers with an error.
    const failing = path.join(dir, 'failing.js');
    fs.writeFileSync(failing, [
      "import { parentPort } from 'node:worker_threads';",
      "parentPort.on('message', (job) => { job.port.postMessage({ error: 'broken on purpose' }); Atomics.add(job.signal, 0, 1); Atomics.notify(job.signal, 0); });",
    ].join('\n'));
    const fails = counted(sketchSharing(pathToFileURL(failing))!);
    expect(similarEdges(s, 0.8, { strict: true, exactLimit: 0, share: fails, shareMin: 0 })).toEqual(alone);
    expect(fails.answers).toBe(0);
    // One that dies as it loads: this thread stops waiting after its patience (here 200 ms).
    const dead = path.join(dir, 'dead.js');
    fs.writeFileSync(dead, "throw new Error('dead on purpose');\n");
    expect(similarEdges(s, 0.8, { strict: true, exactLimit: 0, share: sketchSharing(pathToFileURL(dead), 200), shareMin: 0 })).toEqual(alone);
    // No script: no sharing.
    expect(sketchSharing(pathToFileURL(path.join(dir, 'missing.js')))).toBeUndefined();
  });
});
