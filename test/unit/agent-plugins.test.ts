// The plugin manifests shipped at the repository root and in plugins/: each validates against the
// agent's published JSON schema (vendored in test/fixtures/schemas, see its README) or, where
// none is published, against the documented fields; and each plugin's hooks are the events,
// verbs and timeouts `mem hooks install` writes, run through the plugin's wrapper.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EVENTS } from '../../src/integrations/agents/agents.js';
import { PLUGIN_EVENTS, PLUGIN_ID, PLUGIN_NAME, MARKETPLACE_NAME } from '../../src/integrations/agents/plugins.js';

const REPO = path.resolve(__dirname, '..', '..');
const json = (rel: string) => JSON.parse(fs.readFileSync(path.join(REPO, rel), 'utf8'));
const schema = (name: string) => json(`test/fixtures/schemas/${name}`);
const VERSION = json('package.json').version as string;

function validator(s: object, draft2020 = false) {
  const ajv = draft2020 ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true, validateFormats: false });
  return ajv.compile(s);
}

function expectValid(s: object, data: unknown, draft2020 = false) {
  const v = validator(s, draft2020);
  const ok = v(data);
  expect(ok, JSON.stringify(v.errors, null, 2)).toBe(true);
}

/** The (event, verb, agent, timeout) of each hook in a hooks file, with the command's wrapper words. */
function hookTable(hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]>) {
  return Object.entries(hooks).map(([event, groups]) => {
    expect(groups).toHaveLength(1);
    expect(groups[0].hooks).toHaveLength(1);
    const h = groups[0].hooks[0];
    const m = /^sh "(.+)\/hooks\/run\.sh" (context|extract) (claude|codex|gemini)$/.exec(h.command);
    expect(m, h.command).not.toBeNull();
    return { event, root: m![1], verb: m![2], agent: m![3], timeout: h.timeout };
  });
}

function expectSameAsInstall(agent: 'claude' | 'codex' | 'gemini', hooks: Parameters<typeof hookTable>[0], root: string) {
  const table = hookTable(hooks);
  expect(table.map(({ event, verb, timeout }) => ({ event, verb, timeout }))).toEqual(EVENTS[agent].map(({ event, verb, timeout }) => ({ event, verb, timeout })));
  expect(new Set(table.map((t) => t.agent))).toEqual(new Set([agent]));
  expect(new Set(table.map((t) => t.root))).toEqual(new Set([root]));
  expect(table.map((t) => t.event)).toEqual([...PLUGIN_EVENTS[agent]]);
}

describe('Claude Code plugin', () => {
  const market = json('.claude-plugin/marketplace.json');
  const plugin = json('plugins/claude/.claude-plugin/plugin.json');
  const hooks = json('plugins/claude/hooks/hooks.json');

  it('the marketplace validates against the published schema and lists the plugin as mem@mem-vault', () => {
    expectValid(schema('claude-code-marketplace.json'), market);
    expect(`${market.plugins[0].name}@${market.name}`).toBe(PLUGIN_ID);
    expect(fs.existsSync(path.join(REPO, market.plugins[0].source, '.claude-plugin', 'plugin.json'))).toBe(true);
  });

  it('the plugin manifest and its hooks validate against the published schema', () => {
    expectValid(schema('claude-code-plugin-manifest.json'), plugin);
    // hooks/hooks.json has the shape of the manifest's inline `hooks`.
    expectValid(schema('claude-code-plugin-manifest.json'), { name: 'hooks-file', hooks: hooks.hooks });
    expect(plugin.name).toBe(PLUGIN_NAME);
    expect(plugin.version).toBe(VERSION);
  });

  it('its hooks are mem hooks install --claude\'s events, verbs and timeouts, through the plugin\'s run.sh', () => {
    expectSameAsInstall('claude', hooks.hooks, '${CLAUDE_PLUGIN_ROOT}');
    expect(plugin.mcpServers.mem).toEqual({ command: 'sh', args: ['${CLAUDE_PLUGIN_ROOT}/hooks/run.sh', 'mcp'] });
  });
});

describe('Codex plugin', () => {
  const plugin = json('plugins/codex/.codex-plugin/plugin.json');
  const hooks = json('plugins/codex/hooks/hooks.json');
  const market = json('.agents/plugins/marketplace.json');

  it('the manifest and the hooks file validate against the published schemas', () => {
    expectValid(schema('codex-plugin-manifest.json'), plugin);
    expectValid(schema('codex-hooks.json'), hooks);
    expect(plugin.name).toBe(PLUGIN_NAME);
    expect(plugin.version).toBe(VERSION);
    // Only plugin.json goes in .codex-plugin/ (hooks/hooks.json is found by default at the plugin root).
    expect(fs.readdirSync(path.join(REPO, 'plugins/codex/.codex-plugin'))).toEqual(['plugin.json']);
  });

  it('the repository marketplace (.agents/plugins/marketplace.json, read before .claude-plugin/) points at it', () => {
    // No schema is published for it: the fields Codex's loader reads (codex-rs/core-plugins/src/marketplace.rs).
    const Market = z.object({
      name: z.string().min(1),
      interface: z.object({ displayName: z.string().min(1) }).optional(),
      plugins: z.array(z.object({
        name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
        source: z.object({ source: z.literal('local'), path: z.string().regex(/^\.\/[^.][^]*$/) }),
        policy: z.object({ installation: z.enum(['NOT_AVAILABLE', 'AVAILABLE', 'INSTALLED_BY_DEFAULT']), authentication: z.enum(['ON_INSTALL', 'ON_USE']) }),
        category: z.string().optional(),
      }).strict()).min(1),
    }).strict();
    const m = Market.parse(market);
    expect(`${m.plugins[0].name}@${m.name}`).toBe(PLUGIN_ID);
    expect(m.name).toBe(MARKETPLACE_NAME);
    expect(json(path.join(m.plugins[0].source.path, '.codex-plugin', 'plugin.json')).name).toBe(PLUGIN_NAME);
  });

  it('its hooks are mem hooks install --codex\'s; its MCP server is mem mcp', () => {
    expectSameAsInstall('codex', hooks.hooks, '$PLUGIN_ROOT');
    const mcp = z.object({ mcpServers: z.record(z.string(), z.object({ command: z.string(), args: z.array(z.string()) }).strict()) }).strict().parse(json('plugins/codex/.mcp.json'));
    expect(plugin.mcpServers).toBe('./.mcp.json');
    expect(mcp.mcpServers.mem.command).toBe('sh');
    expect(mcp.mcpServers.mem.args.at(-1)).toMatch(/exec mem mcp$/);
  });
});

describe('Gemini CLI extension', () => {
  const ext = json('gemini-extension.json');
  const hooks = json('hooks/hooks.json');
  const settings = schema('gemini-settings-hooks-mcp.json');

  it('gemini-extension.json has the documented fields; its MCP server validates against the settings schema', () => {
    // No schema is published for gemini-extension.json: the fields of its reference page.
    const Ext = z.object({
      name: z.string().regex(/^[a-z0-9-]+$/),
      version: z.string().regex(/^\d+\.\d+\.\d+/),
      description: z.string().min(1),
      contextFileName: z.union([z.string(), z.array(z.string())]),
      mcpServers: z.record(z.string(), z.unknown()),
    }).strict();
    const e = Ext.parse(ext);
    expect(e.name).toBe(PLUGIN_NAME);
    expect(e.version).toBe(VERSION);
    for (const f of [e.contextFileName].flat()) expect(fs.statSync(path.join(REPO, f)).isFile()).toBe(true);
    expectValid(settings, { mcpServers: e.mcpServers }, true);
    expect(e.mcpServers.mem).toEqual({ command: 'sh', args: ['${extensionPath}${/}hooks${/}run.sh', 'mcp'] });
  });

  it('hooks/hooks.json validates against the settings schema\'s hooks, with events Gemini CLI knows', () => {
    expectValid(settings, { hooks: hooks.hooks }, true);
    const known = Object.keys(settings.properties.hooks.properties);
    for (const ev of Object.keys(hooks.hooks)) expect(known).toContain(ev);
    expectSameAsInstall('gemini', hooks.hooks, '${extensionPath}');
  });
});

it('every plugin ships the same run.sh', () => {
  const one = fs.readFileSync(path.join(REPO, 'hooks/run.sh'));
  for (const rel of ['plugins/claude/hooks/run.sh', 'plugins/codex/hooks/run.sh']) expect(fs.readFileSync(path.join(REPO, rel)).equals(one), rel).toBe(true);
});
