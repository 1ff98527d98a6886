// What the MCP tools send back, and how their arguments become mem's requests: pure mapping,
// no SDK and no disk, so it is tested on its own.

import { z } from 'zod';
import { formatWhere, MemError } from '../../errors.js';
import type { EntryFilter } from '../../index/queries.js';
import { conversationList, timeBounds } from '../../vault/origin.js';

/** A tool's answer as the MCP spec has it: structured data, and the same as text for clients that read only text. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** `data` as structured content; the text is `text` when given (context's markdown), else the JSON. */
export function toolResult(data: Record<string, unknown>, text?: string): ToolAnswer {
  return { content: [{ type: 'text', text: text ?? JSON.stringify(data, null, 2) }], structuredContent: data };
}

/**
 * A failed call as a tool error (isError), which the agent reads and can act on: mem's one line
 * and its hint. Anything that is not a MemError is a bug; its message still goes back.
 */
export function toolError(err: unknown): ToolAnswer {
  const lines: string[] = [];
  if (err instanceof MemError) {
    lines.push(`mem: ${formatWhere(err.message, err.where)}`);
    if (err.hint) lines.push(`hint: ${err.hint}`);
  } else {
    lines.push(`mem: ${(err as Error)?.message ?? String(err)}`);
  }
  return { content: [{ type: 'text', text: lines.join('\n') }], isError: true };
}

/** One value or several, as an agent may send either: lowercased, trimmed, empty ones dropped. */
export function listArg(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  const out = (Array.isArray(v) ? v : [v]).map((x) => x.trim().toLowerCase()).filter(Boolean);
  return out.length > 0 ? out : undefined;
}

export interface FilterArgs {
  type?: string | string[];
  scope?: string | string[];
  domain?: string | string[];
  phase?: string | string[];
  status?: string | string[];
  learning_type?: string | string[];
  conversation?: string | string[];
  after?: string;
  before?: string;
}

/** The index filter of a tool's filter arguments (their values are checked by the input schema). */
export function filterFromArgs(a: FilterArgs): EntryFilter {
  return {
    types: listArg(a.type),
    scopes: listArg(a.scope),
    domains: listArg(a.domain),
    phases: listArg(a.phase),
    statuses: listArg(a.status),
    learningTypes: listArg(a.learning_type),
    conversations: conversationList(a.conversation, (f) => f),
    ...timeBounds(a.after, a.before, (f) => f),
  };
}

/** Field names in messages: the tool's argument names (`session_id`), not the CLI's flags. */
export function argName(field: string): string {
  return field === 'session' ? 'session_id' : field;
}

/** The output field of a tool that writes: how many credentials of which kinds it wrote as `[redacted: kind]`. */
export const redactedOutput = z.object({ count: z.number(), kinds: z.array(z.string()) }).optional();
