// Retrieval that reads the whole task: a long query's key terms (from the index, or from a model
// behind a loopback server), the scores shown after diversity, and `mem context`'s pattern sections.

import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentBin } from '../fake-agent-cli.js';
import { closeServers, fakeServer, openaiCompletion } from '../fake-llm.js';
import { NO_KEYS } from '../fixtures/providers.js';
import { cleanup, entry, tempVault, type TempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(async () => {
  await closeServers();
  cleanup();
});

/** A vault whose one entry about a Redis failover is buried under notes sharing a log's common words. */
function logVault(config = ''): TempVault {
  const v = tempVault();
  let text = entry('hit', '## Redis sentinel failover\nECONNREFUSED from the worker after a sentinel failover: the master moved; restart the worker pool.');
  const common = ['worker', 'job', 'queue', 'started', 'finished', 'retry', 'timeout', 'batch', 'upload', 'thumbnail'];
  for (let i = 0; i < 40; i++) text += entry(`n${i}`, `## Note ${i}\nThe ${common[i % 10]} ${common[(i + 3) % 10]} step ${i} is documented here.`);
  v.write('MEMORY.md', text);
  if (config) v.write('.mem/config.yaml', config);
  return v;
}

/** Over 4,000 characters of log lines (hundreds of distinct words), the cause on the last line. */
function pastedLog(tail = 'ERROR ECONNREFUSED redis sentinel failover'): string {
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < 4000; i++) {
    lines.push(`2026-11-2${i % 10}T10:${String(i % 60).padStart(2, '0')}:00Z INFO worker-${i} job ${1000 + i} started batch b${i * 7} upload /tmp/up${i}/f${i}.png thumbnail ok${i}`);
  }
  return `${lines.join('\n')}\n${tail}`;
}

const openaiTerms = (terms: unknown) => ({ body: openaiCompletion(JSON.stringify({ terms })) });

describe('a long query', () => {
  it('offline: the rarest terms in memory are searched, wherever they stand in the query', async () => {
    const v = logVault();
    const r = await run(['search', '-', '--json'], { cwd: v.root, home: v.home, env: NO_KEYS, input: pastedLog() });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().results[0].id).toBe('hit');
    expect(r.stderr).toMatch(/more than 64 distinct terms; searched for the \d+ of them found in memory/);
  });

  it('with a model configured: its key terms are searched; the query it reads is redacted', async () => {
    const srv = await fakeServer([openaiTerms(['ECONNREFUSED', 'sentinel', 'failover', 'redis', 'worker'])]);
    const v = logVault();
    const key = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;
    const r = await run(['search', '-', '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${srv.url}/v1` }, input: pastedLog(`token ${key}\nERROR ECONNREFUSED redis sentinel failover`) });
    expect(r.status, r.stderr).toBe(0);
    expect(srv.seen).toHaveLength(1);
    expect(srv.seen[0].path).toBe('/v1/chat/completions');
    expect(srv.seen[0].body.response_format.json_schema.name).toBe('search_terms');
    const sent = srv.seen[0].body.messages[1].content as string;
    expect(sent).toContain('ERROR ECONNREFUSED redis sentinel failover');
    expect(sent).not.toContain(key);
    expect(r.json().results[0].id).toBe('hit');
    expect(r.stderr).toContain('searched for the key terms openai (gpt-4o-mini) picked: ECONNREFUSED, sentinel, failover, redis, worker');
  });

  it('the model failing, or naming words memory does not hold: the rarest terms instead, with a warning', async () => {
    const down = await fakeServer([{ status: 500, body: { error: { message: 'overloaded' } } }]);
    const v = logVault();
    const r = await run(['search', '-', '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${down.url}/v1` }, input: pastedLog() });
    expect(r.status, r.stderr).toBe(0);
    expect(down.seen).toHaveLength(1); // no retry: search does not wait on the model
    expect(r.json().results[0].id).toBe('hit');
    expect(r.stderr).toMatch(/could not get the query's key terms from the model \(.*500.*\); searched for its rarest terms in memory instead/);

    const junk = await fakeServer([openaiTerms(['zebra', 'quasar'])]);
    const r2 = await run(['search', '-', '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${junk.url}/v1` }, input: pastedLog() });
    expect(r2.status, r2.stderr).toBe(0);
    expect(r2.json().results[0].id).toBe('hit');
    expect(r2.stderr).toMatch(/the key terms the model picked found nothing; searched for the query's rarest terms in memory instead/);

    const empty = await fakeServer([openaiTerms([])]);
    const r3 = await run(['search', '-', '--ids'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${empty.url}/v1` }, input: pastedLog() });
    expect(r3.stdout.split('\n')[0]).toBe('hit');
    expect(r3.stderr).toMatch(/gave no usable search terms/);
  });

  it('the model is asked only for a query over the cap, and never with retrieval.model_terms: false', async () => {
    const srv = await fakeServer([openaiTerms(['redis'])]);
    const v = logVault();
    const env = { ...NO_KEYS, OPENAI_BASE_URL: `${srv.url}/v1` };
    const short = await run(['search', 'redis sentinel failover', '--ids'], { cwd: v.root, home: v.home, env });
    expect(short.stdout.split('\n')[0]).toBe('hit');
    expect(srv.seen).toHaveLength(0);
    const off = logVault('retrieval:\n  model_terms: false\n');
    const r = await run(['search', '-', '--ids'], { cwd: off.root, home: off.home, env, input: pastedLog() });
    expect(r.stdout.split('\n')[0]).toBe('hit');
    expect(srv.seen).toHaveLength(0);
    expect(r.stderr).toMatch(/of them found in memory/);
    const bad = logVault('retrieval:\n  model_terms: sometimes\n');
    const b = await run(['search', 'redis'], { cwd: bad.root, home: bad.home, env });
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(/retrieval.model_terms must be true or false/);
  });

  it('an agent CLI merely found on PATH is never asked (a search waits); one the config names is', async () => {
    const fake = fakeAgentBin({ terms: ['ECONNREFUSED', 'sentinel', 'failover'] }, ['claude']);
    const v = logVault();
    const found = await run(['search', '-', '--ids'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('ok', { MEM_AGENT_CLI: '1' }) }, input: pastedLog() });
    expect(found.stdout.split('\n')[0]).toBe('hit');
    expect(fake.calls()).toHaveLength(0);
    expect(found.stderr).toMatch(/of them found in memory/);
    const named = await run(['search', '-', '--ids'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, ...fake.env('ok', { MEM_PROVIDER: 'claude-cli' }) }, input: pastedLog() });
    expect(named.stdout.split('\n')[0]).toBe('hit');
    expect(fake.calls()).toHaveLength(1);
    expect(named.stderr).toContain('searched for the key terms claude-cli');
  });

  it('mem context reads a long task the same way', async () => {
    const srv = await fakeServer([openaiTerms(['ECONNREFUSED', 'sentinel', 'failover'])]);
    const v = logVault();
    const r = await run(['context', '-', '--json'], { cwd: v.root, home: v.home, env: { ...NO_KEYS, OPENAI_BASE_URL: `${srv.url}/v1` }, input: pastedLog() });
    expect(r.status, r.stderr).toBe(0);
    expect(srv.seen).toHaveLength(1);
    expect(r.json().learnings[0].id).toBe('hit');
    expect(r.stderr).toContain('searched for the key terms openai (gpt-4o-mini) picked: ECONNREFUSED, sentinel, failover');
  });
});

describe('scores after diversity', () => {
  it('the human view shows scores in rank order and says why a result ranks below lower scores; --json has both', async () => {
    const v = tempVault();
    const one = (id: string, title: string, importance: number) => entry(id, `## ${title}`, { importance, last_reinforced: '2026-11-25' });
    v.write('MEMORY.md', one('a', 'Kafka consumers lag when partitions are few', 0.5) + one('b', 'Kafka consumers lag when the partitions are few', 0.5)
      + one('c', 'Consumer group rebalancing causes lag', 0.9) + one('d', 'Terraform sets the partitions of each topic', 0.9));
    const env = { ...NO_KEYS, MEM_NOW: '2026-11-25' };
    const human = await run(['search', 'kafka consumers lag partitions'], { cwd: v.root, home: v.home, env });
    expect(human.status, human.stderr).toBe(0);
    const heads = human.stdout.split('\n').filter((l) => /^\s*\d+ {2}/.test(l));
    const shown = heads.map((l) => Number(/ {2}(-?[\d.]+)(?: \(|$)/.exec(l)![1]));
    expect(shown).toHaveLength(4);
    for (let i = 1; i < shown.length; i++) expect(shown[i]).toBeLessThanOrEqual(shown[i - 1]);
    const copy = heads.find((l) => l.includes('when the partitions'))!;
    expect(copy).toMatch(/ \([\d.]+ before diversity: like #1\)$/);
    expect(heads[0]).not.toMatch(/before diversity/);
    const json = (await run(['search', 'kafka consumers lag partitions', '--json'], { cwd: v.root, home: v.home, env })).json();
    const b = json.results.find((h: { id: string }) => h.id === 'b');
    expect(b.final_score).toBeLessThan(b.score);
    const finals = json.results.map((h: { final_score: number }) => h.final_score);
    expect([...finals].sort((x, y) => y - x)).toEqual(finals);
  });
});

/** A pattern note as `mem pattern add` writes it. */
function patternNote(name: string, o: { anti?: boolean; trigger: string; action: string; rate: number; occurrences: number }): string {
  const title = `${o.anti ? 'ANTIPATTERN' : 'PATTERN'}-${name}`;
  return `---
title: ${title}
type: pattern
tags: [causal, pattern${o.anti ? ', antipattern' : ''}]
permalink: patterns/${o.anti ? 'antipattern' : 'pattern'}-${name}
trigger: '${o.trigger}'
success_rate: ${o.rate}
occurrences: ${o.occurrences}
last_validated: '2026-11-20'
---

# ${title}

## Trigger
${o.trigger}

## Action
${o.action}
`;
}

describe('mem context and pattern notes', () => {
  it('each note once, in its section: proven patterns, what to avoid (ANTIPATTERN notes whatever their numbers), never again among the learnings', async () => {
    const v = tempVault();
    v.write('MEMORY.md', entry('l1', '## Flaky CI\nThe CI job for the API tests is flaky when the database container starts slowly.'));
    v.write('.mem/patterns/PATTERN-wait-for-db.md', patternNote('wait-for-db', { trigger: 'CI API tests flaky', action: 'wait for the database container health check', rate: 0.9, occurrences: 4 }));
    // Written without a success rate, as `mem pattern add --antipattern` does: it records 1.
    v.write('.mem/patterns/ANTIPATTERN-retry-ci.md', patternNote('retry-ci', { anti: true, trigger: 'CI API tests flaky', action: 're-run the CI job until it passes', rate: 1, occurrences: 1 }));
    v.write('.mem/patterns/PATTERN-sleep-in-tests.md', patternNote('sleep-in-tests', { trigger: 'CI API tests flaky database', action: 'add sleeps to the tests', rate: 0.2, occurrences: 3 }));
    const env = { ...NO_KEYS, MEM_NOW: '2026-11-25' };
    const r = await run(['context', 'the CI API tests are flaky: database container'], { cwd: v.root, home: v.home, env });
    expect(r.status, r.stderr).toBe(0);
    const md = r.stdout;
    const section = (heading: string) => {
      const at = md.indexOf(heading);
      if (at < 0) return '';
      const next = md.indexOf('\n### ', at + heading.length);
      return md.slice(at, next < 0 ? undefined : next);
    };
    const worked = section('### Patterns that have worked here');
    const avoid = section('### What to avoid here');
    const learnings = section('### Learnings that may bear on it');
    expect(worked).toContain('PATTERN-wait-for-db');
    expect(worked).not.toContain('ANTIPATTERN');
    expect(worked).not.toContain('sleep-in-tests');
    expect(avoid).toContain('- **ANTIPATTERN-retry-ci** _(antipattern, seen 1 time · .mem/patterns/ANTIPATTERN-retry-ci.md)_');
    expect(avoid).toContain('  > Avoid: re-run the CI job until it passes');
    expect(avoid).toContain('- **PATTERN-sleep-in-tests** _(success 0.20 over 3 · .mem/patterns/PATTERN-sleep-in-tests.md)_');
    expect(learnings).toContain('Flaky CI');
    for (const name of ['PATTERN-wait-for-db', 'ANTIPATTERN-retry-ci', 'PATTERN-sleep-in-tests']) {
      expect(learnings, name).not.toContain(name);
      expect(md.split(`**${name}**`).length - 1, name).toBe(1);
    }
    const json = (await run(['context', 'the CI API tests are flaky: database container', '--json'], { cwd: v.root, home: v.home, env })).json();
    expect(json.patterns.map((p: { name: string }) => p.name)).toEqual(['wait-for-db']);
    expect(json.antipatterns.map((p: { name: string }) => p.name)).toEqual(['sleep-in-tests', 'retry-ci']);
    expect(json.learnings.map((h: { path: string }) => h.path)).toEqual(['MEMORY.md']);
    expect(json.omitted).toMatchObject({ patterns: 0, antipatterns: 0 });
  });
});
