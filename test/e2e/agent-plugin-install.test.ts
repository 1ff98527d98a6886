// mem hooks install beside mem's agent plugin: refused while the plugin is enabled (nothing
// written), allowed where the agent's own settings turn the plugin off; mem doctor warns when
// both the plugin and installed entries are there.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exists, run } from '../fixtures/agent-install.js';
import { cleanup, tempVault, type TempVault } from '../helpers.js';

afterEach(cleanup);

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const ENABLE: Record<string, (v: TempVault) => void> = {
  claude: (v) => write(path.join(v.home, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'mem@mem-vault': true } })),
  codex: (v) => write(path.join(v.home, '.codex', 'config.toml'), 'model = "o3"\n\n[plugins."mem@mem-vault"]\nenabled = true\n'),
  gemini: (v) => write(path.join(v.home, '.gemini', 'extensions', 'mem', 'gemini-extension.json'), JSON.stringify({ name: 'mem', version: '0.1.0' })),
};
const FILE: Record<string, string> = { claude: '.claude/settings.json', codex: '.codex/hooks.json', gemini: '.gemini/settings.json' };

describe('mem hooks install with mem\'s plugin enabled', () => {
  it.each(['claude', 'codex', 'gemini'])('%s: refused with one line naming the plugin and how to turn it off; nothing written', async (agent) => {
    const v = tempVault();
    ENABLE[agent](v);
    const r = await run(v, ['hooks', 'install', `--${agent}`, '--mcp']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^mem: mem's ${agent} (plugin mem@mem-vault|extension "mem") is enabled .*would make every hook fire twice; nothing was changed`));
    expect(r.stderr).toMatch(/hint: keep the plugin/);
    expect(exists(v.path(FILE[agent]))).toBe(false);
    // Other agents are not held back by it.
    const other = agent === 'claude' ? 'gemini' : 'claude';
    expect((await run(v, ['hooks', 'install', `--${other}`])).status).toBe(0);
  });

  it('claude: a project that turns the plugin off (settings.local.json false over the user\'s true) can install', async () => {
    const v = tempVault();
    ENABLE.claude(v);
    v.write('.claude/settings.local.json', JSON.stringify({ enabledPlugins: { 'mem@mem-vault': false } }));
    expect((await run(v, ['hooks', 'install', '--claude'])).status).toBe(0);
  });

  it('codex: a plugin table with enabled = false does not count; gemini: a folder the extension is disabled in can install', async () => {
    const v = tempVault();
    write(path.join(v.home, '.codex', 'config.toml'), '[plugins."mem@mem-vault"]\nenabled = false\n');
    expect((await run(v, ['hooks', 'install', '--codex'])).status).toBe(0);
    ENABLE.gemini(v);
    write(path.join(v.home, '.gemini', 'extensions', 'extension-enablement.json'), JSON.stringify({ mem: { overrides: [`!${fs.realpathSync(v.root)}/*`] } }));
    expect((await run(v, ['hooks', 'install', '--gemini'])).status).toBe(0);
  });
});

describe('mem doctor', () => {
  it('reports the plugin and installed entries together as a problem, with the command that removes the entries', async () => {
    const v = tempVault();
    expect((await run(v, ['hooks', 'install', '--claude'])).status).toBe(0);
    const before = (await run(v, ['doctor', '--json'])).json().checks.find((c: { name: string }) => c.name === 'agent hooks');
    expect(before.status).toBe('ok');
    ENABLE.claude(v);
    const after = (await run(v, ['doctor', '--json'])).json().checks.find((c: { name: string }) => c.name === 'agent hooks');
    expect(after.status).toBe('warn');
    expect(after.detail).toMatch(/both mem's plugin and mem hooks install's entries are installed \(claude\)/);
    expect(after.hint).toContain('mem hooks uninstall --claude');
  });
});
