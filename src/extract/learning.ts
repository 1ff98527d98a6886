// A learning as extraction produces it (before it becomes an entry), the JSON schema the model
// answers in, and the validation of that answer.

import { EXTRACTION_SCOPES, type ExtractionScopeName } from './scopes.js';

export const ENTRY_TYPES = ['declarative', 'procedural', 'directive', 'corrective'] as const;

export interface Learning {
  scope: ExtractionScopeName;
  type: (typeof ENTRY_TYPES)[number];
  title: string;
  body: string;
  importance: number;
  phase?: string;
}

/** The answer's schema; strict-mode compatible (every property required, nothing extra). */
export function learningSchema(scopes: readonly string[]): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['learnings'],
    properties: {
      learnings: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['scope', 'type', 'title', 'body', 'evidence', 'importance', 'phase'],
          properties: {
            scope: { type: 'string', enum: [...scopes] },
            type: { type: 'string', enum: [...ENTRY_TYPES] },
            title: { type: 'string', description: 'the rule, short and imperative where it is one ("Run X before Y"), naming its subject; under 90 characters' },
            body: { type: 'string', description: '1-3 sentences: why the rule holds and how to apply it, self-contained, with the names of commands, files and settings' },
            evidence: { type: 'string', description: 'the words that show it, quoted exactly from the transcript: what the human said, or the error line; empty when there is none' },
            importance: { type: 'number', description: '0.1 (minor) to 1.0 (critical)' },
            phase: { type: 'string', description: 'project stage it belongs to: specification, planning, design, implementation, review, maintenance or unknown' },
          },
        },
      },
    },
  };
}

/** How a learning's evidence is written into its body: a last paragraph `Evidence: "…"`. */
const EVIDENCE = /\n*^Evidence: "(.*)"[ \t]*$/gm;
const MAX_EVIDENCE = 300;

/** The body with its evidence as a last paragraph (one line, quoted); the body alone when there is none. */
export function withEvidence(body: string, evidence: string | undefined): string {
  const e = oneLine((evidence ?? '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' '), MAX_EVIDENCE).replace(/^["'\u201c]+|["'\u201d]+$/g, '').trim();
  if (e.length < 3 || body.includes(e)) return body;
  return `${body.trimEnd()}\n\nEvidence: "${e}"`;
}

/** A body split into the rule's explanation and its evidence lines (see withEvidence). */
export function splitEvidence(body: string): { rule: string; evidence: string[] } {
  const evidence = [...body.matchAll(EVIDENCE)].map((m) => m[1]);
  return { rule: evidence.length ? body.replace(EVIDENCE, '').trim() : body, evidence };
}

function oneLine(s: string, max: number): string {
  return shorten(s, max);
}

/**
 * The text on one line within `max` characters (the ellipsis included), never cut inside a word
 * or a code span: whole when it fits; else up to the last sentence end, when that keeps most of
 * it (a whole sentence, no ellipsis); else up to the last clause boundary (";", a dash, ", so …") or
 * else the last word boundary, with an ellipsis. Only a single word longer than `max` is cut.
 * `clauses: false` (a command): word boundaries only.
 */
export function shorten(s: string, max: number, opts: { clauses?: boolean } = {}): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const room = t.slice(0, max);
  // Boundaries inside an unclosed code span do not count: the span would be cut open.
  const open = (i: number) => (room.slice(0, i).match(/`/g) ?? []).length % 2 === 1;
  const last = (re: RegExp, min: number): number => {
    let at = -1;
    for (const m of room.matchAll(re)) if ((m.index ?? 0) >= min && !open(m.index ?? 0)) at = m.index ?? 0;
    return at;
  };
  const clauses = opts.clauses ?? true;
  const sentence = clauses ? last(/[.!?](?=\s)/g, Math.floor(max * 0.5)) : -1;
  if (sentence > 0) return t.slice(0, sentence + 1);
  // A comma ends a clause only before a conjunction: inside a list it does not.
  const clause = !clauses ? -1 : last(/\s*(?:;\s|\s[\u2014\u2013-]\s|,\s(?=(?:so|but|because|since|which|and then|then)\s))/g, Math.floor(max * 0.5));
  const word = clause > 0 ? clause : last(/\s/g, 1);
  const cut = word > 0 ? t.slice(0, word) : t.slice(0, max - 1);
  return `${cut.replace(/[\s,;:.\u2014\u2013-]+$/, '')}\u2026`;
}

/** Most learnings one extraction keeps (the most important first): a runaway answer is cut here. */
export const MAX_LEARNINGS = 40;

/**
 * Body text that cannot break the file it goes into: a line that is only `---` could open an
 * entry header (a transcript may contain anything, including text written to do exactly that),
 * so it becomes `* * *`, which renders as the same horizontal rule.
 */
export function safeBody(s: string): string {
  return s.replace(/^[ \t]*---+[ \t]*$/gm, '* * *').trim();
}

export function cleanTitle(s: string): string {
  const t = oneLine(s.replace(/^#+\s*/, '').replace(/^\[[^\]]*\]\s*/, ''), 90);
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** Check the model's answer; keep the learnings that make sense, count the rest. */
export function validateLearnings(json: unknown, scopes: readonly ExtractionScopeName[]): { learnings: Learning[]; dropped: number } | null {
  if (typeof json !== 'object' || json === null) return null;
  const list = (json as { learnings?: unknown }).learnings;
  if (!Array.isArray(list)) return null;
  const learnings: Learning[] = [];
  let dropped = 0;
  for (const raw of list) {
    const r = raw as Record<string, unknown>;
    const scope = typeof r?.scope === 'string' ? (r.scope.trim().toLowerCase() as ExtractionScopeName) : scopes.length === 1 ? scopes[0] : undefined;
    const def = EXTRACTION_SCOPES.find((s) => s.name === scope);
    const title = typeof r?.title === 'string' ? cleanTitle(r.title) : '';
    const evidence = typeof r?.evidence === 'string' ? r.evidence : undefined;
    const body = typeof r?.body === 'string' ? safeBody(withEvidence(r.body.slice(0, 2000), evidence)) : '';
    if (!def || !scopes.includes(def.name) || title.length < 3 || body.length < 3) {
      dropped++;
      continue;
    }
    const type = (ENTRY_TYPES as readonly string[]).includes(String(r.type)) ? (r.type as Learning['type']) : def.defaultType;
    const imp = typeof r.importance === 'number' && Number.isFinite(r.importance) ? Math.min(1, Math.max(0.1, r.importance)) : 0.6;
    const phase = typeof r.phase === 'string' && /^[a-z][a-z-]{1,30}$/.test(r.phase.trim().toLowerCase()) ? r.phase.trim().toLowerCase() : undefined;
    learnings.push({ scope: def.name, type, title, body, importance: Math.round(imp * 100) / 100, phase });
  }
  if (learnings.length > MAX_LEARNINGS) {
    const keep = new Set([...learnings].sort((a, b) => b.importance - a.importance).slice(0, MAX_LEARNINGS));
    dropped += learnings.length - keep.size;
    return { learnings: learnings.filter((l) => keep.has(l)), dropped };
  }
  return { learnings, dropped };
}
