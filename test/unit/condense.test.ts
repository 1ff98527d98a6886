import { describe, expect, it } from 'vitest';
import { condense } from '../../src/extract/condense.js';
import { heuristicLearnings } from '../../src/extract/heuristic.js';
import type { TranscriptMessage } from '../../src/extract/transcript.js';

const m = (role: TranscriptMessage['role'], kind: TranscriptMessage['kind'], text: string, extra: Partial<TranscriptMessage> = {}): TranscriptMessage => ({ role, kind, text, ...extra });

/** A long session: a task, 200 routine tool steps, a correction, an error and its fix, an ending. */
function longSession(): TranscriptMessage[] {
  const out: TranscriptMessage[] = [m('user', 'text', 'Add rate limiting to the public search endpoint.')];
  for (let i = 0; i < 100; i++) {
    out.push(m('assistant', 'tool_use', `Read({"file_path":"src/routes/file${i}.ts"})`));
    out.push(m('tool', 'tool_result', `${i}\texport const route${i} = () => {};\n`.repeat(40)));
  }
  out.push(m('user', 'text', "No, don't put the limiter in each route; use the shared middleware in src/http/limits.ts."));
  out.push(m('assistant', 'tool_use', 'Bash({"command":"npm test"})'));
  out.push(m('tool', 'tool_result', 'Error: Cannot find module ./limits\n    at require (node:internal)', { isError: true }));
  out.push(m('assistant', 'text', 'The import path was wrong because the middleware lives in src/http; fixed it.'));
  for (let i = 0; i < 50; i++) out.push(m('assistant', 'text', `Step ${i}: checking another file for the old limiter code and moving on.`));
  out.push(m('assistant', 'text', 'Done: the search endpoint is limited to 60 requests a minute by the shared middleware.'));
  return out;
}

describe('condense', () => {
  it('keeps everything when it fits', () => {
    const msgs = [m('user', 'text', 'Fix the build.'), m('assistant', 'text', 'Fixed.')];
    const c = condense(msgs, 10_000);
    expect(c.kept).toBe(2);
    expect(c.text).toBe('[human] Fix the build.\n\n[assistant] Fixed.');
  });

  it('keeps the arc within the budget: task, correction, error and fix, ending; marks the gaps', () => {
    const c = condense(longSession(), 4000);
    expect(c.text.length).toBeLessThanOrEqual(4000);
    expect(c.text).toContain('[human] Add rate limiting to the public search endpoint.');
    expect(c.text).toContain("[human] No, don't put the limiter in each route");
    expect(c.text).toContain('[tool error] Error: Cannot find module ./limits');
    expect(c.text).toContain('The import path was wrong because the middleware lives in src/http');
    expect(c.text).toContain('Done: the search endpoint is limited to 60 requests a minute');
    expect(c.text).toMatch(/\[… \d+ messages left out …\]/);
    expect(c.kept).toBeLessThan(c.total);
    // Chronological order is kept.
    expect(c.text.indexOf('Add rate limiting')).toBeLessThan(c.text.indexOf("No, don't put"));
    expect(c.text.indexOf("No, don't put")).toBeLessThan(c.text.indexOf('Done: the search'));
  });

  it('blocks of one response (assistant lines sharing message.id) are one message', () => {
    const c = condense([
      m('user', 'text', 'Fix the build.'),
      m('assistant', 'text', 'Looking at the error first.', { id: 'msg_1' }),
      m('assistant', 'text', 'It is a missing import.', { id: 'msg_1' }),
      m('assistant', 'text', 'Fixed it.', { id: 'msg_2' }),
    ], 10_000);
    expect(c.total).toBe(3);
    expect(c.text).toBe('[human] Fix the build.\n\n[assistant] Looking at the error first.\nIt is a missing import.\n\n[assistant] Fixed it.');
  });

  it('trims tool output, keeping its head and tail', () => {
    const c = condense([m('user', 'text', 'Run it.'), m('tool', 'tool_result', `start ${'x'.repeat(5000)} the final line says ok`)], 100_000);
    expect(c.text.length).toBeLessThan(600);
    expect(c.text).toContain('[…]');
    expect(c.text).toContain('the final line says ok');
  });
});

describe('heuristicLearnings', () => {
  const all = ['project', 'corrective', 'interventions', 'observations'] as const;

  it('finds explicit rules, preferences, corrections and an error followed by its fix', () => {
    const ls = heuristicLearnings(longSession().concat([
      m('user', 'text', 'Remember that staging needs the VPN. I prefer one commit per fix.'),
    ]), [...all]);
    const titles = ls.map((l) => `${l.scope}|${l.type}|${l.title}`);
    // One learning per sentence: the correction, as a rule without its "No," (it used to be kept twice).
    expect(titles).toContain("corrective|corrective|Don't put the limiter in each route; use the shared middleware in src/http/limits.ts.");
    expect(titles.filter((t) => t.includes('limiter'))).toHaveLength(1);
    expect(titles).toContain('project|directive|Staging needs the VPN.');
    expect(titles).toContain('observations|declarative|I prefer one commit per fix.');
    for (const l of ls) expect(l.importance).toBeLessThanOrEqual(0.5);
  });

  it('"from now on", "next time" and "going forward" are rules too', () => {
    const ls = heuristicLearnings([
      m('user', 'text', 'From now on, run the linter before you commit.'),
      m('user', 'text', 'Next time check the changelog first. Going forward use pnpm in the docs site.'),
      m('user', 'text', 'What time is it next to the server?'),
      m('user', 'text', 'If we ever rewind in the future, we will need the agent name.'),
      m('user', 'text', 'Should we always use pnpm?'),
    ], ['project']);
    expect(ls.map((l) => l.title)).toEqual(['Run the linter before you commit.', 'Check the changelog first.', 'Use pnpm in the docs site.']);
  });

  it('questions and pleasantries that open like corrections are not corrections; "make sure" stays in the rule', () => {
    const ls = heuristicLearnings([
      m('user', 'text', 'Refactor the parser.'),
      m('assistant', 'text', 'Done, I split it into two files.'),
      m('user', 'text', 'Wait, what does the second file do?'),
      m('assistant', 'text', 'It holds the tokenizer.'),
      m('user', 'text', "No worries, that's fine."),
      m('assistant', 'text', 'Great.'),
      m('user', 'text', 'Make sure the tokenizer has its own tests.'),
    ], ['project', 'corrective']);
    expect(ls.map((l) => `${l.scope}|${l.title}`)).toEqual(['project|Make sure the tokenizer has its own tests.']);
  });

  it('an error and the call that then worked becomes a corrective learning', () => {
    const ls = heuristicLearnings([
      m('user', 'text', 'Run the migrations.'),
      m('assistant', 'tool_use', 'Bash({"command":"npm run migrate"})'),
      m('tool', 'tool_result', 'npm ERR! Missing script: "migrate"', { isError: true }),
      m('assistant', 'tool_use', 'Bash({"command":"npm run db:migrate"})'),
      m('tool', 'tool_result', 'Batch 1 run: 3 migrations', { isError: false }),
    ], ['corrective']);
    expect(ls).toHaveLength(1);
    expect(ls[0].title).toBe('Use `npm run db:migrate`, not `npm run migrate`: Missing script: "migrate"');
    expect(ls[0].body).toContain('What worked: `npm run db:migrate`');
  });

  it('context an agent inserts as user text (a whole message in one tag) is not the human speaking', () => {
    const ls = heuristicLearnings([
      m('user', 'text', '<environment_context>\n  <cwd>/repo</cwd>\n  Always use the sandbox.\n</environment_context>'),
      m('user', 'text', '<user_instructions>Never push to main.</user_instructions>'),
      m('user', 'text', 'Never commit generated files.'),
    ], ['project']);
    expect(ls.map((l) => l.title)).toEqual(['Never commit generated files.']);
  });

  it("a subagent's prompt (a sidechain's user message) is not the human speaking", () => {
    const ls = heuristicLearnings([
      m('user', 'text', 'Find the flaky test.'),
      m('user', 'text', 'Remember to report only the file names, never the contents.', { isSidechain: true }),
      m('assistant', 'text', 'Found tests/api/cart.test.ts.', { isSidechain: true }),
    ], ['project', 'corrective']);
    expect(ls).toEqual([]);
  });

  it('ignores refusals, tool protocol errors, file dumps that mention "error", and only the scopes asked for', () => {
    const ls = heuristicLearnings([
      m('user', 'text', 'Clean up the logger.'),
      m('assistant', 'tool_use', 'Read({"file_path":"src/log.ts"})'),
      m('tool', 'tool_result', '12→  throw new Error("bad level")', { isError: false }),
      m('assistant', 'tool_use', 'Edit({"file_path":"src/log.ts"})'),
      m('tool', 'tool_result', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>', { isError: true }),
      m('assistant', 'tool_use', 'Edit({"file_path":"src/log.ts","x":1})'),
      m('tool', 'tool_result', 'ok', { isError: false }),
      m('assistant', 'tool_use', 'Bash({"command":"rm -rf dist"})'),
      m('tool', 'tool_result', "The user doesn't want to proceed with this tool use. The tool use was rejected.", { isError: true }),
      m('assistant', 'tool_use', 'Bash({"command":"rm -rf build"})'),
      m('tool', 'tool_result', '', { isError: false }),
      m('user', 'text', 'Always ask before deleting folders.'),
    ], ['corrective']);
    expect(ls).toEqual([]);
  });
});
