// `mem lint`'s checks of the episodic fields: an entry's `fsrs:` map (what `mem review` and
// `mem segment` write, what --rank fsrs reads) and an episode's `surprise`. A value the ranking
// would quietly replace by a default is reported here, with the key it is under.

import { isValidDate } from '../vault/entry.js';

/** ts-fsrs's card states (State enum names), as mem reads them: any case. */
const STATE_NAMES = ['New', 'Learning', 'Review', 'Relearning'];
/** A last review this far ahead of the clock is a mistake, not a clock skew between machines. */
const FUTURE_SLACK_MS = 86_400_000;

export interface FieldProblem {
  /** The key the problem is under: `fsrs.stability`, `surprise`. */
  key: string;
  message: string;
}

const show = (v: unknown) => JSON.stringify(v) ?? String(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown) => isNum(v) && Number.isInteger(v) && v >= 0;

export function checkEpisodicFields(meta: Record<string, unknown>, nowMs: number): FieldProblem[] {
  const out: FieldProblem[] = [];
  const f = meta.fsrs;
  if (f !== undefined && f !== null) {
    if (typeof f !== 'object' || Array.isArray(f)) {
      out.push({ key: 'fsrs', message: `fsrs must be a map {stability, difficulty, state, last_review, reps, lapses} (got ${show(f)})` });
    } else {
      const m = f as Record<string, unknown>;
      const bad = (key: string, rule: string) => out.push({ key: `fsrs.${key}`, message: `fsrs.${key} must be ${rule} (got ${show(m[key])})` });
      if (m.stability !== undefined && !(isNum(m.stability) && m.stability > 0)) bad('stability', 'a number of days > 0');
      if (m.difficulty !== undefined && !(isNum(m.difficulty) && m.difficulty >= 1 && m.difficulty <= 10)) bad('difficulty', 'a number from 1 to 10');
      if (m.last_review !== undefined && m.last_review !== null) {
        const v = m.last_review;
        if (typeof v !== 'string' || !isValidDate(v.trim())) bad('last_review', 'a date YYYY-MM-DD or an ISO timestamp');
        else {
          const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v.trim()) ? `${v.trim()}T00:00:00Z` : v.trim());
          if (Number.isFinite(t) && t > nowMs + FUTURE_SLACK_MS) bad('last_review', 'a date that is not in the future');
        }
      }
      for (const k of ['reps', 'lapses']) if (m[k] !== undefined && !isCount(m[k])) bad(k, 'an integer >= 0');
      if (m.state !== undefined && !(typeof m.state === 'string' && STATE_NAMES.some((s) => s.toLowerCase() === (m.state as string).trim().toLowerCase()))) {
        bad('state', `one of ${STATE_NAMES.join(', ')}`);
      }
    }
  }
  if (meta.kind === 'episode' && meta.surprise !== undefined && !(isNum(meta.surprise) && meta.surprise >= 0 && meta.surprise <= 1)) {
    out.push({ key: 'surprise', message: `surprise must be a number from 0 to 1 (got ${show(meta.surprise)})` });
  }
  return out;
}
