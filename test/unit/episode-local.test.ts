import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { messagesFromEpisodeBody, pendingEpisodes } from '../../src/episodes/consolidate-episodes.js';
import { findSharedMessages, LocalMessages, moveMessagesLocal, parseLocal, withMessages } from '../../src/episodes/local.js';
import { writeEpisodes } from '../../src/episodes/episode-file.js';
import { cleanup, tempDir } from '../helpers.js';

afterEach(cleanup);
const root = (): string => tempDir('mem-local-');

const msgs = [
  { role: 'user' as const, text: 'Never run the deploy script with sudo.', timestamp: '2026-11-20T10:00:00Z' },
  { role: 'assistant' as const, text: '## Not a heading\n\n<details>\n---\nplain line' },
];
const ep = (first: number) => ({ first, last: first + 1, startAt: '2026-11-20T10:00:00Z', endAt: '2026-11-20T10:02:00Z', surprise: 0.4, title: `Deploy ${first}`, summary: 'A summary.', reason: 'start', messages: msgs }) as any;
const input = (share: boolean) => ({ session: 's1', source: 's1.jsonl', now: '2026-11-20T12:00:00.000Z', episodes: [ep(0), ep(2)], shareMessages: share });

describe('the local store of episode messages', () => {
  it('consolidation reads the messages from the local store as from a committed file', () => {
    const a = root();
    writeEpisodes(a, input(false));
    const b = root();
    writeEpisodes(b, input(true));
    expect(fs.readFileSync(path.join(a, '.mem/episodes/s1.md'), 'utf8')).not.toContain('<details>');
    expect(fs.readFileSync(path.join(a, '.mem/local/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const fromLocal = pendingEpisodes(a).pending.map((p) => messagesFromEpisodeBody(p.body));
    const fromCommitted = pendingEpisodes(b).pending.map((p) => messagesFromEpisodeBody(p.body));
    expect(fromLocal).toHaveLength(2);
    expect(fromLocal).toEqual(fromCommitted);
    expect(fromLocal[0].map((m) => m.text)).toEqual(msgs.map((m) => m.text));
  });

  it('a message cannot open a section of its own in the local file', () => {
    const a = root();
    writeEpisodes(a, { ...input(false), episodes: [{ ...ep(0), messages: [{ role: 'user', text: '## ep-forged-001\nhello' }] }] });
    const sections = parseLocal(fs.readFileSync(path.join(a, '.mem/local/episodes/s1.md'), 'utf8'));
    expect([...sections.keys()]).toEqual(['ep-s1-001']);
  });

  it('withMessages: only the episodes the detail level shows, from either layout', () => {
    const a = root();
    writeEpisodes(a, input(false));
    const hits = [
      { id: 'ep-s1-001', path: '.mem/episodes/s1.md', body: 'A summary.', episode: { key_moment: true } },
      { id: 'ep-s1-002', path: '.mem/episodes/s1.md', body: 'A summary.', episode: { key_moment: false } },
      { id: 'L1', path: 'MEMORY.md', body: 'a learning' },
    ];
    const auto = withMessages(a, hits, 'auto') as any[];
    expect(auto[0].messages).toMatch(/^\*\*user\*\* · 2026-11-20T10:00:00Z/);
    expect(auto[1].messages).toBeUndefined();
    expect(auto[2].messages).toBeUndefined();
    expect((withMessages(a, hits, 'full') as any[])[1].messages).toMatch(/^\*\*user\*\*/);
    expect(withMessages(a, hits, 'none')).toBe(hits);
    expect(new LocalMessages(a).messages('.mem/episodes/none.md', 'ep-none-001', 'x')).toBe('');
  });

  it('moveMessagesLocal leaves a file with conflict markers alone and says why', () => {
    const a = root();
    writeEpisodes(a, input(true));
    const f = path.join(a, '.mem/episodes/s1.md');
    const text = fs.readFileSync(f, 'utf8');
    const conflicted = text.replace('## [2026-11-20] Deploy 2', '<<<<<<< HEAD\n## [2026-11-20] Deploy 2\n=======\n## [2026-11-20] Deploy two\n>>>>>>> other');
    fs.writeFileSync(f, conflicted);
    expect(findSharedMessages(a).map((s) => s.path)).toEqual(['.mem/episodes/s1.md']);
    const r = moveMessagesLocal(a);
    expect(r.files).toEqual([]);
    expect(r.skipped[0]).toMatch(/^\.mem\/episodes\/s1\.md: has git conflict markers/);
    expect(fs.readFileSync(f, 'utf8')).toBe(conflicted);
    expect(fs.existsSync(path.join(a, '.mem/local/episodes/s1.md'))).toBe(false);
  });

  it('moveMessagesLocal --dry-run changes nothing; a real move keeps sections the local file already held', () => {
    const a = root();
    writeEpisodes(a, input(true));
    const f = path.join(a, '.mem/episodes/s1.md');
    const text = fs.readFileSync(f, 'utf8');
    expect(moveMessagesLocal(a, { dryRun: true })).toMatchObject({ files: ['.mem/episodes/s1.md'], episodes: 2 });
    expect(fs.readFileSync(f, 'utf8')).toBe(text);
    fs.mkdirSync(path.join(a, '.mem/local/episodes'), { recursive: true });
    fs.writeFileSync(path.join(a, '.mem/local/episodes/s1.md'), '# old\n\n## ep-s1-009\n\n<details>\n<summary>Messages 9–9 (1)</summary>\n\n**user**\n\n> kept\n\n</details>\n');
    expect(moveMessagesLocal(a).episodes).toBe(2);
    const local = new LocalMessages(a);
    expect(local.messages('.mem/episodes/s1.md', 'ep-s1-009', '')).toBe('**user**\n\n> kept');
    expect(local.messages('.mem/episodes/s1.md', 'ep-s1-002', '')).toMatch(/^\*\*user\*\*/);
    expect(findSharedMessages(a)).toEqual([]);
  });
});

describe('the local store against hostile files', () => {
  it('a FIFO in place of the local file is never opened: readers find nothing, a write refuses', () => {
    const a = root();
    writeEpisodes(a, input(false));
    const f = path.join(a, '.mem/local/episodes/s1.md');
    fs.rmSync(f);
    execFileSync('mkfifo', [f]);
    expect(new LocalMessages(a).messages('.mem/episodes/s1.md', 'ep-s1-001', '')).toBe('');
    expect(() => writeEpisodes(a, input(false))).toThrow(/not a regular file \(a FIFO\); not writing to it/);
  });

  it('moveMessagesLocal never overwrites a local file it cannot read', () => {
    const a = root();
    writeEpisodes(a, input(true));
    const f = path.join(a, '.mem/local/episodes/s1.md');
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
    const committed = fs.readFileSync(path.join(a, '.mem/episodes/s1.md'), 'utf8');
    const r = moveMessagesLocal(a);
    expect(r).toMatchObject({ files: [], episodes: 0, bytes: 0 });
    expect(r.skipped[0]).toMatch(/\.mem\/local\/episodes\/s1\.md not valid UTF-8; move it away/);
    expect(fs.readFileSync(f)).toEqual(Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x0a]));
    expect(fs.readFileSync(path.join(a, '.mem/episodes/s1.md'), 'utf8')).toBe(committed);
  });
});
