// The causal-memory tools of `mem mcp` (add_pattern, query_patterns, get_causal_path,
// get_antipatterns): the same domain functions as `mem pattern …`, in snake_case arguments.

import { z } from 'zod';
import { CAUSAL_TYPES } from '../../notes/pattern-note.js';
import { redactedOutput, toolResult } from './results.js';
import type { ToolSpec } from './tool-spec.js';

const MAX_TEXT = 100_000;
const rate = z.number().min(0).max(1).optional();
const pattern = z.looseObject({ title: z.string(), name: z.string(), success_rate: z.number().nullable(), occurrences: z.number().nullable() });
const patternList = { patterns: z.array(pattern), total: z.number() };
const project = z.string().max(200).optional().describe('ignored: the vault is the project');

const addPatternTool: ToolSpec = {
  name: 'add_pattern',
  title: 'Record a pattern',
  description: 'Record that an approach worked or failed in a situation: creates .mem/patterns/PATTERN-<name>.md; for a name already there, '
    + 'adds an occurrence, averages in success_rate and links the new evidence and relations.',
  inputSchema: {
    name: z.string().trim().min(1, 'name is empty').max(200).describe('kebab-case, e.g. run-migrations-first'),
    trigger: z.string().max(MAX_TEXT).optional().describe('the situation that calls for it (needed when new)'),
    action: z.string().max(MAX_TEXT).optional().describe('what to do (needed when new)'),
    description: z.string().max(MAX_TEXT).optional().describe('when and why it applies'),
    success_rate: rate.describe('how it went this time (default 1)'),
    evidence_episode: z.string().max(300).optional().describe('session id or EPISODE-… name'),
    causal_relationships: z.array(z.object({ type: z.enum(CAUSAL_TYPES), target: z.string().trim().min(1).max(300) })).max(100).optional()
      .describe('target: another pattern\'s (or an outcome\'s) name, as written or a unique prefix of it'),
    is_antipattern: z.boolean().optional().describe('an approach to avoid (ANTIPATTERN-<name>.md)'),
    project,
  },
  outputSchema: {
    action: z.string(), title: z.string(), permalink: z.string(), path: z.string(), occurrences: z.number(), success_rate: z.number(), last_validated: z.string(),
    added_evidence: z.array(z.string()), added_relations: z.array(z.object({ type: z.string(), target: z.string() })), redacted: redactedOutput,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
  async run(a, env) {
    const { parseAddPatternArgs } = await import('../../notes/pattern-input.js');
    const { addPattern } = await import('../../notes/pattern-note.js');
    const input = parseAddPatternArgs(a, 'add_pattern');
    const vault = await env.openVault();
    return toolResult({ ...(await addPattern(vault.root, input, { today: env.today() })) });
  },
};

const queryPatternsTool: ToolSpec = {
  name: 'query_patterns',
  title: 'Find patterns',
  description: 'The patterns recorded in this project (what worked in which situation), best success rate first.',
  inputSchema: {
    trigger: z.string().max(1000).optional().describe('trigger contains this (case ignored)'),
    min_success_rate: rate,
    min_occurrences: z.number().int().min(0).max(1_000_000).optional(),
    limit: z.number().int().min(1).max(100).optional().describe('default 20'),
    project,
  },
  outputSchema: patternList,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as { trigger?: string; min_success_rate?: number; min_occurrences?: number; limit?: number };
    const { queryPatterns } = await import('../../notes/pattern-query.js');
    const vault = await env.openVault();
    return toolResult({ ...queryPatterns(vault.root, args) });
  },
};

const causalPathTool: ToolSpec = {
  name: 'get_causal_path',
  title: 'Causal path between patterns',
  description: 'The shortest chain of causal relationships (causes, enables, prevents, correlates) from one pattern to another, or to an '
    + 'outcome, error, decision or event note (imported from a causal graph). A note is named as written ("Stop old job before cutover": '
    + 'case, spaces and a PATTERN-/OUTCOME- prefix do not matter), by a unique prefix ("Stop old job") or a unique part; found: false comes with the reason.',
  inputSchema: {
    from_pattern: z.string().trim().min(1).max(300),
    to_pattern: z.string().trim().min(1).max(300),
    max_depth: z.number().int().min(1).max(10).optional().describe('default 5'),
    project,
  },
  outputSchema: {
    found: z.boolean(), from: z.string(), to: z.string(), max_depth: z.number(), depth: z.number().nullable(),
    path: z.array(z.looseObject({ id: z.string(), label: z.string() })), reason: z.string().optional(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as { from_pattern: string; to_pattern: string; max_depth?: number };
    const { causalPath } = await import('../../notes/pattern-query.js');
    const vault = await env.openVault();
    return toolResult({ ...causalPath(vault.root, args.from_pattern, args.to_pattern, args.max_depth) });
  },
};

const antipatternsTool: ToolSpec = {
  name: 'get_antipatterns',
  title: 'Anti-patterns',
  description: 'Approaches that keep failing here, worst first: success rate at most max_success_rate (default 0.3) over at least min_occurrences (default 2). '
    + 'Check them before repeating an approach.',
  inputSchema: {
    max_success_rate: rate,
    min_occurrences: z.number().int().min(1).max(1_000_000).optional(),
    limit: z.number().int().min(1).max(100).optional().describe('default 20'),
    project,
  },
  outputSchema: patternList,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(a, env) {
    const args = a as { max_success_rate?: number; min_occurrences?: number; limit?: number };
    const { antipatterns } = await import('../../notes/pattern-query.js');
    const vault = await env.openVault();
    return toolResult({ ...antipatterns(vault.root, args) });
  },
};

export const PATTERN_TOOLS: ToolSpec[] = [addPatternTool, queryPatternsTool, causalPathTool, antipatternsTool];
