// The public JSON shape of an entry listed from the index (mem list --json, mem context --json,
// the MCP server's list and context tools), of one read whole (mem show --json, the get tool), of one just added (mem add --json, the add tool) and
// of the decisions of reinforce and review. Pure; the caller prints.

import type { ListingRow } from '../index/queries.js';
import type { AddResult } from '../lifecycle/add.js';
import type { ContextResult } from '../retrieve/context.js';
import type { FoundEntry } from '../retrieve/get.js';
import { episodeMark, type DetailLevel } from '../episodes/detail.js';

/** An episode (`kind: episode`) adds `kind`, `surprise` and `key_moment`. */
export function entryJson(r: ListingRow): Record<string, unknown> {
  return {
    id: r.entry_id, path: r.path, line: r.line, scope: r.scope, learning_type: r.learning_type, type: r.type, domain: r.domain,
    importance: r.importance, phase: r.phase, status: r.status, reinforcement_count: r.reinforcement_count,
    last_reinforced: r.last_reinforced, created_at: r.created_at, title: r.title,
    ...(r.kind === 'episode' ? { kind: 'episode', ...episodeMark(r.metadata_json) } : {}),
  };
}

/** `mem context --json`'s shape of an assembled context. */
export async function contextJson(res: ContextResult, detail: DetailLevel = 'auto'): Promise<Record<string, unknown>> {
  const { hitJson } = await import('./hits.js');
  return {
    task: res.task,
    institutional: res.institutional.map((r) => ({ ...entryJson(r), body: r.body })),
    institutional_omitted: res.institutionalOmitted,
    learnings: res.learnings.map((h, rank) => hitJson(h, false, { rank, detail })),
    proxy: res.proxy.map((h) => hitJson(h, false)),
    failures: res.failures,
    // What each section left out (past its limit or over its budget), by section.
    omitted: { institutional: res.institutionalOmitted, ...res.omitted },
    patterns: res.patterns,
    ...(res.antipatterns ? { antipatterns: res.antipatterns } : {}),
  };
}

/** `mem add --json`'s shape of the entry written: where it went, and what was redacted on the way. */
export function addedJson(added: AddResult): Record<string, unknown> {
  return { id: added.id, path: added.file.path, line: added.line, scope: added.file.scope, ...(added.redacted && { redacted: added.redacted }) };
}

/** `mem reinforce --json`'s and `mem review --json`'s shape: each entry's decision, and the ids no file holds. */
export function decisionsJson(res: { decisions: object[]; unknown: string[] }, opts: { dryRun?: boolean; rating?: string }): Record<string, unknown> {
  return { dry_run: Boolean(opts.dryRun), ...(opts.rating !== undefined && { rating: opts.rating }), decisions: res.decisions, unknown: res.unknown };
}

/** Every field of the entry (its frontmatter, then mem's), as `mem show --json` prints it. */
export function entryRecord(found: FoundEntry): Record<string, unknown> {
  const { row } = found;
  const entry = found.block?.entry;
  const meta = entry?.meta ?? (JSON.parse(row.metadata_json) as Record<string, unknown>);
  return {
    ...meta,
    id: row.entry_id,
    type: entry?.type ?? row.type,
    domain: entry?.domain ?? row.domain,
    importance: entry?.importance ?? row.importance,
    phase: entry?.phase ?? row.phase,
    status: entry?.status ?? row.status,
    reinforcement_count: entry?.reinforcement_count ?? row.reinforcement_count,
    last_reinforced: entry?.last_reinforced ?? row.last_reinforced,
    created_at: entry?.created_at ?? row.created_at,
    title: entry?.title ?? row.title,
    path: row.path,
    line: entry?.line ?? row.line,
    scope: row.scope,
    learning_type: row.learning_type,
    body: entry?.body ?? row.body,
  };
}
