// The offline extractor: explicit signals only. A human saying "remember …", "always/never …",
// "don't …", "I prefer …"; a human correcting or interrupting the agent; a failed tool call
// followed by one that worked. Lower importance than a model's learnings, marked as heuristic.

import { CORRECTION, INTERRUPTED, isHumanText } from './condense.js';
import { cleanTitle, safeBody, type Learning } from './learning.js';
import type { ExtractionScopeName } from './scopes.js';
import type { TranscriptMessage } from './transcript.js';

/** A rule's lead-in, at the start of the sentence ("If we ever do X in the future, …" is not a rule). */
const REMEMBER = /^(?:remember|keep in mind|make sure|note|from now on|going forward|in (?:the )?future|next time)[,:]? (?:that |to )?/i;
/** The lead-in dropped from a rule's title ("make sure" stays: without it the rule reads as a fact). */
const LEAD_IN = /^(?:remember|keep in mind|note|from now on|going forward|in (?:the )?future|next time)[,:]? (?:that |to )?/i;
/** Openings that look like a correction and are not ("No worries", "No, that's fine"). */
const NOT_A_CORRECTION = /^(?:no (?:worries|problem|thanks|need)|(?:no|nope|actually),? (?:that'?s|it'?s|this is) (?:fine|ok|okay|good|great|right|perfect))/i;
const ALWAYS_NEVER = /\b(?:always|never)\b/i;
const DONT = /^(?:please\s+)?(?:don'?t|do not|avoid|stop)\b/i;
const PREFER = /\b(?:i (?:prefer|like|want|'d like|would like|hate|don'?t like)|we (?:use|prefer|always|never)|our (?:convention|style|rule))\b/i;
const ERROR_TEXT = /\b(?:error|failed|failure|exception|traceback|not found|cannot|denied|refused|exit (?:code|status) [1-9])\b/i;
/** An error report at the start of a tool's output (for formats that do not flag errors). */
const ERROR_START = /^(?:error\b|fatal\b|\w*error:|traceback|exception\b|npm err!|.*: command not found|.*exit (?:code|status):? [1-9])/im;
/** A tool call the human refused: an intervention, not an error to learn a fix from. */
export const REFUSED = /the user doesn'?t want to (?:proceed with this tool use|take this action)|\[Request interrupted by user for tool use\]/i;
/** Errors of the agent's tool protocol, not of the project (e.g. editing a file before reading it). */
const PROTOCOL_ERROR = /<tool_use_error>|has not been read yet|file has been modified since read/i;

function isToolError(m: TranscriptMessage): boolean {
  if (m.kind !== 'tool_result' || REFUSED.test(m.text) || PROTOCOL_ERROR.test(m.text)) return false;
  if (m.isError === true) return true;
  if (m.isError === false) return false;
  return ERROR_START.test(m.text.split('\n').slice(0, 3).join('\n'));
}
const MAX_ERROR_FIXES = 5;
/** Interjections before the rule itself ("No, don't …", "OK, also always …"). */
const LEAD = /^(?:(?:no|nope|ok|okay|actually|wait|great|thanks|and|also|please)[,.!]?\s+)*/i;

function sentences(text: string): string[] {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim().replace(/^[-*>\d.)\s]+/, ''))
    .filter((s) => s.length >= 12 && s.length <= 400 && !/[{}<>|=]{3,}|^\$ /.test(s));
}

function excerpt(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

function toolName(call: string): string {
  return call.slice(0, Math.max(0, call.indexOf('('))) || call.slice(0, 30);
}

/** A tool call as a person would write it: the shell command, or the tool and its file. */
function callSummary(call: string): string {
  const name = toolName(call);
  try {
    const args = JSON.parse(call.slice(name.length + 1, call.lastIndexOf(')'))) as Record<string, unknown>;
    for (const k of ['command', 'cmd']) {
      const v = args[k];
      if (typeof v === 'string') return v;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return (v as string[]).join(' ').replace(/^(?:bash|sh|zsh) -l?c /, '');
    }
    for (const k of ['file_path', 'path', 'pattern', 'url']) if (typeof args[k] === 'string') return `${name} ${args[k] as string}`;
  } catch {
    // not JSON arguments
  }
  return call;
}

/** What the agent had just done before message `i`: its last words or tool call. */
function before(groups: TranscriptMessage[], i: number): string {
  for (let j = i - 1; j >= 0 && j >= i - 6; j--) {
    const m = groups[j];
    if (m.role === 'assistant' && (m.kind === 'text' || m.kind === 'tool_use')) return excerpt(m.text, 240);
  }
  return '';
}

export function heuristicLearnings(messages: TranscriptMessage[], scopes: readonly ExtractionScopeName[]): Learning[] {
  const want = new Set(scopes);
  const out: Learning[] = [];
  const seen = new Set<string>();
  const add = (l: Learning) => {
    const key = l.title.toLowerCase();
    if (!want.has(l.scope) || seen.has(key)) return;
    seen.add(key);
    out.push({ ...l, body: safeBody(l.body) });
  };
  let interruptedAt = -1;
  messages.forEach((m, i) => {
    if ((m.role === 'user' && INTERRUPTED.test(m.text)) || (m.kind === 'tool_result' && REFUSED.test(m.text))) {
      interruptedAt = i;
      const rest = m.text.replace(INTERRUPTED, '').trim();
      if (!rest) return;
    }
    if (!isHumanText(m)) return;
    const text = m.text.replace(INTERRUPTED, '').trim();
    if (!text) return;
    const ctx = before(messages, interruptedAt >= 0 ? interruptedAt : i);
    if (interruptedAt >= 0 && i - interruptedAt <= 2 && text.split(/\s+/).length >= 4) {
      add({
        scope: 'interventions', type: 'corrective', importance: 0.5,
        title: cleanTitle(sentences(text)[0] ?? text),
        body: `The human interrupted the agent${ctx ? ` while it was doing: ${ctx}` : ''}. They said: "${excerpt(text, 400)}"`,
      });
      interruptedAt = -1;
    } else if (CORRECTION.test(text) && !NOT_A_CORRECTION.test(text) && !/\?\s*$/.test(sentences(text)[0] ?? text) && ctx) {
      add({
        scope: 'corrective', type: 'corrective', importance: 0.5,
        title: cleanTitle(sentences(text)[0] ?? text),
        body: `The human corrected the agent: "${excerpt(text, 400)}" (after the agent: ${ctx})`,
      });
    }
    for (const s of sentences(text)) {
      const core = s.replace(LEAD, '');
      if (/\?\s*$/.test(core)) continue; // a question is not a rule
      if (REMEMBER.test(core) || ALWAYS_NEVER.test(core) || DONT.test(core)) {
        const rule = core.replace(LEAD_IN, '');
        add({ scope: 'project', type: 'directive', importance: 0.4, title: cleanTitle(rule), body: excerpt(s, 400) });
      } else if (PREFER.test(s)) {
        add({ scope: 'observations', type: 'declarative', importance: 0.4, title: cleanTitle(s), body: `The human said: "${excerpt(s, 400)}"` });
      }
    }
  });
  // A failed tool call, then a call of the same tool that worked a few steps later.
  let fixes = 0;
  for (let i = 0; i < messages.length && fixes < MAX_ERROR_FIXES; i++) {
    const r = messages[i];
    if (!isToolError(r)) continue;
    let call = -1;
    for (let j = i - 1; j >= 0 && j >= i - 4; j--) if (messages[j].kind === 'tool_use') { call = j; break; }
    if (call < 0) continue;
    const name = toolName(messages[call].text);
    for (let j = i + 1; j < messages.length && j <= i + 12; j++) {
      const m = messages[j];
      if (m.kind !== 'tool_use' || toolName(m.text) !== name || m.text === messages[call].text) continue;
      const res = messages.slice(j + 1, j + 4).find((x) => x.kind === 'tool_result');
      if (!res || res.isError || isToolError(res) || REFUSED.test(res.text)) continue;
      const errLine = r.text.split('\n').map((l) => l.trim()).find((l) => ERROR_TEXT.test(l)) ?? r.text.split('\n')[0];
      const failed = excerpt(callSummary(messages[call].text), 60);
      add({
        scope: 'corrective', type: 'corrective', importance: 0.4,
        title: cleanTitle(`\`${failed}\` failed: ${excerpt(errLine.replace(/^error:\s*/i, ''), 60)}`),
        body: `\`${excerpt(callSummary(messages[call].text), 200)}\` failed with: ${excerpt(errLine, 200)}\n\nWhat worked: \`${excerpt(callSummary(m.text), 240)}\``,
      });
      fixes++;
      i = j;
      break;
    }
  }
  return out;
}
