// The parsed shape of a memory file: its preamble and blocks (each with its raw bytes), the
// entries they hold and what could not be read. format.ts and notes.ts both produce it.

import type { Diagnostic } from '../errors.js';
import type { Entry } from './entry.js';
import type { ConflictMarker } from './gitmarkers.js';

export type FileFormat = 'entries' | 'legacy' | 'notes';

export interface Block {
  /** Offset of the block in the file text; the block runs to the next block or the end. */
  start: number;
  raw: string;
  /**
   * For frontmatter entries: the header's YAML (the text between the two `---` lines, or the flow
   * mapping of a `<!-- mem {…} -->` line: `form` 'comment'), where it starts and where the body
   * starts in `raw`.
   */
  header?: { yaml: string; yamlStart: number; bodyStart: number; form?: 'comment' };
  entry?: Entry;
  /** A header that looked like an entry but did not parse; kept verbatim, never indexed. */
  broken?: string;
  /**
   * A header with no text under it (the earlier teaparty system wrote runs of them): its id counts
   * for uniqueness, but it is not an entry to search or load; lint warns about it.
   */
  empty?: { id: string; line: number };
  /**
   * A header with no `---` line of its own: it only reads as a header right after the block it
   * followed (`prev`, that block's start). If that block goes, serializeFile puts a rule back.
   */
  bare?: { prev: number };
  /** In a file with conflict markers: the file's 1-based line of each line of `raw` (its own lines are not consecutive there). */
  fileLines?: number[];
}

export interface ParsedFile {
  format: FileFormat;
  preamble: string;
  blocks: Block[];
  entries: Entry[];
  /** Errors: each is a block that is skipped (and a file mem refuses to rewrite). */
  diagnostics: Diagnostic[];
  /** Warnings that do not stop a rewrite (empty entries); only lint shows them. */
  warnings?: Diagnostic[];
  /**
   * The file holds git conflict markers (a merge without mem's driver). Its entries are those of
   * both versions (see parseConflicted); mem reads such a file but never writes it.
   */
  conflict?: { markers: ConflictMarker[] };
}
