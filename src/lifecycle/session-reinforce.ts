// The reinforcement a session earns, once: the entries it retrieved (its retrieval log) are judged
// on the whole session's assistant text, reinforced or weakened, and reviewed (FSRS), then listed
// in the session's judged log so that a later extraction of the grown session leaves them alone
// and acts only on ids retrieved since. `mem extract` (and so every agent hook) comes through here.

import type { ReviewRating } from '../fsrs/state.js';
import type { Vault, VaultFile } from '../vault/vault.js';
import type { ReinforceAction } from './reinforce.js';

export interface SessionRating {
  rating: ReviewRating;
  reason: string;
}

export interface SessionReinforceOptions {
  today: string;
  /** The review's time (ms). */
  now: number;
  /**
   * Stemmed words of the assistant's text in the session after an entry was retrieved (`at`: the
   * first time the session's log shows it returned, NaN when unknown: the whole session).
   */
  used: (id: string, at: number) => Set<string>;
  /**
   * A model's ratings of the entries not judged yet (id, title, body); it may throw, and may leave
   * ids out: those get the offline rule.
   */
  rate?: (entries: { id: string; title: string; body: string }[]) => Promise<Map<string, SessionRating>>;
  /** Who rates (provider:model), for the judged log. */
  rater?: string;
}

export interface SessionJudgement {
  id: string;
  action: ReinforceAction;
  before: number;
  after: number;
  /** The FSRS rating given, and by whom ('usage': the offline rule). */
  rating?: ReviewRating;
  by?: string;
  reason?: string;
  /** What the review did (reviewed, or skipped: less than a day since the last). */
  review?: string;
}

export interface SessionReinforceResult {
  judged: SessionJudgement[];
  /** Files rewritten (to re-index). */
  written: VaultFile[];
  /** Why the model's ratings were not used (the offline rule stood in). */
  warning?: string;
}

export async function reinforceSession(vault: Vault, sessionId: string, opts: SessionReinforceOptions): Promise<SessionReinforceResult> {
  const { readRetrievals, readJudgedText, judgedIds, judgedLogPath } = await import('../vault/sessions.js');
  const out: SessionReinforceResult = { judged: [], written: [] };
  const before = judgedIds(readJudgedText(vault.root, sessionId));
  const retrieved = readRetrievals(vault.root, sessionId);
  const pending = [...retrieved.keys()].filter((id) => !before.has(id));
  if (pending.length === 0) return out;
  const { locateIds } = await import('./vault-ops.js');
  const loc = await locateIds(vault, { logged: pending });
  if (loc.found.size === 0) return out;

  // The model is asked before any lock is taken: it may take a while.
  let ratings = new Map<string, SessionRating>();
  if (opts.rate) {
    try {
      ratings = await opts.rate([...loc.texts].map(([id, t]) => ({ id, ...t })));
    } catch (err) {
      out.warning = `reviews rated by the offline rule: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
    }
  }

  // Under the judged log's lock: ids another run judged meanwhile are left out, the entries are
  // changed, then the log is replaced with the new ids added (an interrupted run leaves it whole).
  const { acquireLockAsync } = await import('../vault/write.js');
  const logFile = judgedLogPath(vault.root, sessionId);
  const lock = await acquireLockAsync(logFile, `.mem/sessions/${sessionId}/judged.jsonl`);
  let replaced = false;
  try {
    const text = readJudgedText(vault.root, sessionId);
    const judged = judgedIds(text);
    const ids = new Set([...loc.found.keys()].filter((id) => !judged.has(id)));
    if (ids.size === 0) return out;
    const files = new Map<string, VaultFile>();
    for (const id of ids) for (const f of loc.found.get(id)!) files.set(f.abs, f);
    const { reinforceFile } = await import('./reinforce.js');
    const { editFiles } = await import('../vault/edit.js');
    const review = { now: opts.now, ratings: new Map([...ratings].map(([id, r]) => [id, r.rating])) };
    const seen = new Set<string>();
    const written = await editFiles([...files.values()].map((f) => ({
      abs: f.abs, path: f.path,
      change: (parsed) => {
        const r = reinforceFile(parsed, f.path, ids, { today: opts.today, used: (id) => opts.used(id, retrieved.get(id) ?? NaN), review });
        for (const d of r.decisions) {
          // An id in several files is reported once (its first copy).
          if (seen.has(d.id)) continue;
          seen.add(d.id);
          const model = ratings.get(d.id);
          out.judged.push({
            id: d.id, action: d.action, before: d.before, after: d.after,
            ...(d.review && { rating: d.review.rating, by: model ? opts.rater ?? 'model' : 'usage', review: d.review.action }),
            ...(d.review && model?.reason && { reason: model.reason }),
          });
        }
        return r.file;
      },
    })));
    out.written = [...files.values()].filter((f) => written.includes(f.path));
    const at = new Date(opts.now).toISOString();
    const lines = out.judged.map((j) => JSON.stringify({ id: j.id, at, action: j.action, ...(j.rating && { rating: j.rating, by: j.by }), ...(j.reason && { reason: j.reason }) }));
    if (lines.length > 0) {
      lock.replace(`${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${lines.join('\n')}\n`);
      replaced = true;
    }
  } finally {
    if (!replaced) lock.release();
  }
  return out;
}
