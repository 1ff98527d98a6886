// `mem hooks uninstall` gives back the original file, byte for byte, whatever it held before
// install: an empty container of the user's own (`"hooks": {}`, `"SessionStart": []`,
// `"mcpServers": {}`), comments and CRLF, a config.toml with or without a final line break, or no
// file at all (then the file install created goes). Installing twice and uninstalling twice change
// nothing more; --mcp and --per-prompt remove just that part.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../fixtures/agent-install.js';
import { cleanup, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

type Files = Record<string, string | null>;

/** Each file's bytes, null when it does not exist. */
function bytes(files: string[]): (Buffer | null)[] {
  return files.map((f) => (fs.existsSync(f) ? fs.readFileSync(f) : null));
}

function put(files: Files): void {
  for (const [f, text] of Object.entries(files)) {
    if (text === null) continue;
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
  }
}

/**
 * Writes `files` (null: none), installs twice (the second changes no byte), uninstalls twice
 * and checks every file is back to its original bytes, or gone when there was none.
 */
async function roundTrip(v: TempVault, files: Files, install: string[], uninstall: string[], env: Record<string, string | undefined> = {}, cwd = v.root): Promise<void> {
  put(files);
  const names = Object.keys(files);
  const before = bytes(names);
  const i1 = await run(v, ['hooks', 'install', ...install], env, cwd);
  expect(i1.status, i1.stderr).toBe(0);
  const installed = bytes(names);
  expect(installed, 'install changed nothing').not.toEqual(before);
  const i2 = await run(v, ['hooks', 'install', ...install], env, cwd);
  expect(i2.status, i2.stderr).toBe(0);
  expect(bytes(names)).toEqual(installed);
  const u1 = await run(v, ['hooks', 'uninstall', ...uninstall], env, cwd);
  expect(u1.status, u1.stderr).toBe(0);
  const after = bytes(names);
  names.forEach((f, i) => expect(after[i] === null ? null : after[i]!.toString('latin1'), `${f} (was ${JSON.stringify(files[f])})`).toBe(before[i] === null ? null : before[i]!.toString('latin1')));
  expect(after).toEqual(before);
  const u2 = await run(v, ['hooks', 'uninstall', ...uninstall], env, cwd);
  expect(u2.status, u2.stderr).toBe(0);
  expect(u2.stdout).not.toMatch(/^removed/m);
  expect(bytes(names)).toEqual(before);
}

describe('Claude Code', () => {
  const settings = (v: TempVault) => v.path('.claude/settings.json');
  const cases: [string, (string | null)[]][] = [
    ['its own empty "hooks" object or event list stays, with its bytes', [
      '{"hooks": {}, "a": 1}\n',
      '{\n  "a": 1,\n  "hooks": {}\n}\n',
      '{\n  "hooks": {\n    "SessionStart": []\n  }\n}',
      '{\n  "hooks": { },\n  "b": [\n  ]\n}\n',
      '\uFEFF{\r\n\t"a": [1, 2],\r\n\t"hooks": {}\r\n}\r\n',
    ]],
    ['other hooks beside mem\'s, and an empty event list of the user\'s', [
      '{\n  "hooks": {\n    "SessionEnd": [\n      { "hooks": [{ "type": "command", "command": "./bye.sh" }] }\n    ]\n  },\n  "zeta": 1\n}\n',
      '{\n  "hooks": {\n    "SessionStart": [],\n    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo pre" }] }]\n  }\n}\n',
    ]],
    ['an empty settings object, an empty or a blank file: back as they were', ['{}\n', '{}', '{\n}\n', '', '\n\n']],
    ['no file: the file install created goes', [null]],
  ];
  for (const [name, texts] of cases) {
    it(`project settings.json: ${name}`, async () => {
      for (const text of texts) {
        const v = tempVault();
        await roundTrip(v, { [settings(v)]: text }, ['--claude', '--per-prompt'], ['--claude']);
      }
    });
  }

  it('.mcp.json: created by install is taken away; an empty "mcpServers" of the user\'s stays', async () => {
    const v = tempVault();
    await roundTrip(v, { [v.path('.mcp.json')]: null, [settings(v)]: null }, ['--claude', '--mcp'], ['--claude']);
    const w = tempVault();
    await roundTrip(w, { [w.path('.mcp.json')]: '{"mcpServers": {}}\n', [settings(w)]: '{"hooks": {}}' }, ['--claude', '--mcp'], ['--claude']);
  });

  it('user level (--user --mcp): ~/.claude.json with its own empty "mcpServers", as Claude Code writes it', async () => {
    const v = tempVault();
    const claudeJson = path.join(v.home, '.claude.json');
    const userJson = '{\n  "numStartups": 3,\n  "mcpServers": {},\n  "projects": {\n    "/x": {\n      "mcpServers": {}\n    }\n  }\n}';
    await roundTrip(v, { [claudeJson]: userJson, [path.join(v.home, '.claude', 'settings.json')]: null }, ['--claude', '--user', '--mcp', '--per-prompt'], ['--claude', '--user'], {}, v.home);
    const w = tempVault();
    await roundTrip(w, { [path.join(w.home, '.claude.json')]: '{\n  "numStartups": 3\n}\n', [path.join(w.home, '.claude', 'settings.json')]: '{\n  "hooks": {}\n}\n' }, ['--claude', '--user', '--mcp'], ['--claude', '--user'], {}, w.home);
  });
});

describe('Gemini CLI', () => {
  it('JSONC with comments, CRLF, an empty "hooks" and an "mcpServers" holding only a comment', async () => {
    const v = tempVault();
    const text = '{\r\n  // colours\r\n  "theme": "dark", /* inline */\r\n  "hooks": {},\r\n  "mcpServers": { /* none yet */ },\r\n  "z": 1\r\n}\r\n';
    await roundTrip(v, { [v.path('.gemini/settings.json')]: text }, ['--gemini', '--mcp', '--per-prompt'], ['--gemini']);
  });

  it('an empty hooks object with a line comment inside; no file at all', async () => {
    const v = tempVault();
    await roundTrip(v, { [v.path('.gemini/settings.json')]: '{\n  "hooks": { // mine later\n  }\n}' }, ['--gemini', '--mcp'], ['--gemini']);
    const w = tempVault();
    await roundTrip(w, { [w.path('.gemini/settings.json')]: null }, ['--gemini', '--mcp', '--per-prompt'], ['--gemini']);
  });
});

describe('Codex', () => {
  const user = (v: TempVault, hooks: string | null, toml: string | null): Files => ({ [path.join(v.home, '.codex', 'hooks.json')]: hooks, [path.join(v.home, '.codex', 'config.toml')]: toml });
  // hooks.json holds a hook of the user's here, so these compare config.toml alone.
  const userHooks = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}\n';
  const tomls: [string, (string | null)[]][] = [
    ['with or without a final line break (CRLF too), empty or blank', [
      'model = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n',
      'model = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"',
      '# mine\nmodel = "o3"',
      'model = "o3"\r\n[t]\r\na = 1',
      '',
      '\n',
    ]],
    ['no file: the file install created goes', [null]],
  ];
  for (const [name, texts] of tomls) {
    it(`user level config.toml (notify, [mcp_servers.mem]): ${name}`, async () => {
      for (const toml of texts) {
        const v = tempVault();
        await roundTrip(v, user(v, userHooks, toml), ['--codex', '--user', '--mcp'], ['--codex', '--user'], {}, v.home);
      }
    });
  }

  it('hooks.json with its own empty containers, with other hooks, and none', async () => {
    for (const hooks of ['{"hooks": {"SessionStart": []}}', '{\n  "hooks": {}\n}\n', '{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]\n  }\n}\n', null]) {
      const v = tempVault();
      await roundTrip(v, user(v, hooks, 'model = "o3"'), ['--codex', '--user', '--per-prompt'], ['--codex', '--user'], {}, v.home);
      const w = tempVault();
      await roundTrip(w, { [w.path('.codex/hooks.json')]: hooks, [w.path('.codex/config.toml')]: '[mcp_servers.docs]\ncommand = "npx"' }, ['--codex', '--mcp'], ['--codex']);
    }
  });
});

describe('uninstall --mcp / --per-prompt: just that part', () => {
  it('takes the same flags as install and removes only what they name', async () => {
    const v = tempVault();
    const s = v.write('.claude/settings.json', '{\n  "hooks": {}\n}\n');
    const plain = (await run(v, ['hooks', 'install', '--claude'])).status === 0 ? fs.readFileSync(s) : null;
    expect((await run(v, ['hooks', 'install', '--claude', '--per-prompt', '--mcp'])).status).toBe(0);
    expect(fs.existsSync(v.path('.mcp.json'))).toBe(true);
    const m = await run(v, ['hooks', 'uninstall', '--claude', '--mcp', '--json']);
    expect(m.status, m.stderr).toBe(0);
    expect(m.json().agents.changes.map((c: { what: string; action: string }) => `${c.what}:${c.action}`)).toEqual(['mcp:removed']);
    expect(fs.existsSync(v.path('.mcp.json'))).toBe(false);
    const p = await run(v, ['hooks', 'uninstall', '--claude', '--per-prompt']);
    expect(p.status, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/^removed\s+\.claude\/settings\.json \(claude hooks: UserPromptSubmit\)$/m);
    expect(fs.readFileSync(s)).toEqual(plain);
    expect((await run(v, ['hooks', 'uninstall', '--claude'])).status).toBe(0);
    expect(fs.readFileSync(s, 'utf8')).toBe('{\n  "hooks": {}\n}\n');
    // As for install, they go with an agent.
    for (const flag of ['--mcp', '--per-prompt']) expect((await run(v, ['hooks', 'uninstall', flag])).status).toBe(2);
  });

  it('codex --mcp leaves notify and the hooks; the rest then goes with a plain uninstall', async () => {
    const v = tempVault();
    const toml = path.join(v.home, '.codex', 'config.toml');
    put({ [toml]: 'model = "o3"' });
    expect((await run(v, ['hooks', 'install', '--codex', '--user'])).status).toBe(0);
    const withNotify = fs.readFileSync(toml, 'utf8');
    expect((await run(v, ['hooks', 'install', '--codex', '--user', '--mcp'])).status).toBe(0);
    expect((await run(v, ['hooks', 'uninstall', '--codex', '--user', '--mcp'])).status).toBe(0);
    expect(fs.readFileSync(toml, 'utf8')).toBe(withNotify);
    expect(fs.existsSync(path.join(v.home, '.codex', 'hooks.json'))).toBe(true);
    expect((await run(v, ['hooks', 'uninstall', '--codex', '--user'])).status).toBe(0);
    expect(fs.readFileSync(toml, 'utf8')).toBe('model = "o3"');
    expect(fs.existsSync(path.join(v.home, '.codex', 'hooks.json'))).toBe(false);
  });
});
