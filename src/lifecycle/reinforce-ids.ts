// Reinforcing entries by id in the vault: find their files, rewrite them together under their
// locks (reinforce.ts decides each entry's change), re-index. `mem reinforce` and the MCP
// server's `reinforce` tool both come through here.

import type { Vault, VaultFile } from '../vault/vault.js';
import type { ReinforceDecision } from './reinforce.js';
import type { IdRequest } from './vault-ops.js';

export interface ReinforceIdsResult {
  decisions: ReinforceDecision[];
  /** Logged ids no memory file holds any more (a typed id that names no entry throws instead). */
  unknown: string[];
  /** The index could not be updated after the write (the markdown is written). */
  lag?: string;
}

export async function reinforceIds(vault: Vault, ids: IdRequest, opts: { today: string; used?: Set<string>; review?: { now: number }; dryRun?: boolean; onNotes?: (notes: string[]) => void }): Promise<ReinforceIdsResult> {
  const { locateIds, reindex } = await import('./vault-ops.js');
  const { reinforceFile } = await import('./reinforce.js');
  const { editFiles } = await import('../vault/edit.js');
  const loc = await locateIds(vault, ids);
  // Said before the write, which may still fail (a locked or malformed file).
  opts.onNotes?.(loc.notes);
  const files = new Map<string, VaultFile>();
  for (const fs of loc.found.values()) for (const f of fs) files.set(f.abs, f);
  const idSet = new Set(loc.found.keys());
  const decisions: ReinforceDecision[] = [];
  const edits = [...files.values()].map((f) => ({
    abs: f.abs,
    path: f.path,
    change: (parsed: Parameters<typeof reinforceFile>[0]) => {
      const r = reinforceFile(parsed, f.path, idSet, { today: opts.today, used: opts.used, review: opts.review });
      decisions.push(...r.decisions);
      return opts.dryRun ? null : r.file;
    },
  }));
  // Every id in one big file (`mem reinforce ID`, most sessions): only those entries are parsed
  // and indexed. Several files are edited as one step the usual way.
  if (edits.length === 1) {
    const { editBigFile } = await import('./big-file-edit.js');
    const done = await editBigFile(vault, [...files.values()][0], idSet, edits[0].change);
    if (done) return { decisions, unknown: loc.unknown, lag: done.lag };
  }
  const written = await editFiles(edits);
  const lag = opts.dryRun ? undefined : await reindex(vault, [...files.values()].filter((f) => written.includes(f.path)));
  return { decisions, unknown: loc.unknown, lag };
}
