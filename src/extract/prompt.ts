// The extraction request: the system text, the prompt built from the condensed transcript and the
// active scopes, and one request to the model with its answer validated. `mem extract` and the
// consolidation of episodes both ask through here.

import { ProviderError, type LlmProvider, type ProviderConfig } from '../llm/provider.js';
import { learningSchema, validateLearnings, type Learning } from './learning.js';
import { EXTRACTION_SCOPES, type ExtractionScopeName } from './scopes.js';

export const SYSTEM = `You turn a coding agent's session transcript into durable learnings for a long-term memory that future sessions search before they start work.
Record only what would change what a future session does: specific facts, commands, conventions, pitfalls with their fixes, the human's corrections and preferences.
Each learning stands alone (a reader will not see the transcript) and names its subject: the concrete command, file, setting, tool, service or error.
Give the rule and its evidence separately: the title is the rule itself (short, imperative where it is one: "Run X before Y"), the body says why it holds and how to apply it in 1-3 whole sentences, and the evidence is the human's words or the error line that shows it, quoted exactly.
Never record the agent's own tool mechanics (an edit whose text was not found, a patch that did not apply, a sandbox or approval refusal, a tool-use error), nor text from instruction files (AGENTS.md, CLAUDE.md, system reminders, environment context) as if the human had said it.
Do not narrate the session, do not record what is general knowledge, do not invent. When nothing qualifies for a scope, return nothing for it; an empty list is a fine answer.`;

export function buildPrompt(condensed: string, scopes: ExtractionScopeName[], extra: { task?: string; intent?: string; known: string[] }): string {
  const parts = ['Extract learnings from the session below, for these scopes (use the scope names exactly):', ''];
  for (const s of EXTRACTION_SCOPES) if (scopes.includes(s.name)) parts.push(`- ${s.name} (default type ${s.defaultType}): ${s.prompt}`);
  // Without this, a lesson about briefing a sub-agent fits "project" as well and lands there.
  if (scopes.includes('dispatch')) parts.push('', 'A learning about handing work to sub-agents belongs to dispatch only, never also to another scope.');
  parts.push('', 'Types: declarative = a fact; procedural = how to do something; directive = a rule to follow; corrective = a mistake and what to do instead.');
  parts.push('Importance: 0.9+ would have saved hours or prevents damage; 0.6 useful; 0.3 minor.');
  if (extra.task) parts.push('', `Session task (the human's first request): ${extra.task}`);
  if (extra.intent) parts.push('', 'INTENT.md (what the project intends):', extra.intent.slice(0, 3000));
  if (extra.known.length > 0) parts.push('', 'Already in memory (titles of the existing entries); add only what is new, never a restatement of these:', ...extra.known.map((t) => `- ${t}`));
  parts.push('', 'For each learning: title = the rule, short; body = why and how, in whole sentences; evidence = the exact words from the transcript that show it (the human\'s, or the error line), or "" when there are none.');
  parts.push('', 'Transcript (condensed; [human] is the person, [assistant] the agent, [tool call]/[tool result]/[tool error] its tools; gaps are marked):', '<<<', condensed, '>>>');
  return parts.join('\n');
}

/**
 * One request for learnings (the forced `record_learnings` call / JSON schema), validated: the
 * learnings, how many were dropped as incomplete, and the tokens used. An answer that is not a
 * list of learnings is a ProviderError (the caller falls back to the heuristics).
 */
export async function askForLearnings(llm: LlmProvider, provider: ProviderConfig, prompt: string, active: ExtractionScopeName[], opts: { episode?: boolean } = {}): Promise<{ learnings: Learning[]; dropped: number; usage: { input_tokens: number; output_tokens: number }; episode?: unknown }> {
  // With `episode`, the same request also asks for the session's outcome and decisions (its
  // episode note): one request, not two. The answer is checked by the note's writer.
  let schema = learningSchema(active);
  if (opts.episode) {
    const { withEpisodeSchema, EPISODE_PROMPT } = await import('../notes/extract-note.js');
    schema = withEpisodeSchema(schema);
    prompt = `${prompt}\n\n${EPISODE_PROMPT}`;
  }
  const res = await llm.complete({ system: SYSTEM, prompt, schema, schemaName: 'record_learnings', maxTokens: 4096 });
  const v = validateLearnings(res.json, active);
  if (!v) throw new ProviderError(`${provider.name} (${provider.model}) answered, but not with a list of learnings`, 'invalid-answer');
  const episode = opts.episode && typeof res.json === 'object' && res.json !== null ? (res.json as { episode?: unknown }).episode : undefined;
  return { learnings: v.learnings, dropped: v.dropped, usage: { input_tokens: res.usage.inputTokens, output_tokens: res.usage.outputTokens }, ...(episode !== undefined && { episode }) };
}

