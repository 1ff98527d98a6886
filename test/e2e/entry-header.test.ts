// The one-line comment header form (`<!-- mem {…} -->`) through the commands that write and read
// entries: which form `mem add` writes (a new file, a file with `---` headers, the config
// setting), reinforce and compact changing only what they change, lint --fix redacting a secret
// in a comment header, and the merge driver merging two sides' comment headers.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GH, noValue } from '../fixtures/lint-secrets.js';
import { cleanup, entry, entryMetas, git, tempDir, tempVault } from '../helpers.js';
import { run as runMem } from '../run.js';
import { parseMemoryFile } from '../../src/vault/format.js';

afterEach(cleanup);

const TODAY = '2026-11-25';

function vault(config?: string) {
  const v = tempVault({ git: true });
  if (config !== undefined) v.write('.mem/config.yaml', config);
  const run = (args: string[]) => runMem(args, { cwd: v.root, home: v.home, env: { MEM_NOW: TODAY } });
  return { v, run };
}

const c = (meta: string, body: string) => `<!-- mem {${meta}} -->\n## ${body.split('.')[0]}\n\n${body}\n\n`;
const headerLines = (text: string) => text.split('\n').filter((l) => l.startsWith('<!-- mem ') || l === '---');

describe('which header form mem add writes', () => {
  it('a new file gets the comment form; a file with `---` headers keeps that form; both read back alike', async () => {
    const { v, run } = vault();
    const a = await run(['add', 'Run the migrations before the API tests', '--type', 'corrective', '--tags', 'db,ci']);
    expect(a.status, a.stderr).toBe(0);
    const fresh = v.read('MEMORY.md');
    expect(fresh).toMatch(new RegExp(`^<!-- mem \\{id: ${a.stdout.trim()}, type: corrective, .*tags: \\[db, ci\\].*\\} -->\\n## \\[${TODAY}\\] Corrective: Run the migrations before the API tests\\n`, 'm'));
    expect(fresh).not.toMatch(/^---$/m);

    v.write('memory/old.md', `# Old\n\n${entry('old-1', '## Old learning\n\nKept as it is.')}`);
    const before = v.read('memory/old.md');
    const b = await run(['add', 'Staging uses the green cluster', '--file', 'memory/old.md']);
    expect(b.status, b.stderr).toBe(0);
    const old = v.read('memory/old.md');
    expect(old.startsWith(before)).toBe(true);
    expect(old.slice(before.length)).toMatch(new RegExp(`^---\\nid: ${b.stdout.trim()}\\ntype: procedural\\n`));

    const list = (await run(['list', '--json'])).json().entries as { id: string; title: string; tags?: string[] }[];
    expect(list.map((e) => e.id).sort()).toEqual([a.stdout.trim(), b.stdout.trim(), 'old-1'].sort());
    expect(list.find((e) => e.id === a.stdout.trim())).toMatchObject({ title: 'Corrective: Run the migrations before the API tests' });
    expect((await run(['lint'])).status).toBe(0);
    expect((await run(['search', 'migrations API tests', '--json'])).json().results[0].id).toBe(a.stdout.trim());
  });

  it('format.entry_header: yaml writes `---` headers in a new file; comment adds comment headers to a `---` file', async () => {
    const y = vault('format:\n  entry_header: yaml\n');
    expect((await y.run(['add', 'A learning in the yaml form'])).status).toBe(0);
    expect(y.v.read('MEMORY.md')).toMatch(/^---\nid: [0-9a-f-]+\ntype: procedural\n/m);

    const m = vault('format: {entry_header: comment}\n');
    m.v.write('MEMORY.md', `# Memory\n\n${entry('y1', '## First\n\nIn the yaml form.')}`);
    const r = await m.run(['add', 'A second learning in the comment form']);
    expect(r.status, r.stderr).toBe(0);
    const text = m.v.read('MEMORY.md');
    expect(headerLines(text)).toEqual(['---', '---', expect.stringMatching(/^<!-- mem \{id: /)]);
    expect(parseMemoryFile(text, 'MEMORY.md').entries.map((e) => e.id)).toEqual(['y1', r.stdout.trim()]);
    expect((await m.run(['lint'])).status).toBe(0);

    const bad = vault('format:\n  entry_header: html\n');
    const e = await bad.run(['add', 'x']);
    expect(e.status).toBe(1);
    expect(e.stderr).toMatch(/^mem: format\.entry_header must be auto, yaml or comment \(got "html"\)/);
  });
});

describe('commands that change comment-form entries', () => {
  it('reinforce rewrites only the entry\'s header line; lint --fix redacts a secret in a comment header', async () => {
    const { v, run } = vault();
    const text = `# Memory\n\n${c("id: a, type: corrective, reinforcement_count: 1, last_reinforced: '2026-01-01', created_at: 2026-01-01", 'Use npm, not yarn.')}${c(`id: b, type: procedural, token: ${GH}`, 'Push to the mirror.')}`;
    v.write('MEMORY.md', text);
    git(v.root, ['add', '-A']);
    git(v.root, ['commit', '-qm', 'state']);
    expect((await run(['reinforce', 'a'])).status).toBe(0);
    const diff = git(v.root, ['diff', '-U0']).split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));
    expect(diff).toEqual([
      "-<!-- mem {id: a, type: corrective, reinforcement_count: 1, last_reinforced: '2026-01-01', created_at: 2026-01-01} -->",
      `+<!-- mem {id: a, type: corrective, reinforcement_count: 2, last_reinforced: '${TODAY}', created_at: 2026-01-01} -->`,
    ]);

    const lint = await run(['lint']);
    expect(lint.status).toBe(1);
    expect(lint.stdout).toMatch(/MEMORY\.md:8: secret \(github-token\)/);
    const fix = await run(['lint', '--fix']);
    expect(fix.status, fix.stdout + fix.stderr).toBe(0);
    noValue(fix.stdout, fix.stderr);
    const after = v.read('MEMORY.md');
    expect(after).not.toContain(GH);
    expect(entryMetas(after)[1]).toEqual({ id: 'b', type: 'procedural', token: '[redacted: github-token]' });
    expect(after.split('\n')[7]).toMatch(/^<!-- mem \{id: b, type: procedural, token: '\[redacted: github-token\]'\} -->$/);
    expect((await run(['lint'])).status).toBe(0);
  });

  it('compact merges two comment-form entries into a survivor that keeps the comment form', async () => {
    const { v, run } = vault();
    const J = ['alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo',
      'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec sierra tango'];
    const keep = c('id: k, type: declarative', 'An unrelated learning about the staging VPN.');
    v.write('MEMORY.md', `# Memory\n\n${keep}${c('id: m1, importance: 0.6', J[0])}${c('id: m2, importance: 0.5', J[1])}`);
    const r = await run(['compact', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().merges[0].survivor.id).toBe('m1');
    const text = v.read('MEMORY.md');
    expect(text.startsWith(`# Memory\n\n${keep}`)).toBe(true);
    expect(headerLines(text)).toEqual([expect.stringMatching(/^<!-- mem \{id: k,/), "<!-- mem {id: m1, importance: 0.6, status: compacted, reinforcement_count: 0, compacted_from: [m2]} -->"]);
    expect((await run(['show', 'm1', '--json'])).json()).toMatchObject({ status: 'compacted', compacted_from: ['m2'], body: J[1] });
  });

  it('the merge driver merges comment headers by key: counters both sides moved add up, each side\'s new entry kept', async () => {
    const dir = tempDir();
    const base = `# M\n\n${c('id: a, reinforcement_count: 1', 'Body of a.')}`;
    const ours = `# M\n\n${c('id: a, reinforcement_count: 2', 'Body of a.')}${c('id: o, type: directive', 'Ours is new.')}`;
    const theirs = `# M\n\n${c('id: a, reinforcement_count: 4, importance: 0.9', 'Body of a.')}${c('id: t', 'Theirs is new.')}`;
    const [O, A, B] = ['O', 'A', 'B'].map((n, i) => {
      const p = path.join(dir, n);
      fs.writeFileSync(p, [base, ours, theirs][i]);
      return p;
    });
    const r = await runMem(['merge-driver', O, A, B, 'MEMORY.md'], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    const merged = fs.readFileSync(A, 'utf8');
    expect(merged).not.toMatch(/<<<<<<<|>>>>>>>/);
    expect(headerLines(merged)[0]).toBe('<!-- mem {id: a, reinforcement_count: 5, importance: 0.9} -->');
    expect(entryMetas(merged).map((m) => m.id)).toEqual(['a', 'o', 't']);
  });
});
