// The steps every lifecycle command shares: find where entries live (through a fresh index),
// read the vault's memory files, and bring the index up to date after a write.

import path from 'node:path';
import { MemError, type Diagnostic } from '../errors.js';
import { indexRewritten, indexWritten, withIndex } from '../index/open.js';
import { entriesById } from '../index/queries.js';
import { parseMemoryFile, type ParsedFile } from '../vault/format.js';
import { readVaultText } from '../vault/read.js';
import { resolveIds } from '../retrieve/get.js';
import { discoverFiles, type Vault, type VaultFile } from '../vault/vault.js';

export interface Located {
  found: Map<string, VaultFile[]>;
  unknown: string[];
  notes: string[];
  /** Each found id's title and body as indexed (the first file's). */
  texts: Map<string, { title: string; body: string }>;
}

/**
 * The ids to locate. `typed` ones (given by a person or an agent) may be unique prefixes and must
 * all name an entry: one that does not throws before anything is read or written. `logged` ones
 * (a session's retrieval log) are matched exactly, and those gone since are reported as unknown.
 */
export interface IdRequest {
  typed?: string[];
  logged?: string[];
}

/** Which files hold each id, by its full id (an id may live in several files). */
export async function locateIds(vault: Vault, req: IdRequest): Promise<Located> {
  const byPath = new Map(discoverFiles(vault).map((f) => [f.path, f]));
  return withIndex(vault, { tolerateBusy: true }, (ix) => {
    const found = new Map<string, VaultFile[]>();
    const texts = new Map<string, { title: string; body: string }>();
    const unknown: string[] = [];
    const typed = resolveIds(ix.db, req.typed ?? []);
    for (const id of new Set([...typed, ...(req.logged ?? [])])) {
      const rows = entriesById(ix.db, id);
      const files = [...new Set(rows.map((r) => r.path))].map((p) => byPath.get(p)).filter((f): f is VaultFile => Boolean(f));
      if (files.length === 0) unknown.push(id);
      else {
        found.set(id, files);
        texts.set(id, { title: rows[0].title, body: rows[0].body });
      }
    }
    return { found, unknown, texts, notes: [...ix.notes, ...(ix.report?.diagnostics ?? []).map((d) => `${d.message} (${d.file}${d.line ? `:${d.line}` : ''})`)] };
  });
}

export interface LoadedFile {
  file: VaultFile;
  parsed: ParsedFile;
}

/** Read and parse vault files; unreadable and conflicted ones are returned as diagnostics instead. */
export function loadFiles(files: VaultFile[]): { loaded: LoadedFile[]; problems: Diagnostic[] } {
  const loaded: LoadedFile[] = [];
  const problems: Diagnostic[] = [];
  for (const file of files) {
    const r = readVaultText(file.abs);
    // Gone since it was listed (removed, a link to nothing): nothing to plan from, nothing wrong.
    if ('error' in r && r.gone) continue;
    if ('error' in r) {
      problems.push({ severity: 'error', message: r.error, file: file.path, line: r.line });
      continue;
    }
    const parsed = parseMemoryFile(r.text, file.path);
    // A file left mid-merge holds two versions of some entries: nothing is planned from it.
    if (parsed.conflict) {
      problems.push({ severity: 'error', message: `${file.path} has unresolved git conflict markers`, file: file.path, line: parsed.conflict.markers[0].line });
      continue;
    }
    problems.push(...parsed.diagnostics);
    loaded.push({ file, parsed });
  }
  return { loaded, problems };
}

/** Vault files by path, or all of them; `paths` may be relative to cwd or the root. */
export function selectFiles(vault: Vault, paths: string[], cwd: string): VaultFile[] {
  const all = discoverFiles(vault);
  if (paths.length === 0) return all;
  const byAbs = new Map(all.map((f) => [f.abs, f]));
  return paths.map((p) => {
    const abs = path.resolve(cwd, p);
    const f = byAbs.get(abs);
    if (!f) {
      throw new MemError(`not a memory file of this vault: ${p}`, {
        hint: 'mem reads MEMORY.md, institutional.md, memory/**/*.md, .mem/jobs/** and the include: globs of .mem/config.yaml',
      });
    }
    return f;
  });
}

/**
 * Re-index files mem just wrote, so the next --no-refresh search sees the change. Never throws:
 * the markdown is written, so an index that cannot be updated is only a warning, returned.
 * `mayRebuild`: a write that may have rewritten most of the vault, whose index is rebuilt when
 * that costs less (see indexRewritten); `rowShare`: the share of the entries it read that it
 * changed or removed, when known.
 */
export async function reindex(vault: Vault, files: VaultFile[], opts: { mayRebuild?: boolean; rowShare?: number } = {}): Promise<string | undefined> {
  if (files.length === 0) return undefined;
  return (await (opts.mayRebuild ? indexRewritten(vault, files, { rowShare: opts.rowShare }) : indexWritten(vault, files))).warning;
}
