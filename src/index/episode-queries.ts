// Index queries for episode notes: the rows of the notes in `.mem/episodes/` with a given outcome,
// found through the files' path index so a large vault is not scanned.

import type { Db } from './db.js';

export interface EpisodeNoteRow {
  path: string;
  title: string;
  body: string;
  line: number;
  ordinal: number;
  metadata_json: string;
}

/** The chunks of the episode notes whose frontmatter outcome is one of `outcomes`, by path then order. */
export function episodeNoteRows(db: Db, outcomes: string[]): EpisodeNoteRow[] {
  if (outcomes.length === 0) return [];
  return db.prepare(`SELECT e.path, e.title, e.body, e.line, e.ordinal, e.metadata_json
    FROM files f JOIN entries e ON e.file_id = f.id
    WHERE f.path >= '.mem/episodes/' AND f.path < '.mem/episodes0' AND e.kind = 'episode'
      AND json_extract(e.metadata_json, '$.type') = 'episode'
      AND json_extract(e.metadata_json, '$.outcome') IN (${outcomes.map(() => '?').join(', ')})
    ORDER BY e.path, e.ordinal`).all(...outcomes) as EpisodeNoteRow[];
}
