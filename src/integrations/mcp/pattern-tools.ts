// The seed-002 causal-memory tools of `mem mcp` (add_pattern, query_patterns, get_causal_path,
// get_antipatterns): the same domain functions as `mem pattern …`, with the seed's argument names.

import { z } from 'zod';
import { CAUSAL_TYPES } from '../../notes/pattern-note.js';
import { redactedOutput, toolResult } from './results.js';
import type { ToolSpec } from './tools.js';

const MAX_TEXT = 100_000;
const rate = (what: string) => z.number().min(0).max(1).optional().describe(what);
const pattern = z.looseObject({ title: z.string(), name: z.string(), success_rate: z.number().nullable(), occurrences: z.number().nullable() });
const patternList = { patterns: z.array(pattern), total: z.number() };
const project = z.string().max(200).optional().describe('ignored: the server serves the vault it was started in');

const addPatternTool: ToolSpec = {
  name: 'add_pattern',
  title: 'Record a pattern',
  description: 'Record that an approach worked (or failed) for a situation: creates .mem/patterns/PATTERN-<name>.md, or, for a name already there, '
    + 'adds one occurrence, folds success_rate into the running average, sets last_validated to today and links the evidence episode and new causal relationships. '
    + 'Use is_antipattern for an approach to avoid. Same as `mem pattern add`.',
  inputSchema: {
    name: z.string().trim().min(1, 'name is empty').max(200).describe('pattern name, kebab-case (run-migrations-first)'),
    trigger: z.string().max(MAX_TEXT).optional().describe('the condition that calls for it (needed for a new pattern)'),
    action: z.string().max(MAX_TEXT).optional().describe('what to do (needed for a new pattern)'),
    description: z.string().max(MAX_TEXT).optional().describe('when and why it applies'),
    success_rate: rate('how well it went this time, 0 to 1 (default 1.0)'),
    evidence_episode: z.string().max(300).optional().describe('the episode that shows it (session id or EPISODE-… name)'),
    causal_relationships: z.array(z.object({ type: z.enum(CAUSAL_TYPES), target: z.string().trim().min(1).max(300) })).max(100).optional()
      .describe('what this pattern causes, enables, prevents or correlates with: other patterns\' names'),
    is_antipattern: z.boolean().optional().describe('an approach to avoid (ANTIPATTERN-<name>.md)'),
    project,
  },
  outputSchema: {
    action: z.string(), title: z.string(), permalink: z.string(), path: z.string(), occurrences: z.number(), success_rate: z.number(), last_validated: z.string(),
    added_evidence: z.array(z.string()), added_relations: z.array(z.object({ type: z.string(), target: z.string() })), redacted: redactedOutput,
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
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
  description: 'Patterns recorded in this project (what worked for which situation), best success rate first: filter by trigger text, '
    + 'minimum success rate and minimum occurrences. Same as `mem pattern list`.',
  inputSchema: {
    trigger: z.string().max(1000).optional().describe('only patterns whose trigger contains this text (case ignored)'),
    min_success_rate: rate('only patterns with at least this success rate'),
    min_occurrences: z.number().int().min(0).max(1_000_000).optional().describe('only patterns seen at least this often'),
    limit: z.number().int().min(1).max(100).optional().describe('at most this many (default 20)'),
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
  description: 'The shortest chain of causal relationships (causes, enables, prevents, correlates) from one pattern to another, breadth first. '
    + 'Names match exactly first, then by a unique part; an ambiguous name is an error listing the candidates. found: false comes with the reason. '
    + 'Same as `mem pattern path`.',
  inputSchema: {
    from_pattern: z.string().trim().min(1).max(300).describe('source pattern: name, title, permalink or a unique part'),
    to_pattern: z.string().trim().min(1).max(300).describe('target pattern'),
    max_depth: z.number().int().min(1).max(10).optional().describe('at most this many steps (default 5)'),
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
  description: 'Approaches that keep failing here: success rate at most max_success_rate (default 0.3) over at least min_occurrences (default 2) uses, '
    + 'worst first. Check them before repeating an approach. Same as `mem pattern antipatterns`.',
  inputSchema: {
    max_success_rate: rate('at most this success rate (default 0.3)'),
    min_occurrences: z.number().int().min(1).max(1_000_000).optional().describe('seen at least this often (default 2)'),
    limit: z.number().int().min(1).max(100).optional().describe('at most this many (default 20)'),
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
