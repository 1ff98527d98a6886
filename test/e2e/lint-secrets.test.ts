// `mem lint` and secrets, with real git: a credential in a memory file or a note is an error shown
// by file, line, column and kind, never by value (also not in --json); --fix redacts it in place
// (BOM, CRLF and every other byte kept; YAML headers still YAML); --staged checks the staged text.
// The real pre-commit hook is in test/process/lint-secrets.test.ts.
// Tokens are made up in the vendors' formats (none works anywhere).

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { GH, noValue, PW, STRIPE } from '../fixtures/lint-secrets.js';
import { cleanup, entry, git, tempVault, type TempVault } from '../helpers.js';
import { run } from '../run.js';

afterEach(cleanup);

/** A vault with secrets in an entry header, an entry body, a memory/ file, an episode and a pattern note. */
function vaultWithSecrets(v: TempVault): void {
  v.write('MEMORY.md', `# Memory\n\n${entry('with-token', `Push with ${GH} to the mirror.`, { token: GH })}${entry('clean', 'Nothing to see.')}`);
  v.write('memory/team/deploy.md', `# Deploy\n\n${entry('stripe', `Billing tests need STRIPE_KEY=${STRIPE} in the env.`)}`);
  v.write('.mem/episodes/2026-01-02-s1.md', `---\ntype: episode\ndb_password: ${PW}\n---\n# Session\n\n## Summary\nexport DB_PASSWORD=${PW}\n`);
  v.write('.mem/patterns/tokens.md', `---\ntype: pattern\n---\n# Tokens\n\n## Rule\nNever paste ${GH}.\n`);
}

describe('mem lint: secrets', () => {
  it('reports each secret once with file:line, column and kind, never the value (text and --json), exit 1', async () => {
    const v = tempVault();
    vaultWithSecrets(v);
    const r = await run(['lint'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(1);
    const lines = r.stdout.split('\n').filter((l) => /: secret \(/.test(l));
    expect(lines).toEqual([
      '.mem/episodes/2026-01-02-s1.md:3: secret (password) at column 14; mem lint --fix replaces it with [redacted: password]',
      '.mem/episodes/2026-01-02-s1.md:8: secret (password) at column 20; mem lint --fix replaces it with [redacted: password]',
      '.mem/patterns/tokens.md:7: secret (github-token) at column 13; mem lint --fix replaces it with [redacted: github-token]',
      'MEMORY.md:10: secret (github-token) at column 8; mem lint --fix replaces it with [redacted: github-token]',
      'MEMORY.md:12: secret (github-token) at column 11; mem lint --fix replaces it with [redacted: github-token]',
      'memory/team/deploy.md:11: secret (stripe-key) at column 31; mem lint --fix replaces it with [redacted: stripe-key]',
    ]);
    noValue(r.stdout, r.stderr);

    const j = await run(['lint', '--json'], { cwd: v.root, home: v.home });
    expect(j.status).toBe(1);
    noValue(j.stdout, j.stderr);
    const secrets = (j.json().problems as Array<Record<string, unknown>>).filter((p) => p.kind);
    expect(secrets).toHaveLength(6);
    expect(secrets[3]).toEqual({
      file: 'MEMORY.md', line: 10, column: 8, kind: 'github-token', severity: 'error',
      message: 'secret (github-token) at column 8; mem lint --fix replaces it with [redacted: github-token]',
    });
    // Naming one file lints that file only.
    const one = await run(['lint', 'memory/team/deploy.md'], { cwd: v.root, home: v.home });
    expect(one.status).toBe(1);
    expect(one.stdout.trim()).toBe('memory/team/deploy.md:11: secret (stripe-key) at column 31; mem lint --fix replaces it with [redacted: stripe-key]');
  });

  it('--fix replaces only the secrets\' bytes (BOM and CRLF kept), keeps headers valid YAML, and then lint passes', async () => {
    const v = tempVault();
    const crlf = `\ufeff# Memory\r\n\r\n---\r\nid: with-token\r\ntype: procedural\r\ntoken: ${GH}\r\nnote: it's ${GH} again\r\ntags: [deploy, ${GH}]\r\n---\r\n## Title\r\nPush with ${GH}  and  keep   spacing.\r\n`;
    v.write('MEMORY.md', crlf);
    v.write('memory/team/deploy.md', `# Deploy\n\n${entry('stripe', `Billing tests need STRIPE_KEY=${STRIPE} in the env.`)}`);
    const r = await run(['lint', '--fix'], { cwd: v.root, home: v.home });
    expect(r.stderr).toContain('redacted 5 secrets in 2 files');
    expect(r.status, r.stdout + r.stderr).toBe(0);
    noValue(r.stdout, r.stderr);
    const P = '[redacted: github-token]';
    const want = `\ufeff# Memory\r\n\r\n---\r\nid: with-token\r\ntype: procedural\r\ntoken: '${P}'\r\nnote: 'it''s ${P} again'\r\ntags: [deploy, '${P}']\r\n---\r\n## Title\r\nPush with ${P}  and  keep   spacing.\r\n`;
    expect(fs.readFileSync(v.path('MEMORY.md'), 'utf8')).toBe(want);
    const yaml = want.split('---\r\n')[1];
    const doc = YAML.parseDocument(yaml);
    expect(doc.errors).toEqual([]);
    expect(doc.toJS()).toMatchObject({ token: P, note: `it's ${P} again`, tags: ['deploy', P] });
    expect(v.read('memory/team/deploy.md')).toBe(`# Deploy\n\n${entry('stripe', 'Billing tests need STRIPE_KEY=[redacted: stripe-key] in the env.')}`);
    // Nothing left over: no lock or temp files, and a second run has nothing to do.
    expect(fs.readdirSync(v.root).sort()).toEqual(['.mem', 'MEMORY.md', 'memory']);
    const again = await run(['lint', '--fix'], { cwd: v.root, home: v.home });
    expect(again.status).toBe(0);
    expect(again.stderr).not.toContain('redacted');
    expect(fs.readFileSync(v.path('MEMORY.md'), 'utf8')).toBe(want);
    // The entry is still an entry, with its redacted value.
    const shown = await run(['list', '--json'], { cwd: v.root, home: v.home });
    expect(shown.status).toBe(0);
    expect((shown.json().entries as { id: string }[]).map((e) => e.id).sort()).toEqual(['stripe', 'with-token']);
  });

  it('--fix leaves a file it cannot redact safely as it is, says why, and lint still fails', async () => {
    const v = tempVault();
    // A token as the entry's id: its redaction would change which entry this is.
    const text = `# Memory\n\n---\nid: ${GH}\ntype: procedural\n---\nBody.\n`;
    v.write('MEMORY.md', text);
    const r = await run(['lint', '--fix'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot redact the secret \(github-token\) at line 4 .*by hand \(MEMORY\.md:4\)/);
    expect(r.stdout).toContain('MEMORY.md:4: secret (github-token)');
    noValue(r.stdout, r.stderr);
    expect(v.read('MEMORY.md')).toBe(text);
  });

  it('--staged checks the staged text, not the working copy', async () => {
    const v = tempVault({ git: true });
    const clean = `# Memory\n\n${entry('e1', 'Run the migrations first.')}`;
    const dirty = `# Memory\n\n${entry('e1', `Run the migrations first with ${GH}.`)}`;
    v.write('MEMORY.md', dirty);
    git(v.root, ['add', 'MEMORY.md']);
    v.write('MEMORY.md', clean);
    let r = await run(['lint', '--staged'], { cwd: v.root, home: v.home });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('MEMORY.md:11: secret (github-token) at column 31');
    noValue(r.stdout, r.stderr);
    git(v.root, ['add', 'MEMORY.md']);
    v.write('MEMORY.md', dirty);
    r = await run(['lint', '--staged'], { cwd: v.root, home: v.home });
    expect(r.status, r.stdout).toBe(0);
  });
});
