// Dates named in a query ("on 13 October, 2023", "in May 2023", "2023-10-13") as ranges of
// days. Search lifts entries created inside a named range: people ask for what happened on a day,
// and an entry's date lives in its frontmatter, which is never indexed as text.

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6, jul: 7, july: 7,
  aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10, nov: 11, november: 11, dec: 12, december: 12,
};
const MONTH = `(${Object.keys(MONTHS).join('|')})\\.?`;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(\\d{4})';

export interface DayRange {
  /** First day, YYYY-MM-DD. */
  from: string;
  /** Last day, YYYY-MM-DD (inclusive). */
  to: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

function day(y: number, m: number, d: number): DayRange | null {
  if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) return null;
  const s = `${y}-${pad(m)}-${pad(d)}`;
  return { from: s, to: s };
}

function month(y: number, m: number): DayRange {
  return { from: `${y}-${pad(m)}-01`, to: `${y}-${pad(m)}-${pad(new Date(Date.UTC(y, m, 0)).getUTCDate())}` };
}

/** The day or month ranges a query names with a year; none for a bare "May" or "2023". */
export function queryDates(query: string): DayRange[] {
  const q = query.toLowerCase();
  // Every form has a four-digit year: without one, the month patterns need not even be compiled.
  if (!/\d{4}/.test(q)) return [];
  const out: DayRange[] = [];
  const taken: [number, number][] = [];
  const scan = (re: RegExp, make: (m: RegExpExecArray) => DayRange | null) => {
    for (const m of q.matchAll(re)) {
      const start = m.index!;
      const end = start + m[0].length;
      if (taken.some(([a, b]) => start < b && end > a)) continue;
      // An impossible day ("31 February 2023") still claims its words, so it is not read as a month.
      taken.push([start, end]);
      const r = make(m as RegExpExecArray);
      if (r) out.push(r);
    }
  };
  scan(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => day(+m[1], +m[2], +m[3]));
  scan(new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}\\b`, 'g'), (m) => day(+m[3], MONTHS[m[2]], +m[1]));
  scan(new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+${YEAR}\\b`, 'g'), (m) => day(+m[3], MONTHS[m[1]], +m[2]));
  scan(new RegExp(`\\b${MONTH},?\\s+(?:of\\s+)?${YEAR}\\b`, 'g'), (m) => month(+m[2], MONTHS[m[1]]));
  return out;
}

/** Whether a stored date (YYYY-MM-DD, or an ISO timestamp) falls inside one of the ranges. */
export function inRanges(date: string | null, ranges: DayRange[]): boolean {
  if (!date || ranges.length === 0) return false;
  const d = date.slice(0, 10);
  return ranges.some((r) => d >= r.from && d <= r.to);
}
