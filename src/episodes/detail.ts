// Key moments and detail levels: which episodes are marked, and which show their messages. Small
// and dependency-free: search, context and list load it on their hot path.

import { usageError } from '../errors.js';

/** Surprise at or above this marks a key moment. */
export const KEY_MOMENT = 0.7;

export type DetailLevel = 'none' | 'auto' | 'full';
export const DETAIL_LEVELS: readonly DetailLevel[] = ['none', 'auto', 'full'];

/** A --detail value, checked (a usage error names the levels). */
export function detailLevel(v: string | undefined, dflt: DetailLevel): DetailLevel {
  const d = (v ?? dflt).toLowerCase();
  if (!(DETAIL_LEVELS as readonly string[]).includes(d)) throw usageError(`unknown --detail "${v}"`, `use one of: ${DETAIL_LEVELS.join(', ')}`);
  return d as DetailLevel;
}

/**
 * Which episodes show their messages: `full` all, `none` none, `auto` the key moments among the
 * first two listed (rank is 0-based).
 */
export function showsDetail(level: DetailLevel, rank: number, keyMoment: boolean): boolean {
  return level === 'full' || (level === 'auto' && keyMoment && rank < 2);
}

/** The messages section of an episode's body (the quoted messages, without the <details> wrapper), or ''. */
export function messagesOfBody(body: string): string {
  const m = /^<details>\r?\n<summary>[^\n]*<\/summary>\r?\n([\s\S]*?)^<\/details>[ \t]*$/m.exec(body);
  return m ? m[1].trim() : '';
}

/** An episode's body without its messages section: the summary (what a listing shows by default). */
export function withoutMessages(body: string): string {
  return body.replace(/^<details>\r?\n<summary>[^\n]*<\/summary>\r?\n[\s\S]*?^<\/details>[ \t]*(\r?\n|$)/m, '').trimEnd();
}

export interface EpisodeMark {
  surprise: number | null;
  key_moment: boolean;
}

/**
 * An episode's `surprise:` value when it is one (a number from 0 to 1, as mem lint asks), else
 * null: a hand-edited 1e308 or -5 is no surprise known, so it marks no key moment.
 */
export function surpriseOf(v: unknown): number | null {
  return typeof v === 'number' && v >= 0 && v <= 1 ? v : null;
}

/** The surprise and key-moment flag of an episode, from its indexed frontmatter (JSON). */
export function episodeMark(metadataJson: string): EpisodeMark {
  let surprise: number | null = null;
  try {
    const m = JSON.parse(metadataJson) as { surprise?: unknown };
    surprise = surpriseOf(m?.surprise);
  } catch {
    // A damaged row: no surprise known, no mark.
  }
  return { surprise, key_moment: surprise !== null && surprise >= KEY_MOMENT };
}

/** The human label of a key moment. */
export const KEY_MOMENT_LABEL = '\u2605 key moment';
