// The add_pattern input (JSON from stdin, the MCP tool or an import) checked field by field into
// AddPatternInput, with one clear message per problem; nulls count as absent.

import { MemError } from '../errors.js';
import { CAUSAL_TYPES, type AddPatternInput, type CausalRelation } from './pattern-note.js';

const MAX_TEXT = 100_000;

export function parseAddPatternArgs(data: unknown, where: string): AddPatternInput {
  const fail = (msg: string): never => {
    throw new MemError(`${where}: ${msg}`, { hint: 'add_pattern takes {"name", "trigger", "action", "description"?, "success_rate"?, "evidence_episode"?, "causal_relationships"?: [{"type", "target"}], "is_antipattern"?}' });
  };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) fail('expected a JSON object');
  const o = data as Record<string, unknown>;
  const text = (k: string, required = false): string | undefined => {
    const v = o[k];
    if (v === undefined || v === null) {
      if (required) fail(`"${k}" is required`);
      return undefined;
    }
    if (typeof v !== 'string') return fail(`"${k}" must be a string (got ${Array.isArray(v) ? 'an array' : typeof v})`);
    if (v.length > MAX_TEXT) fail(`"${k}" is longer than ${MAX_TEXT} characters`);
    return v;
  };
  const name = text('name', true)!;
  if (name.trim() === '') fail('"name" is empty');
  let rate: number | undefined;
  if (o.success_rate !== undefined && o.success_rate !== null) {
    if (typeof o.success_rate !== 'number' || !(o.success_rate >= 0 && o.success_rate <= 1)) fail(`"success_rate" must be a number from 0 to 1 (got ${JSON.stringify(o.success_rate)})`);
    rate = o.success_rate as number;
  }
  const rels: CausalRelation[] = [];
  const cr = o.causal_relationships;
  if (cr !== undefined && cr !== null) {
    if (!Array.isArray(cr)) fail('"causal_relationships" must be a list of {"type", "target"}');
    (cr as unknown[]).forEach((r, i) => {
      const x = r as Record<string, unknown> | null;
      if (x === null || typeof x !== 'object' || !(CAUSAL_TYPES as readonly unknown[]).includes(x.type)) fail(`causal_relationships[${i}].type must be one of ${CAUSAL_TYPES.join(', ')}`);
      if (typeof x!.target !== 'string' || x!.target.trim() === '') fail(`causal_relationships[${i}].target must be a non-empty string`);
      rels.push({ type: x!.type as CausalRelation['type'], target: x!.target as string });
    });
  }
  if (o.is_antipattern !== undefined && o.is_antipattern !== null && typeof o.is_antipattern !== 'boolean') fail('"is_antipattern" must be true or false');
  return {
    name, trigger: text('trigger'), action: text('action'), description: text('description'), success_rate: rate,
    evidence_episode: text('evidence_episode'), causal_relationships: rels, is_antipattern: (o.is_antipattern as boolean | null | undefined) ?? undefined,
  };
}
