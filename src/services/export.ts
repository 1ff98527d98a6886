// `mem export --agents-md`: the project's norms and most prominent learnings written as a marked
// block into an agent's instruction file (AGENTS.md, CLAUDE.md, GEMINI.md), for agents and CI
// runs that have no mem hooks. Regenerated in place; the rest of the file is left byte for byte.

import path from 'node:path';
import { MemError, usageError } from '../errors.js';
import { NOT_EPISODES, type EntryFilter } from '../index/queries.js';
import { agentsBlockFrame, BLOCK_BEGIN, BLOCK_END, DEFAULT_AGENTS_MD_CHARS, renderAgentsBlock } from '../render/agents-md.js';
import { credentialsIn } from '../secrets/display.js';
import { readTarget } from '../vault/boundary.js';
import { findMarkedBlock, withMarkedBlock } from '../vault/marked-block.js';
import { isFailure, readRegularBytes } from '../vault/read.js';
import { SCOPES } from '../vault/scope.js';
import { notMemoryFile, type Vault } from '../vault/vault.js';
import { readFresh, type ReadOptions } from './fresh.js';

/** The file written when none is named. */
export const DEFAULT_AGENTS_FILE = 'AGENTS.md';
/** The largest instruction file mem edits: agents read a few KB of it; more is not such a file. */
const AGENTS_FILE_LIMIT = 4 << 20;

const MARKERS = { begin: BLOCK_BEGIN, end: BLOCK_END };

export interface AgentsMdRequest {
  /** The file to write (absolute, inside the vault); default AGENTS.md at the vault root. */
  file?: string;
  /** The block's budget in characters, markers included (default 4000). */
  maxChars?: number;
  /** `write` the file; `check` or `dry-run`: write nothing, tell what would change. */
  mode: 'write' | 'check' | 'dry-run';
}

/** What the file was before: its block as it would be written, another block, no block, no file. */
export type AgentsMdState = 'current' | 'stale' | 'no-block' | 'no-file';

export interface AgentsMdResult {
  /** The file, relative to the vault root (`/` separators). */
  file: string;
  state: AgentsMdState;
  /** Whether the file was written (never with check or dry-run, nor when it was current). */
  written: boolean;
  /** The block as generated (LF line ends). */
  block: string;
  maxChars: number;
  /** The date the learnings were ranked as of (the newest entry's), YYYY-MM-DD; null when no entry has a date. */
  asOf: string | null;
  norms: { id: string; title: string }[];
  learnings: { id: string; title: string }[];
  omitted: { norms: number; learnings: number };
  warnings: string[];
}

/**
 * Regenerate the block in the file (or tell whether it is current). The file must lie inside the
 * vault, not be a memory file, and not be a link out of the vault; a damaged block (a marker
 * without its partner, two of one) stops it with nothing written. Written under the file's lock,
 * atomically, from the file as it is under that lock.
 */
export async function exportAgentsMd(vault: Vault, req: AgentsMdRequest, run: ReadOptions & { env: NodeJS.ProcessEnv }): Promise<AgentsMdResult> {
  const abs = path.resolve(req.file ?? path.join(vault.root, DEFAULT_AGENTS_FILE));
  const rel = path.relative(path.resolve(vault.root), abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new MemError(`${req.file ?? abs} is outside the vault (${vault.root}); mem export writes only inside it`, { hint: 'name a file in the project, e.g. AGENTS.md or CLAUDE.md' });
  }
  const display = rel.split(path.sep).join('/');
  // Nor git's files (.git/config, .gitattributes, .gitignore) or mem's own (.mem/config.yaml): a
  // block in them breaks the repository or the vault.
  const parts = display.split('/');
  if (parts.some((p) => p === '.git' || p === '.mem') || /^\.git/.test(parts[parts.length - 1])) {
    throw usageError(`${display} is ${parts.includes('.mem') ? 'mem\'s own' : 'git\'s'}: the block goes into an agent's instruction file`, 'name AGENTS.md, CLAUDE.md or GEMINI.md');
  }
  if (notMemoryFile(vault, abs) === null) {
    throw usageError(`${display} is a memory file: the block goes into an agent's instruction file`, 'name AGENTS.md, CLAUDE.md or GEMINI.md');
  }
  const maxChars = req.maxChars ?? DEFAULT_AGENTS_MD_CHARS;
  // The block is committed with the project and read by everyone who clones it: the user's
  // global memory (personal, and absent on other machines and in CI) stays out of it.
  const filter: EntryFilter = { kinds: [...NOT_EPISODES], scopes: SCOPES.filter((s) => s !== 'global') };
  const { projectMemory } = await import('../retrieve/project-memory.js');
  // Enough candidates for the budget: a compact item is a few dozen characters at least.
  const limit = Math.max(8, Math.min(400, Math.ceil(maxChars / 30)));
  const { value: mem, warnings } = await readFresh(vault, run, (ix) => projectMemory(ix.db, { filter, scopeMultipliers: vault.config.scopeMultipliers, limit }));
  const frame = agentsBlockFrame(mem);
  if (maxChars < frame) throw usageError(`--max-chars ${maxChars} is too small: the block needs ${frame} characters before any entry`, `give --max-chars ${frame + 1000} or more`);
  const block = renderAgentsBlock(mem, { maxChars, known: credentialsIn(run.env) });
  const before = readInstructionFile(abs, display);
  const next = withMarkedBlock(before, block.text, MARKERS, display);
  const state: AgentsMdState = before === null ? 'no-file'
    : next === before ? 'current'
      : findMarkedBlock(before.replace(/^\ufeff/, ''), MARKERS, display) === null ? 'no-block' : 'stale';
  let written = false;
  if (req.mode === 'write' && state !== 'current') {
    const { withFileLock } = await import('../vault/write.js');
    // Read again under the lock: an edit made meanwhile is kept, the block put into it.
    written = withFileLock(abs, (lock) => {
      const now = readInstructionFile(abs, display);
      const text = withMarkedBlock(now, block.text, MARKERS, display);
      if (text === now) return false;
      lock.replace(text);
      return true;
    }, display);
  }
  const brief = (e: { title: string }, id: string) => ({ id, title: e.title });
  return {
    file: display, state, written, block: block.text, maxChars,
    asOf: mem.asOf === null ? null : new Date(mem.asOf).toISOString().slice(0, 10),
    norms: block.norms.map((n) => brief(n, n.entry_id)),
    learnings: block.learnings.map((h) => brief(h, h.id)),
    omitted: block.omitted,
    warnings,
  };
}

/** The file's text (its BOM kept), null when there is none; never read through a link out of the vault. */
function readInstructionFile(abs: string, display: string): string | null {
  const target = readTarget(abs, display);
  const buf = readRegularBytes(target, AGENTS_FILE_LIMIT);
  if (isFailure(buf)) {
    if (buf.kind === 'missing') return null;
    throw new MemError(`cannot use ${display}: ${buf.error}; nothing was written`);
  }
  const text = buf.toString('utf8');
  // Bytes that are not UTF-8 would not survive the round trip: the file is left alone.
  if (!Buffer.from(text, 'utf8').equals(buf)) throw new MemError(`cannot edit ${display}: it is not UTF-8 text; nothing was written`);
  return text;
}
