// Episode files: one markdown file per session under .mem/episodes/, one `kind: episode` entry
// per episode (frontmatter with the FSRS start state, a dated title, an extractive summary),
// written whole under the file's lock. The messages (a collapsed <details> section each) go to
// the local store (local.ts) unless `episodes.share_messages` keeps them in the committed file.

import fs from 'node:fs';
import path from 'node:path';
import { quoteBody } from '../quote.js';
import { MemError } from '../errors.js';
import { parseMemoryFile } from '../vault/format.js';
import { formatFrontmatter } from '../vault/frontmatter.js';
import { readVaultText } from '../vault/read.js';
import { hasUnsafeControl, newlineOf, safeLine, safeText, withNewline } from '../vault/safetext.js';
import { withFileLock } from '../vault/write.js';
import { localFileFor, writeLocal } from './local.js';
import { INITIAL_DIFFICULTY, initialStability, KEY_MOMENT, type EpisodeSpan } from './segment.js';

export const EPISODES_DIR = '.mem/episodes';
/** A message longer than this is cut in the detail section (the transcript keeps it whole). */
export const MESSAGE_CAP = 2000;
const PREAMBLE = (session: string) => `# Episodes of session ${session}\n\nWritten by \`mem segment\`; running it again on the same transcript rewrites this file.\n`;

/** A session id as a file name and an id part: safe characters only, never empty. */
export function sessionSlug(session: string): string {
  return session.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 96) || 'session';
}

export function episodeFile(root: string, session: string): { abs: string; rel: string } {
  const rel = `${EPISODES_DIR}/${sessionSlug(session)}.md`;
  return { abs: path.join(root, ...rel.split('/')), rel };
}

export function episodeId(session: string, n: number): string {
  return `ep-${sessionSlug(session)}-${String(n + 1).padStart(3, '0')}`;
}

function dateOf(iso: string | null): string | null {
  return iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : null;
}

function cap(text: string): string {
  return text.length <= MESSAGE_CAP ? text : `${text.slice(0, MESSAGE_CAP).trimEnd()} … [${text.length - MESSAGE_CAP} more characters]`;
}

/** Fields a later command may have changed on an episode (a review, consolidation): kept on a rewrite. */
const KEPT = ['created_at', 'last_reinforced', 'reinforcement_count', 'status', 'importance', 'fsrs', 'consolidated_at'] as const;

export interface EpisodeWriteInput {
  session: string;
  /** The transcript's file name, as the entries' `source`. */
  source: string;
  episodes: EpisodeSpan[];
  /** ISO time now: the creation date and first review of episodes whose messages carry no time. */
  now: string;
  /** The session's episode note (`EPISODE-<session>`), when it exists: each entry links to it. */
  episodeNote?: string;
  /** Keep the messages in the committed file (`episodes.share_messages`); else they go to the local store. */
  shareMessages?: boolean;
}

/** Each episode's messages as a collapsed <details> block (LF), by id. */
export function renderMessageSections(input: EpisodeWriteInput): [string, string][] {
  return input.episodes.map((ep, n) => {
    const lines = ['<details>', `<summary>Messages ${ep.first + 1}–${ep.last + 1} (${ep.messages.length})</summary>`, ''];
    for (const m of ep.messages) {
      lines.push(`**${m.role}**${m.timestamp ? ` · ${safeLine(m.timestamp)}` : ''}`, '');
      const quoted = quoteBody(safeText(cap(m.text)));
      lines.push(...(quoted.length > 0 ? quoted : ['> (empty)']), '');
    }
    lines.push('</details>');
    return [episodeId(input.session, n), lines.join('\n')];
  });
}

/**
 * The entries' text for one session (LF line endings), given what the previous file said per id;
 * with their messages only when `input.shareMessages`.
 */
export function renderEpisodes(input: EpisodeWriteInput, previous: Map<string, Record<string, unknown>> = new Map()): string {
  const parts = [PREAMBLE(safeLine(input.session))];
  const details = input.shareMessages ? renderMessageSections(input) : null;
  input.episodes.forEach((ep, n) => {
    const id = episodeId(input.session, n);
    const created = dateOf(ep.startAt) ?? input.now.slice(0, 10);
    const meta: Record<string, unknown> = {
      id,
      type: 'declarative',
      domain: 'task',
      importance: 0.5,
      phase: 'unknown',
      status: 'active',
      reinforcement_count: 0,
      last_reinforced: created,
      created_at: created,
      kind: 'episode',
      session_id: input.session,
      source: input.source,
      start_at: ep.startAt,
      end_at: ep.endAt,
      message_start: ep.first + 1,
      message_end: ep.last + 1,
      surprise: ep.surprise,
      key_moment: ep.surprise >= KEY_MOMENT,
      // ts-fsrs's card fields: state 'Review' with the last review at the episode's end, so its
      // retrievability decays from there (a 'New' card has none); its stability grows with the
      // surprise.
      fsrs: { stability: initialStability(ep.surprise), difficulty: INITIAL_DIFFICULTY, state: 'Review', last_review: ep.endAt ?? input.now, reps: 0, lapses: 0 },
      consolidated_at: null,
      ...(input.episodeNote !== undefined && { episode_note: input.episodeNote }),
      ...(ep.summaryBy !== undefined && { summary_by: ep.summaryBy }),
    };
    const old = previous.get(id);
    // The same episode (same messages) keeps what reviews and consolidation wrote on it.
    if (old && old.message_start === meta.message_start && old.message_end === meta.message_end) {
      for (const k of KEPT) if (old[k] !== undefined) meta[k] = old[k];
    }
    const lines = [`---`, formatFrontmatter(meta).trimEnd(), `---`, `## [${created}] ${safeLine(ep.title)}`, ''];
    const summary = safeLine(ep.summary);
    if (summary) lines.push(summary, '');
    if (details) lines.push(details[n][1], '');
    parts.push(lines.join('\n'));
  });
  const text = parts.join('\n');
  if (hasUnsafeControl(text)) throw new Error('renderEpisodes: unsafe control character in the episode file');
  return text;
}

/** The title and summary a model wrote for each episode of a session's file, by id, with the messages they cover. */
export function modelSummaries(root: string, session: string): Map<string, { title: string; summary: string; by: string; start: unknown; end: unknown }> {
  const out = new Map<string, { title: string; summary: string; by: string; start: unknown; end: unknown }>();
  const { abs, rel } = episodeFile(root, session);
  if (!fs.existsSync(abs)) return out;
  const r = readVaultText(abs);
  if ('error' in r) return out;
  for (const e of parseMemoryFile(r.text, rel).entries) {
    const by = e.meta.summary_by;
    if (typeof by !== 'string' || by === '') continue;
    // The summary is the body's first line (the messages may follow, after a blank line).
    out.set(e.id, { title: e.title, summary: e.body.split('\n')[0].trim(), by, start: e.meta.message_start, end: e.meta.message_end });
  }
  return out;
}

/** Each entry's frontmatter by id, from a session file's text. */
function metaById(text: string, rel: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const e of parseMemoryFile(text, rel).entries) out.set(e.id, e.meta);
  return out;
}

/**
 * Write (or replace) the session's episode file under its lock, atomically; the file's BOM and
 * line endings are kept. Unless `shareMessages`, the messages go to the local store first.
 * Returns whether the bytes changed (the same transcript twice changes nothing), and whether the
 * committed file held messages that now live in the local store only (`movedLocal`).
 */
export function writeEpisodes(root: string, input: EpisodeWriteInput): { path: string; changed: boolean; local?: string; movedLocal: boolean } {
  const { abs, rel } = episodeFile(root, input.session);
  // The session's episode note (src/notes/episodes.ts) links back to these entries; they link to it.
  const note = `EPISODE-${sessionSlug(input.session)}`;
  if (input.episodeNote === undefined && fs.existsSync(path.join(root, ...EPISODES_DIR.split('/'), `${note}.md`))) input = { ...input, episodeNote: note };
  return withFileLock(abs, (lock) => {
    let current: { text: string; bom: boolean } | null = null;
    if (fs.existsSync(abs)) {
      const r = readVaultText(abs);
      if ('error' in r) throw new MemError(`${r.error}; not writing to it`, { where: { file: rel, line: r.line } });
      current = { text: r.text, bom: r.bom === true };
    }
    const text = withNewline(renderEpisodes(input, current ? metaById(current.text, rel) : undefined), current ? newlineOf(current.text) : '\n');
    // The local copy is on disk before the committed file goes without the messages.
    const localChanged = input.shareMessages ? false : writeLocal(root, rel, input.session, renderMessageSections(input));
    const local = input.shareMessages ? undefined : localFileFor(root, rel).rel;
    const movedLocal = !input.shareMessages && current !== null && /^<details>\r?$/m.test(current.text);
    if (current && current.text === text) {
      return { path: rel, changed: localChanged, local, movedLocal };
    }
    lock.replace(current?.bom ? `\ufeff${text}` : text);
    return { path: rel, changed: true, local, movedLocal };
  }, rel);
}
