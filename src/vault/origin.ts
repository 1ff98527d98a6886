// When an entry happened and which conversation recorded it, read from its frontmatter: what the
// index keeps in columns so that `--after` / `--before` / `--conversation` filter in SQL. Also
// the checked forms of those filters, for the command line and the MCP tools alike.

import { usageError } from '../errors.js';

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The span of an entry in ms since the epoch, both ends inclusive. */
export interface TimeSpan {
  start: number;
  end: number;
}

function validDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** The start of a calendar date (UTC), or null when `s` is not a real YYYY-MM-DD date. */
export function dateStartMs(s: string): number | null {
  const m = DATE.exec(s);
  if (!m || !validDate(+m[1], +m[2], +m[3])) return null;
  return Date.UTC(+m[1], +m[2] - 1, +m[3]);
}

/**
 * An ISO 8601 date-time (`2026-11-27T09:00`, seconds and fraction optional, `T` or a space) as ms
 * since the epoch. Without an offset it is UTC, as every time mem writes and prints is: the same
 * text means the same instant on every machine. Null for anything else, an impossible date or
 * time included.
 */
export function dateTimeMs(s: string): number | null {
  const m = DATE_TIME.exec(s.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, sec] = [+m[1], +m[2], +m[3], +m[4], +m[5], m[6] === undefined ? 0 : +m[6]];
  if (!validDate(y, mo, d) || h > 23 || mi > 59 || sec > 59) return null;
  let ms = Date.UTC(y, mo - 1, d, h, mi, sec) + (m[7] ? Math.floor(Number(m[7]) * 1000) : 0);
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    if (+z[2] > 23 || +z[3] > 59) return null;
    ms -= (z[1] === '-' ? -1 : 1) * (+z[2] * 60 + +z[3]) * 60_000;
  }
  return ms;
}

/**
 * A time given on the command line or to a tool (`--after`, `--before`): an ISO date is the start
 * of that day, UTC; an ISO date-time is read as dateTimeMs reads it (UTC unless it has an offset).
 * Null when it is neither.
 */
export function timeBound(v: string): number | null {
  const s = v.trim();
  return dateStartMs(s) ?? dateTimeMs(s);
}

/** A YAML value that holds a time: a string, or the Date a YAML 1.1 timestamp may become. */
function text(v: unknown): string | null {
  if (typeof v === 'string') return v.trim();
  if (v instanceof Date && !Number.isNaN(v.getTime())) return v.toISOString();
  return null;
}

/** A stored date or date-time as a span: a date is its whole day (UTC), a date-time an instant. */
function spanOf(v: unknown): TimeSpan | null {
  const s = text(v);
  if (s === null || s === '') return null;
  const day = dateStartMs(s);
  if (day !== null) return { start: day, end: day + DAY_MS - 1 };
  const t = dateTimeMs(s);
  return t === null ? null : { start: t, end: t };
}

/**
 * When an entry happened: an episode from its `start_at` to its `end_at` (one of them alone when
 * the other is missing), anything else at its `created_at` (a date: that whole day, UTC). Null
 * when it has no usable time.
 */
export function entrySpan(meta: Record<string, unknown>, createdAt: string | null): TimeSpan | null {
  const a = spanOf(meta.start_at);
  const b = spanOf(meta.end_at);
  if (a && b) return a.start <= b.end ? { start: a.start, end: b.end } : { start: b.start, end: a.end };
  return a ?? b ?? spanOf(createdAt ?? meta.created_at);
}

/**
 * The conversation an entry was recorded in: its `session_id` (what `mem extract`, `mem add
 * --session`, `mem segment` and episode notes write), as text; null when it has none.
 */
export function conversationOf(meta: Record<string, unknown>): string | null {
  const v = meta.session_id;
  // An unquoted numeric id reads as a number in YAML; it is still that id.
  const s = typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';
  return s === '' ? null : s;
}

/** How a front-end names a filter in messages: `--after` on the command line, `after` in a tool. */
export type FilterName = (field: 'after' | 'before' | 'conversation') => string;
const FLAG: FilterName = (f) => `--${f}`;

/** Conversation ids given one by one or comma-separated, case kept (ids are case-sensitive), checked not empty. */
export function conversationList(v: string | string[] | undefined, name: FilterName = FLAG): string[] | undefined {
  if (v === undefined) return undefined;
  const ids = (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
  if (ids.length === 0) throw usageError(`${name('conversation')} is empty`, `give a session id: ${name('conversation')} 3f0c2a4e-8d7b-4c1e-9a55-0b7e3c2d9f10`);
  return [...new Set(ids)];
}

function checkedBound(field: 'after' | 'before', v: string | undefined, name: FilterName): number | undefined {
  if (v === undefined) return undefined;
  const ms = timeBound(v);
  if (ms === null) throw usageError(`${name(field)} must be an ISO date or date-time (got "${v}")`, 'e.g. 2026-11-27, 2026-11-27T06:00 (UTC) or 2026-11-27T07:00+01:00');
  return ms;
}

/** The time bounds of a filter as ms, checked: each a date or date-time, `after` before `before`. */
export function timeBounds(after: string | undefined, before: string | undefined, name: FilterName = FLAG): { afterMs?: number; beforeMs?: number } {
  const afterMs = checkedBound('after', after, name);
  const beforeMs = checkedBound('before', before, name);
  if (afterMs !== undefined && beforeMs !== undefined && afterMs >= beforeMs) {
    throw usageError(`${name('after')} ${after} is not earlier than ${name('before')} ${before}`, 'nothing happened in between; swap them?');
  }
  return { ...(afterMs !== undefined && { afterMs }), ...(beforeMs !== undefined && { beforeMs }) };
}
