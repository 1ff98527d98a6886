// `.mem/extracted.jsonl`: what has been extracted from which transcript, so a re-run writes
// nothing and a resumed (grown) session is extracted only from where the last run stopped.
// A record names the transcript, how many messages were read and a hash of those messages.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../errors.js';
import { acquireLockAsync, withFileLock } from '../vault/write.js';
import { appendConfined } from '../vault/boundary.js';
import { readRegular } from '../vault/read.js';
import type { TranscriptMessage } from './transcript.js';

export const LEDGER_PATH = '.mem/extracted.jsonl';

export interface LedgerRecord {
  /** Absolute path of the transcript, or `stdin:<session or content hash>`. */
  transcript: string;
  session_id?: string;
  format: string;
  /** Messages read so far, and the hash of exactly those messages. */
  messages: number;
  hash: string;
  at: string;
  provider: string;
  written: string[];
}

export function messagesHash(messages: readonly TranscriptMessage[], n: number): string {
  const h = createHash('sha1');
  for (let i = 0; i < n && i < messages.length; i++) {
    const m = messages[i];
    h.update(`${m.role}\u0000${m.kind}\u0000${m.text}\u0001`);
  }
  return h.digest('hex');
}

export function readLedger(root: string): LedgerRecord[] {
  const text = readRegular(path.join(root, LEDGER_PATH));
  if (text === null) return [];
  const out: LedgerRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as LedgerRecord;
      if (typeof r.transcript === 'string' && typeof r.messages === 'number' && typeof r.hash === 'string') out.push(r);
    } catch {
      // a damaged line only loses its own record
    }
  }
  return out;
}

/**
 * Where to start reading: after the messages of the latest record for this transcript when they
 * are still the transcript's first messages; otherwise from the beginning (the file was
 * rewritten; re-extracted learnings are caught by the duplicate check). A transcript never seen
 * under this name resumes from the latest record of its session (the same session moved, or
 * read from stdin). Its own record comes first: several files can carry one session id (a
 * resumed or forked session, copies), and the latest of theirs would say something else.
 */
export function resumePoint(records: LedgerRecord[], key: string, sessionId: string | undefined, messages: readonly TranscriptMessage[]): number {
  const latest = (match: (r: LedgerRecord) => boolean): LedgerRecord | undefined => {
    for (let i = records.length - 1; i >= 0; i--) if (match(records[i])) return records[i];
    return undefined;
  };
  const r = latest((x) => x.transcript === key) ?? (sessionId ? latest((x) => x.session_id === sessionId) : undefined);
  if (r && r.messages <= messages.length && messagesHash(messages, r.messages) === r.hash) return r.messages;
  return 0;
}

/**
 * Refuse, before anything is written, a ledger that is not a regular file (a FIFO would block the
 * append forever; a folder would fail it after the entries were written).
 */
export function checkLedger(root: string): void {
  const st = fs.statSync(path.join(root, LEDGER_PATH), { throwIfNoEntry: false });
  if (st && !st.isFile()) throw new MemError(`${LEDGER_PATH} is not a regular file`, { hint: 'move it away; mem keeps its extraction record there' });
}

export function appendLedger(root: string, rec: LedgerRecord): void {
  const file = path.join(root, LEDGER_PATH);
  withFileLock(file, () => appendConfined(file, `${JSON.stringify(rec)}\n`, LEDGER_PATH, root), LEDGER_PATH);
}

/** How long a second extraction of one transcript waits for the first (a model may take minutes). */
const TURN_WAIT_MS = 10 * 60 * 1000;

/**
 * One extraction of a transcript at a time. Agents fire several hooks for one session (PreCompact
 * then SessionEnd, Codex's notify and SessionEnd together, the same hook at user and project
 * level): a second run waits for the first, then reads the transcript and the ledger the first
 * wrote, and extracts only what is new — no second model call over the same messages, no
 * near-duplicate entries from two answers. The turn is a lock under .mem/extracting/.
 */
export async function oneExtractionAtATime<T>(root: string, transcript: string, fn: () => Promise<T>): Promise<T> {
  const turn = path.join(root, '.mem', 'extracting', createHash('sha256').update(transcript).digest('hex').slice(0, 24));
  const deadline = Date.now() + TURN_WAIT_MS;
  for (;;) {
    try {
      const lock = await acquireLockAsync(turn, `the extraction of ${transcript}`);
      try {
        return await fn();
      } finally {
        lock.release();
      }
    } catch (err) {
      // Only the wait for the other run is retried (acquireLockAsync gives up after the lock timeout).
      if (!(err instanceof MemError) || !/is locked by another writer/.test(err.message) || Date.now() >= deadline) throw err;
    }
  }
}
