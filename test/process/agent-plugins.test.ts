// The hooks and MCP servers of mem's agent plugins, run as the agents run them: each manifest's
// command through `sh -c`, with the plugin's path put in as the agent does (Claude Code
// substitutes ${CLAUDE_PLUGIN_ROOT} and sets it; Codex sets PLUGIN_ROOT and CLAUDE_PLUGIN_ROOT
// in the hook's environment; Gemini CLI substitutes ${extensionPath} and ${/}), with the mem on
// PATH — or none. And with both the plugin and `mem hooks install`'s entries, one answer only.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JS, NODE, run } from '../fixtures/agent-install.js';
import { cleanup, entry, HOOK_TIME, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

type Agent = 'claude' | 'codex' | 'gemini';
const REPO = path.resolve(__dirname, '..', '..');
const ROOT: Record<Agent, string> = { claude: path.join(REPO, 'plugins', 'claude'), codex: path.join(REPO, 'plugins', 'codex'), gemini: REPO };
const HOOKS: Record<Agent, string> = { claude: 'plugins/claude/hooks/hooks.json', codex: 'plugins/codex/hooks/hooks.json', gemini: 'hooks/hooks.json' };
const PROMPT: Record<Agent, string> = { claude: 'UserPromptSubmit', codex: 'UserPromptSubmit', gemini: 'BeforeAgent' };
const EXTRACT: Record<Agent, string> = { claude: 'SessionEnd', codex: 'PreCompact', gemini: 'PreCompress' };

/** A string as the agent hands it to the shell: its plugin-path variables put in. */
function substitute(agent: Agent, s: string): string {
  if (agent === 'claude') return s.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT.claude);
  if (agent === 'gemini') return s.replaceAll('${extensionPath}', ROOT.gemini).replaceAll('${/}', path.sep);
  return s; // Codex only sets variables in the environment
}

function agentEnv(agent: Agent): Record<string, string> {
  if (agent === 'claude') return { CLAUDE_PLUGIN_ROOT: ROOT.claude };
  if (agent === 'codex') return { PLUGIN_ROOT: ROOT.codex, CLAUDE_PLUGIN_ROOT: ROOT.codex };
  return {};
}

function pluginCommand(agent: Agent, event: string): string {
  const hooks = JSON.parse(fs.readFileSync(path.join(REPO, HOOKS[agent]), 'utf8')).hooks;
  return substitute(agent, hooks[event][0].hooks[0].command);
}

/** A folder holding only a `mem` that runs the built CLI (as npm's global bin would). */
let binDir: string | null = null;
function memBin(): string {
  if (binDir) return binDir;
  binDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mem-bin-'));
  fs.writeFileSync(path.join(binDir, 'mem'), `#!/bin/sh\nexec '${NODE}' '${JS}' "$@"\n`, { mode: 0o755 });
  return binDir;
}
afterAll(() => {
  if (binDir) fs.rmSync(binDir, { recursive: true, force: true });
});
/** The system's own folders (sh is there, mem is not): PATH for "mem is not installed". */
const NO_MEM = ['/usr/bin', '/bin'];

function sh(args: string[], v: TempVault, input: string, pathDirs: string[], extra: Record<string, string> = {}) {
  // No `mem` and no node on PATH unless put there: /bin/sh finds run.sh's few builtins itself.
  const env = { HOME: v.home, MEM_HOME: v.home, PATH: pathDirs.join(path.delimiter), NO_COLOR: '1', ...HOOK_TIME, ...extra };
  return spawnSync('/bin/sh', args, { cwd: v.root, input, encoding: 'utf8', env });
}

const start = (v: TempVault, session: string) => JSON.stringify({ session_id: session, cwd: v.root, hook_event_name: 'SessionStart', source: 'startup' });

function vaultWithLearning(): TempVault {
  const v = tempVault();
  v.write('MEMORY.md', entry('db-migrate', 'Run npm run db:migrate before the API tests, or they fail on a fresh database', { type: 'corrective' }));
  return v;
}

describe.each(['claude', 'codex', 'gemini'] as const)('%s plugin', (agent) => {
  it('its hook commands, run by sh as the agent runs them, answer with the agent\'s JSON', () => {
    const v = vaultWithLearning();
    const bin = memBin();
    const go = (event: string, payload: string) => sh(['-c', pluginCommand(agent, event)], v, payload, [bin, '/usr/bin', '/bin'], agentEnv(agent));
    const s = go('SessionStart', start(v, 's1'));
    expect(s.status, s.stderr).toBe(0);
    const out = JSON.parse(s.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('Run npm run db:migrate before the API tests');
    const ask = (prompt: string, session: string) => go(PROMPT[agent], JSON.stringify({ session_id: session, cwd: v.root, hook_event_name: PROMPT[agent], prompt }));
    const relevant = ask('the API tests fail on a fresh database, why?', 's2');
    expect(relevant.status, relevant.stderr).toBe(0);
    expect(JSON.parse(relevant.stdout).hookSpecificOutput).toMatchObject({ hookEventName: PROMPT[agent] });
    expect(ask('write a haiku about autumn leaves falling', 's3').stdout).toBe('');
    const x = go(EXTRACT[agent], JSON.stringify({ session_id: 's4', transcript_path: path.join(v.root, 'none.jsonl'), cwd: v.root, hook_event_name: EXTRACT[agent] }));
    expect(x.status, x.stderr).toBe(0);
    expect(x.stdout).toBe('');
  });

  it('without mem on PATH: every hook exits 0 with nothing on stdout and one line saying how to install it', () => {
    const v = vaultWithLearning();
    expect(NO_MEM.some((d) => fs.existsSync(path.join(d, 'mem')))).toBe(false);
    for (const event of [...new Set(['SessionStart', PROMPT[agent], EXTRACT[agent], 'SessionEnd'])]) {
      const r = sh(['-c', pluginCommand(agent, event)], v, start(v, 's1'), NO_MEM, agentEnv(agent));
      expect(r.status, event).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('mem: the mem command is not on PATH; install it with: npm install -g mem-vault\n');
    }
  });

  it('its MCP server runs mem mcp, or fails with that line when mem is missing', () => {
    const v = tempVault();
    const server = agent === 'claude' ? JSON.parse(fs.readFileSync(path.join(ROOT.claude, '.claude-plugin', 'plugin.json'), 'utf8')).mcpServers.mem
      : agent === 'codex' ? JSON.parse(fs.readFileSync(path.join(ROOT.codex, '.mcp.json'), 'utf8')).mcpServers.mem
      : JSON.parse(fs.readFileSync(path.join(REPO, 'gemini-extension.json'), 'utf8')).mcpServers.mem;
    expect(server.command).toBe('sh');
    const args = (server.args as string[]).map((a) => substitute(agent, a));
    const missing = sh(args, v, '', NO_MEM, agentEnv(agent));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('mem: the mem command is not on PATH; install it with: npm install -g mem-vault\n');
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } });
    const r = sh(args, v, `${init}\n`, [memBin(), '/usr/bin', '/bin'], agentEnv(agent));
    expect(r.stdout, r.stderr).toContain('"serverInfo"');
  });
});

describe('the plugin and mem hooks install together: one answer per event', () => {
  /** Turns mem's plugin on for `agent` as the agent records it. */
  function enablePlugin(agent: Agent, v: TempVault) {
    if (agent === 'claude') {
      fs.mkdirSync(path.join(v.home, '.claude'), { recursive: true });
      fs.writeFileSync(path.join(v.home, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'mem@mem-vault': true } }));
    } else if (agent === 'codex') {
      fs.mkdirSync(path.join(v.home, '.codex'), { recursive: true });
      fs.appendFileSync(path.join(v.home, '.codex', 'config.toml'), '\n[plugins."mem@mem-vault"]\nenabled = true\n');
    } else {
      fs.mkdirSync(path.join(v.home, '.gemini', 'extensions', 'mem'), { recursive: true });
      fs.writeFileSync(path.join(v.home, '.gemini', 'extensions', 'mem', 'gemini-extension.json'), JSON.stringify({ name: 'mem', version: '0.1.0' }));
    }
  }
  const SETTINGS: Record<Agent, string> = { claude: '.claude/settings.json', codex: '.codex/hooks.json', gemini: '.gemini/settings.json' };

  it.each(['claude', 'codex', 'gemini'] as const)('%s: the settings entry stands aside while the plugin is enabled; the plugin answers', async (agent) => {
    const v = vaultWithLearning();
    expect((await run(v, ['hooks', 'install', `--${agent}`])).status).toBe(0);
    const installed = JSON.parse(fs.readFileSync(v.path(SETTINGS[agent]), 'utf8')).hooks.SessionStart[0].hooks[0].command as string;
    const bin = memBin();
    const dirs = [bin, path.dirname(NODE), '/usr/bin', '/bin'];
    // Before the plugin: the settings entry answers.
    expect(JSON.parse(sh(['-c', installed], v, start(v, 's1'), dirs).stdout).hookSpecificOutput.hookEventName).toBe('SessionStart');
    enablePlugin(agent, v);
    const settingsRun = sh(['-c', installed], v, start(v, 's2'), dirs);
    expect(settingsRun.status).toBe(0);
    expect(settingsRun.stdout).toBe('');
    expect(v.read('.mem/logs/hooks.log')).toMatch(/mem's plugin is enabled .* stands aside/);
    const pluginRun = sh(['-c', pluginCommand(agent, 'SessionStart')], v, start(v, 's3'), dirs, agentEnv(agent));
    expect(pluginRun.status, pluginRun.stderr).toBe(0);
    expect(JSON.parse(pluginRun.stdout).hookSpecificOutput.additionalContext).toContain('db:migrate');
  });
});
