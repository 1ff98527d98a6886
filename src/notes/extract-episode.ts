// A session's episode note from its transcript (mem extract): metrics counted from the
// transcript itself, an outcome judged offline from how its tool calls ended, and its errors and
// commits as events. Pure: the caller supplies the task, the lessons and (from a model) decisions.
//
// The rules, kept simple so each figure can be checked by hand:
// - tool_calls: tool calls of the main conversation (sidechains left out).
// - errors: tool results marked as failed (Claude is_error, a non-zero Codex exit code, Gemini
//   status error).
// - recoveries: a failed call later followed by a successful call of the same tool on the same
//   target (a shell command's first two words, `npm test`; a file tool's path; else the tool
//   name); one recovery per run of failures that ends in a success.
// - commits: `git commit` shell commands whose result did not fail.
// - files_changed: distinct paths written or edited by file tools (Write, Edit, MultiEdit,
//   NotebookEdit, write_file, replace, apply_patch's file headers) whose call did not fail;
//   files changed through shell commands are not parsed.
// - duration_minutes: from the first to the last timestamp of the transcript.
// - outcome: failure when the session's last tool result is a failure never recovered;
//   partial when some failure was never recovered; success otherwise.

import type { Transcript, TranscriptMessage } from '../extract/transcript.js';
import type { EpisodeData, EpisodeDecision, EpisodeEvent, EpisodeMetrics, Outcome } from './episode-note.js';
import { isTimestamp, sanitizeEpisode } from './episode-note.js';

export interface ToolCall {
  name: string;
  /** What "the same command" means for recoveries: tool + target. */
  key: string;
  command: string | null;
  files: string[];
  /** null: no result seen. */
  failed: boolean | null;
  errorText: string;
  at: string | undefined;
  index: number;
}

export interface SessionFacts {
  calls: ToolCall[];
  metrics: Required<EpisodeMetrics>;
  duration_minutes: number | null;
  start: string | null;
  outcome: Outcome;
  /** Why the outcome was judged so (one line, for the note's Observations). */
  outcome_reason: string;
  /** Failed calls never recovered. */
  unrecovered: ToolCall[];
}

const FILE_TOOLS = new Set(['write', 'edit', 'multiedit', 'notebookedit', 'write_file', 'replace', 'edit_file', 'create_file']);
const SHELL_TOOLS = new Set(['bash', 'shell', 'exec_command', 'run_shell_command', 'local_shell', 'shell_command', 'container.exec']);

function parseArgs(text: string): { name: string; args: unknown; raw: string } {
  const open = text.indexOf('(');
  const name = open > 0 ? text.slice(0, open) : text;
  const raw = open > 0 && text.endsWith(')') ? text.slice(open + 1, -1) : open > 0 ? text.slice(open + 1) : '';
  let args: unknown = raw;
  try {
    args = JSON.parse(raw);
  } catch {
    // a capped message, or plain text (apply_patch input)
  }
  // Codex passes its function arguments as a JSON string.
  if (typeof args === 'string') {
    try {
      const inner = JSON.parse(args) as unknown;
      if (inner && typeof inner === 'object') args = inner;
    } catch {
      // plain text
    }
  }
  return { name, args, raw };
}

function field(args: unknown, ...keys: string[]): unknown {
  if (!args || typeof args !== 'object') return undefined;
  for (const k of keys) if ((args as Record<string, unknown>)[k] !== undefined) return (args as Record<string, unknown>)[k];
  return undefined;
}

function shellCommand(args: unknown): string | null {
  const c = field(args, 'command', 'cmd');
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
    // ["bash", "-lc", "git commit …"]: the script is the last word.
    const words = c as string[];
    return words.length >= 3 && /(^|\/)(ba|z)?sh$/.test(words[0]) && words[1].startsWith('-') ? words[words.length - 1] : words.join(' ');
  }
  return null;
}

/** A command's first two words (`npm test`, `git commit`), with leading `cd x &&` and env settings dropped. */
export function commandKey(cmd: string): string {
  const last = cmd.split(/&&|;|\|\|/).map((s) => s.trim()).filter((s) => s !== '' && !/^cd\s/.test(s))[0] ?? cmd.trim();
  const words = last.split(/\s+/).filter((w) => !/^[A-Z_][A-Z0-9_]*=/.test(w));
  return words.slice(0, 2).join(' ');
}

// `git [global options] commit` at the start of a command (after `&&`, `;`, `|`, `(` too).
const COMMIT = /(?:^|[;&|(]|\n)\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*git(?:\s+(?:-[Cc]\s+\S+|--[\w-]+=\S+|--no-pager|--paginate|-[pP]|--bare|--no-replace-objects|--literal-pathspecs))*\s+commit\b/;

export function isGitCommit(cmd: string): boolean {
  return COMMIT.test(cmd);
}

function patchFiles(raw: string): string[] {
  const out: string[] = [];
  for (const m of raw.matchAll(/\*\*\* (?:Add|Update|Delete) File: ([^\n\\"]+)/g)) out.push(m[1].trim());
  for (const m of raw.matchAll(/\*\*\* Move to: ([^\n\\"]+)/g)) out.push(m[1].trim());
  return out;
}

function callOf(m: TranscriptMessage, index: number): ToolCall {
  const { name, args, raw } = parseArgs(m.text);
  const lower = name.toLowerCase();
  let command: string | null = null;
  let files: string[] = [];
  let key = name;
  if (SHELL_TOOLS.has(lower) || shellCommand(args) !== null) {
    command = shellCommand(args);
    if (command !== null) key = `${name}:${commandKey(command)}`;
  }
  if (FILE_TOOLS.has(lower)) {
    let p = field(args, 'file_path', 'notebook_path', 'path', 'absolute_path');
    // A capped call (a long Write) is not JSON any more: its path is still near the start.
    if (p === undefined) p = /"(?:file_path|notebook_path|absolute_path)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(raw)?.[1];
    if (typeof p === 'string' && p !== '') files = [p];
  } else if (lower === 'apply_patch' || /\*\*\* Begin Patch/.test(raw)) {
    files = patchFiles(typeof args === 'string' ? args : raw);
  }
  if (files.length > 0 && command === null) key = `${name}:${files[0]}`;
  return { name, key, command, files, failed: null, errorText: '', at: m.timestamp, index };
}

/** Count what the session's tools did and judge its outcome (see the rules above). */
export function sessionFacts(t: Transcript): SessionFacts {
  const calls: ToolCall[] = [];
  const byId = new Map<string, ToolCall>();
  const pending: ToolCall[] = [];
  const times: number[] = [];
  let start: string | null = null;
  t.messages.forEach((m, i) => {
    if (m.timestamp && isTimestamp(m.timestamp)) {
      times.push(Date.parse(m.timestamp));
      start ??= m.timestamp;
    }
    if (m.isSidechain) return;
    if (m.kind === 'tool_use') {
      const c = callOf(m, i);
      calls.push(c);
      if (m.callId) byId.set(m.callId, c);
      else pending.push(c);
    } else if (m.kind === 'tool_result') {
      // Paired by id; a result without one goes to the oldest call still waiting.
      let c = m.callId ? byId.get(m.callId) : undefined;
      if (c) byId.delete(m.callId!);
      else c = pending.shift();
      if (!c || c.failed !== null) return;
      c.failed = m.isError === true;
      if (c.failed) c.errorText = m.text;
      c.at = m.timestamp ?? c.at;
    }
  });
  let errors = 0;
  let recoveries = 0;
  const unrecovered: ToolCall[] = [];
  const failing = new Map<string, ToolCall[]>();
  for (const c of calls) {
    if (c.failed === true) {
      errors++;
      const list = failing.get(c.key);
      if (list) list.push(c);
      else failing.set(c.key, [c]);
    } else if (c.failed === false && failing.has(c.key)) {
      recoveries++;
      failing.delete(c.key);
    }
  }
  for (const list of failing.values()) for (const c of list) unrecovered.push(c);
  unrecovered.sort((a, b) => a.index - b.index);
  const commits = calls.filter((c) => c.command !== null && c.failed !== true && isGitCommit(c.command)).length;
  const files = new Set(calls.filter((c) => c.failed !== true).flatMap((c) => c.files));
  const last = [...calls].reverse().find((c) => c.failed !== null);
  let outcome: Outcome = 'success';
  let reason = errors === 0 ? 'no tool call failed' : `all ${errors} failed tool call${errors === 1 ? ' was' : 's were'} recovered`;
  if (last?.failed && unrecovered.includes(last)) {
    outcome = 'failure';
    reason = `the session ended on a failed ${last.key} that was never recovered`;
  } else if (unrecovered.length > 0) {
    outcome = 'partial';
    reason = `${unrecovered.length} failed tool call${unrecovered.length === 1 ? ' was' : 's were'} never recovered (${[...new Set(unrecovered.map((c) => c.key))].slice(0, 3).join(', ')})`;
  }
  times.sort((a, b) => a - b);
  return {
    calls,
    metrics: { tool_calls: calls.length, errors, recoveries, commits, files_changed: files.size },
    duration_minutes: times.length >= 2 ? Math.round((times[times.length - 1] - times[0]) / 60_000) : null,
    start,
    outcome,
    outcome_reason: reason,
    unrecovered,
  };
}

function firstLine(s: string, max = 160): string {
  const line = s.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export const MAX_EVENTS = 40;

export interface TranscriptEpisodeInput {
  sessionId: string;
  task: string;
  /** The learnings extracted from the session (their titles): the note's lessons. */
  lessons: string[];
  /** Decisions a model found, already checked. */
  decisions?: EpisodeDecision[];
  /** A model's outcome, when it gave one (else the offline judgement). */
  outcome?: Outcome;
  source: string;
  now: string;
  /** A model's title and summary of the session, as the Context line that says them. */
  summary?: string;
}

/** The episode note's data for a transcript. */
export function episodeFromTranscript(t: Transcript, input: TranscriptEpisodeInput): EpisodeData {
  const f = sessionFacts(t);
  const events: EpisodeEvent[] = [];
  for (const c of f.calls) {
    if (events.length >= MAX_EVENTS) break;
    if (!c.at || !isTimestamp(c.at)) continue;
    if (c.failed === true) events.push({ id: `e${events.length + 1}`, timestamp: c.at, type: 'error', content: `${c.key} failed: ${firstLine(c.errorText) || '(no output)'}`, caused_by: [], leads_to: [] });
    else if (c.failed === false && c.command !== null && isGitCommit(c.command)) events.push({ id: `e${events.length + 1}`, timestamp: c.at, type: 'commit', content: firstLine(c.command), caused_by: [], leads_to: [] });
  }
  const m = f.metrics;
  const observations = [
    { category: 'metrics', text: `${m.tool_calls} tool calls, ${m.errors} failed (${m.recoveries} recovered), ${m.commits} commits, ${m.files_changed} files changed`, tags: ['metrics'] },
    { category: 'outcome', text: input.outcome ? `judged ${input.outcome} by the model` : `${f.outcome}: ${f.outcome_reason}`, tags: ['outcome'] },
  ];
  return sanitizeEpisode({
    session_id: input.sessionId,
    task: input.task || '(no task recorded)',
    outcome: input.outcome ?? f.outcome,
    created_at: f.start ?? input.now,
    ...(f.duration_minutes !== null && { duration_minutes: f.duration_minutes }),
    metrics: m,
    tags: [],
    context: `Task: ${input.task || '(no task recorded)'}\n\n${input.summary ? `${input.summary}\n\n` : ''}Written by mem extract from ${input.source} (${t.format}, ${t.messages.length} messages).`,
    observations,
    decisions: input.decisions ?? [],
    events,
    lessons: input.lessons,
    relations: [],
    extra: {},
  });
}
