// The typed notes a listing leaves out because their frontmatter does not parse (a YAML alias
// bomb, nesting too deep, no closing `---`), and notes left with git conflict markers by a merge:
// named, so a listing never hides a note silently.

import path from 'node:path';
import { realRoot, staysInside } from '../vault/boundary.js';
import { noteTexts, parseNote, UNRESOLVED } from './note.js';
import { mayHaveMarkers } from '../vault/gitmarkers.js';

export interface UnreadableNote {
  /** Path from the vault root, with `/`. */
  path: string;
  line: number;
  reason: string;
  /** It holds git conflict markers (`line`: the first); `listed`: its header still reads, so listings show it. */
  conflict?: { listed: boolean };
}

/** Notes in `rel` (`.mem/episodes`, `.mem/patterns`, inside the vault) whose frontmatter cannot be read. */
export function unreadableNotes(root: string, rel: string): UnreadableNote[] {
  const dir = path.join(root, ...rel.split('/'));
  if (!staysInside(dir, realRoot(root)).inside) return [];
  const out: UnreadableNote[] = [];
  for (const { file: f, raw } of noteTexts(dir)) {
    if (mayHaveMarkers(raw)) {
      const n = parseNote(raw);
      if (n.conflict) {
        out.push({ path: `${rel}/${f}`, line: n.conflict.line, reason: UNRESOLVED, conflict: { listed: n.frontmatter !== null } });
        continue;
      }
    }
    // Only a file that opens a frontmatter block meant one; a README without one is no typed note.
    if (!/^\ufeff?---[ \t]*\r?\n/.test(raw)) continue;
    // The frontmatter alone is parsed (a listing of 5,000 notes reads each twice otherwise).
    const close = raw.slice(3).search(/\n---[ \t]*(?:\r?\n|$)/);
    const err = parseNote(close < 0 ? raw : `${raw.slice(0, close + 3)}\n---\n`).frontmatterError;
    if (err) out.push({ path: `${rel}/${f}`, line: err.line, reason: err.message });
  }
  return out;
}
