// Credentials in text on its way into the vault: secretlint's preset plus mem's extra rules.
// Tokens here are made up in the vendors' real formats (none of them works anywhere).

import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { describeRedaction, findSecrets, kindOf, redactDeep, redactionReport, redactSecrets, redactTexts } from '../../src/secrets/redact.js';
import { entropy, looksLikeCredential, redactForDisplay, urlForDisplay } from '../../src/secrets/rules.js';

const GH = 'ghp_' + 'R4nd0mT0k3nValue1234567890abcdefABCD';
const STRIPE = 'sk_live_' + '51H8x2eKZvKYlo2C0aBcDeFgHiJkLmNoPqRsTuV';
const AWS_ID = 'AKIA' + 'Q3EGRJ5XZ7PLW2HM';
const AWS_SECRET = 'u8Hx2+Jq9LmP4tR7vW1yZ3bN6cF0dG5hK8sA2eXo';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PEM = `-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumFvJWqRmAyfFZ4YQT0F1ntZV
n0t4r34lk3yButSh4p3dL1k3On3Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8V
-----END RSA PRIVATE KEY-----`;
const ANTHROPIC = 'sk-ant-api03-' + 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN-abcdefAA';

async function redact(text: string): Promise<string> {
  return (await redactSecrets(text)).text;
}

describe('redactSecrets', () => {
  it('replaces each credential by a placeholder that names its kind and keeps the sentence', async () => {
    const out = await redact(`Set it with export STRIPE_API_KEY=${STRIPE} before running the billing tests.`);
    expect(out).not.toContain(STRIPE);
    expect(out).toBe('Set it with export STRIPE_API_KEY=[redacted: stripe-key] before running the billing tests.');
  });

  it('finds an AWS key pair, a token in a clone URL, a private key, a JWT and database passwords', async () => {
    const text = [
      `AWS_ACCESS_KEY_ID=${AWS_ID}`,
      `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`,
      `git clone https://${GH}@github.com/acme/app.git`,
      `git clone https://x-access-token:${GH}@github.com/acme/app.git`,
      PEM,
      `curl -H "Authorization: Bearer ${JWT}" https://api.example.com`,
      'DATABASE_URL=postgres://admin:s3cr3tP4ss@db.example.com:5432/app',
      'then mysql://root:hunter2@localhost/db worked',
      `ANTHROPIC_API_KEY=${ANTHROPIC}`,
    ].join('\n');
    const out = await redact(text);
    for (const secret of [AWS_ID, AWS_SECRET, GH, 'MIIEpAIBAAKCAQEA', JWT, 's3cr3tP4ss', 'hunter2', ANTHROPIC]) expect(out).not.toContain(secret);
    expect(out).toContain('https://[redacted: github-token]@github.com/acme/app.git');
    expect(out).toContain('https://x-access-token:[redacted: github-token]@github.com/acme/app.git');
    expect(out).toContain('postgres://admin:[redacted: ');
    expect(out).toContain('@db.example.com:5432/app');
    expect(out).toContain('mysql://root:[redacted: ');
    expect(out).toMatch(/\[redacted: (rsa-)?private-key\]/);
    expect(out.split('\n').length).toBeLessThanOrEqual(text.split('\n').length);
  });

  it('names a database URL\'s password as such, whichever rule found the URL', async () => {
    for (const scheme of ['postgres', 'postgresql', 'mysql', 'mongodb', 'redis', 'https']) {
      expect(await redact(`DATABASE_URL=${scheme}://admin:s3cr3tP4ss@db.example.com:5432/app`)).toBe(`DATABASE_URL=${scheme}://admin:[redacted: url-password]@db.example.com:5432/app`);
    }
  });

  it('keeps a value that only sits beside a secret-sounding name', async () => {
    expect(await redact('TOKEN_TTL=3600 and API_KEY_HEADER=X-Api-Key')).toBe('TOKEN_TTL=3600 and API_KEY_HEADER=X-Api-Key');
  });

  it('reports where each one is, without the value', async () => {
    const text = `line one\nthe token is ${GH}\n`;
    const found = await findSecrets(text);
    expect(found).toEqual([{ kind: 'github-token', start: text.indexOf(GH), end: text.indexOf(GH) + GH.length }]);
  });

  it('is idempotent: a redacted text redacts to itself', async () => {
    const once = await redact(`PASSWORD=Tr0ub4dor&3x and ${GH} and https://u:p4ssw0rd@host.example/x`);
    expect(await redact(once)).toBe(once);
    expect((await findSecrets(once)).length).toBe(0);
  });

  it('leaves ordinary text alone', async () => {
    const plain = [
      'Run npm run db:migrate before the API tests.',
      'The cache key is CACHE_KEY=user-profile-v2 and TOKEN_LIMIT=4096.',
      'Set API_KEY=$OPENAI_API_KEY in CI, or PASSWORD=<your password>, or token: ${{ secrets.NPM_TOKEN }}.',
      'The key file lives at SSH_KEY=~/.ssh/id_ed25519; see https://github.com/acme/app.git.',
      'keyboard=us, monkey=banana, tokenizer=wordpiece, compass=north',
      'Use sk-learn for the model; the commit is 3f9a2c1d.',
      // Seen in real sessions: test runner output and code.
      '--- PASS: TestContextValues_Chaining (0.00s)',
      'data.TokenUsage = claudecode.CalculateTokenUsage(transcriptLines)',
      'var keys = keyMap{ Up: key.NewBinding("up") }',
      'apiKey: config.openaiApiKey,',
    ].join('\n');
    expect(await findSecrets(plain)).toEqual([]);
  });

  it('leaves nothing on the global performance timeline, however many texts it reads', async () => {
    // secretlint's profiler marks each rule run there and never clears the marks; each new one
    // was looked up among all the earlier ones, so a vault of files cost the square of its size.
    await findSecrets('warm up');
    const before = performance.getEntriesByType('mark').length;
    for (let i = 0; i < 50; i++) await findSecrets(`file ${i}: the token is ${GH}`);
    await new Promise((r) => setTimeout(r, 20));
    expect(performance.getEntriesByType('mark').length).toBe(before);
    expect(performance.getEntriesByType('measure')).toEqual([]);
  });

  it('takes the values mem knows to be credentials whatever their shape', async () => {
    const out = await redactSecrets('server said: invalid key "plainkey-0001"', ['plainkey-0001']);
    expect(out.text).toBe('server said: invalid key "[redacted: api-key]"');
  });
});

describe('extra rules', () => {
  it('redacts KEY=value assignments of names that say secret, in shell, YAML, JSON and flags', () => {
    const cases = [
      ['export DB_PASSWORD=hunter2x9', 'export DB_PASSWORD=[redacted: password]'],
      ['client_secret: "aB3dE5gH7jK9mN1pQ3sT"', 'client_secret: "[redacted: password]"'],
      ['{"apiKey": "Zx8Kq2Lm9Pw4Rt6Yu1Io3As5"}', '{"apiKey": "[redacted: secret-value]"}'],
      ['mytool --auth-token=Zx8Kq2Lm9Pw4Rt6Yu1Io3As5 run', 'mytool --auth-token=[redacted: secret-value] run'],
      ['SLACK_SIGNING_SECRET=8f7e6d5c4b3a29180f7e6d5c4b3a2918', 'SLACK_SIGNING_SECRET=[redacted: password]'],
    ];
    for (const [input, want] of cases) expect(redactForDisplay(input)).toBe(want);
  });

  it('finds an assignment inside the value of one that is no secret (a label before it, a line break)', async () => {
    const cases = [
      ['Deploy: API_TOKEN=Xk9mQ2vLp7wRzT4nQ8sL is needed', 'Deploy: API_TOKEN=[redacted: secret-value] is needed'],
      ['Note: STRIPE_KEY=Zx8Kq2Lm9Pw4Rt6Yu1Io3As5', 'Note: STRIPE_KEY=[redacted: secret-value]'],
      ['env: DB_PASSWORD=hunter2x9', 'env: DB_PASSWORD=[redacted: password]'],
      ['Set it:\nDB_PASSWORD=hunter2x9q', 'Set it:\nDB_PASSWORD=[redacted: password]'],
      ['a: b: c: SECRET_KEY=Zx8Kq2Lm9Pw4Rt6Yu1Io3As5', 'a: b: c: SECRET_KEY=[redacted: password]'],
    ];
    for (const [input, want] of cases) {
      expect(redactForDisplay(input)).toBe(want);
      // What is written into the vault goes through the same rules.
      expect((await redactSecrets(input)).text).toBe(want);
      expect((await findSecrets(input)).length).toBeGreaterThan(0);
    }
    // Plain labels stay as they are.
    for (const text of ['mode: fast', 'a: b: c=d', 'Deploy: staging=ready']) expect(redactForDisplay(text)).toBe(text);
  });

  it('judges values by entropy and shape', () => {
    expect(entropy('aaaa')).toBe(0);
    expect(entropy('abcd')).toBe(2);
    expect(looksLikeCredential('Zx8Kq2Lm9Pw4Rt6Yu1Io3As5', 'key')).toBe(true);
    expect(looksLikeCredential('production', 'key')).toBe(false);
    expect(looksLikeCredential('user-profile-v2', 'key')).toBe(false);
    expect(looksLikeCredential('${SECRET}', 'password')).toBe(false);
  });

  it('redacts authorization headers and keeps the scheme', () => {
    expect(redactForDisplay('Authorization: Bearer abcdef0123456789')).toBe('Authorization: Bearer [redacted: authorization]');
    expect(redactForDisplay("-H 'x-api-key: k3y-Valu3-0123456789'")).toBe("-H 'x-api-key: [redacted: api-key]'");
  });

  it('redacts a private key block cut short', () => {
    const cut = PEM.slice(0, 120);
    expect(redactForDisplay(`key:\n${cut}`)).toBe('key:\n[redacted: private-key]');
  });

  it('ends a private key cut short at its last line of key material, whatever follows', () => {
    const cut = PEM.slice(0, 120);
    // In a YAML block scalar: the header's closing line, the heading and the body stay.
    const yaml = `---\nid: e1\nkey: |\n  ${cut.replace(/\n/g, '\n  ')}\n---\n## Title\nbody\n\nmore\n`;
    expect(redactForDisplay(yaml)).toBe('---\nid: e1\nkey: |\n  [redacted: private-key]\n---\n## Title\nbody\n\nmore\n');
    // A line of prose right after it is not key material.
    expect(redactForDisplay(`${cut}\nthen the deploy failed`)).toBe('[redacted: private-key]\nthen the deploy failed');
    // A short line is the key's last only after a full-width one.
    const [begin, full] = PEM.split('\n');
    expect(redactForDisplay(`${begin}\n${full}\nn0t4r3\nsee`)).toBe('[redacted: private-key]\nsee');
    expect(redactForDisplay(`${begin}\nThanks`)).toBe('[redacted: private-key]\nThanks');
  });

  it('keeps the line endings around a private key (CRLF)', () => {
    const crlf = PEM.replace(/\n/g, '\r\n');
    expect(redactForDisplay(`a\r\n${crlf}\r\nb\r\n`)).toBe('a\r\n[redacted: private-key]\r\nb\r\n');
    expect(redactForDisplay(`a\r\n${crlf.slice(0, 125)}\r\n\r\nb\r\n`)).toBe('a\r\n[redacted: private-key]\r\n\r\nb\r\n');
  });

  it('takes an encrypted private key whole, headers and blank line included', () => {
    const enc = `-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n${PEM.split('\n')[1]}\nAbCdEf==\n-----END ENCRYPTED PRIVATE KEY-----`;
    expect(redactForDisplay(`x\n${enc}\ny`)).toBe('x\n[redacted: private-key]\ny');
    expect(redactForDisplay(`x\n${enc.split('\n').slice(0, 5).join('\n')}\n\ny`)).toBe('x\n[redacted: private-key]\n\ny');
  });

  it('shows URLs without their credentials', () => {
    expect(urlForDisplay('https://user:pa55@llm.example.com/v1')).toBe('https://***@llm.example.com/v1');
    expect(urlForDisplay('https://llm.example.com/v1')).toBe('https://llm.example.com/v1');
  });

  it('names secretlint kinds in kebab case', () => {
    expect(kindOf('AWSAccessKeyID')).toBe('aws-access-key-id');
    expect(kindOf('GITHUB_TOKEN')).toBe('github-token');
    expect(kindOf('BasicAuth')).toBe('basic-auth');
  });
});

describe('redacting many texts and records at once', () => {
  it('redacts each text as on its own, and no secret is read across two texts', async () => {
    const texts = ['nothing here', `token ${GH}`, '', `PASSWORD=Tr0ub4dor&3x`, 'ghp_', 'R4nd0mT0k3nValue1234567890abcdefABCD'];
    const { texts: out, findings } = await redactTexts(texts);
    expect(out).toEqual(['nothing here', 'token [redacted: github-token]', '', 'PASSWORD=[redacted: password]', 'ghp_', 'R4nd0mT0k3nValue1234567890abcdefABCD']);
    for (const [i, t] of texts.entries()) expect(out[i]).toBe(await redact(t));
    expect(findings.map((f) => f.kind)).toEqual(['github-token', 'password']);
  });

  it('scans more text than one run holds in several runs, with the same result', async () => {
    const filler = 'a line about the build and the tests '.repeat(3000); // ~111k characters
    const texts = Array.from({ length: 24 }, (_, i) => (i % 5 === 0 ? `${filler} export STRIPE_API_KEY=${STRIPE}` : filler));
    const { texts: out, findings } = await redactTexts(texts);
    expect(findings).toHaveLength(5);
    expect(out.filter((t) => t.endsWith('export STRIPE_API_KEY=[redacted: stripe-key]'))).toHaveLength(5);
    expect(out.join('')).not.toContain(STRIPE);
  });

  it('takes a few hundred thousand short texts (a large imported graph) without overflowing the stack', async () => {
    const texts = Array.from({ length: 600_000 }, (_, i) => (i === 123_456 ? `key ${GH}` : 'x'));
    const { texts: out, findings } = await redactTexts(texts);
    expect(out).toHaveLength(600_000);
    expect(out[123_456]).toBe('key [redacted: github-token]');
    expect(findings).toHaveLength(1);
  });

  it('redacts every string of a record and keeps its shape and other values', async () => {
    const record = { title: `use ${GH}`, n: 3, ok: true, none: null, missing: undefined, tags: ['a', `AWS_ACCESS_KEY_ID=${AWS_ID}`], nested: { deep: [{ text: JWT }] } };
    const { value, findings } = await redactDeep(record);
    expect(value).toEqual({ title: 'use [redacted: github-token]', n: 3, ok: true, none: null, missing: undefined, tags: ['a', 'AWS_ACCESS_KEY_ID=[redacted: aws-access-key-id]'], nested: { deep: [{ text: '[redacted: jwt]' }] } });
    expect(record.title).toBe(`use ${GH}`); // the input is left as it was
    expect(redactionReport(findings)).toEqual({ count: 3, kinds: ['aws-access-key-id', 'github-token', 'jwt'] });
    const clean = { a: 'nothing', b: [1, 2] };
    expect((await redactDeep(clean)).value).toBe(clean);
  });

  it('reports what it redacted in one line, never the value', () => {
    expect(redactionReport([])).toBeUndefined();
    expect(describeRedaction({ count: 2, kinds: ['github-token', 'password'] })).toBe('redacted 2 secrets (github-token, password) before writing');
    expect(describeRedaction({ count: 1, kinds: ['jwt'] })).toBe('redacted 1 secret (jwt) before writing');
  });
});
