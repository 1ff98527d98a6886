// The pure parts of the agent hook installer: the position-keeping JSON(C) parser and its edits,
// the Codex config.toml line edits (checked by smol-toml), and recognising mem's own commands.
import { describe, expect, it } from 'vitest';
import { hookCommand, memProgram, parseHookCommand, parseMcpCommand, shWords } from '../../src/integrations/agents/command.js';
import { editMcpJson, EVENTS, installHooksText, uninstallHooksText } from '../../src/integrations/agents/agents.js';
import { addItem, addMember, member, parseJsonc, removeElement, styleOf, valueOf } from '../../src/integrations/agents/jsonc.js';
import { editMcpTable, editNotify, tomlParser } from '../../src/integrations/agents/toml-edit.js';

const L = { node: '/usr/bin/node', js: '/opt/mem/bin/mem.js' };

describe('jsonc', () => {
  it('parses with positions; values keep key order; comments only when allowed', () => {
    const text = '{ "b": [1, {"x": null}], "a": "s\\"q" }';
    const doc = parseJsonc(text);
    expect(valueOf(doc, doc.root)).toEqual({ b: [1, { x: null }], a: 's"q' });
    expect(Object.keys(valueOf(doc, doc.root) as object)).toEqual(['b', 'a']);
    expect(() => parseJsonc('{ // c\n}')).toThrow(/a comment \(not JSON\) at line 1/);
    expect(parseJsonc('{ // c\n "a": 1 /* d */ }', { comments: true }).comments).toBe(true);
    for (const bad of ['{"a": 1,}', '[1,]', '{"a" 1}', '{"a": 1} x', '{"a": 1, "a": 2}', "{'a': 1}", '{"a": 01}', '']) expect(() => parseJsonc(bad), bad).toThrow();
    // A "__proto__" key is data, not a prototype.
    const p = parseJsonc('{"__proto__": {"x": 1}}');
    expect(Object.keys(valueOf(p, p.root) as object)).toEqual(['__proto__']);
  });

  it('detects the indentation unit and line ending', () => {
    expect(styleOf('{\n    "a": {\n        "b": 1\n    }\n}')).toEqual({ eol: '\n', unit: '    ' });
    expect(styleOf('{\r\n\t"a": 1\r\n}')).toEqual({ eol: '\r\n', unit: '\t' });
    expect(styleOf('{}')).toEqual({ eol: '\n', unit: '  ' });
  });

  it('adds at the end in the container\'s own style and removes back to the same bytes', () => {
    for (const text of ['{}', '{\n  "a": 1\n}\n', '{"a": 1}', '{\n\t"a": [\n\t\t1\n\t]\n}', '{ "a": 1, "b": { "c": [] } }']) {
      const doc = parseJsonc(text);
      const added = addMember(doc, doc.root, 'mem', { x: [1, 2] });
      const d2 = parseJsonc(added);
      expect((valueOf(d2, d2.root) as Record<string, unknown>).mem).toEqual({ x: [1, 2] });
      const root = d2.root as Extract<typeof d2.root, { kind: 'object' }>;
      expect(removeElement(d2, root, root.members.length - 1)).toBe(text);
    }
    const doc = parseJsonc('{\n  "l": [\n    1\n  ]\n}');
    expect(addItem(doc, member(doc.root, 'l')!.value, 'two')).toBe('{\n  "l": [\n    1,\n    "two"\n  ]\n}');
  });

  it('removes a first or middle element with its line, and keeps comments next to it', () => {
    const text = '[\n  1,\n  2,\n  3\n]';
    const doc = parseJsonc(text);
    expect(removeElement(doc, doc.root, 0)).toBe('[\n  2,\n  3\n]');
    expect(removeElement(doc, doc.root, 1)).toBe('[\n  1,\n  3\n]');
    const c = '{\n  "a": 1, // keep\n  "b": 2\n}';
    const dc = parseJsonc(c, { comments: true });
    const out = removeElement(dc, dc.root, 1);
    expect(out).toContain('// keep');
    expect(valueOf(parseJsonc(out, { comments: true }), parseJsonc(out, { comments: true }).root)).toEqual({ a: 1 });
  });
});

describe('deeply nested settings', () => {
  const specs = [{ event: 'SessionStart', verb: 'context' as const, timeout: 10 }];
  it('valid JSON nested far deeper than 200 levels is read, installed into and given back byte for byte', () => {
    for (const depth of [201, 5000, 50_000]) {
      const deep = `${'{"n": ['.repeat(depth)}1${']}'.repeat(depth)}`;
      const text = `{\n  "keep": ${deep},\n  "theme": "dark"\n}\n`;
      expect(parseJsonc(text).root.kind).toBe('object');
      const r = installHooksText(text, 'f', 'claude', specs, () => hookCommand(L, 'absolute', 'context', 'claude'));
      expect(r.events).toEqual([{ event: 'SessionStart', action: 'added' }]);
      expect(r.text.startsWith(`{\n  "keep": ${deep},`)).toBe(true);
      expect(uninstallHooksText(r.text, 'f', 'claude').text).toBe(text);
    }
    // With comments allowed (Gemini), a deep value still reads back as JSON.parse reads it.
    const c = parseJsonc(`{ /* c */ "a": ${'['.repeat(300)}"x" // y\n${']'.repeat(300)} }`, { comments: true });
    expect(JSON.stringify(valueOf(c, c.root))).toBe(`{"a":${'['.repeat(300)}"x"${']'.repeat(300)}}`);
    // Invalid text is still refused, whatever its depth.
    expect(() => parseJsonc(`${'['.repeat(1000)}1,${']'.repeat(1000)}`)).toThrow(/a trailing comma/);
    expect(() => parseJsonc(`${'['.repeat(1000)}${']'.repeat(999)}`)).toThrow();
  });
});

describe('mem commands', () => {
  it('quotes words for sh and reads them back', () => {
    const c = hookCommand({ node: '/opt/my node/node', js: "/it's/mem.js" }, 'absolute', 'context', 'claude');
    expect(c).toBe(`'/opt/my node/node' '/it'\\''s/mem.js' context --hook claude`);
    expect(shWords(c)).toEqual(['/opt/my node/node', "/it's/mem.js", 'context', '--hook', 'claude']);
    expect(shWords('"a b" c\\ d')).toEqual(['a b', 'c d']);
    expect(shWords('mem context --hook claude; rm -rf /')).toBeNull();
    expect(shWords('echo $HOME')).toBeNull();
  });

  it('recognises mem\'s hook commands of any path and form, and nothing else', () => {
    expect(parseHookCommand('mem context --hook claude')).toMatchObject({ verb: 'context', agent: 'claude', program: { form: 'path' } });
    expect(parseHookCommand('/old/node /old/lib/node_modules/mem/bin/mem.js extract --hook codex')).toMatchObject({ verb: 'extract', program: { form: 'absolute', node: '/old/node', js: '/old/lib/node_modules/mem/bin/mem.js' } });
    expect(parseHookCommand('/usr/local/bin/mem --root sub extract --hook claude')).toMatchObject({ verb: 'extract', program: { js: '/usr/local/bin/mem' } });
    for (const other of ['memo context --hook claude', 'mem context', 'mem search --hook claude', 'python3 mem.py context --hook claude', 'echo hi', 'mem context --hook claude && rm x']) expect(parseHookCommand(other), other).toBeNull();
    expect(memProgram(['node', 'x.js'])).toBeNull();
    expect(parseMcpCommand('/usr/bin/node', ['/a/mem.js', 'mcp'])).toMatchObject({ form: 'absolute' });
    expect(parseMcpCommand('mem', ['mcp'])).toMatchObject({ form: 'path' });
    expect(parseMcpCommand('python3', ['memory.py'])).toBeNull();
    expect(parseMcpCommand('mem', 'mcp')).toBeNull();
  });
});

describe('hooks in a settings text', () => {
  const specs = [{ event: 'SessionStart', verb: 'context' as const, timeout: 10 }];
  it('installs once, updates an old entry in place, uninstalls only mem\'s', () => {
    const before = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/old/node /old/mem.js context --hook claude", "timeout": 3, "x": 1}]}, {"hooks": [{"type": "command", "command": "echo hi"}]}]}}';
    const r = installHooksText(before, 'f', 'claude', specs, () => hookCommand(L, 'absolute', 'context', 'claude'));
    expect(r.events).toEqual([{ event: 'SessionStart', action: 'updated' }]);
    const v = JSON.parse(r.text);
    expect(v.hooks.SessionStart[0].hooks[0]).toEqual({ type: 'command', command: '/usr/bin/node /opt/mem/bin/mem.js context --hook claude', timeout: 10, x: 1 });
    expect(v.hooks.SessionStart).toHaveLength(2);
    const again = installHooksText(r.text, 'f', 'claude', specs, () => hookCommand(L, 'absolute', 'context', 'claude'));
    expect(again).toEqual({ text: r.text, events: [{ event: 'SessionStart', action: 'unchanged' }] });
    const u = uninstallHooksText(r.text, 'f', 'claude');
    expect(JSON.parse(u.text ?? '')).toEqual({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'echo hi' }] }] } });
  });
});

describe('uninstall gives back the bytes from before install', () => {
  const command = (s: { verb: 'context' | 'extract' }) => hookCommand(L, 'absolute', s.verb, 'gemini');
  const server = { command: '/usr/bin/node', args: ['/opt/mem/bin/mem.js', 'mcp'] };
  /** install (hooks, then the MCP server), twice, then uninstall in the reverse order. */
  const roundTrip = (text: string, fresh = false) => {
    let t = installHooksText(text, 'f', 'gemini', EVENTS.gemini, command).text;
    if (fresh) t += '\n'; // a file mem creates ends with a line break
    t = editMcpJson(t, 'f', 'gemini', server).text;
    expect(installHooksText(t, 'f', 'gemini', EVENTS.gemini, command).text).toBe(t);
    expect(editMcpJson(t, 'f', 'gemini', server).text).toBe(t);
    const m = editMcpJson(t, 'f', 'gemini', null).text;
    return m === null ? null : uninstallHooksText(m, 'f', 'gemini').text;
  };

  it('keeps an empty object or list of the user\'s own, with what stood inside it', () => {
    for (const text of [
      '{"hooks": {}, "a": 1}',
      '{"a": 1, "hooks": {}, "mcpServers": {}}\n',
      '{\n  "a": 1,\n  "hooks": {},\n  "mcpServers": {}\n}\n',
      '{\n  "hooks": {\n    "SessionStart": [],\n    "PreCompress": [ ]\n  }\n}\n',
      '{\n  "hooks": {\n  },\n  "mcpServers": {\n\n  }\n}',
      '{\r\n  // mine\r\n  "hooks": { /* none yet */ },\r\n  "mcpServers": { // later\r\n  }\r\n}\r\n',
      '{}', '{}\n', '{ }', '{\n}\n', '{\n  // nothing yet\n}\n',
    ]) expect(roundTrip(text), JSON.stringify(text)).toBe(text);
  });

  it('removes what install created: groups, event lists, "hooks", "mcpServers", and a file it wrote from nothing', () => {
    for (const text of ['{"a": 1}', '{\n  "a": 1\n}\n', '{\n\t"hooks": {\n\t\t"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]\n\t}\n}\n', '{"mcpServers": {"docs": {"command": "npx"}}}']) {
      expect(roundTrip(text), JSON.stringify(text)).toBe(text);
    }
    expect(roundTrip('', true)).toBeNull();
    // An empty or blank file that was there stays as it was.
    expect(roundTrip('')).toBe('');
    expect(roundTrip('\n\n')).toBe('\n\n');
  });

  it('a group of the user\'s that holds mem\'s handler keeps its place (only the handler goes)', () => {
    const text = '{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "/old/node /old/mem.js context --hook claude"}]}]}}';
    expect(uninstallHooksText(text, 'f', 'claude').text).toBe('{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": []}]}}');
  });

  it('per-prompt only: the other events stay', () => {
    const text = '{\n  "hooks": {}\n}\n';
    const all = installHooksText(text, 'f', 'claude', EVENTS.claude, command).text;
    const some = installHooksText(text, 'f', 'claude', EVENTS.claude.filter((s) => !s.perPrompt), command).text;
    const r = uninstallHooksText(all, 'f', 'claude', (event) => event === 'UserPromptSubmit');
    expect(r).toEqual({ text: some, removed: ['UserPromptSubmit'] });
  });

  it('config.toml: with or without a final line break, CRLF, empty, or none', async () => {
    const parse = await tomlParser();
    const mine = (v: unknown) => JSON.stringify(v).includes('mem.js');
    const notify = ['/usr/bin/node', '/opt/mem/bin/mem.js', 'extract', '--hook', 'codex'];
    for (const text of ['model = "o3"', 'model = "o3"\n', 'model = "o3"\r\n[t]\r\na = 1', 'a = 1\r\n[t]\r\nb = 2\r\n', '[t]\na = 1', '', '\n', '# c\n\n']) {
      const n = editNotify(parse, text, 'f', notify, mine).text;
      const m = editMcpTable(parse, n, 'f', server, mine).text;
      expect(editMcpTable(parse, m, 'f', server, mine).text).toBe(m);
      const um = editMcpTable(parse, m, 'f', null, mine).text;
      expect(um, JSON.stringify(text)).toBe(n);
      expect(editNotify(parse, um!, 'f', null, mine).text, JSON.stringify(text)).toBe(text);
      expect(editMcpTable(parse, editMcpTable(parse, text, 'f', server, mine).text, 'f', null, mine).text, JSON.stringify(text)).toBe(text);
    }
    // A file mem wrote from nothing (ending with a line break) goes: null.
    const created = `${editMcpTable(parse, '', 'f', server, mine).text}\n`;
    expect(editMcpTable(parse, created, 'f', null, mine).text).toBeNull();
    expect(editNotify(parse, `${editNotify(parse, '', 'f', notify, mine).text}\n`, 'f', null, mine).text).toBeNull();
  });
});

describe('Codex config.toml', () => {
  const want = ['/usr/bin/node', '/opt/mem/bin/mem.js', 'extract', '--hook', 'codex'];
  const mine = (v: unknown) => Array.isArray(v) && v.includes('extract');

  it('inserts notify after the top-level keys, before the first table; removes it back to the bytes', async () => {
    const parse = await tomlParser();
    for (const text of ['', 'model = "o3"', 'model = "o3"\n', '[t]\na = 1\n', '# c\nmodel = "o3"\n\n# about t\n[t]\na = 1\n', 'a = [\n  1,\n  2,\n]\r\n[t]\r\nb = 2\r\n']) {
      const r = editNotify(parse, text, 'f', want, mine);
      expect(r.action).toBe('added');
      expect(parse(r.text).notify).toEqual(want);
      const u = editNotify(parse, r.text, 'f', null, mine);
      expect(u.action).toBe('removed');
      expect(u.text, JSON.stringify(text)).toBe(text);
    }
    expect(editNotify(parse, '# c\nmodel = "o3"\n\n# about t\n[t]\na = 1\n', 'f', want, mine).text).toBe(`# c\nmodel = "o3"\nnotify = ${JSON.stringify(want).replace(/,/g, ', ')}\n\n# about t\n[t]\na = 1\n`);
  });

  it('updates a multi-line notify of mem\'s in place; refuses another program', async () => {
    const parse = await tomlParser();
    const text = 'notify = [\n  "/old/node",\n  "/old/mem.js", "extract", "--hook", "codex",\n]\nmodel = "x"\n';
    const r = editNotify(parse, text, 'f', want, mine);
    expect(r.action).toBe('updated');
    expect(r.text.endsWith('\nmodel = "x"\n')).toBe(true);
    expect(parse(r.text).notify).toEqual(want);
    expect(() => editNotify(parse, 'notify = ["say", "done"]\n', 'f', want, mine)).toThrow(/already has a notify program/);
  });

  it('knows TOML strings: a [section] or notify line inside a string or an array is text, not a table or a key', async () => {
    const parse = await tomlParser();
    const isMem = (v: unknown) => typeof v === 'object' && v !== null && String((v as { args?: string[] }).args?.[0]).endsWith('mem.js');
    const strings = [
      'instructions = """\nRead this first.\n[section]\nnotify = ["say", "hi"]\n"""\n',
      "instructions = '''\n[section]\nnotify = ['say']\n'''\n",
      'instructions = """\n# not a comment \\"""\n[mcp_servers.mem]\ncommand = "x"\n""""\n',
      'prompts = [\n  "a",\n  ["b"],\n]\n',
      "a = \"\"\"[x]\"\"\"\nb = '''\n[y]'''\n",
    ];
    for (const body of strings) {
      for (const text of [body, `${body}model = "o3"\n\n[t]\nz = 1\n`, body.replace(/\n/g, '\r\n')]) {
        const before = parse(text);
        const r = editNotify(parse, text, 'f', want, mine);
        expect(r.action, text).toBe('added');
        expect(parse(r.text)).toEqual({ ...before, notify: want });
        expect(editNotify(parse, r.text, 'f', null, mine).text, text).toBe(text);
        const m = editMcpTable(parse, r.text, 'f', { command: 'n', args: ['/a/mem.js', 'mcp'] }, isMem);
        expect(parse(m.text)).toEqual({ ...before, notify: want, mcp_servers: { mem: { command: 'n', args: ['/a/mem.js', 'mcp'] } } });
        const up = editMcpTable(parse, m.text, 'f', { command: 'm', args: ['/b/mem.js', 'mcp'] }, isMem);
        expect(up.action).toBe('updated');
        expect(editMcpTable(parse, up.text, 'f', null, isMem).text).toBe(r.text);
      }
    }
    // Uninstall finds mem's own notify line, not a line of a string that looks like one.
    const installed = `doc = """\nnotify = ["/usr/bin/node", "/opt/mem/bin/mem.js", "extract", "--hook", "codex"]\n"""\nnotify = ${JSON.stringify(want)}\n`;
    const u = editNotify(parse, installed, 'f', null, mine);
    expect(u.action).toBe('removed');
    expect(u.text).toBe('doc = """\nnotify = ["/usr/bin/node", "/opt/mem/bin/mem.js", "extract", "--hook", "codex"]\n"""\n');
  });

  it('adds, updates and removes [mcp_servers.mem]; keeps the other tables', async () => {
    const parse = await tomlParser();
    const isMem = (v: unknown) => typeof v === 'object' && v !== null && String((v as { args?: string[] }).args?.[0]).endsWith('mem.js');
    const text = '[mcp_servers.docs]\ncommand = "npx"\n';
    const r = editMcpTable(parse, text, 'f', { command: 'n', args: ['/a/mem.js', 'mcp'] }, isMem);
    expect(r.text).toBe('[mcp_servers.docs]\ncommand = "npx"\n\n[mcp_servers.mem]\ncommand = "n"\nargs = ["/a/mem.js", "mcp"]\n');
    const up = editMcpTable(parse, `${r.text}\n[other]\nx = 1\n`, 'f', { command: 'm', args: ['/b/mem.js', 'mcp'] }, isMem);
    expect(up.action).toBe('updated');
    expect(parse(up.text)).toEqual({ mcp_servers: { docs: { command: 'npx' }, mem: { command: 'm', args: ['/b/mem.js', 'mcp'] } }, other: { x: 1 } });
    expect(editMcpTable(parse, r.text, 'f', null, isMem).text).toBe(text);
    expect(() => editMcpTable(parse, '[mcp_servers.mem]\ncommand = "python3"\n', 'f', { command: 'n', args: [] }, isMem)).toThrow(/not this mem's/);
  });
});
