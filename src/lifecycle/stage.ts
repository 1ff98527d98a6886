// Project stages: which stage the project is in (from INTENT.md, offline by keywords), where that
// is recorded (.mem/current-stage), and retiring the task-domain entries of a stage that has ended.

import path from 'node:path';
import { usageError } from '../errors.js';
import { PHASES } from '../vault/entry.js';
import { updateBlockMeta, type ParsedFile } from '../vault/format.js';
import { readRegularText } from '../vault/read.js';
import { withFileLock, writeFileAtomic } from '../vault/write.js';

export const STAGES = PHASES.filter((p) => p !== 'unknown');
export type Stage = (typeof STAGES)[number];

const SYNONYMS: Record<string, Stage> = {
  spec: 'specification', specs: 'specification', specification: 'specification', requirements: 'specification',
  plan: 'planning', planning: 'planning',
  design: 'design', architecture: 'design',
  implementation: 'implementation', implementing: 'implementation', build: 'implementation', building: 'implementation', development: 'implementation', coding: 'implementation',
  review: 'review', reviewing: 'review', testing: 'review', qa: 'review', verification: 'review',
  maintenance: 'maintenance', maintaining: 'maintenance', operations: 'maintenance', support: 'maintenance',
};

/** Keywords that suggest each stage, with weights; counted over INTENT.md. */
const KEYWORDS: Record<Stage, [RegExp, number][]> = {
  specification: [[/\b(spec(ification)?s?|requirements?|user stor(y|ies)|acceptance criteria|scope|goals?|problem statement|use cases?)\b/gi, 1]],
  planning: [[/\b(plan(ning)?|roadmap|milestones?|estimates?|schedule|timeline|backlog|priorit(y|ies|ize)|breakdown)\b/gi, 1]],
  design: [[/\b(design(ing)?|architecture|schema|interfaces?|diagrams?|data model|api design|trade-?offs?|prototype)\b/gi, 1]],
  implementation: [[/\b(implement(ing|ation)?|build(ing)?|coding|develop(ing|ment)?|write the code|feature work|refactor(ing)?|integrat(e|ing|ion))\b/gi, 1]],
  review: [[/\b(review(ing)?|code review|pull requests?|qa|testing|test plan|verif(y|ication)|audit(ing)?|sign-?off|acceptance testing)\b/gi, 1]],
  maintenance: [[/\b(maintenance|maintain(ing)?|bug ?fix(es|ing)?|patch(es|ing)?|upgrades?|monitor(ing)?|incidents?|on-?call|deprecat(e|ion)|support)\b/gi, 1]],
};

export function normaliseStage(word: string): Stage | null {
  return SYNONYMS[word.trim().toLowerCase()] ?? null;
}

export function checkStage(word: string): Stage {
  const s = normaliseStage(word);
  if (!s) throw usageError(`unknown stage "${word}"`, `use one of: ${STAGES.join(', ')}`);
  return s;
}

export interface Detection {
  stage: Stage | 'unknown';
  /** How it was decided: an explicit `Stage:` line, keyword counts, or nothing found. */
  method: 'explicit' | 'keywords' | 'none';
  scores: Record<Stage, number>;
}

/** The stage INTENT.md describes: an explicit `Stage: X` / `Phase: X` line wins, else keyword counts. */
export function detectStage(text: string): Detection {
  const scores = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  const explicit = /^[\s>*#-]*(?:\*\*)?(?:current\s+)?(?:project\s+)?(?:stage|phase)(?:\*\*)?\s*[:=\-\u2013]\s*\**\s*([A-Za-z]+)/im.exec(text);
  if (explicit) {
    const s = normaliseStage(explicit[1]);
    if (s) return { stage: s, method: 'explicit', scores };
  }
  for (const s of STAGES) for (const [re, w] of KEYWORDS[s]) scores[s] += (text.match(re)?.length ?? 0) * w;
  const ranked = [...STAGES].sort((a, b) => scores[b] - scores[a]);
  if (scores[ranked[0]] === 0 || scores[ranked[0]] === scores[ranked[1]]) return { stage: 'unknown', method: 'none', scores };
  return { stage: ranked[0], method: 'keywords', scores };
}

export function stagePath(root: string): string {
  return path.join(root, '.mem', 'current-stage');
}

export function readCurrentStage(root: string): Stage | null {
  try {
    // A few bytes, from a regular file inside the vault (a FIFO there must not stop mem context).
    return normaliseStage(readRegularText(stagePath(root), { maxBytes: 4096, within: [root] }));
  } catch {
    return null;
  }
}

export function writeCurrentStage(root: string, stage: Stage): void {
  const file = stagePath(root);
  withFileLock(file, () => writeFileAtomic(file, `${stage}\n`), '.mem/current-stage');
}

export interface Retired {
  id: string;
  path: string;
  line: number;
}

/** Retire the live (active or compacted) task-domain entries of `stage` in one file. */
export function retireStageFile(file: ParsedFile, filePath: string, stage: string, today: string): { file: ParsedFile | null; retired: Retired[] } {
  const retired: Retired[] = [];
  const blocks = file.blocks.map((b) => {
    const e = b.entry;
    if (!e || e.kind !== 'entry' || !b.header) return b;
    if (e.status === 'retired' || e.domain !== 'task' || e.phase !== stage) return b;
    retired.push({ id: e.id, path: filePath, line: e.line });
    return updateBlockMeta(b, { status: 'retired', retired_at: today });
  });
  return { file: retired.length > 0 ? { ...file, blocks } : null, retired };
}
