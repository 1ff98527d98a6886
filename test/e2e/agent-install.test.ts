// `mem hooks install|uninstall|status --claude|--codex|--gemini` against real settings files in a
// temporary HOME and project: merged with what is there, byte-identical on a second install, given
// back byte for byte on uninstall, refused (nothing written) when a file cannot be edited safely.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cmd, exists, JS, NODE, read, run } from '../fixtures/agent-install.js';
import { BIN, cleanup, tempDir, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

const CLAUDE_BEFORE = `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(npm test)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "echo pre" }]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "./scripts/bye.sh"
          }
        ]
      }
    ]
  },
  "zeta": 1
}
`;

function group(command: string, timeout: number, indent: string, extra = ''): string {
  const i = (n: number) => indent + '  '.repeat(n);
  return `{\n${i(1)}"hooks": [\n${i(2)}{\n${extra ? `${i(3)}${extra},\n` : ''}${i(3)}"type": "command",\n${i(3)}"command": ${JSON.stringify(command)},\n${i(3)}"timeout": ${timeout}\n${i(2)}}\n${i(1)}]\n${indent}}`;
}

describe('Claude Code', () => {
  it('merges into the project settings: exact file, idempotent, uninstall gives the original bytes', async () => {
    const v = tempVault();
    const file = v.write('.claude/settings.json', CLAUDE_BEFORE);
    const r = await run(v, ['hooks', 'install', '--claude']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^added\s+\.claude\/settings\.json \(claude hooks: SessionStart, PreCompact, SessionEnd\)$/m);
    // The commands name this machine's mem (no mem on PATH): said on stderr.
    expect(r.stderr).toMatch(/mem: warning: the project settings name this machine's mem/);
    const expected = CLAUDE_BEFORE.replace(
      `            "command": "./scripts/bye.sh"
          }
        ]
      }
    ]
  },`,
      `            "command": "./scripts/bye.sh"
          }
        ]
      },
      ${group(cmd('extract', 'claude'), 10, '      ')}
    ],
    "SessionStart": [
      ${group(cmd('context', 'claude'), 10, '      ')}
    ],
    "PreCompact": [
      ${group(cmd('extract', 'claude'), 10, '      ')}
    ]
  },`,
    );
    expect(read(file)).toBe(expected);
    const again = await run(v, ['hooks', 'install', '--claude', '--json']);
    expect(again.status).toBe(0);
    expect(again.json().agents.changes[0]).toMatchObject({ agent: 'claude', scope: 'project', what: 'hooks', action: 'unchanged' });
    expect(read(file)).toBe(expected);
    const u = await run(v, ['hooks', 'uninstall', '--claude']);
    expect(u.status, u.stderr).toBe(0);
    expect(u.stdout).toMatch(/^removed\s+\.claude\/settings\.json/m);
    expect(read(file)).toBe(CLAUDE_BEFORE);
    // Nothing left to remove: the file is not touched again.
    const mtime = fs.statSync(file).mtimeMs;
    expect((await run(v, ['hooks', 'uninstall', '--claude'])).stdout).toMatch(/^absent/m);
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
  });

  it('keeps tabs, CRLF and a BOM; creates a missing file with a trailing newline', async () => {
    const v = tempVault();
    const before = '\uFEFF{\r\n\t"a": [1, 2],\r\n\t"b": {}\r\n}\r\n';
    const file = v.write('.claude/settings.json', before);
    expect((await run(v, ['hooks', 'install', '--claude', '--per-prompt'])).status).toBe(0);
    const after = read(file);
    expect(after.startsWith('\uFEFF{\r\n\t"a": [1, 2],\r\n\t"b": {},\r\n\t"hooks": {\r\n\t\t"SessionStart": [\r\n\t\t\t{\r\n\t\t\t\t"hooks": [')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toMatch(/\n/);
    expect(after).not.toMatch(/^ /m);
    expect(after.endsWith('}\r\n')).toBe(true);
    expect(JSON.parse(after.slice(1)).hooks.UserPromptSubmit[0].hooks[0]).toEqual({ type: 'command', command: cmd('context', 'claude'), timeout: 5 });
    await run(v, ['hooks', 'uninstall', '--claude']);
    expect(read(file)).toBe(before);

    const w = tempVault();
    expect((await run(w, ['hooks', 'install', '--claude'])).stdout).toMatch(/^created\s+\.claude\/settings\.json/m);
    const made = read(w.path('.claude/settings.json'));
    expect(made.endsWith('}\n')).toBe(true);
    expect(Object.keys(JSON.parse(made).hooks)).toEqual(['SessionStart', 'PreCompact', 'SessionEnd']);
  });

  it('user level honours CLAUDE_CONFIG_DIR; --mcp writes the user file keeping its other keys, and .mcp.json for a project', async () => {
    const v = tempVault();
    const dir = path.join(v.home, 'claude-config');
    fs.mkdirSync(dir);
    const userJson = '{\n  "numStartups": 3,\n  "projects": {\n    "/x": {}\n  }\n}\n';
    fs.writeFileSync(path.join(dir, '.claude.json'), userJson);
    const outside = tempDir();
    const r = await run(v, ['hooks', 'install', '--claude', '--user', '--mcp', '--per-prompt'], { CLAUDE_CONFIG_DIR: dir }, outside);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning/);
    const s = JSON.parse(read(path.join(dir, 'settings.json')));
    expect(Object.keys(s.hooks)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreCompact', 'SessionEnd']);
    expect(read(path.join(dir, '.claude.json'))).toBe(`{\n  "numStartups": 3,\n  "projects": {\n    "/x": {}\n  },\n  "mcpServers": {\n    "mem": {\n      "command": ${JSON.stringify(NODE)},\n      "args": [\n        ${JSON.stringify(JS)},\n        "mcp"\n      ]\n    }\n  }\n}\n`);
    expect(exists(path.join(v.home, '.claude'))).toBe(false);
    expect(exists(path.join(v.home, '.claude.json'))).toBe(false);
    const st = (await run(v, ['hooks', 'status', '--claude', '--json'], { CLAUDE_CONFIG_DIR: dir })).json();
    const user = st.agents.find((a: { scope: string }) => a.scope === 'user');
    expect(user).toMatchObject({ agent: 'claude', state: 'installed', mcp: { state: 'installed', points_here: true } });
    expect(user.events.map((e: { event: string; state: string }) => `${e.event}:${e.state}`)).toEqual(['SessionStart:installed', 'UserPromptSubmit:installed', 'PreCompact:installed', 'SessionEnd:installed']);
    expect((await run(v, ['hooks', 'uninstall', '--claude', '--user'], { CLAUDE_CONFIG_DIR: dir }, outside)).status).toBe(0);
    expect(read(path.join(dir, '.claude.json'))).toBe(userJson);

    // Without CLAUDE_CONFIG_DIR: ~/.claude/settings.json and ~/.claude.json; project: .mcp.json.
    expect((await run(v, ['hooks', 'install', '--claude', '--user', '--mcp'])).status).toBe(0);
    expect(JSON.parse(read(path.join(v.home, '.claude.json'))).mcpServers.mem).toEqual({ command: NODE, args: [JS, 'mcp'] });
    expect(JSON.parse(read(path.join(v.home, '.claude', 'settings.json'))).hooks.SessionStart[0].hooks[0].command).toBe(cmd('context', 'claude'));
    v.write('.mcp.json', '{"mcpServers": {"other": {"command": "x"}}}');
    expect((await run(v, ['hooks', 'install', '--claude', '--mcp'])).status).toBe(0);
    expect(read(v.path('.mcp.json'))).toBe(`{"mcpServers": {"other": {"command": "x"}, "mem": {"command": ${JSON.stringify(NODE)}, "args": [${JSON.stringify(JS)}, "mcp"]}}}`);
    await run(v, ['hooks', 'uninstall', '--claude']);
    expect(read(v.path('.mcp.json'))).toBe('{"mcpServers": {"other": {"command": "x"}}}');
  });

  it('updates an older mem\'s entry in place (no second entry); status and doctor say it runs another mem', async () => {
    const v = tempVault();
    const old = `'/opt/old node/bin/node' /opt/old/lib/node_modules/mem/bin/mem.js extract --hook claude`;
    const before = `{\n  "hooks": {\n    "SessionEnd": [\n      {\n        "hooks": [\n          { "type": "command", "command": "./bye.sh" },\n          { "type": "command", "command": ${JSON.stringify(old)} }\n        ]\n      }\n    ]\n  }\n}\n`;
    const file = v.write('.claude/settings.json', before);
    const st = (await run(v, ['hooks', 'status', '--json'])).json();
    const proj = st.agents.find((a: { agent: string; scope: string }) => a.agent === 'claude' && a.scope === 'project');
    expect(proj.state).toBe('outdated');
    expect(proj.events.find((e: { event: string }) => e.event === 'SessionEnd')).toMatchObject({ state: 'outdated', points_here: false, command: old });
    const doc = (await run(v, ['doctor', '--json'])).json();
    const check = doc.checks.find((c: { name: string }) => c.name === 'agent hooks');
    expect(check).toMatchObject({ status: 'warn' });
    expect(check.detail).toMatch(/claude project: hooks outdated/);
    expect(check.hint).toMatch(/mem hooks install --claude/);
    expect((await run(v, ['hooks', 'install', '--claude'])).status).toBe(0);
    const s = JSON.parse(read(file));
    expect(s.hooks.SessionEnd).toHaveLength(1);
    expect(s.hooks.SessionEnd[0].hooks).toEqual([{ type: 'command', command: './bye.sh' }, { type: 'command', command: cmd('extract', 'claude'), timeout: 10 }]);
    // The one-line handler stays on one line.
    expect(read(file)).toContain(`{"type": "command", "command": ${JSON.stringify(cmd('extract', 'claude'))}, "timeout": 10}`);
    const doc2 = (await run(v, ['doctor', '--json'])).json();
    expect(doc2.checks.find((c: { name: string }) => c.name === 'agent hooks')).toMatchObject({ status: 'ok', detail: 'claude project: hooks installed' });
    await run(v, ['hooks', 'uninstall', '--claude']);
    expect(JSON.parse(read(file))).toEqual({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: './bye.sh' }] }] } });
  });

  it('writes the portable "mem …" in project files when mem on PATH is this mem', async () => {
    const v = tempVault();
    const bin = tempDir();
    fs.symlinkSync(BIN, path.join(bin, 'mem'));
    const PATH = `${path.dirname(process.execPath)}${path.delimiter}${bin}${path.delimiter}${process.env.PATH}`;
    const r = await run(v, ['hooks', 'install', '--claude', '--mcp', '--json'], { PATH });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning/);
    expect(r.json().agents.form).toBe('path');
    const s = JSON.parse(read(v.path('.claude/settings.json')));
    expect(s.hooks.SessionStart[0].hooks[0].command).toBe('mem context --hook claude');
    expect(s.hooks.PreCompact[0].hooks[0].command).toBe('mem extract --hook claude');
    expect(JSON.parse(read(v.path('.mcp.json')))).toEqual({ mcpServers: { mem: { command: 'mem', args: ['mcp'] } } });
    expect((await run(v, ['hooks', 'status', '--claude', '--json'], { PATH })).json().agents[1]).toMatchObject({ scope: 'project', state: 'installed', mcp: { state: 'installed', runs: 'mem (PATH)' } });
    // Where PATH's mem is not this one, the same entries run another mem.
    expect((await run(v, ['hooks', 'status', '--claude', '--json'])).json().agents[1]).toMatchObject({ scope: 'project', state: 'outdated' });
  });
});

const CODEX_TOML = `# my codex config
model = "o3"  # favourite
approval_policy = "on-request"
sandbox_workspace_write = { network_access = false }

# servers
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs"]

[profiles.fast]
model = "o4-mini"
`;

describe('Codex', () => {
  it('user level: notify and [mcp_servers.mem] by line edits (comments kept), hooks.json; CODEX_HOME honoured; round trip', async () => {
    const v = tempVault();
    const home = path.join(v.home, 'codex-home');
    fs.mkdirSync(home);
    const toml = path.join(home, 'config.toml');
    fs.writeFileSync(toml, CODEX_TOML);
    const r = await run(v, ['hooks', 'install', '--codex', '--user', '--mcp', '--per-prompt'], { CODEX_HOME: home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/note: Codex runs a new or changed hook only after you trust it/);
    const notify = `notify = [${JSON.stringify(NODE)}, ${JSON.stringify(JS)}, "extract", "--hook", "codex"]`;
    const expected = CODEX_TOML.replace('sandbox_workspace_write = { network_access = false }\n', `sandbox_workspace_write = { network_access = false }\n${notify}\n`)
      + `\n[mcp_servers.mem]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(JS)}, "mcp"]\n`;
    expect(read(toml)).toBe(expected);
    const hooks = JSON.parse(read(path.join(home, 'hooks.json')));
    expect(hooks).toEqual({ hooks: {
      SessionStart: [{ hooks: [{ type: 'command', command: cmd('context', 'codex'), timeout: 10 }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: cmd('context', 'codex'), timeout: 5 }] }],
      PreCompact: [{ hooks: [{ type: 'command', command: cmd('extract', 'codex'), timeout: 10 }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: cmd('extract', 'codex'), timeout: 3 }] }],
    } });
    expect(exists(path.join(v.home, '.codex'))).toBe(false);
    const hooksText = read(path.join(home, 'hooks.json'));
    const again = await run(v, ['hooks', 'install', '--codex', '--user', '--mcp', '--per-prompt', '--json'], { CODEX_HOME: home });
    expect(again.json().agents.changes.map((c: { what: string; action: string }) => `${c.what}:${c.action}`)).toEqual(['hooks:unchanged', 'notify:unchanged', 'mcp:unchanged']);
    expect(read(toml)).toBe(expected);
    expect(read(path.join(home, 'hooks.json'))).toBe(hooksText);
    const st = (await run(v, ['hooks', 'status', '--codex', '--json'], { CODEX_HOME: home })).json();
    expect(st.agents[0]).toMatchObject({ agent: 'codex', scope: 'user', state: 'installed', notify: { state: 'installed', points_here: true }, mcp: { state: 'installed', points_here: true } });
    const u = await run(v, ['hooks', 'uninstall', '--codex', '--user', '--json'], { CODEX_HOME: home });
    expect(u.status, u.stderr).toBe(0);
    expect(u.json().agents.changes.map((c: { what: string; action: string }) => `${c.what}:${c.action}`)).toEqual(['hooks:removed', 'notify:removed', 'mcp:removed']);
    expect(read(toml)).toBe(CODEX_TOML);
    // hooks.json did not exist before install: uninstall takes away the file it created.
    expect(exists(path.join(home, 'hooks.json'))).toBe(false);
  });

  it('refuses to replace another notify program (one mem: line, exit 1, nothing written)', async () => {
    const v = tempVault();
    const dir = path.join(v.home, '.codex');
    fs.mkdirSync(dir);
    const before = 'notify = ["python3", "/home/me/notify.py"]\n';
    fs.writeFileSync(path.join(dir, 'config.toml'), before);
    const r = await run(v, ['hooks', 'install', '--codex', '--user']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: .*config\.toml already has a notify program \(\["python3","\/home\/me\/notify\.py"\]\)/);
    expect(r.stderr).toMatch(/^hint: keep yours and have it also run: .*mem\.js extract --hook codex "\$1"/m);
    expect(r.stdout).toBe('');
    expect(read(path.join(dir, 'config.toml'))).toBe(before);
    expect(exists(path.join(dir, 'hooks.json'))).toBe(false);
    // status reports it as foreign; uninstall leaves it alone
    const st = (await run(v, ['hooks', 'status', '--codex', '--json'])).json();
    expect(st.agents[0].notify).toMatchObject({ state: 'foreign', points_here: false });
    expect((await run(v, ['hooks', 'uninstall', '--codex', '--user'])).status).toBe(0);
    expect(read(path.join(dir, 'config.toml'))).toBe(before);
  });

  it('refuses invalid TOML and an inline mcp_servers.mem it cannot edit by lines', async () => {
    const v = tempVault();
    const dir = path.join(v.home, '.codex');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'config.toml'), 'model = "o3\n');
    const r = await run(v, ['hooks', 'install', '--codex', '--user']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: cannot edit .*config\.toml: it is not valid TOML/);
    expect(exists(path.join(dir, 'hooks.json'))).toBe(false);
    const inline = `mcp_servers = { mem = { command = "/old/node", args = ["/old/mem.js", "mcp"] } }\n`;
    fs.writeFileSync(path.join(dir, 'config.toml'), inline);
    const m = await run(v, ['hooks', 'install', '--codex', '--user', '--mcp']);
    expect(m.status).toBe(1);
    expect(m.stderr).toMatch(/^mem: cannot find the \[mcp_servers\.mem\] table/);
    expect(read(path.join(dir, 'config.toml'))).toBe(inline);
  });

  it('project level: <vault>/.codex/hooks.json (no notify: that is a user setting)', async () => {
    const v = tempVault();
    const r = await run(v, ['hooks', 'install', '--codex', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().agents.changes.map((c: { what: string }) => c.what)).toEqual(['hooks']);
    expect(r.stderr).toMatch(/Codex reads a project's \.codex\/ .* only when the project is trusted/);
    expect(Object.keys(JSON.parse(read(v.path('.codex/hooks.json'))).hooks)).toEqual(['SessionStart', 'PreCompact', 'SessionEnd']);
    expect(exists(path.join(v.home, '.codex'))).toBe(false);
    const m = await run(v, ['hooks', 'install', '--codex', '--mcp']);
    expect(m.status, m.stderr).toBe(0);
    expect(read(v.path('.codex/config.toml'))).toBe(`[mcp_servers.mem]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(JS)}, "mcp"]\n`);
    expect((await run(v, ['hooks', 'status', '--codex', '--json'])).json().agents[1]).toMatchObject({ scope: 'project', state: 'installed', mcp: { state: 'installed' } });
    expect((await run(v, ['hooks', 'uninstall', '--codex'])).status).toBe(0);
    expect(exists(v.path('.codex/config.toml'))).toBe(false);
    expect(exists(v.path('.codex/hooks.json'))).toBe(false);
  });
});

describe('Gemini CLI', () => {
  it('keeps comments (JSONC) and every other byte; hooks and mcpServers in one file; round trip', async () => {
    const v = tempVault();
    const before = `{
  // the colours
  "theme": "dark", /* inline */
  "hooks": {
    "BeforeTool": [
      { "matcher": "run_shell_command", "hooks": [{ "type": "command", "command": "./guard.sh" }] } // guard
    ]
  }
}
`;
    const file = v.write('.gemini/settings.json', before);
    const r = await run(v, ['hooks', 'install', '--gemini', '--mcp', '--per-prompt']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Gemini CLI reads a project's \.gemini\/settings\.json only in a trusted folder/);
    const after = read(file);
    expect(after.startsWith(`{
  // the colours
  "theme": "dark", /* inline */
  "hooks": {
    "BeforeTool": [
      { "matcher": "run_shell_command", "hooks": [{ "type": "command", "command": "./guard.sh" }] } // guard
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "name": "mem-context",
            "type": "command",
            "command": ${JSON.stringify(cmd('context', 'gemini'))},
            "timeout": 10000
          }`)).toBe(true);
    const parsed = JSON.parse(after.replace(/\/\/.*$/gm, '').replace(/\/\*.*?\*\//g, ''));
    expect(Object.keys(parsed.hooks)).toEqual(['BeforeTool', 'SessionStart', 'BeforeAgent', 'PreCompress', 'SessionEnd']);
    expect(parsed.hooks.PreCompress[0].hooks[0]).toEqual({ name: 'mem-extract', type: 'command', command: cmd('extract', 'gemini'), timeout: 10000 });
    expect(parsed.mcpServers).toEqual({ mem: { command: NODE, args: [JS, 'mcp'] } });
    expect((await run(v, ['hooks', 'install', '--gemini', '--mcp', '--per-prompt'])).status).toBe(0);
    expect(read(file)).toBe(after);
    expect((await run(v, ['hooks', 'uninstall', '--gemini'])).status).toBe(0);
    expect(read(file)).toBe(before);
  });

  it('user level: ~/.gemini/settings.json; says when hooksConfig.enabled is false', async () => {
    const v = tempVault();
    fs.mkdirSync(path.join(v.home, '.gemini'));
    fs.writeFileSync(path.join(v.home, '.gemini', 'settings.json'), '{ "hooksConfig": { "enabled": false } }\n');
    const r = await run(v, ['hooks', 'install', '--gemini', '--user']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/hooksConfig\.enabled is false/);
    expect((await run(tempVault(), ['hooks', 'install', '--gemini', '--user'])).stderr).not.toMatch(/hooksConfig/);
    expect(read(path.join(v.home, '.gemini', 'settings.json'))).toMatch(/^\{ "hooksConfig": \{ "enabled": false \}, "hooks": \{"SessionStart": \[\{"hooks": \[\{"name": "mem-context"/);
  });
});

/** Every file under `dir` (links as their target, not followed): what a refused command must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) out[p] = `link:${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) walk(p);
      else out[p] = read(p);
    }
  };
  walk(dir);
  return out;
}

describe('refusals: one mem: line, exit 1, nothing written', () => {
  const cases: [string, (v: TempVault) => string, RegExp][] = [
    ['invalid JSON', (v) => v.write('.claude/settings.json', '{"hooks": {,}}'), /^mem: cannot edit .*settings\.json: invalid JSON: a key was expected at line 1; nothing was changed\nhint: /],
    ['comments in Claude settings', (v) => v.write('.claude/settings.json', '{\n  // no\n}\n'), /^mem: cannot edit .*invalid JSON: a comment \(not JSON\)/],
    ['hooks is an array', (v) => v.write('.claude/settings.json', '{"hooks": []}\n'), /^mem: cannot edit .*: "hooks" is not an object; nothing was changed/],
    ['an event is not a list', (v) => v.write('.claude/settings.json', '{"hooks": {"SessionStart": {"hooks": []}}}\n'), /^mem: cannot edit .*: hooks\.SessionStart is not a list/],
    ['a handler list is not a list', (v) => v.write('.claude/settings.json', '{"hooks": {"PreCompact": [{"hooks": "x"}]}}\n'), /^mem: cannot edit .*: hooks\.PreCompact\[0\]\.hooks is not a list/],
    ['a duplicate key', (v) => v.write('.claude/settings.json', '{"a": 1, "a": 2}\n'), /^mem: cannot edit .*: invalid JSON: a duplicate key "a"/],
    ['the top level is an array', (v) => v.write('.claude/settings.json', '[]\n'), /^mem: cannot edit .*: invalid JSON: the top level is not an object/],
    ['a symlinked settings file', (v) => {
      const real = v.write('real-settings.json', '{}\n');
      fs.mkdirSync(v.path('.claude'));
      fs.symlinkSync(real, v.path('.claude/settings.json'));
      return real;
    }, /^mem: refusing to edit .*settings\.json: it is a symbolic link; nothing was changed/],
    ['a .claude folder linked out of the project', (v) => {
      const out = tempDir();
      fs.writeFileSync(path.join(out, 'settings.json'), '{}\n');
      fs.symlinkSync(out, v.path('.claude'));
      return path.join(out, 'settings.json');
    }, /^mem: refusing to edit .*: it leads out of the project through a symlink/],
    ['another server named mem', (v) => v.write('.mcp.json', '{"mcpServers": {"mem": {"command": "python3", "args": ["memory.py"]}}}\n'), /^mem: .*\.mcp\.json already has an MCP server named "mem" that is not this mem's/],
  ];
  for (const [name, setup, message] of cases) {
    it(name, async () => {
      const v = tempVault();
      const f = setup(v);
      const before = read(f);
      const files = snapshot(v.root);
      const home = snapshot(v.home);
      const r = await run(v, ['hooks', 'install', '--claude', '--mcp']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('mem:'))).toHaveLength(1);
      expect(r.stdout).toBe('');
      expect(read(f)).toBe(before);
      // Every file was planned first: none was written (nor created).
      expect(snapshot(v.root)).toEqual(files);
      expect(snapshot(v.home)).toEqual(home);
    });
  }
});

describe('command line', () => {
  it('status and doctor report a settings file they cannot read (exit 0, state error)', async () => {
    const v = tempVault();
    v.write('.gemini/settings.json', '{"hooks": [');
    const st = await run(v, ['hooks', 'status', '--gemini', '--json']);
    expect(st.status).toBe(0);
    expect(st.json().agents[1]).toMatchObject({ agent: 'gemini', scope: 'project', state: 'error', error: expect.stringMatching(/cannot edit .*settings\.json: .*at line 1/) });
    expect((await run(v, ['hooks', 'status', '--gemini'])).stdout).toMatch(/^gemini project\s+error: cannot edit/m);
    const c = (await run(v, ['doctor', '--json'])).json().checks.find((x: { name: string }) => x.name === 'agent hooks');
    expect(c).toMatchObject({ status: 'warn', detail: 'gemini project: hooks error, mcp error' });
  });

  it('usage errors exit 2; project scope needs a vault, user scope does not', async () => {
    const v = tempVault();
    for (const args of [['--claude', '--user', '--project'], ['--mcp'], ['--per-prompt'], ['--git', '--user']]) {
      const r = await run(v, ['hooks', 'install', ...args]);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^mem: /);
    }
    const outside = tempDir();
    const r = await run(v, ['hooks', 'install', '--gemini'], {}, outside);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^mem: no vault found/);
    expect((await run(v, ['hooks', 'install', '--gemini', '--user'], {}, outside)).status).toBe(0);
    const st = await run(v, ['hooks', 'status', '--json'], {}, outside);
    expect(st.status).toBe(0);
    const j = st.json();
    expect(j.git).toBeNull();
    expect(j.project).toBeNull();
    expect(j.agents.map((a: { agent: string; scope: string; state: string }) => `${a.agent} ${a.scope} ${a.state}`)).toEqual(['claude user missing', 'codex user missing', 'gemini user installed']);
    expect((await run(v, ['hooks', 'status'], {}, outside)).stdout).toMatch(/^gemini user\s+installed \(SessionStart installed, BeforeAgent off, PreCompress installed, SessionEnd installed\)/m);
  });

  it('--git with agent flags does both; status shows git and every agent at both levels', async () => {
    const v = tempVault({ git: true });
    const r = await run(v, ['hooks', 'install', '--git', '--claude', '--codex', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const j = r.json();
    expect(j.git.hooks.map((h: { action: string }) => h.action)).toEqual(['created', 'created', 'created', 'created']);
    expect(j.agents.changes.map((c: { agent: string; what: string; action: string }) => `${c.agent} ${c.what} ${c.action}`)).toEqual(['claude hooks created', 'codex hooks created']);
    const st = (await run(v, ['hooks', 'status', '--json'])).json();
    expect(Object.keys(st)).toEqual(['git', 'project', 'agents']);
    expect(st.git.hooks.every((h: { state: string }) => h.state === 'installed')).toBe(true);
    expect(st.agents.map((a: { agent: string; scope: string; state: string }) => `${a.agent} ${a.scope} ${a.state}`)).toEqual(['claude user missing', 'claude project installed', 'codex user missing', 'codex project installed', 'gemini user missing', 'gemini project missing']);
    expect(Object.keys(st.agents[1])).toEqual(['agent', 'scope', 'file', 'state', 'events', 'mcp']);
    expect(Object.keys(st.agents[2])).toEqual(['agent', 'scope', 'file', 'state', 'events', 'mcp', 'notify']);
    expect(Object.keys((await run(v, ['hooks', 'status', '--git', '--json'])).json())).toEqual(['git']);
    const u = (await run(v, ['hooks', 'uninstall', '--git', '--claude', '--json'])).json();
    expect(u.git.hooks.map((h: { action: string }) => h.action)).toEqual(['deleted', 'deleted', 'deleted', 'deleted']);
    expect(u.agents.changes[0]).toMatchObject({ agent: 'claude', what: 'hooks', action: 'removed' });
  });

  it('doctor: one block for agent hooks (none, then installed at both levels)', async () => {
    const v = tempVault();
    const none = (await run(v, ['doctor', '--json'])).json().checks.find((c: { name: string }) => c.name === 'agent hooks');
    expect(none).toMatchObject({ status: 'ok', detail: 'none installed (Claude Code, Codex, Gemini CLI)' });
    await run(v, ['hooks', 'install', '--claude', '--user', '--mcp']);
    await run(v, ['hooks', 'install', '--gemini']);
    const c = (await run(v, ['doctor', '--json'])).json().checks.find((x: { name: string }) => x.name === 'agent hooks');
    expect(c).toMatchObject({ status: 'ok', detail: 'claude user: hooks installed, mcp installed; gemini project: hooks installed' });
    expect((await run(v, ['doctor'])).stdout).toMatch(/^ok {4}agent hooks {2}claude user: hooks installed, mcp installed; gemini project: hooks installed$/m);
  });
});

describe('the same hooks at both levels', () => {
  it('installing at the second level notes that the agent would run both (context read twice)', async () => {
    const v = tempVault();
    const first = await run(v, ['hooks', 'install', '--claude']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/also installed/);
    const second = await run(v, ['hooks', 'install', '--claude', '--user']);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/note: mem's claude hooks are also installed at project level \(\.claude\/settings\.json\): the agent runs both .*mem hooks uninstall --claude --project/);
    const gem = await run(v, ['hooks', 'install', '--gemini', '--user']);
    expect(gem.stderr).not.toMatch(/also installed/);
  });
});
