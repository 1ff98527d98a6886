// Validation of memory files (`mem lint`): parse errors (bad headers, invalid ids, NUL bytes),
// unreadable files, git conflict markers, field enums, ranges and dates, ids that are not unique
// across the vault (or within one file), and empty entries — each with its file and line.

import { fixMeta, validateMeta } from '../vault/entry.js';
import { checkEpisodicFields } from './episodic-fields.js';
import { parseMemoryFile, serializeFile, updateBlockMeta, type Block, type ParsedFile } from '../vault/format.js';
import type { ReadResult } from '../vault/read.js';

export interface LintFinding {
  file: string;
  line: number | null;
  /** A secret's column and kind (its value is never part of a finding). */
  column?: number;
  kind?: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface LintInput {
  path: string;
  read: ReadResult;
  /** Only collect ids from this file (it is not being linted, but its ids count for uniqueness). */
  idsOnly?: boolean;
}

function keyLine(block: Block, key: string, headerLine: number): number {
  const { yaml, yamlStart } = block.header!;
  const lines = yaml.split('\n');
  // `fsrs.stability`: the nested key's own line in a block map, else its parent's line.
  const [top, sub] = key.split('.');
  let i = lines.findIndex((l) => new RegExp(`^${top}\\s*:`).test(l));
  if (i !== -1 && sub) {
    for (let j = i + 1; j < lines.length && /^[ \t]/.test(lines[j]); j++) {
      if (new RegExp(`^[ \\t]+${sub}\\s*:`).test(lines[j])) {
        i = j;
        break;
      }
    }
  }
  if (i === -1) return headerLine;
  // In a conflicted file a header's lines may be split by marker lines: the block knows where each is.
  if (block.fileLines) return block.fileLines[block.raw.slice(0, yamlStart).split('\n').length - 1 + i] ?? headerLine;
  return headerLine + 1 + i;
}

const MARKER_TEXT = { '<': '<<<<<<<', '|': '|||||||', '=': '=======', '>': '>>>>>>>' } as const;

function conflictMarkerMessage(kind: keyof typeof MARKER_TEXT): string {
  return `git conflict marker ${MARKER_TEXT[kind]}: an unresolved merge (resolve it with git mergetool or mem resolve, then remove the markers)`;
}

/**
 * `nowMs`: the clock for dates that must not lie ahead (an FSRS last review). `parsedOne` sees
 * each readable input's parse, for a caller that needs more of it (one parse of the vault, not two).
 */
export function lintFiles(inputs: LintInput[], nowMs: number = Date.now(), parsedOne?: (input: LintInput, parsed: ParsedFile) => void): LintFinding[] {
  const findings: LintFinding[] = [];
  const ids = new Map<string, { file: string; line: number; linted: boolean }[]>();
  for (const input of inputs) {
    if ('error' in input.read) {
      if (!input.idsOnly) findings.push({ file: input.path, line: input.read.line ?? null, severity: 'error', message: input.read.error });
      continue;
    }
    const parsed = parseMemoryFile(input.read.text, input.path);
    parsedOne?.(input, parsed);
    if (!input.idsOnly) {
      for (const m of parsed.conflict?.markers ?? []) findings.push({ file: input.path, line: m.line, severity: 'error', message: conflictMarkerMessage(m.kind) });
      for (const d of parsed.diagnostics) findings.push({ file: input.path, line: d.line ?? null, severity: 'error', message: d.message });
      for (const d of parsed.warnings ?? []) findings.push({ file: input.path, line: d.line ?? null, severity: 'warning', message: d.message });
    }
    for (const b of parsed.blocks) {
      // An empty entry's id is taken all the same: a second entry with it is still a duplicate.
      if (b.empty) {
        const list = ids.get(b.empty.id) ?? [];
        list.push({ file: input.path, line: b.empty.line, linted: !input.idsOnly });
        ids.set(b.empty.id, list);
      }
      const e = b.entry;
      if (!e) continue;
      const list = ids.get(e.id) ?? [];
      list.push({ file: input.path, line: e.line, linted: !input.idsOnly });
      ids.set(e.id, list);
      if (input.idsOnly || e.kind !== 'entry' || !b.header) continue;
      for (const problem of validateMeta(e.meta)) {
        const key = /^([a-z_]+) /.exec(problem)?.[1] ?? 'id';
        findings.push({ file: input.path, line: keyLine(b, key, e.line), severity: 'error', message: problem });
      }
      for (const p of checkEpisodicFields(e.meta, nowMs)) {
        findings.push({ file: input.path, line: keyLine(b, p.key, e.line), severity: 'error', message: p.message });
      }
    }
  }
  for (const [id, places] of ids) {
    if (places.length < 2) continue;
    for (const p of places) {
      if (!p.linted) continue;
      const others = places.filter((o) => o !== p).map((o) => `${o.file}:${o.line}`).join(', ');
      findings.push({ file: p.file, line: p.line, severity: 'error', message: `duplicate id "${id}" (also at ${others})` });
    }
  }
  // The two versions of a conflicted file share the lines outside its hunks: a problem there is
  // said once.
  const seen = new Set<string>();
  const once = findings.filter((f) => {
    const k = `${f.file}\u0000${f.line}\u0000${f.severity}\u0000${f.message}`;
    return !seen.has(k) && Boolean(seen.add(k));
  });
  return once.sort((a, b) => a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0));
}

/**
 * Apply lint --fix normalisations to a parsed file; null when nothing changes. A NUL byte becomes
 * a visible ␀ (U+2400), so the entry that held it can be read again. Empty entries go only with
 * `removeEmpty` (they hold an id someone may still refer to).
 */
export function fixParsedFile(file: ParsedFile, opts: { removeEmpty?: boolean; path?: string } = {}): { file: ParsedFile; fixes: number; removed: number } | null {
  let fixes = 0;
  if (file.preamble.includes('\u0000') || file.blocks.some((b) => b.raw.includes('\u0000'))) {
    const text = serializeFile(file);
    fixes += text.split('\u0000').length - 1;
    // In a `---` line the NUL goes (so the line stays the rule it was read as); elsewhere it shows.
    const visible = text.replace(/^.*\u0000.*$/gm, (l) => (/^---[ \t]*\r?$/.test(l.replace(/\u0000/g, '')) ? l.replace(/\u0000/g, '') : l.replace(/\u0000/g, '\u2400')));
    file = parseMemoryFile(visible, opts.path ?? file.diagnostics[0]?.file ?? 'MEMORY.md');
  }
  const kept = opts.removeEmpty ? file.blocks.filter((b) => !b.empty) : file.blocks;
  const removed = file.blocks.length - kept.length;
  const blocks = kept.map((b) => {
    if (!b.entry || b.entry.kind !== 'entry' || !b.header || b.broken) return b;
    const changes = fixMeta(b.entry.meta);
    const n = Object.keys(changes).length;
    if (n === 0) return b;
    fixes += n;
    return updateBlockMeta(b, changes);
  });
  return fixes === 0 && removed === 0 ? null : { file: { ...file, blocks }, fixes, removed };
}
