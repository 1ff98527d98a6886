// The entry model: the fields of a learning, their defaults, and how frontmatter values become
// typed fields. Validation messages for `mem lint` live here too.

export const ENTRY_TYPES = ['declarative', 'procedural', 'directive', 'corrective'] as const;
export const DOMAINS = ['task', 'team'] as const;
export const STATUSES = ['active', 'retired', 'compacted'] as const;
export const PHASES = ['specification', 'planning', 'design', 'implementation', 'review', 'maintenance', 'unknown'] as const;

export type EntryType = (typeof ENTRY_TYPES)[number];
export type Domain = (typeof DOMAINS)[number];
export type Status = (typeof STATUSES)[number];

/** Where an entry came from: a frontmatter entry, a legacy `## [` section, or a plain note chunk. */
export type EntryKind = 'entry' | 'legacy' | 'note';

export const DEFAULTS = {
  type: 'procedural',
  domain: 'team',
  importance: 0.5,
  phase: 'unknown',
  status: 'active',
  reinforcement_count: 0,
} as const;

/** The order mem writes frontmatter keys in; unknown keys follow in their own order. */
export const KEY_ORDER = [
  'id', 'type', 'domain', 'importance', 'phase', 'status', 'reinforcement_count',
  'last_reinforced', 'created_at',
] as const;

export interface Entry {
  id: string;
  kind: EntryKind;
  type: string;
  domain: string;
  importance: number;
  phase: string;
  status: string;
  reinforcement_count: number;
  last_reinforced: string | null;
  created_at: string | null;
  title: string;
  /** True when the title came from a markdown heading (and is not repeated in `body`). */
  titleFromHeading: boolean;
  body: string;
  /** The frontmatter exactly as parsed, every key in file order (empty for notes). */
  meta: Record<string, unknown>;
  /** 1-based line of the entry's first line (its `---` or heading). */
  line: number;
  /** Character offset of the entry in its file. */
  offset: number;
  ordinal: number;
  /** Note chunks: the file title and the headings above this section, for context. */
  trail?: string;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function isValidDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [+m[1], +m[2], +m[3]];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31);
}

function str(v: unknown): string | null {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return null;
}

function dateOrNull(v: unknown): string | null {
  const s = str(v);
  return s && isValidDate(s) ? s : null;
}

function oneOf(v: unknown, allowed: readonly string[], dflt: string): string {
  const s = str(v)?.toLowerCase();
  return s && allowed.includes(s) ? s : dflt;
}

/** Typed fields from frontmatter, with defaults for anything missing or invalid. */
export function fieldsFromMeta(meta: Record<string, unknown>): Pick<Entry,
  'type' | 'domain' | 'importance' | 'phase' | 'status' | 'reinforcement_count' | 'last_reinforced' | 'created_at'> {
  const imp = typeof meta.importance === 'number' ? meta.importance : Number(str(meta.importance) ?? NaN);
  const rc = typeof meta.reinforcement_count === 'number' ? meta.reinforcement_count : Number(str(meta.reinforcement_count) ?? NaN);
  const phase = str(meta.phase);
  const created = dateOrNull(meta.created_at);
  return {
    type: oneOf(meta.type, ENTRY_TYPES, DEFAULTS.type),
    domain: oneOf(meta.domain, DOMAINS, DEFAULTS.domain),
    importance: Number.isFinite(imp) ? Math.min(1, Math.max(0, imp)) : DEFAULTS.importance,
    phase: phase ? phase.toLowerCase() : DEFAULTS.phase,
    status: oneOf(meta.status, STATUSES, DEFAULTS.status),
    reinforcement_count: Number.isInteger(rc) && rc >= 0 ? rc : DEFAULTS.reinforcement_count,
    last_reinforced: dateOrNull(meta.last_reinforced) ?? created,
    created_at: created,
  };
}

/** Longer than this is not an id but text pasted into the wrong place. */
export const MAX_ID_LENGTH = 200;
const ID_LINE_VALUE = /^id[ \t]*:[ \t]*(.*?)\r?$/m;

/**
 * An entry's id as written in its header: a string is itself (trimmed); a plain scalar that YAML
 * reads as a number or a boolean is its source text (`1e3` stays "1e3", `007` stays "007",
 * never "1000" or "7"), so two ids are equal only when they are written alike. No id, an empty
 * one, a list or mapping, a line break or control character, or an over-long id is a problem:
 * the entry is broken, not silently merged into its neighbour.
 */
export function entryId(value: unknown, yaml: string): { id: string } | { problem: string } {
  let id: string;
  if (typeof value === 'string') id = value.trim();
  else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    const raw = ID_LINE_VALUE.exec(yaml)?.[1].replace(/[ \t]+#.*$/, '').trim();
    if (!raw) return { problem: 'id must be written on the id: line' };
    id = raw;
  } else if (value === null || value === undefined) return { problem: 'id is empty or null' };
  else return { problem: 'id must be one line of text, not a list or a mapping' };
  if (id === '') return { problem: 'id is empty' };
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(id)) return { problem: 'id contains a line break or a control character' };
  if (id.length > MAX_ID_LENGTH) return { problem: `id is longer than ${MAX_ID_LENGTH} characters` };
  return { id };
}

/** Problems with an entry's frontmatter, as lint reports them (the id is checked by entryId). */
export function validateMeta(meta: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const enumCheck = (key: string, allowed: readonly string[]) => {
    if (meta[key] === undefined) return;
    if (typeof meta[key] !== 'string' || !allowed.includes(meta[key] as string)) {
      problems.push(`${key} must be one of ${allowed.join(', ')} (got ${JSON.stringify(meta[key])})`);
    }
  };
  enumCheck('type', ENTRY_TYPES);
  enumCheck('domain', DOMAINS);
  enumCheck('status', STATUSES);
  if (meta.phase !== undefined && (typeof meta.phase !== 'string' || !/^[a-z][a-z0-9_-]*$/.test(meta.phase))) {
    problems.push(`phase must be one lowercase word (got ${JSON.stringify(meta.phase)})`);
  }
  if (meta.importance !== undefined) {
    const v = meta.importance;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
      problems.push(`importance must be a number from 0.0 to 1.0 (got ${JSON.stringify(v)})`);
    }
  }
  if (meta.reinforcement_count !== undefined) {
    const v = meta.reinforcement_count;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      problems.push(`reinforcement_count must be an integer >= 0 (got ${JSON.stringify(v)})`);
    }
  }
  for (const key of ['last_reinforced', 'created_at', 'promoted_at']) {
    if (meta[key] === undefined || meta[key] === null) continue;
    const v = meta[key];
    if (typeof v !== 'string' || !isValidDate(v)) {
      problems.push(`${key} must be a date YYYY-MM-DD or an ISO timestamp (got ${JSON.stringify(v)})`);
    }
  }
  return problems;
}

/** Normalise what lint --fix can normalise safely; returns only the keys that change. */
export function fixMeta(meta: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [key, allowed] of [['type', ENTRY_TYPES], ['domain', DOMAINS], ['status', STATUSES]] as const) {
    const v = meta[key];
    if (typeof v === 'string' && v !== v.trim().toLowerCase() && (allowed as readonly string[]).includes(v.trim().toLowerCase())) {
      changes[key] = v.trim().toLowerCase();
    }
  }
  if (typeof meta.phase === 'string' && meta.phase !== meta.phase.trim().toLowerCase() && /^[a-z][a-z0-9_-]*$/.test(meta.phase.trim().toLowerCase())) {
    changes.phase = meta.phase.trim().toLowerCase();
  }
  const imp = meta.importance;
  const impNum = typeof imp === 'string' && imp.trim() !== '' ? Number(imp) : imp;
  if (typeof impNum === 'number' && Number.isFinite(impNum)) {
    const clamped = Math.min(1, Math.max(0, impNum));
    if (clamped !== imp) changes.importance = clamped;
  }
  const rc = meta.reinforcement_count;
  const rcNum = typeof rc === 'string' && rc.trim() !== '' ? Number(rc) : rc;
  if (typeof rcNum === 'number' && Number.isFinite(rcNum)) {
    const fixed = Math.max(0, Math.round(rcNum));
    if (fixed !== rc) changes.reinforcement_count = fixed;
  }
  for (const key of ['last_reinforced', 'created_at', 'promoted_at']) {
    const v = meta[key];
    if (typeof v !== 'string' || isValidDate(v)) continue;
    const m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(v.trim()) ?? /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(v.trim());
    if (m) {
      const d = `${m[1]}-${m[2].padStart(2, '0')}-${m[3].padStart(2, '0')}`;
      if (isValidDate(d)) changes[key] = d;
    } else if (v !== v.trim() && isValidDate(v.trim())) {
      changes[key] = v.trim();
    }
  }
  return changes;
}

/** Milliseconds since the epoch for an entry date (UTC midnight for plain dates). */
export function dateMs(s: string | null): number | null {
  if (!s) return null;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
  return Number.isNaN(ms) ? null : ms;
}
