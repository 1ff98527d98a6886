// Episodes' messages are transcript text: by default they live in the git-ignored local store
// (.mem/local/episodes/), the committed .mem/episodes/ files keep titles, summaries, times and
// surprise. `episodes.share_messages: true` commits them; files an older mem wrote (messages
// inline) are read as they are, reported by mem doctor and moved by mem doctor --fix.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, git, tempVault, type TempVault } from '../helpers.js';
import { run as runMem } from '../run.js';
import { CSS_TURNS, DB_TURNS } from '../topics.js';

afterEach(cleanup);

const SESSION = 'sess-privacy';
const COMMITTED = `.mem/episodes/${SESSION}.md`;
const LOCAL = `.mem/local/episodes/${SESSION}.md`;

function transcript(v: TempVault): string {
  const texts = [...DB_TURNS.slice(0, 6), ...CSS_TURNS];
  const t0 = Date.parse('2026-02-03T10:00:00Z');
  const p = path.join(v.root, '..', `${SESSION}.jsonl`);
  fs.writeFileSync(p, `${texts.map((text, i) => {
    const timestamp = new Date(t0 + i * 60_000).toISOString();
    return JSON.stringify(i % 2 === 0
      ? { type: 'user', sessionId: SESSION, timestamp, uuid: `u${i}`, message: { role: 'user', content: text } }
      : { type: 'assistant', sessionId: SESSION, timestamp, uuid: `a${i}`, message: { id: `m${i}`, role: 'assistant', content: [{ type: 'text', text }] } });
  }).join('\n')}\n`);
  return p;
}

function setup(config = '') {
  const v = tempVault({ git: true });
  const run = (args: string[]) => runMem(args, { cwd: v.root, home: v.home });
  if (config) fs.writeFileSync(v.path('.mem/config.yaml'), config);
  return { v, run, file: transcript(v) };
}

/** What `git add -A` would commit. */
function tracked(v: TempVault): string[] {
  git(v.root, ['add', '-A']);
  return git(v.root, ['ls-files']).split('\n').filter(Boolean);
}

describe('episode messages', () => {
  it('stay out of git by default, even when the project .gitignore lacks mem\'s line; every reader finds them', async () => {
    const { v, run, file } = setup();
    // A .gitignore written by hand (or an older mem): no .mem/local/ line.
    fs.writeFileSync(v.path('.gitignore'), '.memory.db*\n');
    const seg = await run(['segment', file]);
    expect(seg.status, seg.stderr).toBe(0);
    const committed = v.read(COMMITTED);
    expect(committed).not.toMatch(/^<details>/m);
    expect(committed).not.toMatch(/^\*\*(user|assistant)\*\*/m);
    const local = v.read(LOCAL);
    expect(local).toMatch(/^<details>$/m);
    expect(local).toMatch(/^\*\*user\*\* · 2026-02-03T10:00:00/m);
    const files = tracked(v);
    expect(files).toContain(COMMITTED);
    expect(files.filter((f) => f.startsWith('.mem/local/'))).toEqual([]);

    const recent = (await run(['recent', '--detail', 'full', '--json'])).json().episodes;
    expect(recent.length).toBeGreaterThan(1);
    for (const e of recent) expect(e.messages).toMatch(/^\*\*user\*\* · 2026-02-03T/);
    const hits = (await run(['search', 'navbar dropdown banner', '--kind', 'episode', '--detail', 'full', '--json'])).json().results;
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h.messages).toMatch(/^\*\*user\*\* · 2026-02-03T/);
    const human = (await run(['search', 'navbar dropdown banner', '--kind', 'episode', '--detail', 'full'])).stdout;
    expect(human).toMatch(/^ {4}\*\*user\*\* · 2026-02-03T/m);
    const md = (await run(['context', 'navbar dropdown banner', '--kind', 'episode', '--detail', 'full'])).stdout;
    expect(md).toMatch(/^> \*\*user\*\* · 2026-02-03T/m);
    expect((await run(['recent', '--detail', 'none', '--json'])).json().episodes.every((e: any) => e.messages === undefined)).toBe(true);
    const doc = (await run(['doctor', '--json'])).json().checks.find((c: any) => c.name === 'episodes');
    expect(doc).toMatchObject({ status: 'ok' });
  });

  it('episodes.share_messages: true keeps them in the committed file (and writes no local copy)', async () => {
    const { v, run, file } = setup('\nepisodes:\n  share_messages: true\n');
    expect((await run(['segment', file])).status).toBe(0);
    expect(v.read(COMMITTED)).toMatch(/^<details>$/m);
    expect(fs.existsSync(v.path(LOCAL))).toBe(false);
    expect(tracked(v)).toContain(COMMITTED);
    const recent = (await run(['recent', '--detail', 'full', '--json'])).json().episodes;
    for (const e of recent) expect(e.messages).toMatch(/^\*\*user\*\*/);
    expect((await run(['doctor', '--json'])).json().checks.find((c: any) => c.name === 'episodes').status).toBe('ok');
    fs.writeFileSync(v.path('.mem/config.yaml'), 'episodes:\n  share_messages: yes please\n');
    const r = await run(['recent']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/episodes\.share_messages must be true or false/);
  });

  it('an older vault (messages committed): read as it is, reported by doctor, moved by doctor --fix with every other byte kept', async () => {
    const { v, run, file } = setup('\nepisodes:\n  share_messages: true\n');
    expect((await run(['segment', file])).status).toBe(0);
    // The file as an older mem left it: messages inline, with CRLF line endings and a BOM.
    const old = `\ufeff${v.read(COMMITTED).replace(/\n/g, '\r\n')}`;
    fs.writeFileSync(v.path(COMMITTED), old);
    fs.writeFileSync(v.path('.mem/config.yaml'), '');
    const before = (await run(['recent', '--detail', 'full', '--json'])).json().episodes;
    expect(before.every((e: any) => /^\*\*user\*\*/.test(e.messages))).toBe(true);

    const warn = await run(['doctor']);
    expect(warn.stdout).toMatch(/^warn {2}episodes {5}1 committed episode file\(s\) hold the messages of \d+ episodes \([\d.]+ KB of transcript\): \.mem\/episodes\/sess-privacy\.md$/m);
    expect(warn.stdout).toMatch(/hint: run mem doctor --fix to move them to \.mem\/local\/episodes\//);
    const json = (await run(['doctor', '--json'])).json().checks.find((c: any) => c.name === 'episodes');
    expect(json.status).toBe('warn');
    // Reporting changes nothing.
    expect(fs.readFileSync(v.path(COMMITTED), 'utf8')).toBe(old);
    expect(fs.existsSync(v.path(LOCAL))).toBe(false);

    const fix = await run(['doctor', '--fix']);
    expect(fix.stdout).toMatch(/^ok {4}episodes {5}moved the messages of \d+ episodes \([\d.]+ KB\) from \.mem\/episodes\/sess-privacy\.md to \.mem\/local\/episodes\//m);
    const after = fs.readFileSync(v.path(COMMITTED), 'utf8');
    // Exactly the <details> blocks (and the blank line after each) are gone; BOM and CRLF kept.
    expect(after).toBe(old.replace(/<details>\r\n<summary>[^\r\n]*<\/summary>\r\n[\s\S]*?<\/details>\r\n(\r\n)?/g, ''));
    expect(after.startsWith('\ufeff')).toBe(true);
    expect(after).not.toMatch(/(^|[^\r])\n/);
    expect(v.read(LOCAL)).toMatch(/^<details>$/m);
    expect(fs.existsSync(v.path('.mem/local/.gitignore'))).toBe(true);
    expect(tracked(v).filter((f) => f.startsWith('.mem/local/'))).toEqual([]);
    // Nothing lost: the same messages, from the local store now.
    const noLine = (eps: any[]) => eps.map(({ line: _l, ...e }) => e);
    expect(noLine((await run(['recent', '--detail', 'full', '--json'])).json().episodes)).toEqual(noLine(before));
    expect((await run(['lint'])).status).toBe(0);
    // Twice: nothing left to move.
    expect((await run(['doctor', '--fix'])).stdout).toMatch(/^ok {4}episodes {5}messages kept in \.mem\/local\/episodes\/ \(not committed\)$/m);
    expect(fs.readFileSync(v.path(COMMITTED), 'utf8')).toBe(after);
  });

  it('segmenting a session again whose file holds messages moves them to the local store, and says so', async () => {
    const { v, run, file } = setup('\nepisodes:\n  share_messages: true\n');
    expect((await run(['segment', file])).status).toBe(0);
    fs.writeFileSync(v.path('.mem/config.yaml'), '');
    const again = await run(['segment', file]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/\.mem\/episodes\/sess-privacy\.md held the session's messages; they now live in \.mem\/local\/episodes\/sess-privacy\.md only/);
    expect(v.read(COMMITTED)).not.toMatch(/^<details>/m);
    expect(v.read(LOCAL)).toMatch(/^<details>$/m);
  });

  it('never writes the local store through a link out of the vault: nothing is written', async () => {
    const { v, run, file } = setup();
    const outside = path.join(v.root, '..', 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, v.path('.mem/local'));
    const r = await run(['segment', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: refusing to write .*symlink/m);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(v.path(COMMITTED))).toBe(false);
  });
});
