// Index queries for episode notes: the rows of the notes in `.mem/episodes/` with a given outcome,
// found through the files' path index so a large vault is not scanned.

import type { Db } from './db.js';
import type { EntryFilter } from './queries.js';

export interface EpisodeNoteRow {
  path: string;
  title: string;
  body: string;
  line: number;
  ordinal: number;
  metadata_json: string;
}

/** What of a filter the episode-note queries apply: the conversation and time bounds. */
export type NoteFilter = Pick<EntryFilter, 'conversations' | 'afterMs' | 'beforeMs'>;

/**
 * The chunks of the episode notes whose frontmatter outcome is one of `outcomes`, by path then
 * order; with `only`, just those of its conversations and time bounds.
 */
export function episodeNoteRows(db: Db, outcomes: string[], only: NoteFilter = {}): EpisodeNoteRow[] {
  if (outcomes.length === 0) return [];
  const params: unknown[] = [...outcomes];
  let more = '';
  if (only.conversations && only.conversations.length > 0) {
    more += ` AND e.session_id IN (${only.conversations.map(() => '?').join(', ')})`;
    params.push(...only.conversations);
  }
  if (only.afterMs !== undefined) {
    more += ' AND e.end_ms >= ?';
    params.push(only.afterMs);
  }
  if (only.beforeMs !== undefined) {
    more += ' AND e.start_ms < ?';
    params.push(only.beforeMs);
  }
  return db.prepare(`SELECT e.path, e.title, e.body, e.line, e.ordinal, e.metadata_json
    FROM files f JOIN entries e ON e.file_id = f.id
    WHERE f.path >= '.mem/episodes/' AND f.path < '.mem/episodes0' AND e.kind = 'episode'
      AND json_extract(e.metadata_json, '$.type') = 'episode'
      AND json_extract(e.metadata_json, '$.outcome') IN (${outcomes.map(() => '?').join(', ')})${more}
    ORDER BY e.path, e.ordinal`).all(...params) as EpisodeNoteRow[];
}
