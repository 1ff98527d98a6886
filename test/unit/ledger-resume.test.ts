import { describe, expect, it } from 'vitest';
import { messagesHash, resumePoint, type LedgerRecord } from '../../src/extract/ledger.js';
import type { TranscriptMessage } from '../../src/extract/transcript.js';

const msgs = (n: number, tag = 'm'): TranscriptMessage[] => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', kind: 'text', text: `${tag} ${i}` }) as TranscriptMessage);
const rec = (transcript: string, session: string | undefined, m: TranscriptMessage[]): LedgerRecord => ({ transcript, session_id: session, format: 'claude', messages: m.length, hash: messagesHash(m, m.length), at: 't', provider: 'heuristic', written: [] });

describe('resumePoint', () => {
  it("a transcript's own latest record decides, even when a later record of another file shares its session id", () => {
    const long = msgs(10);
    const short = long.slice(0, 6);
    const records = [rec('/a.jsonl', 's1', long), rec('/b.jsonl', 's1', short)];
    expect(resumePoint(records, '/a.jsonl', 's1', long)).toBe(10);
    expect(resumePoint(records, '/b.jsonl', 's1', short)).toBe(6);
  });
  it('a transcript never seen under its name resumes from its session; from 0 when the start differs', () => {
    const m = msgs(8);
    const records = [rec('/old-place.jsonl', 's2', m.slice(0, 5))];
    expect(resumePoint(records, '/new-place.jsonl', 's2', m)).toBe(5);
    expect(resumePoint(records, '/new-place.jsonl', undefined, m)).toBe(0);
    expect(resumePoint(records, '/new-place.jsonl', 's2', msgs(8, 'other'))).toBe(0);
  });
  it('a rewritten file (its first messages changed) starts again from 0', () => {
    const records = [rec('/a.jsonl', 's3', msgs(4))];
    expect(resumePoint(records, '/a.jsonl', 's3', msgs(6, 'new'))).toBe(0);
    expect(resumePoint(records, '/a.jsonl', 's3', msgs(3))).toBe(0);
  });
});
