// Hostile memory files end to end: NUL and control characters on the way in and already on disk,
// odd ids, the empty-entry runs the earlier teaparty system left, and files with a BOM or CRLF line
// endings — through the CLI on real files.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { idMaker, tpMake, tpRewrite, tpSerializeFile } from '../fixtures/teaparty.js';
import { cleanup, entry, REPO, tempDir, tempVault, type TempVault } from '../helpers.js';
import { run as runIn } from '../run.js';

afterEach(cleanup);

const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, MEM_PROVIDER: undefined, MEM_NOW: '2026-11-20' };

function setup(files: Record<string, string | Buffer> = {}) {
  const v = tempVault();
  for (const [rel, text] of Object.entries(files)) v.write(rel, text);
  const run = async (args: string[], input?: string) => runIn(args, { cwd: v.root, home: v.home, input, env: OFFLINE });
  return { v, run };
}

const bytes = (v: TempVault, rel: string) => fs.readFileSync(v.path(rel));
/** Control characters mem must never write: C0 but tab and LF, DEL, C1, and a CR outside CRLF. */
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|\r(?!\n)/;
const ids = (r: { json(): { results: { id: string }[] } }) => r.json().results.map((h) => h.id).sort();

describe('item 1: NUL and other control characters', () => {
  it('mem add never writes a NUL or another control character; the file stays searchable and writable', async () => {
    const { v, run } = setup({ 'MEMORY.md': `# Memory\n\n${entry('k1', '## Kafka lag\nConsumers lag when partitions are few.')}` });
    const hostile = 'Restart the worker \u0000 after deploys.\nBell \u0007 esc \u001b[31m del \u007f c1 \u0085 cr\ralone ls\u2028end';
    // A command-line argument cannot hold a NUL (the OS refuses it); stdin and other controls can.
    const add = await run(['add', '--json', '--title', 'Worker \u0007 restart'], hostile);
    expect(add.status, add.stderr).toBe(0);
    const nul1 = add.json().id;
    const text = v.read('MEMORY.md');
    expect(UNSAFE.test(text)).toBe(false);
    expect(text).not.toContain('\u2028');
    // Replaced by visible marks, not dropped in silence.
    expect(text).toContain('Restart the worker \u2400 after deploys.');
    expect(text).toContain('Worker \u2407 restart');
    expect(text).toContain('\u241b[31m');
    const search = await run(['search', 'worker deploys kafka partitions', '--json']);
    expect(search.status, search.stderr).toBe(0);
    expect(ids(search)).toEqual(['k1', nul1].sort());
    // The next write works.
    expect((await run(['add', 'Use pnpm, not npm.'])).status).toBe(0);
    expect((await run(['lint'])).status).toBe(0);
    // A pipe of raw bytes (printf 'text \0 more' | mem add) too.
    const raw = await run(['add'], 'text \u0000 more about the queue');
    expect(raw.status, raw.stderr).toBe(0);
    expect(bytes(v, 'MEMORY.md').includes(0)).toBe(false);
  });

  it('mem extract never writes a NUL that a transcript message holds', async () => {
    const v = tempVault();
    const copy = path.join(tempDir(), 'session.jsonl');
    fs.copyFileSync(path.join(REPO, 'examples', 'sessions', 'fix-checkout-tests.jsonl'), copy);
    const msg = { type: 'user', sessionId: '7d1c5a90-3b2e-4f61-9a0d-2c4e8b6f1a37', uuid: 'u-nul', message: { role: 'user', content: 'Remember to restart the queue\u0000 worker after changing the payment\u0001 settings.' } };
    fs.appendFileSync(copy, `${JSON.stringify(msg)}\n`);
    const r = await runIn(['extract', copy, '--json'], { cwd: v.root, home: v.home, env: OFFLINE });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().written.some((w: { title: string }) => /queue.*worker/.test(w.title))).toBe(true);
    for (const f of ['MEMORY.md', 'proxy.md', 'institutional.md']) {
      if (fs.existsSync(v.path(f))) expect(UNSAFE.test(v.read(f)), f).toBe(false);
    }
    const s = await runIn(['search', 'queue worker payment settings', '--json'], { cwd: v.root, home: v.home });
    expect(s.json().results.length).toBeGreaterThan(0);
  });

  const good = (id: string, body: string) => entry(id, body);
  const filler = `${'Filler text about nothing in particular. '.repeat(20)}\n`.repeat(12); // > 8 KB
  const variants: [string, string, number | null][] = [
    ['NUL in a body', `# Memory\n\n${good('a1', '## Alpha\nAlpha kafka notes.')}${good('bad', '## Bad\nbroken \u0000 body kafka')}${good('c1', '## Gamma\nGamma kafka notes.')}`, 23],
    ['NUL in a header', `# Memory\n\n${good('a1', '## Alpha\nAlpha kafka notes.')}---\nid: bad\ntype: proc\u0000edural\n---\nkafka body\n\n${good('c1', '## Gamma\nGamma kafka notes.')}`, 16],
    ['NUL in the preamble', `# Memory \u0000 notes\n\n${good('a1', '## Alpha\nAlpha kafka notes.')}${good('c1', '## Gamma\nGamma kafka notes.')}`, 1],
    ['NUL at byte 0', `\u0000# Memory\n\n${good('a1', '## Alpha\nAlpha kafka notes.')}${good('c1', '## Gamma\nGamma kafka notes.')}`, 1],
    ['NUL at byte 0, in the first --- line', `\u0000${good('bad', '## Bad\nbad kafka entry')}${good('a1', '## Alpha\nAlpha kafka notes.')}${good('c1', '## Gamma\nGamma kafka notes.')}`, 1],
    ['NUL after 8 KB', `# Memory\n\n${good('a1', `## Alpha\nAlpha kafka notes.\n\n${filler}`)}${good('bad', '## Bad\nbroken \u0000\u0000 body kafka')}${good('c1', '## Gamma\nGamma kafka notes.')}`, null],
  ];
  for (const [name, text, line] of variants) {
    it(`a stray NUL already on disk (${name}) costs only its own entry, with file:line`, async () => {
      const { v, run } = setup({ 'MEMORY.md': text });
      const nulLine = text.slice(0, text.indexOf('\u0000')).split('\n').length;
      if (line !== null) expect(nulLine).toBe(line);
      const s = await run(['search', 'kafka', '--json']);
      expect(s.status, s.stderr).toBe(0);
      expect(ids(s)).toEqual(['a1', 'c1']);
      expect(s.stderr).toContain(`(MEMORY.md:${nulLine})`);
      expect(s.stderr).toMatch(/^mem: warning: NUL byte in /m);
      const lint = await run(['lint']);
      expect(lint.status).toBe(1);
      expect(lint.stdout).toContain(`MEMORY.md:${nulLine}: NUL byte in `);
      // A rewrite is refused with one clear line; the file is untouched.
      const before = bytes(v, 'MEMORY.md');
      const re = await run(['reinforce', 'a1']);
      expect(re.status).toBe(1);
      expect(re.stderr).toMatch(new RegExp(`^mem: NUL byte in .*fix it before mem rewrites this file \\(MEMORY\\.md:${nulLine}\\)$`, 'm'));
      expect(bytes(v, 'MEMORY.md').equals(before)).toBe(true);
      // An append leaves every byte before it as it was, the bad entry included.
      const add = await run(['add', '--json', 'Kafka consumers need more partitions.']);
      expect(add.status, add.stderr).toBe(0);
      const new1 = add.json().id;
      const after = bytes(v, 'MEMORY.md');
      expect(after.subarray(0, before.length).equals(before)).toBe(true);
      expect(after.subarray(before.length).includes(0)).toBe(false);
      expect(ids(await run(['search', 'kafka', '--json']))).toEqual(['a1', 'c1', new1].sort());
      // lint --fix makes the NUL visible (␀); the entry that held it is back, nothing else moved.
      const fix = await run(['lint', '--fix']);
      // (A NUL inside `procedural` leaves an invalid type, which lint names.)
      if (text.includes('proc\u0000edural')) expect(fix.stdout).toMatch(/^MEMORY\.md:\d+: type must be one of .*"proc\u2400edural"/m);
      else expect(fix.status, fix.stdout).toBe(0);
      expect(fix.stdout).not.toMatch(/NUL/);
      const fixed = bytes(v, 'MEMORY.md').toString('utf8');
      expect(fixed).toBe(after.toString('utf8').replace(/\u0000---/, '---').replace(/\u0000/g, '\u2400'));
      const all = ids(await run(['search', 'kafka', '--json', '-n', '20']));
      expect(all).toEqual((text.includes('id: bad') ? ['a1', 'bad', 'c1', new1] : ['a1', 'c1', new1]).sort());
    });
  }

  it('a real binary file is still refused as a whole (PNG, UTF-16, a run of NULs)', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 1, 0]);
    const utf16 = Buffer.from(`# Memory\n\n${entry('u1', 'kafka in utf-16')}`, 'utf16le');
    const zeros = Buffer.concat([Buffer.from('# Memory kafka\n'), Buffer.alloc(4096)]);
    const { v, run } = setup({ 'MEMORY.md': `# Memory\n\n${entry('ok', '## Kafka\nkafka text')}`, 'memory/img.md': png, 'memory/utf16.md': utf16, 'memory/zeros.md': zeros });
    const s = await run(['search', 'kafka', '--json']);
    expect(s.status, s.stderr).toBe(0);
    expect(ids(s)).toEqual(['ok']);
    for (const f of ['img', 'utf16', 'zeros']) expect(s.stderr).toContain(`mem: warning: binary file (contains NUL bytes); skipped (memory/${f}.md)`);
    const add = await run(['add', '--file', 'memory/zeros.md', 'more']);
    expect(add.status).toBe(1);
    expect(add.stderr).toMatch(/^mem: binary file \(contains NUL bytes\); not writing to it \(memory\/zeros\.md\)$/m);
    expect(bytes(v, 'memory/zeros.md').equals(zeros)).toBe(true);
  });
});

describe('item 5: odd ids', () => {
  const odd: [string, string][] = [
    ['id: null', 'null'], ['id: ""', 'empty string'], ['id: [1, 2]', 'list'], ['id: {a: 1}', 'map'], ['id: ~', 'tilde'],
    ['id:', 'nothing'], ['id: "a\\nb"', 'newline'], ['id: "tab\\there"', 'control'], [`id: ${'x'.repeat(300)}`, 'too long'],
  ];
  for (const [line, name] of odd) {
    it(`${line.slice(0, 20)} (${name}) is a broken entry with file:line, never another entry's body`, async () => {
      const text = `# Memory\n\n${entry('prev', '## Previous\nPrevious entry about redis.')}---\n${line}\ntype: procedural\n---\n## Odd\nOdd entry about redis eviction.\n\n${entry('next', '## Next\nNext entry about redis.')}`;
      const { v, run } = setup({ 'MEMORY.md': text });
      const idLine = text.split('\n').indexOf(line) + 1;
      const s = await run(['search', 'redis eviction', '--json']);
      expect(s.status, s.stderr).toBe(0);
      expect(ids(s)).toEqual(['next', 'prev']);
      for (const h of s.json().results) expect(JSON.stringify(h)).not.toMatch(/Odd entry|type: procedural/);
      expect(s.stderr).toContain(`(MEMORY.md:${idLine})`);
      const lint = await run(['lint']);
      expect(lint.status).toBe(1);
      expect(lint.stdout).toMatch(new RegExp(`^MEMORY\\.md:${idLine}: invalid id in entry header: `, 'm'));
      expect(v.read('MEMORY.md')).toBe(text);
    });
  }

  it('ids are the text as written: 1e3 is not 1000, 007 is not 7; --ids prints them as written', async () => {
    const text = `# Memory\n\n${['1e3', "'1000'", '007', '7', '0x10', 'true', '1.50'].map((id, i) => entry(id, `## Entry ${i}\nRedis note number ${i}.`)).join('')}`;
    const { run } = setup({ 'MEMORY.md': text });
    const lint = await run(['lint']);
    expect(lint.stdout).not.toMatch(/duplicate id/);
    expect(lint.status, lint.stdout).toBe(0);
    const out = await run(['search', 'redis note', '--ids', '-n', '20']);
    expect(out.stdout.trim().split('\n').sort()).toEqual(['0x10', '007', '1.50', '1000', '1e3', '7', 'true'].sort());
    const show = await run(['show', '1e3', '--json']);
    expect(show.status, show.stderr).toBe(0);
    expect(JSON.stringify(show.json())).toContain('Redis note number 0');
    // Duplicates are found with the same strings.
    const dup = setup({ 'MEMORY.md': `${entry('1e3', 'one redis')}${entry('1e3', 'two redis')}${entry('1000', 'three redis')}` });
    const l2 = await dup.run(['lint']);
    expect(l2.stdout).toContain('duplicate id "1e3"');
    expect(l2.stdout).not.toContain('duplicate id "1000"');
  });
});

/** Every `id:` line of a file (the ids a reader must find). */
const idLines = (text: string) => [...text.matchAll(/^id: *(\S+)\r?$/gm)].map((m) => m[1]);

function teapartyFile(rounds: number, seed: number): string {
  const next = idMaker(seed);
  const d = '2026-04-23';
  let text = `${tpSerializeFile([
    tpMake('## [2026-04-23] Observation\n**Signal:** keep the scope small', next, d, { domain: 'task', importance: 0.95 }),
    tpMake('## [2026-04-23] Release steps\nBuild the bundle first.\n---\nThen tag the release.', next, d, { domain: 'task', importance: 0.95 }),
    tpMake('## [2026-04-23] Package manager\nUse pnpm, not npm, in this repository.', next, d),
  ])}\n`;
  for (let r = 0; r < rounds; r++) text = tpRewrite(text, next, d, r % 2 === 0);
  return text;
}

describe('item 7a: empty entries left by the teaparty system', () => {
  const cases: [string, string][] = [
    ['one rewrite', teapartyFile(1, 3)],
    ['three rewrites', teapartyFile(3, 5)],
    ['three rewrites, CRLF', teapartyFile(3, 9).replace(/\n/g, '\r\n')],
    ['empty entry last, no final newline', `${teapartyFile(2, 11).trimEnd()}\n\n---\nid: 0b1c2d3e-0000-4000-a000-000000000001\ntype: procedural\nimportance: 0.5\n---\nid: 0b1c2d3e-0000-4000-a000-000000000002\ntype: procedural`],
    ['two and three empty headers sharing --- lines', `# Memory\n\n---\nid: e-1\ntype: procedural\n---\nid: e-2\ntype: procedural\n---\n## [2026-04-23] Package manager\nUse pnpm, not npm, in this repository.\n\n---\nid: e-3\n---\nid: e-4\n---\nid: e-5\n---\n## [2026-04-23] Release steps\nBuild the bundle first.\n\n---\n\nThen tag the release; the rule above is body text.\n`],
  ];
  for (const [name, text] of cases) {
    it(`reads every id, attaches each body to its own header, keeps empty ones out (${name})`, async () => {
      const { v, run } = setup({ 'MEMORY.md': text });
      const all = idLines(text);
      expect(all.length).toBeGreaterThan(3);
      const list = await run(['list', '--json']);
      expect(list.status, list.stderr).toBe(0);
      const listed = list.json().entries as { id: string; title: string }[];
      for (const e of listed) expect(e.title).not.toMatch(/^(id:|\(untitled\)|$)/);
      const s = await run(['search', 'pnpm release bundle scope', '--json', '-n', '50']);
      expect(s.status, s.stderr).toBe(0);
      for (const h of s.json().results) {
        expect(h.title).not.toMatch(/^id:|^\(untitled\)$|^$/);
        expect(JSON.stringify(h)).not.toMatch(/reinforcement_count|last_reinforced|importance: /);
      }
      const ctx = await run(['context', 'pnpm release bundle']);
      expect(ctx.status, ctx.stderr).toBe(0);
      expect(ctx.stdout).not.toMatch(/^id: |\(untitled\)|reinforcement_count/m);
      const pnpm = (await run(['search', 'pnpm', '--json'])).json().results;
      expect(pnpm.length).toBeGreaterThan(0);
      for (const h of pnpm) expect([h.title, h.body]).toEqual(['Package manager', 'Use pnpm, not npm, in this repository.']);
      const lint = await run(['lint', '--json']);
      expect(lint.status, lint.stdout).toBe(0);
      const problems = lint.json().problems as { line: number; severity: string; message: string }[];
      const empties = problems.filter((p) => /^empty entry/.test(p.message));
      expect(empties.length).toBeGreaterThan(0);
      expect(problems.every((p) => p.severity === 'warning')).toBe(true);
      // Every id is found: an entry's or an empty entry's.
      const found = new Set([...listed.map((e) => e.id), ...empties.map((p) => /"([^"]+)"/.exec(p.message)![1])]);
      for (const id of all) expect(found.has(id), id).toBe(true);
      // --fix alone keeps them; --fix --remove-empty removes only them.
      expect((await run(['lint', '--fix'])).status).toBe(0);
      expect(v.read('MEMORY.md')).toBe(text);
      expect((await run(['lint', '--remove-empty'])).status).toBe(2);
      const fix = await run(['lint', '--fix', '--remove-empty']);
      expect(fix.status, fix.stderr).toBe(0);
      expect(fix.stderr).toContain(`removed ${empties.length} empty entr`);
      const after = v.read('MEMORY.md');
      const relist = (await run(['list', '--json'])).json().entries as { id: string; title: string }[];
      expect(relist.map((e) => [e.id, e.title]).sort()).toEqual(listed.map((e) => [e.id, e.title]).sort());
      expect((await run(['lint'])).stdout).not.toMatch(/empty entry/);
      if (text.includes('\r\n')) expect(/(^|[^\r])\n/.test(after)).toBe(false);
      expect(idLines(after).sort()).toEqual(listed.map((e) => e.id).sort());
    });
  }

  it('a real body with a --- rule and prose after it stays body text', async () => {
    const text = `# Memory\n\n${entry('r1', '## Deploys\nBuild first.\n\n---\n\nThen tag the release and announce it.')}${entry('r2', '## Other\nSomething else.')}`;
    const { run } = setup({ 'MEMORY.md': text });
    const s = await run(['show', 'r1', '--json']);
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.stringify(s.json())).toContain('Then tag the release and announce it.');
    expect((await run(['lint'])).stdout).not.toMatch(/empty entry/);
  });
});

describe('item 17: BOM and line endings survive every write', () => {
  const BOM = '\ufeff';
  function crlfVault(withBom: boolean) {
    const body = `# Memory\n\n${entry('b1', '## Kafka\nKafka consumers lag.', { last_reinforced: '2026-01-01', created_at: '2026-01-01' })}${entry('b2', '## Redis\nRedis eviction is allkeys-lru.', { type: 'Corrective', created_at: '2026-01-01' })}${entry('b3', '## Retired\nOld retired note.', { status: 'retired', created_at: '2026-01-01' })}`.replace(/\n/g, '\r\n');
    return setup({ 'MEMORY.md': (withBom ? BOM : '') + body });
  }
  const check = (v: TempVault, withBom: boolean) => {
    const b = bytes(v, 'MEMORY.md');
    expect(b.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(withBom);
    const t = b.toString('utf8');
    expect(/(^|[^\r])\n/.test(t), 'a lone LF').toBe(false);
    expect(t.split('\ufeff').length - 1).toBe(withBom ? 1 : 0);
  };
  for (const withBom of [true, false]) {
    it(`CRLF${withBom ? ' + BOM' : ''}: add, reinforce, compact and lint --fix keep the BOM, CRLF and untouched bytes`, async () => {
      const { v, run } = crlfVault(withBom);
      const orig = bytes(v, 'MEMORY.md');
      const add = await run(['add', '--json', 'Use pnpm.\nNot npm.']);
      expect(add.status, add.stderr).toBe(0);
      const n1 = add.json().id;
      check(v, withBom);
      const afterAdd = bytes(v, 'MEMORY.md');
      expect(afterAdd.subarray(0, orig.length).equals(orig)).toBe(true);
      const re = await run(['reinforce', 'b1']);
      expect(re.status, re.stderr).toBe(0);
      check(v, withBom);
      const afterRe = v.read('MEMORY.md');
      expect(afterRe).toContain('reinforcement_count: 1\r\n');
      // Only b1's header lines changed.
      const diff = (a: string, b: string) => {
        const x = a.split('\r\n');
        const y = b.split('\r\n');
        return x.length === y.length ? x.flatMap((l, i) => (l === y[i] ? [] : [l])) : null;
      };
      expect(diff(afterAdd.toString('utf8'), afterRe)).toEqual(['reinforcement_count: 0', "last_reinforced: '2026-01-01'"]);
      const fix = await run(['lint', '--fix']);
      expect(fix.status, fix.stdout).toBe(0);
      check(v, withBom);
      const afterFix = v.read('MEMORY.md');
      expect(diff(afterRe, afterFix)).toEqual(['type: Corrective']);
      expect(afterFix).toContain('type: corrective\r\n');
      const compact = await run(['compact']);
      expect(compact.status, compact.stderr).toBe(0);
      check(v, withBom);
      // The retired entry's block is gone; every other byte is as it was.
      const b3 = afterFix.indexOf('---\r\nid: b3\r\n');
      const next = afterFix.indexOf('---\r\nid: ', b3 + 5);
      expect(v.read('MEMORY.md')).toBe(afterFix.slice(0, b3) + afterFix.slice(next));
      expect(ids(await run(['search', 'kafka redis pnpm', '--json']))).toEqual(['b1', 'b2', n1].sort());
    });
  }

  it('an LF file with a BOM keeps it through mem add', async () => {
    const { v, run } = setup({ 'MEMORY.md': `${BOM}# Memory\n\n${entry('k1', 'kafka')}` });
    expect((await run(['add', 'Use pnpm.'])).status).toBe(0);
    const t = bytes(v, 'MEMORY.md').toString('utf8');
    expect(t.startsWith(BOM)).toBe(true);
    expect(t).not.toContain('\r');
  });
});
