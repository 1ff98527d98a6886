// Secrets in vault files: where each one is (line, column, kind) and its redaction in place, which
// changes only the secret's bytes and keeps every YAML header valid YAML with the redacted value.
// Tokens are made up in the vendors' formats (none works anywhere).

import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { MemError } from '../../src/errors.js';
import { parseNote } from '../../src/notes/note.js';
import { placesOf, redactFileText, redactInText, secretPlaces } from '../../src/lint/secrets.js';
import { findSecrets } from '../../src/secrets/redact.js';
import { parseMemoryFile } from '../../src/vault/format.js';

const GH = 'ghp_' + 'R4nd0mT0k3nValue1234567890abcdefABCD';
const AWS_ID = 'AKIA' + 'Q3EGRJ5XZ7PLW2HM';
const P = '[redacted: github-token]';

/** The YAML of the file's first entry header, parsed; it must parse cleanly. */
function header(text: string): Record<string, unknown> {
  const b = parseMemoryFile(text, 'MEMORY.md').blocks.find((x) => x.header)!;
  const doc = YAML.parseDocument(b.header!.yaml);
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  return doc.toJS() as Record<string, unknown>;
}

const entryWith = (yamlLines: string, body = 'Body.') => `# Memory\n\n---\nid: e1\ntype: procedural\n${yamlLines}\n---\n## [2026-01-02] Title\n\n${body}\n`;

describe('placesOf', () => {
  it('gives the line and column of each secret, never its text', async () => {
    const text = `first line\n\nthe token ${GH} and ${AWS_ID}\nlast ${GH}`;
    const places = await secretPlaces(text);
    expect(places).toEqual([
      { kind: 'github-token', line: 3, column: 11 },
      { kind: 'aws-access-key-id', line: 3, column: 11 + GH.length + 5 },
      { kind: 'github-token', line: 4, column: 6 },
    ]);
    expect(JSON.stringify(places)).not.toContain(GH.slice(4));
  });

  it('counts lines by LF (a CRLF file too) and columns in characters', () => {
    const text = 'a\r\nb\r\n😀é x=SECRET\r\n';
    const start = text.indexOf('SECRET');
    expect(placesOf(text, [{ kind: 'password', start, end: start + 6 }])).toEqual([{ kind: 'password', line: 3, column: 6 }]);
    // At the very start, and right after a line break.
    expect(placesOf('abc\ndef', [{ kind: 'k', start: 0, end: 1 }, { kind: 'k', start: 4, end: 5 }])).toEqual([
      { kind: 'k', line: 1, column: 1 },
      { kind: 'k', line: 2, column: 1 },
    ]);
  });

  it('puts a private key block on the line it starts', async () => {
    const text = 'intro\nkey:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumFvJWqRmAyfFZ4YQT0F1ntZV\n-----END RSA PRIVATE KEY-----\nafter\n';
    expect(await secretPlaces(text)).toEqual([{ kind: 'private-key', line: 3, column: 1 }]);
  });
});

describe('redactInText', () => {
  it('changes only the secret in a body, keeping CRLF and every other byte', async () => {
    const text = `# Memory\r\n\r\n---\r\nid: e1\r\n---\r\n## Title\r\nUse ${GH} with  two  spaces.\r\n\r\nTail ${AWS_ID}\r\n`;
    const { text: out, count } = await redactFileText(text, 'MEMORY.md');
    expect(count).toBe(2);
    expect(out).toBe(text.replace(GH, P).replace(AWS_ID, '[redacted: aws-access-key-id]'));
  });

  it('quotes a plain YAML scalar that is the secret', async () => {
    const text = entryWith(`token: ${GH}\nother: plain value`);
    const out = (await redactFileText(text, 'MEMORY.md')).text;
    expect(out).toBe(text.replace(`token: ${GH}`, `token: '${P}'`));
    expect(header(out)).toMatchObject({ token: P, other: 'plain value' });
  });

  it('quotes a plain scalar that holds the secret, at its start, middle or end, doubling its quotes', async () => {
    const text = entryWith(`a: ${GH} first\nb: it's ${GH} here\nc: last ${GH}`);
    const out = (await redactFileText(text, 'MEMORY.md')).text;
    expect(out).toContain(`a: '${P} first'\nb: 'it''s ${P} here'\nc: 'last ${P}'\n`);
    expect(header(out)).toMatchObject({ a: `${P} first`, b: `it's ${P} here`, c: `last ${P}` });
  });

  it('keeps a plain scalar over several lines one value', async () => {
    const text = entryWith(`note: the key ${GH}\n  goes on here`);
    const out = (await redactFileText(text, 'MEMORY.md')).text;
    expect(header(out).note).toBe(`the key ${P} goes on here`);
  });

  it('quotes an item of a flow sequence and a key, and leaves quoted scalars, block scalars and comments as they are', async () => {
    const text = entryWith(
      [`tags: [deploy, ${GH}, vpn]`, `dq: "x ${GH}"`, `sq: 'y ${GH}'`, `block: |\n  z ${GH}\n  more`, `${GH}: as a key`, `c: 1 # ${GH}`].join('\n'),
    );
    const out = (await redactFileText(text, 'MEMORY.md')).text;
    const h = header(out);
    expect(h.tags).toEqual(['deploy', P, 'vpn']);
    expect(h.dq).toBe(`x ${P}`);
    expect(h.sq).toBe(`y ${P}`);
    expect(h.block).toBe(`z ${P}\nmore\n`);
    expect(h[P]).toBe('as a key');
    expect(h.c).toBe(1);
    // The quoted and block scalars and the comment: only the secret's bytes changed.
    expect(out).toContain(`dq: "x ${P}"\nsq: 'y ${P}'\nblock: |\n  z ${P}\n  more\n'${P}': as a key\nc: 1 # ${P}\n`);
  });

  it("keeps a note's frontmatter valid YAML and its sections as they were", async () => {
    const text = `---\ntype: episode\ntoken: ${GH}\ntags: [episodic]\n---\n# Session\n\n## Summary\nPushed with ${GH}.\n`;
    const out = (await redactFileText(text, '.mem/episodes/s1.md')).text;
    const note = parseNote(out);
    expect(note.frontmatter?.data).toMatchObject({ type: 'episode', token: P, tags: ['episodic'] });
    expect(out).toBe(text.replace(`token: ${GH}`, `token: '${P}'`).replace(`with ${GH}`, `with ${P}`));
  });

  it('redacts a private key cut short inside a header and leaves the closing --- alone', async () => {
    const text = entryWith('key: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEpAIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumFvJWqRmAyfFZ4YQT0F1ntZV\n  n0t4r34lk3');
    const out = (await redactFileText(text, 'MEMORY.md')).text;
    expect(header(out).key).toBe('[redacted: private-key]\n');
    expect(parseMemoryFile(out, 'MEMORY.md').entries.map((e) => e.id)).toEqual(['e1']);
  });

  it('refuses, changing nothing, a redaction that would break the structure', () => {
    const text = entryWith(`token: ${GH}`);
    // A span that runs from the value over the closing `---` into the heading.
    const start = text.indexOf(GH);
    const end = text.indexOf('Title');
    expect(() => redactInText(text, [{ kind: 'github-token', start, end }], 'MEMORY.md')).toThrow(MemError);
    expect(() => redactInText(text, [{ kind: 'github-token', start, end }], 'MEMORY.md')).toThrow(/line 6.*by hand/);
  });

  it('is a fixed point: a redacted file has nothing left to find', async () => {
    const text = entryWith(`a: ${GH} first\ntags: [${GH}]`, `Body ${GH}`);
    const once = (await redactFileText(text, 'MEMORY.md')).text;
    expect(await findSecrets(once)).toEqual([]);
    expect((await redactFileText(once, 'MEMORY.md')).text).toBe(once);
  });
});
