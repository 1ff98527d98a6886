// Condensing a transcript to the model's budget while keeping the whole arc of the session: the
// task, what the human said (corrections above all), errors and what fixed them, decisions, and
// the ending. Everything is trimmed first (tool output hardest); if it still does not fit, the
// least telling messages are left out, and the gaps are marked so the model knows.

import { isInjected } from './harness.js';
import type { TranscriptMessage } from './transcript.js';

export interface Condensed {
  text: string;
  /** Messages in the transcript (blocks of one response counted once). */
  total: number;
  kept: number;
}

/** Most of what a person types to correct an agent starts like one of these. */
export const CORRECTION = /^(?:no\b|nope\b|wrong\b|that'?s (?:not|wrong|incorrect)|this is (?:not|wrong)|not (?:quite|what|like)|actually\b|instead\b|stop\b|wait\b|don'?t\b|do not\b|never\b|you (?:should|shouldn'?t|forgot|missed|broke|didn'?t)|why did you|please (?:don'?t|do not|stop)|revert|undo)/i;
export const INTERRUPTED = /\[Request interrupted by user[^\]]*\]/i;
const DECISION = /\b(?:decid|instead|because|root cause|turns out|the (?:fix|problem|issue) (?:is|was)|fixed by|works now|the reason|going with|chose|switch(?:ed)? to|workaround)/i;
const ERROR_TEXT = /\b(?:error|failed|failure|exception|traceback|not found|cannot|can't|denied|refused|exit (?:code|status) [1-9])/i;

const LIMITS: Record<string, number> = { user: 1500, assistant: 1200, thinking: 300, tool_use: 240, tool_result: 300, tool_error: 700, summary: 2000, system: 400 };

interface Item {
  at: number;
  label: string;
  text: string;
  priority: number;
}

function clip(s: string, n: number): string {
  const t = s.replace(/\n{3,}/g, '\n\n').trim();
  if (t.length <= n) return t;
  // Keep the head and the tail: errors often say what went wrong in their last lines.
  const head = Math.ceil(n * 0.7);
  return `${t.slice(0, head).trimEnd()} […] ${t.slice(t.length - (n - head)).trimStart()}`;
}

/** Blocks of one response (same message id) become one item; a human's message stays whole. */
function group(messages: TranscriptMessage[]): TranscriptMessage[][] {
  const out: TranscriptMessage[][] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (last && m.id && last[0].id === m.id && m.kind === last[last.length - 1].kind && m.kind !== 'tool_result') last.push(m);
    else out.push([m]);
  }
  return out;
}

/**
 * A message the person typed: user text that is not a sidechain (there the "user" is the main
 * agent prompting a subagent) and not what the harness injected (instruction files, reminders,
 * command wrappers: marked by the readers, and checked again for messages built elsewhere).
 */
export function isHumanText(m: TranscriptMessage): boolean {
  if (m.role !== 'user' || m.kind !== 'text' || m.isSidechain || m.instruction) return false;
  return !isInjected(m.text);
}

export function condense(messages: TranscriptMessage[], budget: number): Condensed {
  const groups = group(messages);
  const items: Item[] = [];
  let firstHuman = true;
  let lastError = -10;
  groups.forEach((g, at) => {
    const m = g[0];
    const text = g.map((x) => x.text).join('\n');
    let label: string;
    let limit: number;
    let priority: number;
    if (m.kind === 'summary') {
      [label, limit, priority] = ['summary', LIMITS.summary, 90];
    } else if (m.kind === 'tool_result') {
      const isError = g.some((x) => x.isError) || (ERROR_TEXT.test(text.slice(0, 400)) && text.length < 4000);
      if (isError) lastError = at;
      [label, limit, priority] = isError ? ['tool error', LIMITS.tool_error, 70] : ['tool result', LIMITS.tool_result, 10];
    } else if (m.kind === 'tool_use') {
      [label, limit, priority] = ['tool call', LIMITS.tool_use, at - lastError <= 3 ? 60 : 20];
    } else if (m.kind === 'thinking') {
      [label, limit, priority] = ['thinking', LIMITS.thinking, DECISION.test(text) ? 35 : 12];
    } else if (m.instruction) {
      // Instruction files and reminders: context for the model, never the human's words.
      [label, limit, priority] = ['injected', LIMITS.system, 8];
    } else if (m.role === 'user') {
      const human = isHumanText(m);
      const corrective = CORRECTION.test(text.trim()) || INTERRUPTED.test(text);
      [label, limit, priority] = [human ? 'human' : 'user', LIMITS.user, human && firstHuman ? 100 : corrective ? 95 : human ? 80 : 30];
      if (human) firstHuman = false;
    } else if (m.role === 'system') {
      [label, limit, priority] = ['system', LIMITS.system, 15];
    } else {
      [label, limit, priority] = ['assistant', LIMITS.assistant, at - lastError <= 3 ? 65 : DECISION.test(text) ? 60 : 40];
    }
    if (m.isSidechain) priority -= 10;
    items.push({ at, label, text: clip(text, limit), priority });
  });
  // The ending: the last few messages say how it went.
  for (const it of items.slice(-6)) it.priority = Math.max(it.priority, 85);
  const render = (it: Item) => `[${it.label}] ${it.text}\n`;
  const size = (it: Item) => render(it).length + 1;
  const total = items.reduce((s, it) => s + size(it), 0);
  let keep: Set<number>;
  if (total <= budget) keep = new Set(items.map((it) => it.at));
  else {
    keep = new Set();
    let used = 0;
    const reserve = 60; // room for the "[… n omitted …]" markers, roughly
    // Highest priority first; among equals, spread over the session (earliest first).
    for (const it of [...items].sort((a, b) => b.priority - a.priority || a.at - b.at)) {
      const s = size(it);
      if (used + s + reserve > budget) continue;
      keep.add(it.at);
      used += s;
    }
  }
  let out = '';
  let gap = 0;
  for (const it of items) {
    if (!keep.has(it.at)) {
      gap++;
      continue;
    }
    if (gap > 0) out += `[… ${gap} message${gap === 1 ? '' : 's'} left out …]\n\n`;
    gap = 0;
    out += `${render(it)}\n`;
  }
  if (gap > 0) out += `[… ${gap} message${gap === 1 ? '' : 's'} left out …]\n`;
  if (out.length > budget) out = `${out.slice(0, budget - 1)}…`;
  return { text: out.trimEnd(), total: items.length, kept: keep.size };
}
