// The retrieval log of a session (.mem/sessions/<id>/retrieved.jsonl): what it keeps of a query.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendRetrieval, readRetrievalIds, retrievalLogPath } from '../../src/vault/sessions.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('appendRetrieval', () => {
  it('logs the query with its credentials redacted, and the ids as given', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-retrieval-'));
    dirs.push(root);
    const token = 'ghp_' + 'R4nd0mT0k3nValue1234567890abcdefABCD';
    const stripe = 'sk_live_' + '51H8x2eKZvKYlo2C0aBcDeFgHiJkLmNoPqRsTuV';
    appendRetrieval(root, 's-1', [{ at: '2026-11-20T10:00:00.000Z', query: `why does git clone https://${token}@github.com/acme/app fail with STRIPE_API_KEY=${stripe}`, ids: ['a1', 'b2'] }]);
    const text = fs.readFileSync(retrievalLogPath(root, 's-1'), 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(stripe);
    expect(JSON.parse(text).query).toBe('why does git clone https://[redacted: github-token]@github.com/acme/app fail with STRIPE_API_KEY=[redacted: stripe-key]');
    expect(readRetrievalIds(root, 's-1')).toEqual(['a1', 'b2']);
  });

  it('a line whose ids are not a list counts for nothing (a string is not read a letter at a time)', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-retrieval-'));
    dirs.push(root);
    appendRetrieval(root, 's-2', [{ at: '2026-11-20T10:00:00.000Z', query: 'q', ids: ['a1'] }]);
    fs.appendFileSync(retrievalLogPath(root, 's-2'), '{"at":"2026-11-20T10:01:00Z","query":"q","ids":"notalist"}\n{"ids":{"0":"x"}}\n{"ids":["b2",7]}\n');
    expect(readRetrievalIds(root, 's-2')).toEqual(['a1', 'b2']);
  });
});
