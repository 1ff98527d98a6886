// What a search, a context or a hook writes to the session's retrieval log (vault/sessions.ts):
// the query, cut to a readable length, and the ids it returned.

/** A logged query is cut here (a hook's prompt may be a pasted log). */
const MAX_LOGGED_QUERY = 2000;

export function loggedQuery(query: string): string {
  return query.length > MAX_LOGGED_QUERY ? `${query.slice(0, MAX_LOGGED_QUERY)}…` : query;
}

/** One line per query, all at `now`. */
export async function logRetrieval(root: string, session: string, now: number, found: { query: string; ids: string[] }[]): Promise<void> {
  // Loaded for the write only: a search without a session never reads the log's module.
  const { appendRetrieval } = await import('../vault/sessions.js');
  const at = new Date(now).toISOString();
  appendRetrieval(root, session, found.map((f) => ({ at, query: loggedQuery(f.query), ids: f.ids })));
}
