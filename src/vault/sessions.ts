// The retrieval log of an agent session: `.mem/sessions/<ID>/retrieved.jsonl`, one line per
// search with the ids it returned, read back by `mem reinforce --session ID`.

import path from 'node:path';
import { usageError } from '../errors.js';
import { redactForDisplay } from '../secrets/rules.js';
import { appendConfined, readTarget } from './boundary.js';
import { readRegular } from './read.js';

/** A session's retrieval log past this is not read (a session retrieves a few hundred ids). */
const LOG_LIMIT = 64 << 20;

/** A session id mem uses as given (it names folders under .mem/ and ledger records). */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A string from outside, safe to print on one line: control characters escaped, length capped. */
export function printable(s: string): string {
  return JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…` : s).slice(1, -1);
}

export function checkSessionId(id: string): string {
  if (!SESSION_ID.test(id)) throw usageError(`invalid session id "${printable(id)}"`, 'use letters, digits, ".", "_" and "-" (at most 128)');
  return id;
}

export function retrievalLogPath(root: string, sessionId: string): string {
  return path.join(root, '.mem', 'sessions', checkSessionId(sessionId), 'retrieved.jsonl');
}

export interface RetrievalRecord {
  at: string;
  query: string;
  ids: string[];
}

export function appendRetrieval(root: string, sessionId: string, records: RetrievalRecord[]): void {
  if (records.length === 0) return;
  const file = retrievalLogPath(root, sessionId);
  // Never through a link out of the vault (a cloned repository's `.mem/sessions -> ~/x`).
  // A query is what the human typed (a hook's prompt): the log gets it with credentials redacted by
  // the synchronous rules, which searches can afford (secretlint's set is for the writes to memory).
  const lines = records.map((r) => JSON.stringify({ ...r, query: redactForDisplay(r.query) }));
  appendConfined(file, lines.join('\n') + '\n', path.relative(root, file), root);
}

export function readRetrievalIds(root: string, sessionId: string): string[] {
  return [...readRetrievals(root, sessionId).keys()];
}

/**
 * Each id the session retrieved, with the time (ms) it was first returned, in the order first
 * returned; NaN when the log's line has no usable time.
 */
export function readRetrievals(root: string, sessionId: string): Map<string, number> {
  const file = retrievalLogPath(root, sessionId);
  // Never through a link out of the vault, never a FIFO (the log is read by a hook).
  let text: string | null;
  try {
    text = readRegular(readTarget(file, file, [root]), LOG_LIMIT);
  } catch {
    return new Map();
  }
  const ids = new Map<string, number>();
  if (text === null) return ids;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const rec = JSON.parse(line) as Partial<RetrievalRecord>;
      const at = typeof rec.at === 'string' ? Date.parse(rec.at) : NaN;
      // A line whose ids are not a list (a string would be read a letter at a time) counts for nothing.
      for (const id of Array.isArray(rec.ids) ? rec.ids : []) {
        if (typeof id !== 'string') continue;
        const was = ids.get(id);
        if (was === undefined || Number.isNaN(at) || at < was) ids.set(id, at);
      }
    } catch {
      // A torn line from a crashed writer: the rest of the log still counts.
    }
  }
  return ids;
}

/**
 * What the session's extractions already did with each retrieved id:
 * `.mem/sessions/<ID>/judged.jsonl`, one line per id. An id listed there is never reinforced,
 * weakened or reviewed again for this session, however often the growing session is extracted.
 */
export function judgedLogPath(root: string, sessionId: string): string {
  return path.join(root, '.mem', 'sessions', checkSessionId(sessionId), 'judged.jsonl');
}

export interface JudgedRecord {
  id: string;
  at: string;
  /** What happened to the entry (reinforce.ts's action). */
  action: string;
  /** The FSRS rating recorded with it, and who chose it (`usage`: the offline rule; else provider:model). */
  rating?: string;
  by?: string;
  reason?: string;
}

/** The ids of a judged log's text (torn lines skipped). */
export function judgedIds(text: string | null): Set<string> {
  const ids = new Set<string>();
  for (const line of (text ?? '').split('\n')) {
    if (!line.trim()) continue;
    try {
      const rec = JSON.parse(line) as Partial<JudgedRecord>;
      if (typeof rec.id === 'string') ids.add(rec.id);
    } catch {
      // a torn line loses only its own id (judged again: the rest of the log still counts)
    }
  }
  return ids;
}

/** The judged log's text ('' when there is none); never through a link out of the vault, never a FIFO. */
export function readJudgedText(root: string, sessionId: string): string {
  const file = judgedLogPath(root, sessionId);
  try {
    return readRegular(readTarget(file, file, [root]), LOG_LIMIT) ?? '';
  } catch {
    return '';
  }
}
