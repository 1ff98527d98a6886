import { describe, expect, it } from 'vitest';
import { condense, isHumanText } from '../../src/extract/condense.js';
import { isInjected, splitInjected } from '../../src/extract/harness.js';
import { readTranscript, type TranscriptMessage } from '../../src/extract/transcript.js';

const claudeLine = (content: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ type: 'user', sessionId: 's', message: { role: 'user', content }, ...extra });
const codexLine = (role: string, ...texts: string[]) =>
  JSON.stringify({ timestamp: 't', type: 'response_item', payload: { type: 'message', role, content: texts.map((text) => ({ type: 'input_text', text })) } });
const human = (ms: TranscriptMessage[]) => ms.filter(isHumanText).map((m) => m.text);

describe('splitInjected: harness text recognised by its structure', () => {
  it('a message made only of tagged blocks, whatever the tag names, is injected', () => {
    expect(isInjected('<workspace_state>\n  <branch>feat/x</branch>\n</workspace_state>')).toBe(true);
    expect(isInjected('<hook-output>lint passed</hook-output>\n<hook-output>format ok</hook-output>')).toBe(true);
    expect(isInjected('<RULES>\nKeep functions short.\n</RULES>')).toBe(true);
    expect(isInjected('<permissions instructions>\nWrites need approval.\n</permissions instructions>')).toBe(true);
  });

  it('an instruction file under its heading is injected, with or without a wrapper', () => {
    expect(isInjected('# AGENTS.md instructions for /srv/shop\n\n<INSTRUCTIONS>\nRun make check before committing.\n</INSTRUCTIONS>')).toBe(true);
    expect(isInjected('# path: services/api/CLAUDE.md\nPrefer table tests.')).toBe(true);
    expect(isInjected('<user_instructions>\n# path: AGENTS.md\nUse tabs.\n</user_instructions>')).toBe(true);
    expect(isInjected('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>\n# GEMINI.md\nBe terse.')).toBe(true);
  });

  it("the harnesses' own notices are injected", () => {
    expect(isInjected('Operation stopped by hook: the deploy guard refused this command.')).toBe(true);
    expect(isInjected('This session is being continued from a previous conversation that ran out of context. Summary: …')).toBe(true);
  });

  it('a leading or trailing block is split off; the person keeps the rest', () => {
    expect(splitInjected('<system-reminder>\nThe todo list is empty.\n</system-reminder>\nRename the cache flag to --no-cache.')).toEqual({
      injected: ['<system-reminder>\nThe todo list is empty.\n</system-reminder>'],
      human: 'Rename the cache flag to --no-cache.',
    });
    expect(splitInjected('Rename the cache flag.\n\n<ide_selection>\nconst cache = true;\n</ide_selection>')).toEqual({
      injected: ['<ide_selection>\nconst cache = true;\n</ide_selection>'],
      human: 'Rename the cache flag.',
    });
  });

  it('what a person writes about tags or pastes as HTML stays theirs', () => {
    expect(isInjected('<div class="card">Price</div>')).toBe(false);
    expect(splitInjected('<Button>Save</Button> is misaligned on mobile').human).toBe('<Button>Save</Button> is misaligned on mobile');
    expect(splitInjected('<Modal> never closes when I press escape').human).toBe('<Modal> never closes when I press escape');
    expect(splitInjected('Why does the <config> block get ignored?').injected).toEqual([]);
    expect(isInjected('# Release checklist\n- bump the version')).toBe(false);
  });
});

describe('the readers mark injected text as instruction', () => {
  it('Claude: meta records, command wrappers and reminders are instruction; a prompt after a reminder is the human', () => {
    const t = readTranscript([
      claudeLine('<local-command-caveat>Caveat: generated locally.</local-command-caveat>', { isMeta: true }),
      claudeLine('<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>'),
      claudeLine([{ type: 'text', text: '<system-reminder>Contents of /repo/CLAUDE.md: always run go vet</system-reminder>' }, { type: 'text', text: 'Add a retry to the uploader.' }]),
      claudeLine('<system-reminder>\nA file changed.\n</system-reminder>\nNow make the retry count configurable.'),
      JSON.stringify({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'Summary of the work so far.' } }),
    ].join('\n'));
    expect(human(t.messages)).toEqual(['Add a retry to the uploader.', 'Now make the retry count configurable.']);
    const instr = t.messages.filter((m) => m.instruction);
    expect(instr.map((m) => m.text.split(/[>\n]/)[0])).toEqual(['<local-command-caveat', '<command-name', '<system-reminder', '<system-reminder', 'Summary of the work so far.']);
    // Meta records are not user turns at all.
    expect(t.messages[0].role).toBe('system');
  });

  it('Codex: the developer role, AGENTS.md and environment blocks are instruction; the prompt is the human', () => {
    const t = readTranscript([
      JSON.stringify({ timestamp: 't', type: 'session_meta', payload: { id: 'c1' } }),
      codexLine('developer', '<permissions instructions>\nApprovals: on-request\n</permissions instructions>'),
      codexLine('user', '# AGENTS.md instructions for /srv/shop\n\n<INSTRUCTIONS>\nNever edit generated files.\n</INSTRUCTIONS>', '<environment_context>\n  <cwd>/srv/shop</cwd>\n</environment_context>'),
      codexLine('user', 'Make the cart total include shipping.'),
    ].join('\n'));
    expect(t.format).toBe('codex');
    expect(human(t.messages)).toEqual(['Make the cart total include shipping.']);
    expect(t.messages.filter((m) => m.instruction)).toHaveLength(3);
  });

  it('plain {role, content} arrays and text transcripts are marked the same way', () => {
    const arr = readTranscript(JSON.stringify([{ role: 'user', content: '<context_files>\nREADME.md\n</context_files>' }, { role: 'user', content: 'Speed up the import.' }]));
    expect(human(arr.messages)).toEqual(['Speed up the import.']);
    const txt = readTranscript('user: <system-reminder>be brief</system-reminder>\nassistant: ok\nuser: Drop the unused flag.\n', 'text');
    expect(human(txt.messages)).toEqual(['Drop the unused flag.']);
  });
});

describe('condense never labels injected text as the human', () => {
  it('instruction text is [injected], the prompt is [human]', () => {
    const t = readTranscript([
      codexLine('user', '# AGENTS.md instructions for /srv\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>'),
      codexLine('user', 'Bump the API client to v3.'),
    ].join('\n'));
    const c = condense(t.messages, 10_000).text;
    expect(c).toMatch(/^\[injected\] # AGENTS\.md instructions/);
    expect(c).toContain('[human] Bump the API client to v3.');
    expect(c).not.toMatch(/\[(?:human|user)\] # AGENTS/);
  });
});
