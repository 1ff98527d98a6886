// mem's hooks in coding agents' settings (Claude Code, Codex, Gemini CLI), at user or project
// level: which file, which events, and installing, removing and reporting mem's entries there
// (plus its MCP server registration and Codex's `notify`). Every file is planned before any is
// written: one mem cannot edit safely stops the whole command with nothing changed.

import fs from 'node:fs';
import path from 'node:path';
import { MemError } from '../../errors.js';
import { staysInside } from '../../vault/boundary.js';
import { writeFileAtomic } from '../../vault/write.js';
import { userHome } from '../../vault/vault.js';
import { describeProgram, hookCommand, memArgv, memOnPath, parseHookCommand, parseMcpCommand, pointsHere, type Agent, type Form, type HookVerb, type Launcher } from './command.js';
import { addItem, addMember, member, parseJsonc, removePath, replaceNode, valueOf, type JsonDoc, type JsonNode, type Step } from './jsonc.js';
import { editMcpTable, editNotify, parseToml, tomlParser, type EditAction } from './toml-edit.js';
import { isFailure, readRegularBytes } from '../../vault/read.js';
import { PLUGIN_ID, PLUGIN_OFF, pluginState } from './plugins.js';

/** An agent's settings file past this is not one mem edits. */
const AGENT_FILE_LIMIT = 64 << 20;

export const AGENTS: readonly Agent[] = ['claude', 'codex', 'gemini'];
export type Scope = 'user' | 'project';

interface EventSpec {
  event: string;
  verb: HookVerb;
  perPrompt?: boolean;
  /** In the agent's unit: seconds for Claude Code and Codex, milliseconds for Gemini CLI. */
  timeout: number;
}

/** The events mem hooks, per agent (see the contract in the docs: context at start, extract before compaction / at the end). */
export const EVENTS: Record<Agent, EventSpec[]> = {
  claude: [
    { event: 'SessionStart', verb: 'context', timeout: 10 },
    { event: 'UserPromptSubmit', verb: 'context', perPrompt: true, timeout: 5 },
    { event: 'PreCompact', verb: 'extract', timeout: 10 },
    { event: 'SessionEnd', verb: 'extract', timeout: 10 },
  ],
  codex: [
    { event: 'SessionStart', verb: 'context', timeout: 10 },
    { event: 'UserPromptSubmit', verb: 'context', perPrompt: true, timeout: 5 },
    { event: 'PreCompact', verb: 'extract', timeout: 10 },
    // Codex runs SessionEnd during shutdown and caps its timeout at 3 s (warning on every start
    // above that); `extract --hook` answers in ~0.1 s and detaches the work.
    { event: 'SessionEnd', verb: 'extract', timeout: 3 },
  ],
  gemini: [
    { event: 'SessionStart', verb: 'context', timeout: 10000 },
    { event: 'BeforeAgent', verb: 'context', perPrompt: true, timeout: 5000 },
    { event: 'PreCompress', verb: 'extract', timeout: 10000 },
    { event: 'SessionEnd', verb: 'extract', timeout: 10000 },
  ],
};

export interface AgentFiles {
  /** The JSON file holding the `hooks` object. */
  hooks: string;
  /** Where the MCP server is registered (JSON `mcpServers`, or Codex's config.toml). */
  mcp: string;
  mcpFormat: 'json' | 'toml';
  /** Codex's config.toml at user level (notify). */
  notify?: string;
  /** The folder a project-level file must stay in (no link out of the vault). */
  base?: string;
}

/** The files of `agent` at `scope` (`root`: the vault, for project scope). Honours CLAUDE_CONFIG_DIR and CODEX_HOME. */
export function agentFiles(agent: Agent, scope: Scope, root: string | null, env: NodeJS.ProcessEnv): AgentFiles {
  const home = userHome(env);
  if (scope === 'project') {
    if (!root) throw new MemError('project scope needs a vault');
    if (agent === 'claude') return { hooks: path.join(root, '.claude', 'settings.json'), mcp: path.join(root, '.mcp.json'), mcpFormat: 'json', base: root };
    if (agent === 'codex') return { hooks: path.join(root, '.codex', 'hooks.json'), mcp: path.join(root, '.codex', 'config.toml'), mcpFormat: 'toml', base: root };
    return { hooks: path.join(root, '.gemini', 'settings.json'), mcp: path.join(root, '.gemini', 'settings.json'), mcpFormat: 'json', base: root };
  }
  if (agent === 'claude') {
    const dir = env.CLAUDE_CONFIG_DIR || path.join(home, '.claude');
    // Claude Code keeps user-level MCP servers in ~/.claude.json (inside CLAUDE_CONFIG_DIR when set).
    return { hooks: path.join(dir, 'settings.json'), mcp: env.CLAUDE_CONFIG_DIR ? path.join(dir, '.claude.json') : path.join(home, '.claude.json'), mcpFormat: 'json' };
  }
  if (agent === 'codex') {
    const dir = env.CODEX_HOME || path.join(home, '.codex');
    return { hooks: path.join(dir, 'hooks.json'), mcp: path.join(dir, 'config.toml'), mcpFormat: 'toml', notify: path.join(dir, 'config.toml') };
  }
  return { hooks: path.join(home, '.gemini', 'settings.json'), mcp: path.join(home, '.gemini', 'settings.json'), mcpFormat: 'json' };
}

// ---- reading files safely --------------------------------------------------------------------

/** A settings file's text (BOM set aside), null when it does not exist. Refuses links and non-files. */
function readSettings(file: string, base?: string): { text: string; bom: boolean } | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw new MemError(`cannot read ${file}: ${(err as Error).message}`);
    st = undefined as unknown as fs.Stats;
  }
  if (base && !staysInside(file, base).inside) {
    throw new MemError(`refusing to edit ${file}: it leads out of the project through a symlink; nothing was changed`, { hint: 'replace the link with a real folder or file' });
  }
  if (!st) return null;
  if (st.isSymbolicLink()) throw new MemError(`refusing to edit ${file}: it is a symbolic link; nothing was changed`, { hint: 'mem does not write through links: edit the file it points to by hand, or replace the link with a copy' });
  if (!st.isFile()) throw new MemError(`refusing to edit ${file}: it is not a regular file; nothing was changed`);
  const buf = readRegularBytes(file, AGENT_FILE_LIMIT);
  if (isFailure(buf)) throw new MemError(`refusing to edit ${file}: ${buf.error}; nothing was changed`);
  let text = buf.toString('utf8');
  if (Buffer.compare(Buffer.from(text, 'utf8'), buf) !== 0) throw new MemError(`cannot edit ${file}: it is not UTF-8 text; nothing was changed`);
  const bom = text.startsWith('\uFEFF');
  if (bom) text = text.slice(1);
  return { text, bom };
}

/**
 * The text an install edits: a missing, empty or blank file starts as `{}` (followed by the
 * blank it held), and `fresh` says so: mem writes its first member out line by line there.
 */
function startText(text: string): { text: string; fresh: boolean } {
  return text.trim() === '' ? { text: `{}${text}`, fresh: true } : { text, fresh: false };
}

function parseSettings(file: string, text: string, agent: Agent): JsonDoc {
  if (text.trim() === '') text = '{}';
  try {
    const doc = parseJsonc(text, { comments: agent === 'gemini' });
    if (doc.root.kind !== 'object') throw new MemError('the top level is not an object');
    return doc;
  } catch (err) {
    if (!(err instanceof MemError)) throw err;
    throw new MemError(`cannot edit ${file}: ${agent === 'gemini' ? '' : 'invalid JSON: '}${err.message}; nothing was changed`, { hint: 'fix the file (the agent cannot read it either), then run this again' });
  }
}

function shapeError(file: string, what: string): MemError {
  return new MemError(`cannot edit ${file}: ${what}; nothing was changed`, { hint: 'fix the file by hand (see the agent\'s settings documentation), then run this again' });
}

// ---- hooks in a JSON file --------------------------------------------------------------------

interface Found {
  event: string;
  /** The `hooks` object, and its index among the root's members. */
  hooks: JsonNode;
  hooksIndex: number;
  evMember: JsonNode; // the event's array
  eventIndex: number;
  group: Extract<JsonNode, { kind: 'object' }>;
  groupIndex: number;
  handlers: JsonNode; // the group's hooks array
  handler: JsonNode;
  handlerIndex: number;
  command: string;
}

/** Every hook handler mem installed in `doc` (any event). Throws on shapes mem cannot read. */
function memHandlers(doc: JsonDoc, file: string): Found[] {
  const out: Found[] = [];
  const hooks = member(doc.root, 'hooks');
  if (!hooks) return out;
  if (hooks.value.kind !== 'object') throw shapeError(file, '"hooks" is not an object');
  const hooksIndex = (doc.root as Extract<JsonNode, { kind: 'object' }>).members.indexOf(hooks);
  hooks.value.members.forEach((ev, eventIndex) => {
    if (ev.value.kind !== 'array') throw shapeError(file, `hooks.${ev.key} is not a list`);
    ev.value.items.forEach((group, gi) => {
      if (group.kind !== 'object') throw shapeError(file, `an entry of hooks.${ev.key} is not an object`);
      const hs = member(group, 'hooks');
      if (!hs) return;
      if (hs.value.kind !== 'array') throw shapeError(file, `hooks.${ev.key}[${gi}].hooks is not a list`);
      hs.value.items.forEach((h, hi) => {
        const cmd = member(h, 'command');
        if (!cmd || cmd.value.kind !== 'string') return;
        const command = valueOf(doc, cmd.value) as string;
        if (parseHookCommand(command)) out.push({ event: ev.key, hooks: hooks.value, hooksIndex, evMember: ev.value, eventIndex, group, groupIndex: gi, handlers: hs.value, handler: h, handlerIndex: hi, command });
      });
    });
  });
  return out;
}

function handlerFor(agent: Agent, spec: EventSpec, command: string): Record<string, unknown> {
  if (agent === 'gemini') return { name: `mem-${spec.verb}`, type: 'command', command, timeout: spec.timeout };
  return { type: 'command', command, timeout: spec.timeout };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Install mem's handler for each of `specs` into the settings text; returns the new text and what happened per event. */
export function installHooksText(text: string, file: string, agent: Agent, specs: EventSpec[], command: (spec: EventSpec) => string): { text: string; events: { event: string; action: EditAction }[] } {
  const start = startText(text);
  text = start.text;
  let doc = parseSettings(file, text, agent);
  const events: { event: string; action: EditAction }[] = [];
  for (const spec of specs) {
    const want = handlerFor(agent, spec, command(spec));
    const mine = memHandlers(doc, file).filter((f) => f.event === spec.event && parseHookCommand(f.command)!.verb === spec.verb);
    let action: EditAction;
    if (mine.length > 0) {
      const cur = valueOf(doc, mine[0].handler) as Record<string, unknown>;
      const merged = { ...cur, ...want };
      if (same(cur, merged)) action = 'unchanged';
      else {
        text = replaceNode(doc, mine[0].handler, merged);
        action = 'updated';
      }
    } else {
      const group = { hooks: [want] };
      const hooks = member(doc.root, 'hooks');
      if (!hooks) text = addMember(doc, doc.root, 'hooks', { [spec.event]: [group] }, { fresh: start.fresh });
      else {
        const ev = member(hooks.value, spec.event);
        text = ev ? addItem(doc, ev.value, group) : addMember(doc, hooks.value, spec.event, [group]);
      }
      action = 'added';
    }
    doc = parseSettings(file, text, agent);
    events.push({ event: spec.event, action });
  }
  return { text, events };
}

/**
 * The steps down to what removing mem's handler `f` takes out: the group, when it holds nothing
 * but that handler (install writes every handler in a group of its own), otherwise the handler
 * alone. removePath takes the containers above it along only when mem created them.
 */
function stepsTo(doc: JsonDoc, f: Found): Step[] {
  const handlers = f.handlers as Extract<JsonNode, { kind: 'array' }>;
  if (f.group.members.length === 1 && handlers.items.length === 1) {
    return [{ container: doc.root, index: f.hooksIndex }, { container: f.hooks, index: f.eventIndex }, { container: f.evMember, index: f.groupIndex }];
  }
  return [{ container: handlers, index: f.handlerIndex }];
}

/**
 * Remove mem's hook handlers (every one, or those `only` picks) and each group, event list or
 * `hooks` object install created for them; one that was there before install stays, even
 * empty, with its bytes. Null when the file is left as install created it from nothing: it goes.
 */
export function uninstallHooksText(text: string, file: string, agent: Agent, only?: (event: string, verb: HookVerb) => boolean): { text: string | null; removed: string[] } {
  if (text.trim() === '') return { text, removed: [] };
  let doc = parseSettings(file, text, agent);
  const removed: string[] = [];
  for (;;) {
    const f = memHandlers(doc, file).find((x) => !only || only(x.event, parseHookCommand(x.command)!.verb));
    if (!f) break;
    removed.push(f.event);
    const next = removePath(doc, stepsTo(doc, f));
    if (next === null) return { text: null, removed: [...new Set(removed)] };
    text = next;
    doc = parseSettings(file, text, agent);
  }
  return { text, removed: [...new Set(removed)] };
}

// ---- MCP registration in a JSON file ---------------------------------------------------------

export function mcpEntry(launcher: Launcher, form: Form): { command: string; args: string[] } {
  const [command, ...args] = memArgv(launcher, form, ['mcp']);
  return { command, args };
}

function isMemMcp(v: unknown): boolean {
  return v !== null && typeof v === 'object' && parseMcpCommand((v as Record<string, unknown>).command, (v as Record<string, unknown>).args) !== null;
}

/** Set mem's MCP server in a JSON settings text (null: remove it; the text is null when the file then goes). */
export function editMcpJson(text: string, file: string, agent: Agent, want: { command: string; args: string[] }): { text: string; action: EditAction };
export function editMcpJson(text: string, file: string, agent: Agent, want: null): { text: string | null; action: EditAction };
export function editMcpJson(text: string, file: string, agent: Agent, want: { command: string; args: string[] } | null): { text: string | null; action: EditAction } {
  const start = want === null ? { text, fresh: false } : startText(text);
  text = start.text;
  const doc = parseSettings(file, text, agent);
  const servers = member(doc.root, 'mcpServers');
  if (servers && servers.value.kind !== 'object') throw shapeError(file, '"mcpServers" is not an object');
  const cur = servers ? member(servers.value, 'mem') : undefined;
  const curValue = cur ? valueOf(doc, cur.value) : undefined;
  if (cur && !isMemMcp(curValue)) {
    if (want === null) return { text, action: 'absent' };
    throw new MemError(`${file} already has an MCP server named "mem" that is not this mem's`, { hint: 'rename or remove mcpServers.mem, then run this again' });
  }
  if (want === null) {
    if (!cur || !servers) return { text, action: 'absent' };
    const obj = servers.value as Extract<JsonNode, { kind: 'object' }>;
    const root = doc.root as Extract<JsonNode, { kind: 'object' }>;
    return { text: removePath(doc, [{ container: root, index: root.members.indexOf(servers) }, { container: obj, index: obj.members.indexOf(cur) }]), action: 'removed' };
  }
  if (cur) {
    const merged = { ...(curValue as Record<string, unknown>), ...want };
    if (same(curValue, merged)) return { text, action: 'unchanged' };
    return { text: replaceNode(doc, cur.value, merged), action: 'updated' };
  }
  if (servers) return { text: addMember(doc, servers.value, 'mem', want), action: 'added' };
  return { text: addMember(doc, doc.root, 'mcpServers', { mem: want }, { fresh: start.fresh }), action: 'added' };
}

// ---- plans: every file edited in memory first, written at the end --------------------------

export interface Change {
  agent: Agent;
  scope: Scope;
  file: string;
  /** hooks: the hook entries; mcp: the MCP server; notify: Codex's notify program. */
  what: 'hooks' | 'mcp' | 'notify';
  action: EditAction;
  events?: { event: string; action: EditAction }[];
  command?: string;
}

class Plan {
  /** Per file: its text before (null: none), its text to be (null: to be deleted), its BOM. */
  private files = new Map<string, { before: string | null; text: string | null; bom: boolean }>();

  /** The file's text as planned so far; null when there is none (or it is to be deleted). */
  read(file: string, base?: string): string | null {
    const have = this.files.get(file);
    if (have) return have.text;
    const r = readSettings(file, base);
    this.files.set(file, { before: r?.text ?? null, text: r?.text ?? null, bom: r?.bom ?? false });
    return r?.text ?? null;
  }

  existed(file: string): boolean {
    return this.files.get(file)?.before !== null;
  }

  set(file: string, text: string | null): void {
    this.files.get(file)!.text = text;
  }

  write(): string[] {
    const written: string[] = [];
    for (const [file, f] of this.files) {
      if (f.text === f.before || (f.before === null && !f.text)) continue;
      // Checked again just before the write: a link put in place since is not followed, and a
      // file the agent rewrote meanwhile (Claude Code rewrites ~/.claude.json often) is not lost.
      const st = fs.lstatSync(file, { throwIfNoEntry: false });
      if (st && !st.isFile()) throw new MemError(`refusing to edit ${file}: it is not a regular file`);
      const now = st ? fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '') : null;
      if (now !== f.before) throw new MemError(`${file} changed while mem was editing it${written.length > 0 ? ` (already written: ${written.join(', ')})` : ''}`, { hint: 'run the command again (with the agent closed if it keeps rewriting the file)' });
      if (f.text === null) fs.unlinkSync(file);
      else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        writeFileAtomic(file, (f.bom ? '\uFEFF' : '') + f.text);
      }
      written.push(file);
    }
    return written;
  }
}

function withNewline(text: string, existed: boolean): string {
  // A file mem creates ends with a newline, as editors write them.
  return !existed && text !== '' && !text.endsWith('\n') ? `${text}\n` : text;
}

export interface InstallOptions {
  agents: Agent[];
  scope: Scope;
  /** The vault (project scope). */
  root: string | null;
  perPrompt: boolean;
  mcp: boolean;
  launcher: Launcher;
  env: NodeJS.ProcessEnv;
  /** Folders the agent may run in (the vault, the current folder): where a project enables mem's plugin. */
  projectDirs?: string[];
}

/**
 * Refuses to install hooks for an agent whose mem plugin is enabled: the plugin already runs
 * mem's hooks and MCP server, and both sets would fire for every event.
 */
async function refuseBesidePlugin(agents: Agent[], dirs: string[], env: NodeJS.ProcessEnv): Promise<void> {
  for (const agent of agents) {
    const st = await pluginState(agent, dirs, env);
    if (!st.enabled) continue;
    const what = agent === 'gemini' ? 'extension "mem" is enabled' : `plugin ${PLUGIN_ID} is enabled`;
    throw new MemError(`mem's ${agent} ${what} (${st.source}): it already runs mem's hooks and MCP server, and mem hooks install --${agent} would make every hook fire twice; nothing was changed`, {
      hint: `keep the plugin (nothing to install), or turn it off first: ${PLUGIN_OFF[agent]}`,
    });
  }
}

/** How the commands name mem: absolute paths at user level; `mem …` in project files when PATH's mem is this one (portable when committed). */
export function formFor(scope: Scope, launcher: Launcher, env: NodeJS.ProcessEnv): Form {
  return scope === 'project' && memOnPath(env) === launcher.js ? 'path' : 'absolute';
}

export async function installAgents(o: InstallOptions): Promise<{ changes: Change[]; form: Form; notes: string[] }> {
  const env = o.env;
  await refuseBesidePlugin(o.agents, o.projectDirs ?? (o.root ? [o.root] : []), env);
  const form = formFor(o.scope, o.launcher, env);
  const plan = new Plan();
  const changes: Change[] = [];
  const notes: string[] = [];
  for (const agent of o.agents) {
    const files = agentFiles(agent, o.scope, o.root, env);
    const specs = EVENTS[agent].filter((s) => !s.perPrompt || o.perPrompt);
    const text = plan.read(files.hooks, files.base) ?? '';
    const r = installHooksText(text, files.hooks, agent, specs, (s) => hookCommand(o.launcher, form, s.verb, agent));
    plan.set(files.hooks, withNewline(r.text, plan.existed(files.hooks)));
    const action: EditAction = !plan.existed(files.hooks) ? 'created' : r.events.every((e) => e.action === 'unchanged') ? 'unchanged' : r.events.some((e) => e.action === 'updated') ? 'updated' : 'added';
    changes.push({ agent, scope: o.scope, file: files.hooks, what: 'hooks', action, events: r.events, command: hookCommand(o.launcher, form, 'context', agent) });
    if (agent === 'codex' && o.scope === 'user' && files.notify) {
      const parse = await tomlParser();
      const want = memArgv(o.launcher, 'absolute', ['extract', '--hook', 'codex']);
      const t = plan.read(files.notify) ?? '';
      const n = editNotify(parse, t, files.notify, want, isMemNotify);
      plan.set(files.notify, withNewline(n.text, plan.existed(files.notify)));
      changes.push({ agent, scope: o.scope, file: files.notify, what: 'notify', action: n.action === 'added' && !plan.existed(files.notify) ? 'created' : n.action, command: want.join(' ') });
    }
    if (o.mcp) {
      const want = mcpEntry(o.launcher, form);
      const t = plan.read(files.mcp, files.base) ?? '';
      const existed = plan.existed(files.mcp);
      const m = files.mcpFormat === 'toml' ? editMcpTable(await tomlParser(), t, files.mcp, want, isMemMcp) : editMcpJson(t, files.mcp, agent, want);
      plan.set(files.mcp, withNewline(m.text, existed));
      changes.push({ agent, scope: o.scope, file: files.mcp, what: 'mcp', action: m.action === 'added' && !existed ? 'created' : m.action, command: [want.command, ...want.args].join(' ') });
    }
    notes.push(...agentNotes(agent, o.scope, plan.read(files.hooks) ?? ''));
    if (o.mcp && agent === 'claude' && o.scope === 'project') notes.push('Claude Code asks once before it starts an MCP server from a project\'s .mcp.json: approve "mem" there');
  }
  plan.write();
  return { changes, form, notes };
}

function isMemNotify(v: unknown): boolean {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string') || v.length === 0) return false;
  const p = parseHookCommand((v as string[]).map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' '));
  return p !== null && p.verb === 'extract';
}

function geminiHooksOff(settings: string): boolean {
  try {
    const doc = parseJsonc(settings, { comments: true });
    const cfg = member(doc.root, 'hooksConfig');
    const on = cfg ? member(cfg.value, 'enabled') : undefined;
    return on !== undefined && valueOf(doc, on.value) === false;
  } catch {
    return false;
  }
}

/** What the user must do for the hooks to run (said after an install). */
function agentNotes(agent: Agent, scope: Scope, settings: string): string[] {
  const notes: string[] = [];
  if (agent === 'codex') {
    notes.push('Codex runs a new or changed hook only after you trust it: start codex, open /hooks and trust mem\'s hooks (or run codex once with --dangerously-bypass-hook-trust in automation)');
    if (scope === 'project') notes.push('Codex reads a project\'s .codex/ (hooks.json, config.toml) only when the project is trusted');
  }
  if (agent === 'gemini') {
    if (geminiHooksOff(settings)) notes.push('Gemini CLI hooks are turned off in this file (hooksConfig.enabled is false): set it to true for mem\'s hooks to run');
    if (scope === 'project') notes.push('Gemini CLI reads a project\'s .gemini/settings.json only in a trusted folder');
  }
  return notes;
}

export interface UninstallOptions {
  agents: Agent[];
  scope: Scope;
  root: string | null;
  env: NodeJS.ProcessEnv;
  /** Only these parts (what install's --mcp and --per-prompt add); everything of mem's when neither is set. */
  only?: { mcp?: boolean; perPrompt?: boolean };
}

export async function uninstallAgents(o: UninstallOptions): Promise<Change[]> {
  const env = o.env;
  const all = !o.only?.mcp && !o.only?.perPrompt;
  const plan = new Plan();
  const changes: Change[] = [];
  for (const agent of o.agents) {
    const files = agentFiles(agent, o.scope, o.root, env);
    // Undone in the reverse order of install's (MCP server, notify, hooks): a file install created
    // holding several of them then comes back to the text it was created from, and goes.
    let mcp: Change | null = null;
    if (all || o.only?.mcp) {
      const t = plan.read(files.mcp, files.base);
      if (t !== null) {
        const m = files.mcpFormat === 'toml' ? editMcpTable(await tomlParser(), t, files.mcp, null, isMemMcp) : editMcpJson(t, files.mcp, agent, null);
        plan.set(files.mcp, m.text);
        if (m.action !== 'absent') mcp = { agent, scope: o.scope, file: files.mcp, what: 'mcp', action: m.action };
      }
    }
    let notify: Change | null = null;
    if (all && agent === 'codex' && files.notify) {
      const t = plan.read(files.notify);
      if (t !== null) {
        const n = editNotify(await tomlParser(), t, files.notify, null, isMemNotify);
        plan.set(files.notify, n.text);
        notify = { agent, scope: o.scope, file: files.notify, what: 'notify', action: n.action };
      }
    }
    let hooks: Change | null = null;
    if (all || o.only?.perPrompt) {
      const only = all ? undefined : (event: string, verb: HookVerb) => EVENTS[agent].some((s) => s.perPrompt && s.event === event && s.verb === verb);
      const text = plan.read(files.hooks, files.base);
      if (text !== null) {
        const r = uninstallHooksText(text, files.hooks, agent, only);
        plan.set(files.hooks, r.text);
        hooks = { agent, scope: o.scope, file: files.hooks, what: 'hooks', action: r.removed.length > 0 ? 'removed' : 'absent', events: r.removed.map((event) => ({ event, action: 'removed' })) };
      } else hooks = { agent, scope: o.scope, file: files.hooks, what: 'hooks', action: 'absent' };
    }
    changes.push(...[hooks, notify, mcp].filter((c): c is Change => c !== null));
  }
  plan.write();
  return changes;
}

// ---- status ----------------------------------------------------------------------------------

export type EntryState = 'installed' | 'outdated' | 'missing' | 'off' | 'foreign';

export interface EventStatus {
  event: string;
  state: EntryState;
  command: string | null;
  points_here: boolean;
}

export interface AgentStatus {
  agent: Agent;
  scope: Scope;
  file: string;
  /** installed: every event (per-prompt optional) has this mem's entry; partial: some; outdated: an entry runs another mem; missing: none; error: the file cannot be read. */
  state: 'installed' | 'partial' | 'outdated' | 'missing' | 'error';
  error?: string;
  events: EventStatus[];
  mcp: { file: string; state: EntryState | 'error'; runs: string | null; points_here: boolean };
  notify?: { file: string; state: EntryState | 'error'; runs: string | null; points_here: boolean };
}

function readQuiet(file: string, base?: string): { text: string | null; error?: string } {
  try {
    return { text: readSettings(file, base)?.text ?? null };
  } catch (err) {
    return { text: null, error: (err as Error).message };
  }
}

export async function agentStatus(agent: Agent, scope: Scope, root: string | null, launcher: Launcher, env: NodeJS.ProcessEnv): Promise<AgentStatus> {
  const files = agentFiles(agent, scope, root, env);
  const pathMem = memOnPath(env);
  const form = formFor(scope, launcher, env);
  const h = readQuiet(files.hooks, files.base);
  let error = h.error;
  let found: Found[] = [];
  if (h.text !== null) {
    try {
      found = memHandlers(parseSettings(files.hooks, h.text, agent), files.hooks);
    } catch (err) {
      error = (err as Error).message;
    }
  }
  const events = EVENTS[agent].map((spec): EventStatus => {
    const f = found.find((x) => x.event === spec.event && parseHookCommand(x.command)!.verb === spec.verb);
    if (!f) return { event: spec.event, state: spec.perPrompt ? 'off' : 'missing', command: null, points_here: false };
    const p = parseHookCommand(f.command)!;
    const here = pointsHere(p.program, launcher, pathMem);
    const exact = f.command === hookCommand(launcher, form, spec.verb, agent) || (here && p.program.form === 'path');
    return { event: spec.event, state: here && exact ? 'installed' : 'outdated', command: f.command, points_here: here };
  });
  const required = events.filter((e, i) => !EVENTS[agent][i].perPrompt);
  const state: AgentStatus['state'] = error ? 'error'
    : events.some((e) => e.state === 'outdated') ? 'outdated'
    : required.every((e) => e.state === 'installed') ? 'installed'
    : events.some((e) => e.state === 'installed') ? 'partial' : 'missing';
  const mcp = await mcpStatus(files, agent, launcher, pathMem);
  const out: AgentStatus = { agent, scope, file: files.hooks, state, ...(error ? { error } : {}), events, mcp };
  if (agent === 'codex' && files.notify) out.notify = await notifyStatus(files.notify, launcher, pathMem);
  return out;
}

async function mcpStatus(files: AgentFiles, agent: Agent, launcher: Launcher, pathMem: string | null): Promise<AgentStatus['mcp']> {
  const r = readQuiet(files.mcp, files.base);
  const none = { file: files.mcp, runs: null, points_here: false };
  if (r.error) return { ...none, state: 'error' };
  if (r.text === null || r.text.trim() === '') return { ...none, state: 'missing' };
  let entry: unknown;
  try {
    if (files.mcpFormat === 'toml') {
      const t = parseToml(await tomlParser(), r.text, files.mcp);
      entry = (t.mcp_servers as Record<string, unknown> | undefined)?.mem;
    } else {
      const doc = parseSettings(files.mcp, r.text, agent);
      const s = member(doc.root, 'mcpServers');
      const m = s ? member(s.value, 'mem') : undefined;
      entry = m ? valueOf(doc, m.value) : undefined;
    }
  } catch {
    return { ...none, state: 'error' };
  }
  if (entry === undefined) return { ...none, state: 'missing' };
  const e = entry as Record<string, unknown>;
  const p = parseMcpCommand(e.command, e.args);
  if (!p) return { ...none, state: 'foreign' };
  const here = pointsHere(p, launcher, pathMem);
  return { file: files.mcp, state: here ? 'installed' : 'outdated', runs: describeProgram(p), points_here: here };
}

async function notifyStatus(file: string, launcher: Launcher, pathMem: string | null): Promise<NonNullable<AgentStatus['notify']>> {
  const r = readQuiet(file);
  const none = { file, runs: null, points_here: false };
  if (r.error) return { ...none, state: 'error' };
  if (r.text === null) return { ...none, state: 'missing' };
  let v: unknown;
  try {
    v = parseToml(await tomlParser(), r.text, file).notify;
  } catch {
    return { ...none, state: 'error' };
  }
  if (v === undefined) return { ...none, state: 'missing' };
  if (!isMemNotify(v)) return { ...none, state: 'foreign', runs: JSON.stringify(v) };
  const p = parseHookCommand((v as string[]).map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' '))!;
  const here = pointsHere(p.program, launcher, pathMem);
  return { file, state: here ? 'installed' : 'outdated', runs: describeProgram(p.program), points_here: here };
}
