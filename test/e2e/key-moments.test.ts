// Key moments (episodes with surprise >= 0.7) are marked in every output — mem search, context,
// list --kind episode, recent, segment — with key_moment in their JSON; --detail auto|none|full
// decides whose messages are shown.

import { afterEach, describe, expect, it } from 'vitest';
import { setup } from '../fixtures/key-moments.js';
import { cleanup } from '../helpers.js';
import { run as runMem } from '../run.js';

afterEach(cleanup);

describe('key moments', () => {
  it('mem search: marked in the human view, key_moment in --json, messages by --detail', async () => {
    const { run } = await setup(runMem);
    const json = async (args: string[]) => (await run(['search', 'navbar dropdown banner', '--json', ...args])).json().results;
    const plain = await json([]);
    const key = plain.filter((h: any) => h.key_moment === true);
    const calm = plain.filter((h: any) => h.kind === 'episode' && h.key_moment === false);
    const learning = plain.find((h: any) => h.path === 'MEMORY.md');
    expect(key.map((h: any) => h.id)).toEqual(['ep-switch-002']);
    expect(key[0].surprise).toBeGreaterThanOrEqual(0.7);
    expect(calm.length).toBeGreaterThan(0);
    expect(calm.every((h: any) => h.surprise < 0.7)).toBe(true);
    expect(learning).toBeDefined();
    expect('key_moment' in learning).toBe(false);
    expect('kind' in learning).toBe(false);
    expect(plain.every((h: any) => h.messages === undefined)).toBe(true);

    // auto: the messages of key moments ranked 1-2 only.
    const auto = await json(['--detail', 'auto']);
    auto.forEach((h: any, i: number) => expect(h.messages !== undefined, `rank ${i + 1}`).toBe(i < 2 && h.key_moment === true));
    const full = await json(['--detail', 'full']);
    for (const h of full) {
      if (h.kind === 'episode') expect(h.messages).toMatch(/^\*\*user\*\* · 2026-02-0[34]T/);
      else expect(h.messages).toBeUndefined();
    }
    expect((await json(['--detail', 'none'])).every((h: any) => h.messages === undefined)).toBe(true);

    const human = (await run(['search', 'navbar dropdown banner'])).stdout;
    const titleLines = human.split('\n').filter((l) => /^ ?\d+ {2}/.test(l));
    const keyRank = plain.findIndex((h: any) => h.key_moment);
    titleLines.forEach((l, i) => expect(l.includes('★ key moment'), l).toBe(i === keyRank));
    expect(human).toMatch(/ · episode \(surprise 0\.\d\d\) · \.mem\/episodes\/switch\.md:/);
    expect(human).not.toMatch(/\*\*user\*\*/);
    const humanFull = (await run(['search', 'navbar dropdown banner', '--detail', 'full'])).stdout;
    expect(humanFull).toMatch(/\n {4}\*\*user\*\* · 2026-02-03T10:06/);
    expect(humanFull).toMatch(/\n {4}> Now something else/);
    const md = (await run(['search', 'navbar dropdown banner', '--md'])).stdout;
    expect(md).toMatch(/^_declarative · project · episode · ★ key moment · \.mem\/episodes\/switch\.md:\d+ · id ep-switch-002_$/m);
    expect(md).toMatch(/^_declarative · project · episode · \.mem\/episodes\/calm\.md:/m);
    const bad = await run(['search', 'navbar', '--detail', 'most']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown --detail "most"/);
  });

  it('mem list --kind episode and mem recent: marked; key_moment in --json', async () => {
    const { run } = await setup(runMem);
    const listed = (await run(['list', '--kind', 'episode', '--json'])).json().entries;
    expect(listed.map((e: any) => [e.id, e.kind, e.key_moment])).toEqual([
      ['ep-calm-001', 'episode', false], ['ep-switch-001', 'episode', false], ['ep-switch-002', 'episode', true],
    ].sort((a, b) => listed.findIndex((e: any) => e.id === a[0]) - listed.findIndex((e: any) => e.id === b[0])));
    expect((await run(['list', '--json'])).json().entries.every((e: any) => !('key_moment' in e))).toBe(true);
    const human = (await run(['list', '--kind', 'episode'])).stdout.trim().split('\n');
    expect(human).toHaveLength(3);
    for (const l of human) expect(l.endsWith('★ key moment'), l).toBe(l.startsWith('ep-switch-002'));

    const recent = (await run(['recent'])).stdout.trim().split('\n');
    expect(recent).toHaveLength(3);
    for (const l of recent) expect(l.startsWith('★ '), l).toBe(l.endsWith('ep-switch-002'));
    expect((await run(['recent', '--json'])).json().episodes.map((e: any) => e.key_moment)).toEqual([false, true, false]);
  });

  it('mem context --kind episode: marked; the key moment\'s messages by default (auto), none with --detail none', async () => {
    const { run } = await setup(runMem);
    const md = (await run(['context', 'navbar dropdown banner', '--kind', 'episode'])).stdout;
    expect(md).toMatch(/^_declarative · project · episode · ★ key moment · \.mem\/episodes\/switch\.md:\d+_$/m);
    expect(md).toMatch(/^_declarative · project · episode · \.mem\/episodes\/calm\.md:\d+_$/m);
    const json = (await run(['context', 'navbar dropdown banner', '--kind', 'episode', '--json'])).json().learnings;
    const keyRank = json.findIndex((h: any) => h.key_moment);
    expect(keyRank).toBeGreaterThanOrEqual(0);
    expect(keyRank).toBeLessThan(2);
    json.forEach((h: any, i: number) => expect(h.messages !== undefined).toBe(i === keyRank));
    // The key moment's messages are quoted in the markdown (no <details> wrapper); the calm episode's are not.
    expect(md).toMatch(/^> \*\*user\*\* · 2026-02-03T10:06:00\.000Z$/m);
    expect(md).not.toMatch(/2026-02-04T/);
    expect(md).not.toMatch(/details>/);
    const none = (await run(['context', 'navbar dropdown banner', '--kind', 'episode', '--detail', 'none'])).stdout;
    expect(none).not.toMatch(/\*\*user\*\*/);
    expect(none).toMatch(/★ key moment/);
    const full = (await run(['context', 'navbar dropdown banner', '--kind', 'episode', '--detail', 'full'])).stdout;
    expect(full).toMatch(/^> \*\*user\*\* · 2026-02-04T10:00:00\.000Z$/m);
    expect(full).toMatch(/^> \*\*user\*\* · 2026-02-03T10:06:00\.000Z$/m);
    // Without --kind episode, a prompt's context has no episodes (and so no marks).
    expect((await run(['context', 'navbar dropdown banner'])).stdout).not.toMatch(/key moment|episode/);
  });
});
