// The coding agents' own command lines as the language model, for people with the agent logged in
// but no API key: Claude Code (`claude -p`), Codex (`codex exec`) and Gemini CLI (`gemini -p`),
// each run headless with no tools, no hooks and no MCP servers, the prompt on standard input.
// Their flags and output formats follow the agents' documentation:
//   https://code.claude.com/docs/en/cli-reference, https://code.claude.com/docs/en/headless
//   https://github.com/openai/codex/blob/main/docs/exec.md
//   https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/headless.md (and cli-reference.md)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { credentialsIn, displaySafe } from '../secrets/display.js';
import { ProviderError, type AgentCliProvider, type ClientOptions, type LlmProvider, type LlmRequest, type LlmResponse, type ProviderConfig } from './provider-api.js';
import { MAX_CLI_STDERR, MAX_CLI_STDOUT, runCli, type CliOutcome } from './agent-cli-run.js';

/**
 * Set in the environment of every agent CLI mem runs as its model. The agent's own hooks (mem's
 * among them) run inside that call: mem's hooks see it and do nothing, so an extraction never
 * starts another one, and mem never picks an agent CLI from inside one.
 */
export const IN_MODEL_CALL = 'MEM_IN_MODEL_CALL';

/** The command each provider runs, in the order mem looks for them when no provider is named. */
export const AGENT_CLI_COMMANDS: Record<AgentCliProvider, string> = { 'claude-cli': 'claude', 'codex-cli': 'codex', 'gemini-cli': 'gemini' };

/** The model asked for when none is named: a small, fast one ('default': the CLI's own choice). */
export const AGENT_CLI_MODELS: Record<AgentCliProvider, string> = { 'claude-cli': 'haiku', 'codex-cli': 'default', 'gemini-cli': 'flash' };

/** Most characters of an error excerpt shown (after redaction). */
const EXCERPT = 200;

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `name` found on the PATH of `env` (with PATHEXT's extensions on Windows), as an absolute path. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const PATH = env.PATH ?? env.Path ?? '';
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean) : [''];
  for (const dir of PATH.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue; // a relative entry would depend on the folder mem runs in
    for (const ext of exts) {
      const file = path.join(dir, name + ext);
      if (isExecutable(file)) return file;
    }
  }
  return undefined;
}

/** Whether mem may pick an agent CLI by itself: not when MEM_AGENT_CLI / `llm.agent_cli` say no, nor inside a model call. */
export function agentCliAllowed(env: NodeJS.ProcessEnv, fromConfig: boolean | undefined): { allowed: boolean; why?: string } {
  if (env[IN_MODEL_CALL]) return { allowed: false, why: `${IN_MODEL_CALL} is set` };
  const v = env.MEM_AGENT_CLI?.trim().toLowerCase();
  if (v) {
    if (['0', 'false', 'no', 'off'].includes(v)) return { allowed: false, why: 'MEM_AGENT_CLI=0' };
    return { allowed: true };
  }
  if (fromConfig === false) return { allowed: false, why: 'llm.agent_cli: false' };
  return { allowed: true };
}

/** The first agent CLI on PATH, in the order claude, codex, gemini. */
export function firstAgentCli(env: NodeJS.ProcessEnv): { name: AgentCliProvider; command: string } | undefined {
  for (const [name, bin] of Object.entries(AGENT_CLI_COMMANDS) as [AgentCliProvider, string][]) {
    const command = findOnPath(bin, env);
    if (command) return { name, command };
  }
  return undefined;
}

/** The request as one text: the system part, the prompt, and for a structured answer the schema it must follow. */
export function promptText(req: LlmRequest, withSystem: boolean): string {
  const parts: string[] = [];
  if (withSystem && req.system) parts.push(req.system, '');
  parts.push(req.prompt);
  if (req.schema) {
    parts.push('', `Answer with one JSON object and nothing else (no prose, no code fence), valid against this JSON schema${req.schemaName ? ` (${req.schemaName})` : ''}:`, JSON.stringify(req.schema));
  }
  return parts.join('\n');
}

/** A JSON object in a model's text: the whole text, a fenced block, or the span from the first `{` to the last `}`. */
export function jsonIn(text: string): unknown {
  const tries: string[] = [text.trim()];
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
  if (fence) tries.push(fence[1].trim());
  const a = text.indexOf('{');
  const b = text.lastIndexOf('}');
  if (a >= 0 && b > a) tries.push(text.slice(a, b + 1));
  for (const t of tries) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v;
    } catch {
      // try the next reading
    }
  }
  return undefined;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const obj = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** What one CLI's standard output said: the answer's text and usage, or its own error. */
export type CliAnswer = { text: string; usage: LlmResponse['usage'] } | { error: string } | null;

/**
 * `claude -p --output-format json`: one result object, `result` the answer, `is_error` and
 * `subtype` ('success', 'error_max_turns', 'error_during_execution') its status, `usage` Anthropic's
 * token counts. Null when stdout is not that object.
 */
export function parseClaude(stdout: string): CliAnswer {
  let v: Record<string, unknown> | undefined;
  try {
    v = obj(JSON.parse(stdout.trim()));
  } catch {
    // a `result` object is the last line when other lines precede it
    const last = stdout.trim().split('\n').pop() ?? '';
    try {
      v = obj(JSON.parse(last));
    } catch {
      return null;
    }
  }
  if (!v || (v.type !== undefined && v.type !== 'result') || (!('result' in v) && !('is_error' in v) && !('subtype' in v))) return null;
  if (v.is_error === true || (typeof v.subtype === 'string' && v.subtype !== 'success')) {
    return { error: typeof v.result === 'string' && v.result.trim() ? v.result : `${String(v.subtype ?? 'error')}` };
  }
  if (typeof v.result !== 'string') return null;
  const u = obj(v.usage) ?? {};
  return { text: v.result, usage: { inputTokens: num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens), outputTokens: num(u.output_tokens) } };
}

/**
 * `codex exec --json`: JSON Lines events; the answer is the last completed `agent_message` item,
 * usage comes with `turn.completed`, failures as `turn.failed` or `error` events.
 */
export function parseCodex(stdout: string): CliAnswer {
  let text: string | undefined;
  let error: string | undefined;
  let events = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (const line of stdout.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    let e: Record<string, unknown> | undefined;
    try {
      e = obj(JSON.parse(line));
    } catch {
      continue;
    }
    if (!e || typeof e.type !== 'string') continue;
    events++;
    const item = obj(e.item);
    if (e.type === 'item.completed' && item && (item.type === 'agent_message' || item.type === 'assistant_message') && typeof item.text === 'string') text = item.text;
    else if (e.type === 'turn.completed') {
      const u = obj(e.usage) ?? {};
      usage.inputTokens += num(u.input_tokens);
      usage.outputTokens += num(u.output_tokens);
    } else if (e.type === 'turn.failed') error = String(obj(e.error)?.message ?? 'the turn failed');
    else if (e.type === 'error') error = String(e.message ?? obj(e.error)?.message ?? 'error');
  }
  if (events === 0) return null;
  if (text !== undefined) return { text, usage };
  return { error: error ?? 'no answer in its events' };
}

/**
 * `gemini -p … --output-format json`: one object, `response` the answer, `stats.models[*].tokens`
 * the usage, `error` ({type, message, code}) when the request failed.
 */
export function parseGemini(stdout: string): CliAnswer {
  let v: Record<string, unknown> | undefined;
  try {
    const t = stdout.trim();
    // Warnings may precede the object on stdout in some versions: read from the first line that opens one.
    v = obj(JSON.parse(t.startsWith('{') ? t : t.slice(t.search(/^\{/m))));
  } catch {
    return null;
  }
  if (!v) return null;
  const err = obj(v.error);
  if (err) return { error: String(err.message ?? err.type ?? 'error') };
  if (typeof v.response !== 'string') return null;
  const usage = { inputTokens: 0, outputTokens: 0 };
  const models = obj(obj(v.stats)?.models) ?? {};
  for (const m of Object.values(models)) {
    const tokens = obj(obj(m)?.tokens) ?? {};
    usage.inputTokens += num(tokens.prompt);
    usage.outputTokens += num(tokens.candidates);
  }
  return { text: v.response, usage };
}

interface CliSpec {
  args(config: ProviderConfig, req: LlmRequest): string[];
  /** Whether the system text goes in the arguments (else it leads the prompt on stdin). */
  systemInArgs: boolean;
  parse(stdout: string): CliAnswer;
  /** Variables removed from the child's environment. */
  unset: string[];
  /** Exit codes that mean "not logged in". */
  authExit: number[];
  login: string;
}

const SPECS: Record<AgentCliProvider, CliSpec> = {
  'claude-cli': {
    // No tools (--tools ""), no MCP servers (--strict-mcp-config without --mcp-config), no hooks
    // (disableAllHooks in flag settings), nothing saved to the session history.
    args: (c, req) => ['-p', '--output-format', 'json', '--model', c.model, '--tools', '', '--strict-mcp-config', '--no-session-persistence',
      '--settings', '{"disableAllHooks":true}', ...(req.system ? ['--system-prompt', req.system] : [])],
    systemInArgs: true,
    parse: parseClaude,
    // Claude Code refuses to start where CLAUDECODE says it runs inside another session (a hook's
    // detached extraction inherits it); this call is no nested session, it is a plain request.
    unset: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT'],
    authExit: [],
    login: 'run `claude` once and log in (/login)',
  },
  'codex-cli': {
    // read-only sandbox, no approvals asked in exec mode, no rollout file (--ephemeral), no notify
    // program (mem's hook), not tied to a git repository; `-` reads the prompt from stdin.
    args: (c) => ['exec', '--json', '--sandbox', 'read-only', '--skip-git-repo-check', '--ephemeral', '--color', 'never', '-c', 'notify=[]',
      ...(c.model && c.model !== 'default' ? ['--model', c.model] : []), '-'],
    systemInArgs: false,
    parse: parseCodex,
    unset: [],
    authExit: [],
    login: 'run `codex login`',
  },
  'gemini-cli': {
    // -p forces headless mode and is appended to what stdin holds; no extensions, tools need an
    // approval nobody can give in headless mode.
    args: (c) => ['-p', 'Answer the request above.', '--output-format', 'json', '--model', c.model, '--extensions', 'none', '--approval-mode', 'default'],
    systemInArgs: false,
    parse: parseGemini,
    unset: [],
    authExit: [41],
    login: 'run `gemini` once and log in',
  },
};

// How the three say that nobody is logged in (or the login has expired): worded differently by each and by version.
const AUTH_TEXT = /\b(not logged in|logged out|please log ?in|log ?in again|\/login|unauthori[sz]ed|401|authenticat\w*|invalid api key|api key|oauth)\b/i;

/** A provider that runs the agent's CLI for each request. */
export function agentCliProvider(config: ProviderConfig & { name: AgentCliProvider }, opts: ClientOptions): LlmProvider {
  const bin = AGENT_CLI_COMMANDS[config.name];
  const who = `${config.name} (${config.model})`;
  const spec = SPECS[config.name];
  const command = config.command ?? findOnPath(bin, opts.env);
  if (!command) {
    throw new ProviderError(`${config.name}: the ${bin} command is not on PATH`, 'not-found', `install it, or choose another provider (--provider heuristic, or MEM_AGENT_CLI=0 to keep mem offline)`);
  }
  const secrets = [...(opts.secrets ?? []), ...credentialsIn(opts.env)];
  const excerpt = (text: string) => {
    const line = displaySafe(text.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''), secrets).split('\n').map((l) => l.trim()).filter(Boolean).join(' ');
    return line.length > EXCERPT ? `${line.slice(0, EXCERPT)}…` : line;
  };
  const failed = (what: string, detail: string, exitCode?: number | null) => {
    if ((exitCode != null && spec.authExit.includes(exitCode)) || AUTH_TEXT.test(detail)) {
      return new ProviderError(`${who}: ${bin} is not logged in${detail ? ` (${excerpt(detail)})` : ''}`, 'auth', `${spec.login}, or set MEM_AGENT_CLI=0 to keep mem offline`);
    }
    return new ProviderError(`${who}: ${what}${detail ? `: ${excerpt(detail)}` : ''}`, 'api');
  };
  return {
    config,
    async complete(req: LlmRequest): Promise<LlmResponse> {
      const env: NodeJS.ProcessEnv = { ...opts.env, [IN_MODEL_CALL]: '1', NO_COLOR: '1' };
      for (const k of spec.unset) delete env[k];
      // A folder of its own: the agent reads no project files (AGENTS.md, CLAUDE.md, GEMINI.md)
      // and a session it keeps is filed under no project of the user's.
      let cwd: string | undefined;
      try {
        cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-model-'));
      } catch {
        // no writable temp folder: the temp folder itself is still no project of the user's
      }
      let r: CliOutcome;
      try {
        r = await runCli({ command, args: spec.args(config, req), input: promptText(req, !spec.systemInArgs), env, cwd: cwd ?? os.tmpdir(), timeoutMs: opts.timeoutMs });
      } finally {
        if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
      }
      if (r.spawnError) {
        throw new ProviderError(`${who}: cannot run ${command} (${r.spawnError})`, 'not-found', 'check that the agent is installed and runs, or choose another provider (--provider)');
      }
      if (r.timedOut) {
        throw new ProviderError(`${who} did not answer within ${opts.timeoutMs} ms; stopped it`, 'timeout', 'raise llm.timeout_ms in .mem/config.yaml, or try again later');
      }
      if (r.tooBig) {
        throw new ProviderError(`${who} wrote more than ${(r.tooBig === 'stdout' ? MAX_CLI_STDOUT : MAX_CLI_STDERR) / 1_048_576} MB on ${r.tooBig}; stopped it`, 'invalid-answer');
      }
      const answer = spec.parse(r.stdout);
      if (answer && 'error' in answer) throw failed(`${bin} answered with an error${r.code ? ` (exit code ${r.code})` : ''}`, answer.error, r.code);
      if (r.code !== 0) throw failed(`${bin} exited with ${r.code === null ? 'a signal' : `code ${r.code}`}`, r.stderr.trim() || r.stdout.trim(), r.code);
      if (!answer) throw new ProviderError(`${who}: ${bin} answered with output that is not its JSON format${r.stdout.trim() ? `: ${excerpt(r.stdout)}` : ' (nothing)'}`, 'invalid-answer');
      if (!req.schema) return { text: answer.text, usage: answer.usage };
      const json = jsonIn(answer.text);
      if (json === undefined) throw new ProviderError(`${who} did not return a JSON answer: ${excerpt(answer.text) || '(empty)'}`, 'invalid-answer');
      return { text: answer.text, json, usage: answer.usage };
    },
  };
}
