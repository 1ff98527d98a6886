// Agent transcripts → a flat list of messages. Formats: Claude Code session JSONL and Claude
// `stream-json` output, Codex CLI rollouts, Gemini CLI session JSON, a JSON array of
// {role, content}, and plain text. Unknown records and broken lines are counted, never fatal.
// What a harness injected into the user's turn is kept but marked `instruction` (see harness.ts).

import { splitInjected } from './harness.js';

export type Role = 'user' | 'assistant' | 'system' | 'tool';
export type MessageKind = 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'summary';
export type TranscriptFormat = 'claude' | 'codex' | 'gemini' | 'messages' | 'text';

export interface TranscriptMessage {
  role: Role;
  kind: MessageKind;
  text: string;
  /** Provider message id (Claude's message.id groups the blocks of one response). */
  id?: string;
  /** A tool call's id, on the call and on its result (Claude tool_use_id, Codex call_id): pairs them. */
  callId?: string;
  timestamp?: string;
  isError?: boolean;
  isSidechain?: boolean;
  /** Injected by the harness or an instruction file (AGENTS.md, reminders, command wrappers), never typed by the human. */
  instruction?: true;
}

export interface Transcript {
  format: TranscriptFormat;
  sessionId?: string;
  messages: TranscriptMessage[];
  /** Records skipped: unknown types, non-message records, lines that are not JSON. */
  skipped: number;
  /** Lines that could not be parsed at all (and lines too long to read: see JsonlLines). */
  broken: number;
  /** Lines over LINE_CAP read with their long strings cut (see JsonlLines). */
  cut?: number;
}

export const FORMATS: readonly TranscriptFormat[] = ['claude', 'codex', 'gemini', 'messages', 'text'];

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Split a line holding several JSON objects back to back (`{…}{…}`), as one real file has. */
export function splitConcatenated(line: string): Json[] {
  const out: Json[] = [];
  let depth = 0;
  let inStr = false;
  let esc = false;
  let start = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (inStr) {
      if (esc) esc = false;
      else if (c === '\\') esc = true;
      else if (c === '"') inStr = false;
      continue;
    }
    if (c === '"') inStr = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0 && start >= 0) {
        try {
          const v = JSON.parse(line.slice(start, i + 1));
          if (isObj(v)) out.push(v);
        } catch {
          // not an object after all
        }
        start = -1;
      }
    }
  }
  return out;
}

function stringify(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((b) => (typeof b === 'string' ? b : isObj(b) ? stringify(b.text ?? b.content ?? '') : '')).filter(Boolean).join('\n');
  }
  return stringify(content);
}

/** Item types of Codex's older rollouts, which wrote response items bare (no `payload` envelope). */
const BARE_CODEX_ITEMS = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output']);

/** Messages of one Claude-style record (Claude Code session lines and stream-json lines). */
function claudeMessages(rec: Json): TranscriptMessage[] | null {
  const type = rec.type;
  if (typeof type === 'string' && BARE_CODEX_ITEMS.has(type) && !('message' in rec)) return codexMessages(rec);
  const base = { timestamp: typeof rec.timestamp === 'string' ? rec.timestamp : undefined, isSidechain: rec.isSidechain === true };
  if (type === 'summary' && typeof rec.summary === 'string') return [{ role: 'system', kind: 'summary', text: rec.summary, ...base }];
  if (type === 'result' && typeof rec.result === 'string') return [{ role: 'assistant', kind: 'text', text: rec.result, ...base }];
  if (type !== 'user' && type !== 'assistant') return null;
  const msg = isObj(rec.message) ? rec.message : null;
  if (!msg) return null;
  // Claude marks what it inserted itself (caveats, expanded commands, skill text) as meta.
  if (rec.isMeta === true) {
    const text = blockText(msg.content);
    return text.trim() ? [{ role: 'system', kind: 'text', text, instruction: true, ...base }] : [];
  }
  const id = typeof msg.id === 'string' ? msg.id : undefined;
  const role: Role = type === 'assistant' ? 'assistant' : 'user';
  if (rec.isCompactSummary === true) return [{ role: 'system', kind: 'summary', text: blockText(msg.content), instruction: true, ...base }];
  const content = msg.content;
  if (typeof content === 'string') return [{ role, kind: 'text', text: content, id, ...base }];
  if (!Array.isArray(content)) return [];
  const out: TranscriptMessage[] = [];
  for (const b of content) {
    if (!isObj(b)) continue;
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string') out.push({ role, kind: 'text', text: b.text, id, ...base });
        break;
      case 'thinking':
        if (typeof b.thinking === 'string') out.push({ role, kind: 'thinking', text: b.thinking, id, ...base });
        break;
      case 'tool_use':
        out.push({ role: 'assistant', kind: 'tool_use', text: `${String(b.name ?? 'tool')}(${stringify(b.input)})`, id, ...(typeof b.id === 'string' && { callId: b.id }), ...base });
        break;
      case 'tool_result':
        out.push({ role: 'tool', kind: 'tool_result', text: blockText(b.content), isError: b.is_error === true, id, ...(typeof b.tool_use_id === 'string' && { callId: b.tool_use_id }), ...base });
        break;
      default:
        break;
    }
  }
  return out;
}

function codexMessages(rec: Json): TranscriptMessage[] | null {
  if (typeof rec.type === 'string' && BARE_CODEX_ITEMS.has(rec.type) && !isObj(rec.payload)) {
    return codexMessages({ type: 'response_item', payload: rec, timestamp: rec.timestamp });
  }
  const p = isObj(rec.payload) ? rec.payload : null;
  const timestamp = typeof rec.timestamp === 'string' ? rec.timestamp : undefined;
  const call = p && typeof p.call_id === 'string' ? { callId: p.call_id } : {};
  if (rec.type === 'compacted' && p && typeof p.message === 'string') return [{ role: 'system', kind: 'summary', text: p.message, instruction: true, timestamp }];
  if (rec.type !== 'response_item' || !p) return null;
  switch (p.type) {
    case 'message': {
      const r = p.role === 'assistant' ? 'assistant' : p.role === 'user' ? 'user' : 'system';
      // A user turn's blocks are judged one by one: Codex puts AGENTS.md and the environment in blocks of their own.
      const parts = r === 'user' && Array.isArray(p.content) ? p.content.map((b) => blockText([b])).filter(Boolean) : [blockText(p.content)];
      // The developer role carries the harness's own instructions.
      const injected = p.role === 'developer' || p.role === 'system' ? { instruction: true as const } : {};
      return parts.filter((text) => text).map((text) => ({ role: r, kind: 'text' as const, text, timestamp, ...injected }));
    }
    case 'reasoning': {
      const text = blockText(p.summary);
      return text ? [{ role: 'assistant', kind: 'thinking', text, timestamp }] : [];
    }
    case 'function_call':
    case 'custom_tool_call':
      return [{ role: 'assistant', kind: 'tool_use', text: `${String(p.name ?? 'tool')}(${stringify(p.arguments ?? p.input)})`, timestamp, ...call }];
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const o = p.output;
      const raw = isObj(o) ? stringify(o.content ?? o.output ?? o.text ?? o) : stringify(o);
      const { text, isError } = codexOutput(raw);
      return [{ role: 'tool', kind: 'tool_result', text, timestamp, ...call, ...(isError === undefined ? {} : { isError }) }];
    }
    default:
      return null;
  }
}

/**
 * A Codex command's output and whether it failed: older rollouts wrap it as JSON
 * `{"output", "metadata": {"exit_code"}}`, newer ones as text starting `Exit code: N`
 * (or `Process exited with code N`). Anything else is returned as it is.
 */
function codexOutput(raw: string): { text: string; isError?: boolean } {
  if (raw.startsWith('{') && raw.includes('"exit_code"')) {
    try {
      const j = JSON.parse(raw) as { output?: unknown; metadata?: { exit_code?: unknown } };
      if (typeof j.output === 'string' && typeof j.metadata?.exit_code === 'number') return { text: j.output, isError: j.metadata.exit_code !== 0 };
    } catch {
      // not the wrapper after all
    }
  }
  // The exit line may follow other header lines (`Chunk ID:`, `Wall time:`) before `Output:`.
  const at = raw.indexOf('\nOutput:\n');
  const head = at >= 0 && at < 600 ? raw.slice(0, at) : raw.slice(0, raw.indexOf('\n') < 0 ? raw.length : raw.indexOf('\n'));
  const m = /^(?:Exit code:|Process exited with code) (-?\d+)/m.exec(head);
  if (m) return { text: at >= 0 && at < 600 ? raw.slice(at + 9) : raw, isError: Number(m[1]) !== 0 };
  return { text: raw };
}

function geminiMessages(doc: Json): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  for (const m of Array.isArray(doc.messages) ? doc.messages : []) {
    if (!isObj(m)) continue;
    const timestamp = typeof m.timestamp === 'string' ? m.timestamp : undefined;
    const role: Role = m.type === 'user' ? 'user' : m.type === 'gemini' ? 'assistant' : 'system';
    const text = blockText(m.content);
    if (text) out.push({ role, kind: 'text', text, timestamp });
    for (const t of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
      if (!isObj(t)) continue;
      const call = typeof t.id === 'string' ? { callId: t.id } : {};
      out.push({ role: 'assistant', kind: 'tool_use', text: `${String(t.name ?? 'tool')}(${stringify(t.args)})`, timestamp, ...call });
      if (t.result !== undefined) out.push({ role: 'tool', kind: 'tool_result', text: blockText(t.resultDisplay ?? t.result), isError: t.status === 'error', timestamp, ...call });
    }
  }
  return out;
}

function arrayMessages(arr: unknown[]): { messages: TranscriptMessage[]; skipped: number } {
  const messages: TranscriptMessage[] = [];
  let skipped = 0;
  for (const m of arr) {
    if (!isObj(m) || typeof m.role !== 'string') {
      skipped++;
      continue;
    }
    const role: Role = m.role === 'assistant' || m.role === 'model' ? 'assistant' : m.role === 'user' || m.role === 'human' ? 'user' : m.role === 'tool' ? 'tool' : 'system';
    if (Array.isArray(m.content)) {
      const parsed = claudeMessages({ type: role === 'assistant' ? 'assistant' : 'user', message: { content: m.content } });
      for (const x of parsed ?? []) messages.push({ ...x, role: x.kind === 'tool_result' ? ('tool' as Role) : role });
    } else {
      messages.push({ role, kind: role === 'tool' ? 'tool_result' : 'text', text: stringify(m.content) });
    }
  }
  return { messages, skipped };
}

const SPEAKER = /^(user|human|me|assistant|ai|claude|codex|gemini|agent|system)\s*:\s?(.*)$/i;

function textMessages(text: string): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  let cur: TranscriptMessage | null = null;
  for (const line of text.split(/\r?\n/)) {
    const m = SPEAKER.exec(line.replace(/^\*\*|\*\*(?=\s*:)/g, '').replace(/^#+\s*/, ''));
    if (m) {
      const who = m[1].toLowerCase();
      const role: Role = who === 'user' || who === 'human' || who === 'me' ? 'user' : who === 'system' ? 'system' : 'assistant';
      cur = { role, kind: 'text', text: m[2] };
      out.push(cur);
    } else if (cur) cur.text += `\n${line}`;
    else {
      cur = { role: 'assistant', kind: 'text', text: line };
      out.push(cur);
    }
  }
  for (const m of out) m.text = m.text.trim();
  return out.filter((m) => m.text !== '');
}

export function detectFormat(text: string): TranscriptFormat {
  const t = text.trimStart();
  if (t.startsWith('[')) {
    try {
      if (Array.isArray(JSON.parse(t))) return 'messages';
    } catch {
      return 'text';
    }
  }
  if (t.startsWith('{')) {
    const firstLine = t.slice(0, t.indexOf('\n') === -1 ? undefined : t.indexOf('\n'));
    let first: Json | null = null;
    try {
      const v = JSON.parse(firstLine);
      first = isObj(v) ? v : null;
    } catch {
      try {
        const v = JSON.parse(t);
        if (isObj(v) && Array.isArray(v.messages)) return 'gemini';
      } catch {
        first = splitConcatenated(firstLine)[0] ?? null;
      }
    }
    if (first) return recordFormat(first);
  }
  return 'text';
}

/**
 * The format of a file from its head, its first bytes, when the file goes on past them. JSON lines
 * (Claude Code, Codex) are told by their first line; `firstLine` gives it, its long strings cut
 * (see JsonlLines), when it is longer than the head. Undefined when the head opens some other JSON
 * document (an array, or an object over several lines as Gemini CLI writes its sessions): a cut
 * document does not parse, so it is told from the whole of it, which is read anyway.
 */
export function detectHead(head: string, firstLine: () => string | null): TranscriptFormat | undefined {
  const t = head.trimStart();
  if (t.startsWith('[')) return undefined;
  if (!t.startsWith('{')) return 'text';
  const nl = t.indexOf('\n');
  const line = nl === -1 ? firstLine() : t.slice(0, nl);
  if (line === null) return undefined;
  let first: Json | null = null;
  try {
    const v = JSON.parse(line);
    first = isObj(v) ? v : null;
  } catch {
    first = splitConcatenated(line)[0] ?? null;
  }
  return first ? recordFormat(first) : undefined;
}

/** The format a transcript's first record stands for (a Gemini session written on one line is one record). */
function recordFormat(first: Json): TranscriptFormat {
  if ('payload' in first && typeof first.type === 'string') return 'codex';
  if (!('type' in first) && Array.isArray(first.messages)) return 'gemini';
  return 'claude';
}

/**
 * Marks what a harness injected into user turns: a message made only of injected blocks gets
 * `instruction`; one that mixes them with the person's words is split in two (injected first).
 */
export function markInjected(messages: TranscriptMessage[]): TranscriptMessage[] {
  const out: TranscriptMessage[] = [];
  for (const m of messages) {
    if (m.role !== 'user' || m.kind !== 'text' || m.instruction) {
      out.push(m);
      continue;
    }
    const s = splitInjected(m.text);
    if (s.injected.length === 0) out.push(m);
    else {
      out.push({ ...m, text: s.injected.join('\n\n'), instruction: true });
      if (s.human) out.push({ ...m, text: s.human });
    }
  }
  return out;
}

export function readTranscript(text: string, format?: TranscriptFormat): Transcript {
  const t = readAny(text, format);
  return { ...t, messages: markInjected(t.messages) };
}

function readAny(text: string, format?: TranscriptFormat): Transcript {
  const fmt = format ?? detectFormat(text);
  if (fmt === 'text') return { format: fmt, messages: textMessages(text), skipped: 0, broken: 0 };
  if (fmt === 'messages' || fmt === 'gemini') {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return { format: fmt, messages: [], skipped: 0, broken: 1 };
    }
    if (fmt === 'messages' && Array.isArray(doc)) return { format: fmt, ...arrayMessages(doc), broken: 0 };
    if (isObj(doc)) {
      return { format: 'gemini', sessionId: typeof doc.sessionId === 'string' ? doc.sessionId : undefined, messages: geminiMessages(doc), skipped: 0, broken: 0 };
    }
    return { format: fmt, messages: [], skipped: 1, broken: 0 };
  }
  const reader = new JsonlReader(fmt);
  for (const line of text.split('\n')) reader.line(line);
  return reader.result();
}

/** A real copy: a slice would keep the whole (possibly huge) original string alive. */
function copyString(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** Longest text kept per message: a transcript can hold megabytes of tool output. */
export const MESSAGE_CAP = 8000;

/** Claude or Codex JSONL, one line at a time (a 200 MB transcript is never held whole). */
export class JsonlReader {
  private messages: TranscriptMessage[] = [];
  private skipped = 0;
  private broken = 0;
  private sessionId: string | undefined;
  private cut = 0;

  constructor(private readonly fmt: 'claude' | 'codex') {}

  /** One line; `cut` when JsonlLines shortened its long strings, null when it was too long to keep. */
  line(raw: string | null, cut = false): void {
    if (raw === null) {
      this.broken++;
      return;
    }
    if (cut) this.cut++;
    const line = raw.trim();
    if (!line) return;
    let recs: Json[];
    try {
      const v = JSON.parse(line);
      if (!isObj(v)) {
        this.broken++;
        return;
      }
      recs = [v];
    } catch {
      recs = splitConcatenated(line);
      if (recs.length === 0) {
        this.broken++;
        return;
      }
    }
    for (const rec of recs) {
      if (!this.sessionId) {
        if (typeof rec.sessionId === 'string') this.sessionId = rec.sessionId;
        else if (typeof rec.session_id === 'string') this.sessionId = rec.session_id;
        else if (rec.type === 'session_meta' && isObj(rec.payload) && typeof rec.payload.id === 'string') this.sessionId = rec.payload.id;
      }
      const got = this.fmt === 'codex' ? codexMessages(rec) : claudeMessages(rec);
      if (got === null) this.skipped++;
      else for (const m of got) this.messages.push(m.text.length > MESSAGE_CAP ? { ...m, text: copyString(`${m.text.slice(0, MESSAGE_CAP)}…`) } : m);
    }
  }

  result(): Transcript {
    const messages = markInjected(this.messages.map((m) => ({ ...m, text: m.text.trim() })).filter((m) => m.text !== ''));
    return { format: this.fmt, sessionId: this.sessionId, messages, skipped: this.skipped, broken: this.broken, ...(this.cut > 0 && { cut: this.cut }) };
  }
}

/** A JSONL line longer than this (in bytes) is kept with each of its long strings cut. */
export const LINE_CAP = 1 << 20;
/**
 * Bytes kept of a string in such a line: more than MESSAGE_CAP characters whatever the text is
 * made of (a `\uXXXX` escape is 6 bytes per character), so the messages read from the line are
 * the ones the whole line gives.
 */
export const STRING_KEEP = 64 << 10;
/** What is left of a line after its strings are cut may not pass this: the line is skipped as broken. */
export const LINE_HARD_CAP = 8 << 20;

const ELLIPSIS = Buffer.from('…', 'utf8');

/**
 * JSONL split into lines from chunks of bytes, in bounded memory whatever a line's length. A line
 * up to LINE_CAP is passed on as it is. A longer one (a tool's output of hundreds of megabytes in
 * one message) is read on through a small JSON string scanner that keeps the first STRING_KEEP
 * bytes of every string and drops the rest of it up to its closing quote (an `…` marks the cut),
 * so the line still parses, with every record, block and key it had, and each message's text is
 * what MESSAGE_CAP would have kept anyway. Cuts fall between characters and never inside an
 * escape. A line still over LINE_HARD_CAP after that (millions of short strings) is passed on as
 * null: skipped and counted as a broken line.
 */
export class JsonlLines {
  private parts: Buffer[] = [];
  private size = 0;
  // The string scanner's state, once the current line is over LINE_CAP.
  private long = false;
  private out: Buffer | null = null;
  private outLen = 0;
  private over = false;
  private cut = false;
  private inStr = false;
  /** 0: none; -1: the character after a backslash; 1..4: hex digits of a \u escape to come. */
  private esc = 0;
  private strLen = 0;
  private dropping = false;

  constructor(private readonly emit: (line: string | null, cut: boolean) => void) {}

  /** The next bytes of the file (the buffer may be reused by the caller afterwards). */
  push(data: Buffer): void {
    let start = 0;
    while (start <= data.length) {
      const nl = data.indexOf(10, start);
      this.add(data.subarray(start, nl === -1 ? data.length : nl));
      if (nl === -1) return;
      this.finish();
      start = nl + 1;
    }
  }

  /** The end of the file: a last line without a line break. */
  end(): void {
    if (this.size > 0 || this.long) this.finish();
  }

  private add(seg: Buffer): void {
    if (seg.length === 0) return;
    if (!this.long) {
      if (this.size + seg.length <= LINE_CAP) {
        this.parts.push(Buffer.from(seg));
        this.size += seg.length;
        return;
      }
      this.long = true;
      const held = Buffer.concat(this.parts);
      this.parts = [];
      this.size = 0;
      this.scan(held);
    }
    this.scan(seg);
  }

  private write(b: Buffer): void {
    if (this.over || b.length === 0) return;
    if (this.outLen + b.length > LINE_HARD_CAP) {
      this.over = true;
      this.out = null;
      return;
    }
    if (!this.out || this.outLen + b.length > this.out.length) {
      const next = Buffer.allocUnsafe(Math.min(LINE_HARD_CAP, Math.max(2 * (this.out?.length ?? 0), this.outLen + b.length, 2 * LINE_CAP)));
      if (this.out) this.out.copy(next, 0, 0, this.outLen);
      this.out = next;
    }
    b.copy(this.out, this.outLen);
    this.outLen += b.length;
  }

  private scan(b: Buffer): void {
    let run = 0;
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (!this.inStr) {
        if (c === 0x22) {
          this.inStr = true;
          this.strLen = 0;
        }
        continue;
      }
      if (this.esc !== 0) {
        this.esc = this.esc === -1 ? (c === 0x75 ? 4 : 0) : this.esc - 1;
        continue;
      }
      if (c === 0x22) {
        this.inStr = false;
        if (this.dropping) {
          this.dropping = false;
          this.write(ELLIPSIS);
          run = i;
        }
        continue;
      }
      // Past the share kept, at a character's first byte and outside an escape: drop from here.
      if (!this.dropping && this.strLen >= STRING_KEEP && (c & 0xc0) !== 0x80) {
        this.write(b.subarray(run, i));
        this.dropping = true;
        this.cut = true;
      }
      if (c === 0x5c) this.esc = -1;
      this.strLen++;
    }
    if (!this.dropping) this.write(b.subarray(run));
  }

  private finish(): void {
    if (!this.long) {
      const line = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
      this.parts = [];
      this.size = 0;
      this.emit(line.toString('utf8'), false);
      return;
    }
    const line = this.over || !this.out ? null : this.out.toString('utf8', 0, this.outLen);
    const cut = this.cut;
    this.long = false;
    this.out = null;
    this.outLen = 0;
    this.over = false;
    this.cut = false;
    this.inStr = false;
    this.esc = 0;
    this.strLen = 0;
    this.dropping = false;
    this.emit(line, cut);
  }
}

/** Everything the assistant said or did (text and tool calls), for usage checks. */
export function assistantText(t: Transcript): string {
  return assistantAfter(t, -Infinity);
}

/**
 * Slack for the retrieval log's clock against the transcript's: both are this machine's, but the
 * log's time is taken when the hook's search ends, a moment after the prompt was recorded.
 */
const CLOCK_SLACK_MS = 60_000;

/**
 * The assistant's text and tool calls from time `sinceMs` on (a retrieval's time): a message
 * without a usable timestamp counts wherever it stands, since when it was said is unknown.
 */
export function assistantAfter(t: Transcript, sinceMs: number): string {
  const from = sinceMs - CLOCK_SLACK_MS;
  return t.messages.filter((m) => {
    if (m.role !== 'assistant' || (m.kind !== 'text' && m.kind !== 'tool_use')) return false;
    if (from === -Infinity || m.timestamp === undefined) return true;
    const at = Date.parse(m.timestamp);
    return Number.isNaN(at) || at >= from;
  }).map((m) => m.text).join('\n');
}
