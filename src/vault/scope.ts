// Scope classification: which scope and learning type a memory file belongs to, from its path
// alone. One pure function, so every layout (ours, TeaParty's, legacy) is one table of cases.

export type Scope = 'global' | 'project' | 'session' | 'team' | 'dispatch';
export type LearningType = 'institutional' | 'task' | 'proxy';

export const SCOPES: readonly Scope[] = ['global', 'project', 'session', 'team', 'dispatch'];
export const LEARNING_TYPES: readonly LearningType[] = ['institutional', 'task', 'proxy'];

export const DEFAULT_SCOPE_MULTIPLIERS: Readonly<Record<Scope, number>> = {
  global: 1.0,
  project: 1.2,
  session: 1.2,
  team: 1.5,
  // Learnings about briefing sub-agents and checking their work apply to the whole project, as
  // its own learnings do: the same weight. They are a topic, not a narrower audience.
  dispatch: 1.2,
};

/**
 * The project's file of dispatch learnings: what was learned handing work to sub-agents (how to
 * brief them, how to split the work, what they got wrong, how to check what they return). Beside
 * the project's MEMORY.md, so it is as visible and as easy to review.
 */
export const DISPATCH_FILE = 'dispatch.md';

export interface ScopeInfo {
  scope: Scope;
  learningType: LearningType;
  job?: string;
  task?: string;
}

export function learningTypeOf(relPath: string): LearningType {
  const base = relPath.slice(relPath.lastIndexOf('/') + 1).toLowerCase();
  if (base === 'institutional.md') return 'institutional';
  if (/^proxy([-_.][^/]*)?\.md$/.test(base)) return 'proxy';
  return 'task';
}

/**
 * Classify a vault file. `relPath` is relative to the project root with `/` separators;
 * `isGlobal` is true for the files of the user's global folder ($MEM_HOME).
 */
export function classifyPath(relPath: string, isGlobal = false): ScopeInfo {
  const learningType = learningTypeOf(relPath);
  if (isGlobal) return { scope: 'global', learningType };
  const p = relPath.replace(/\\/g, '/').replace(/^\.\//, '');
  if (p === DISPATCH_FILE) return { scope: 'dispatch', learningType };
  // Most files: neither a job folder nor the legacy layout.
  if (p.charCodeAt(0) !== 46 /* . */ && !p.startsWith('projects/')) return { scope: 'project', learningType };
  let m = /^\.(?:mem|teaparty)\/jobs\/([^/]+)\/tasks\/([^/]+)\//.exec(p);
  if (m) return { scope: 'team', learningType, job: m[1], task: m[2] };
  m = /^\.(?:mem|teaparty)\/jobs\/([^/]+)\//.exec(p);
  if (m) return { scope: 'session', learningType, job: m[1] };
  m = /^projects\/([^/]+)\/\.sessions\/([^/]+)\//.exec(p);
  if (m) return { scope: 'team', learningType, job: m[1], task: m[2] };
  return { scope: 'project', learningType };
}

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}
