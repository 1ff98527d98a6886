// mem's agent plugins (Claude Code plugin, Codex plugin, Gemini CLI extension, shipped in the
// repository's plugins/ and root manifests): whether one is enabled for an agent, read from the
// agent's own configuration. The plugin's hooks and `mem hooks install`'s would otherwise both
// run for every event; this is what lets install refuse, doctor warn, and the settings hook
// stand aside at run time.

import fs from 'node:fs';
import path from 'node:path';
import { userHome } from '../../vault/vault.js';
import type { Agent } from './command.js';

/** The plugin's id: `<plugin>@<marketplace>` (Claude Code, Codex); the extension's name (Gemini CLI). */
export const PLUGIN_NAME = 'mem';
export const MARKETPLACE_NAME = 'mem-vault';
export const PLUGIN_ID = `${PLUGIN_NAME}@${MARKETPLACE_NAME}`;
/** Set by the plugin's hook wrapper (hooks/run.sh): the hook run comes from the plugin. */
export const VIA_ENV = 'MEM_HOOK_VIA';

/** The events the plugin's hooks handle per agent (the same as mem hooks install's). */
export const PLUGIN_EVENTS: Record<Agent, readonly string[]> = {
  claude: ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd'],
  codex: ['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd'],
  gemini: ['SessionStart', 'BeforeAgent', 'PreCompress', 'SessionEnd'],
};

export interface PluginState {
  enabled: boolean;
  /** The file that says so (or the extension's folder), for messages. */
  source: string | null;
}

const OFF: PluginState = { enabled: false, source: null };

/** A small config file's text, or null (missing, unreadable, not a regular file, over 4 MB). */
function readSmall(file: string): string | null {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > 4 << 20) return null;
    return fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

function jsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Claude Code: `enabledPlugins["mem@mem-vault"]` in the settings files, the more specific file
 * winning (a project's .claude/settings.local.json over its settings.json over the user's).
 * https://docs.claude.com/en/docs/claude-code/settings#plugin-settings
 */
function claudeState(projectDirs: string[], env: NodeJS.ProcessEnv): PluginState {
  const userDir = env.CLAUDE_CONFIG_DIR || path.join(userHome(env), '.claude');
  const files = [path.join(userDir, 'settings.json')];
  for (const dir of projectDirs) files.push(path.join(dir, '.claude', 'settings.json'), path.join(dir, '.claude', 'settings.local.json'));
  let state = OFF;
  for (const file of files) {
    const enabled = jsonObject(readSmall(file))?.enabledPlugins;
    if (enabled === null || typeof enabled !== 'object' || Array.isArray(enabled)) continue;
    const v = (enabled as Record<string, unknown>)[PLUGIN_ID];
    if (typeof v === 'boolean') state = { enabled: v, source: file };
  }
  return state;
}

/**
 * Codex: an installed plugin is a `[plugins."mem@mem-vault"]` table in CODEX_HOME/config.toml,
 * on unless it says `enabled = false`. https://developers.openai.com/codex/plugins
 */
async function codexState(env: NodeJS.ProcessEnv): Promise<PluginState> {
  const file = path.join(env.CODEX_HOME || path.join(userHome(env), '.codex'), 'config.toml');
  const text = readSmall(file);
  // Most hooks run where no plugin is installed: the TOML parser is loaded only when it may be.
  if (text === null || !text.includes(PLUGIN_ID)) return OFF;
  try {
    const { parse } = await import('smol-toml');
    const plugins = (parse(text) as Record<string, unknown>).plugins as Record<string, unknown> | undefined;
    const entry = plugins?.[PLUGIN_ID] as Record<string, unknown> | undefined;
    if (!entry || typeof entry !== 'object') return OFF;
    return { enabled: entry.enabled !== false, source: file };
  } catch {
    return OFF;
  }
}

/** Gemini CLI's path rule: leading and trailing slash, forward slashes. */
function slashed(p: string): string {
  let s = p.replace(/\\/g, '/');
  if (!s.startsWith('/')) s = `/${s}`;
  return s.endsWith('/') ? s : `${s}/`;
}

/**
 * Gemini CLI: the extension installed as ~/.gemini/extensions/mem/, on unless the last rule of
 * extension-enablement.json that matches the folder disables it (`!/path/`, `*` for subfolders).
 * https://geminicli.com/docs/extensions/reference/
 */
function geminiState(cwd: string | null, env: NodeJS.ProcessEnv): PluginState {
  const dir = path.join(userHome(env), '.gemini', 'extensions');
  const manifest = path.join(dir, PLUGIN_NAME, 'gemini-extension.json');
  if (jsonObject(readSmall(manifest))?.name !== PLUGIN_NAME) return OFF;
  let enabled = true;
  const rules = (jsonObject(readSmall(path.join(dir, 'extension-enablement.json')))?.[PLUGIN_NAME] as { overrides?: unknown } | undefined)?.overrides;
  if (cwd !== null && Array.isArray(rules)) {
    const here = slashed(cwd);
    for (const rule of rules) {
      if (typeof rule !== 'string') continue;
      const off = rule.startsWith('!');
      let base = off ? rule.slice(1) : rule;
      const sub = base.endsWith('*');
      if (sub) base = base.slice(0, -1);
      if (here === base || (sub && here.startsWith(base))) enabled = !off;
    }
  }
  return { enabled, source: path.dirname(manifest) };
}

/**
 * Whether mem's plugin is enabled for `agent`, as the agent would see it in `projectDirs` (the
 * session's folder and the vault; the first is the folder Gemini CLI's rules are matched on).
 */
export async function pluginState(agent: Agent, projectDirs: string[], env: NodeJS.ProcessEnv): Promise<PluginState> {
  const dirs = [...new Set(projectDirs.map((d) => path.resolve(d)))];
  if (agent === 'claude') return claudeState(dirs, env);
  if (agent === 'codex') return codexState(env);
  return geminiState(dirs[0] ?? null, env);
}

/** How to switch the plugin off in each agent (said when both it and mem hooks install are active). */
export const PLUGIN_OFF: Record<Agent, string> = {
  claude: `/plugin disable ${PLUGIN_ID} in Claude Code`,
  codex: `codex plugin remove ${PLUGIN_ID}`,
  gemini: `gemini extensions disable ${PLUGIN_NAME}`,
};
