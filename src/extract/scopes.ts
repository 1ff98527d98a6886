// The extraction scopes (the ten of TeaParty's episodic memory, plus interventions and dispatch): what each
// looks for, what it reads, its instructions to the model and the file its learnings go to. One
// table, so the README, `--help` and the prompt cannot drift apart.

import { usageError } from '../errors.js';
import { DISPATCH_FILE } from '../vault/scope.js';

export const SCOPE_NAMES = [
  'observations', 'escalation', 'intent-alignment', 'team', 'session', 'project', 'global', 'prospective', 'in-flight', 'corrective', 'interventions', 'dispatch',
] as const;
export type ExtractionScopeName = (typeof SCOPE_NAMES)[number];

/** Where a scope's learnings are written (see targetPath). */
export type TargetKind = 'project' | 'institutional' | 'proxy' | 'session' | 'team' | 'global' | 'dispatch';

export interface ExtractionScope {
  name: ExtractionScopeName;
  summary: string;
  /** What the scope reads besides the condensed transcript. */
  input: string;
  target: TargetKind;
  defaultType: 'declarative' | 'procedural' | 'directive' | 'corrective';
  /** Instructions for the model. */
  prompt: string;
  /** True when the offline heuristics can produce this scope. */
  heuristic: boolean;
}

export const EXTRACTION_SCOPES: readonly ExtractionScope[] = [
  {
    name: 'project', summary: 'durable facts, commands, conventions and pitfalls of this codebase', input: 'transcript', target: 'project', defaultType: 'procedural', heuristic: true,
    prompt: 'Facts about THIS project a future session needs: how to build, test, run and deploy; conventions; where things live; pitfalls and the way around them. Name the commands, files and settings.',
  },
  {
    name: 'corrective', summary: 'errors and what fixed them; the human correcting the agent', input: 'transcript', target: 'project', defaultType: 'corrective', heuristic: true,
    prompt: 'Each mistake worth not repeating: an error and the fix that worked, or the human correcting the agent. Say what went wrong, why, and what to do instead.',
  },
  {
    name: 'interventions', summary: 'moments the human interrupted or redirected the agent, and why', input: 'transcript', target: 'proxy', defaultType: 'corrective', heuristic: true,
    prompt: 'Each time the human interrupted, stopped or redirected the agent: what the agent was doing and what the human wanted instead, as a rule for next time.',
  },
  {
    name: 'observations', summary: "the human's preferences and way of working", input: 'transcript', target: 'proxy', defaultType: 'declarative', heuristic: true,
    prompt: "What this human prefers and how they like to work (style, tools, level of detail, what they check), as shown by what they said and accepted. Only what they showed, not guesses.",
  },
  {
    name: 'escalation', summary: 'when to ask the human and when to go ahead', input: 'transcript', target: 'institutional', defaultType: 'directive', heuristic: false,
    prompt: 'Rules about when the agent must ask the human before acting, and when it should just proceed: from questions that were needed, questions that were not, and actions the human would have wanted to approve.',
  },
  {
    name: 'intent-alignment', summary: 'where the work drifted from (or matched) what was intended', input: 'transcript + INTENT.md', target: 'proxy', defaultType: 'corrective', heuristic: false,
    prompt: 'Compare what was asked (the task and INTENT.md, if given) with what was done. Record where the work drifted from the intent, or an interpretation the human confirmed, as guidance for reading future requests.',
  },
  {
    name: 'session', summary: "learnings for this job's later sessions", input: 'transcript', target: 'session', defaultType: 'procedural', heuristic: false,
    prompt: 'Learnings that matter for the rest of this job (this branch of work) but not for the whole project: state, open threads, decisions taken and their reasons.',
  },
  {
    name: 'team', summary: 'learnings for the team working on this task', input: 'transcript', target: 'team', defaultType: 'procedural', heuristic: false,
    prompt: 'Learnings for whoever works on this same task next: the approach that worked, what was tried and failed, hand-over notes.',
  },
  {
    name: 'global', summary: 'learnings true in any project (tools, languages, the user)', input: 'transcript', target: 'global', defaultType: 'procedural', heuristic: false,
    prompt: 'Only learnings that hold in ANY project: about tools, languages, libraries, or this user in general. Never anything that names this project, its files or its services.',
  },
  {
    name: 'prospective', summary: 'risks to check before similar work (a pre-mortem)', input: 'transcript', target: 'project', defaultType: 'directive', heuristic: false,
    prompt: 'Looking ahead: what could go wrong the next time similar work is done here, and what to check first. Phrase each as a check to make before starting.',
  },
  {
    name: 'in-flight', summary: 'assumptions made along the way that still need checking', input: 'transcript', target: 'session', defaultType: 'declarative', heuristic: false,
    prompt: 'Assumptions the agent made during the work that were not verified, and decisions taken at milestones, so a later session can confirm or revisit them.',
  },
  {
    name: 'dispatch', summary: 'handing work to sub-agents: briefs, splits, what came back wrong', input: 'transcript', target: 'dispatch', defaultType: 'procedural', heuristic: false,
    prompt: 'Only where the agent handed work to sub-agents (Task/Agent tool calls, spawned workers, delegated jobs): what a brief needed to say for the work to come back right, how the work was best split, what the sub-agents got wrong or missed, and how their results had to be checked. Nothing about work the agent did itself.',
  },
];

export function scopeByName(name: string): ExtractionScope | undefined {
  return EXTRACTION_SCOPES.find((s) => s.name === name);
}

/** The file a target kind writes to: relative to the vault root, or absolute under MEM_HOME for global. */
export function targetPath(kind: TargetKind, where: { job?: string; task?: string }): string | null {
  switch (kind) {
    case 'project':
      return 'MEMORY.md';
    case 'institutional':
      return 'institutional.md';
    case 'proxy':
      return 'proxy.md';
    case 'session':
      return where.job ? `.mem/jobs/${where.job}/MEMORY.md` : null;
    case 'team':
      return where.job && where.task ? `.mem/jobs/${where.job}/tasks/${where.task}/MEMORY.md` : null;
    case 'dispatch':
      return DISPATCH_FILE;
    case 'global':
      return null; // resolved against MEM_HOME by the caller
  }
}

/**
 * The project's memory files extraction writes to, for a job and task when known (the global file
 * aside): a learning one of them already holds is not written again to another.
 */
export function scopeChain(where: { job?: string; task?: string }): string[] {
  const kinds: TargetKind[] = ['project', 'institutional', 'proxy', 'session', 'team'];
  return kinds.map((k) => targetPath(k, where)).filter((p): p is string => p !== null);
}

/** The first lines of a new memory file of a target kind (the file a scope's learnings go to). */
export function preambleFor(kind: string, job?: string, task?: string): string {
  switch (kind) {
    case 'proxy':
      return '# Proxy memory\n\nHow the people here work and what they want, kept by `mem` (mem extract writes here).\n';
    case 'institutional':
      return '# Institutional memory\n\nNorms that always apply here; `mem context` loads them all, every time.\n';
    case 'session':
      return `# Job ${job} memory\n\nLearnings for the sessions of this job, kept by \`mem\`.\n`;
    case 'team':
      return `# Task ${task} memory\n\nLearnings for whoever works on this task, kept by \`mem\`.\n`;
    case 'global':
      return '# Global memory\n\nLearnings that hold in every project, kept by `mem`.\n';
    case 'dispatch':
      return '# Dispatch memory\n\nWhat was learned handing work to sub-agents here, kept by `mem`.\n';
    default:
      return '# Project memory\n\nLearnings about this project, kept by `mem`.\n';
  }
}

/** A comma-separated list of extraction scopes ("all": every one), checked: a usage error names the valid ones. */
export function parseScopeList(v: string): ExtractionScopeName[] {
  const list = v.trim() === 'all' ? [...SCOPE_NAMES] : v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (list.length === 0) throw usageError('--scopes is empty', `use "all" or some of: ${SCOPE_NAMES.join(', ')}`);
  for (const s of list) if (!(SCOPE_NAMES as readonly string[]).includes(s)) throw usageError(`unknown extraction scope "${s}"`, `use "all" or some of: ${SCOPE_NAMES.join(', ')}`);
  return [...new Set(list)] as ExtractionScopeName[];
}
