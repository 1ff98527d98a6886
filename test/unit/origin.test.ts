import { describe, expect, it } from 'vitest';
import { conversationList, conversationOf, dateTimeMs, entrySpan, timeBound, timeBounds } from '../../src/vault/origin.js';

const DAY = 86_400_000;

describe('dateTimeMs: ISO date-times, UTC unless they carry an offset', () => {
  it.each([
    ['2026-11-27T09:00', Date.UTC(2026, 10, 27, 9)],
    ['2026-11-27 09:00', Date.UTC(2026, 10, 27, 9)],
    ['2026-11-27T09:00:30', Date.UTC(2026, 10, 27, 9, 0, 30)],
    ['2026-11-27T09:00:30.250Z', Date.UTC(2026, 10, 27, 9, 0, 30, 250)],
    ['2026-11-27T10:00+01:00', Date.UTC(2026, 10, 27, 9)],
    ['2026-11-27T04:00-0500', Date.UTC(2026, 10, 27, 9)],
    ['2026-11-27t09:00z', Date.UTC(2026, 10, 27, 9)],
  ])('%s', (s, ms) => expect(dateTimeMs(s)).toBe(ms));

  it.each(['2026-11-27', '2026-02-30T09:00', '2026-11-27T24:00', '2026-11-27T09:60', '2026-11-27T9:00', '2026-11-27T09:00+25:00', 'today 09:00', ''])('refuses %j', (s) => {
    expect(dateTimeMs(s)).toBeNull();
  });
});

describe('timeBound: a date is the start of its day (UTC), a date-time as dateTimeMs', () => {
  it('reads both and nothing else', () => {
    expect(timeBound('2026-11-27')).toBe(Date.UTC(2026, 10, 27));
    expect(timeBound(' 2026-11-27T06:00 ')).toBe(Date.UTC(2026, 10, 27, 6));
    expect(timeBound('2026-13-01')).toBeNull();
    expect(timeBound('6h')).toBeNull();
  });

  it('timeBounds checks that after comes before before', () => {
    expect(timeBounds(undefined, undefined)).toEqual({});
    expect(timeBounds('2026-11-27', '2026-11-27T00:01')).toEqual({ afterMs: Date.UTC(2026, 10, 27), beforeMs: Date.UTC(2026, 10, 27, 0, 1) });
    expect(() => timeBounds('2026-11-27', '2026-11-27')).toThrow(/--after 2026-11-27 is not earlier than --before 2026-11-27/);
  });
});

describe('entrySpan: when an entry happened', () => {
  it('an episode from start_at to end_at, both ends in it', () => {
    expect(entrySpan({ start_at: '2026-11-27T07:10:00Z', end_at: '2026-11-27T07:40:00Z' }, '2026-11-27'))
      .toEqual({ start: Date.UTC(2026, 10, 27, 7, 10), end: Date.UTC(2026, 10, 27, 7, 40) });
    // One end alone is an instant; ends given the wrong way round are still one span.
    expect(entrySpan({ start_at: '2026-11-27T07:10:00Z', end_at: null }, '2026-11-27')).toEqual({ start: Date.UTC(2026, 10, 27, 7, 10), end: Date.UTC(2026, 10, 27, 7, 10) });
    expect(entrySpan({ start_at: '2026-11-27T08:00Z', end_at: '2026-11-27T07:00Z' }, null)).toEqual({ start: Date.UTC(2026, 10, 27, 7), end: Date.UTC(2026, 10, 27, 8) });
  });

  it('anything else at its created_at: a date is its whole day, a timestamp an instant', () => {
    expect(entrySpan({}, '2026-11-27')).toEqual({ start: Date.UTC(2026, 10, 27), end: Date.UTC(2026, 10, 27) + DAY - 1 });
    expect(entrySpan({}, '2026-11-27T09:12:00+02:00')).toEqual({ start: Date.UTC(2026, 10, 27, 7, 12), end: Date.UTC(2026, 10, 27, 7, 12) });
    // A YAML timestamp the parser made a Date of.
    expect(entrySpan({ start_at: new Date(Date.UTC(2026, 10, 27, 7)) }, null)).toEqual({ start: Date.UTC(2026, 10, 27, 7), end: Date.UTC(2026, 10, 27, 7) });
    expect(entrySpan({ start_at: 'soon' }, 'never')).toBeNull();
    expect(entrySpan({}, null)).toBeNull();
  });
});

describe('conversations', () => {
  it('conversationOf is the session_id as text, or null', () => {
    expect(conversationOf({ session_id: 'b1946ac9' })).toBe('b1946ac9');
    expect(conversationOf({ session_id: 12345 })).toBe('12345');
    expect(conversationOf({ session_id: '  ' })).toBeNull();
    expect(conversationOf({ session_id: ['a'] })).toBeNull();
    expect(conversationOf({})).toBeNull();
  });

  it('conversationList keeps case, splits commas, drops repeats; empty is a usage error', () => {
    expect(conversationList(['Ab,cd', 'cd'])).toEqual(['Ab', 'cd']);
    expect(conversationList(undefined)).toBeUndefined();
    expect(() => conversationList([' , '])).toThrow(/--conversation is empty/);
  });
});
