import { describe, expect, it } from 'vitest';
import { DuplicateCheck, checkLearning, fragment, gateContext, instructionText, noSubject, subjectOf, toolMechanics } from '../../src/extract/gate.js';
import { splitEvidence, validateLearnings, withEvidence } from '../../src/extract/learning.js';
import type { TranscriptMessage } from '../../src/extract/transcript.js';

const L = (title: string, body = title) => ({ title, body });
const NONE = gateContext([]);

describe('gate: a whole sentence', () => {
  it('keeps whole sentences of several shapes', () => {
    for (const l of [
      L('Run `make proto` after editing any .proto file', 'The generated Go stubs are checked in; CI fails when they are stale.'),
      L('Use pnpm, not npm'),
      L('The staging database is read-only for deploy keys.'),
      L('Never force-push to the release branch.'),
      L('In CI and on laptops, export TZ=UTC before the date tests.'),
      L('Then restart the worker after changing queue settings', 'Then restart the worker after changing queue settings.'),
      L('Keep fixtures small', 'Each fixture under test/data stays below 1 MB so the repo clones fast…'),
    ]) expect(fragment(l), l.title).toBeNull();
  });

  it('rejects pieces of sentences', () => {
    for (const [l, why] of [
      [L('Do not merge.'), /verb without an object|too few/],
      [L('Always verify!'), /verb without an object|too few/],
      [L('Stop.'), /too few/],
      [L('and then the cache gets rebuilt from scratch'), /mid-sentence/],
      [L('Which is why the nightly job exists at all'), /mid-sentence/],
      [L('because the lockfile drifted after the upgrade'), /mid-sentence/],
      [L('Through the gateway and retry until it passes fully'), /cut from its sentence/],
      [L('Set the retry budget of the uploader to'), /ends on "to"/],
      [L('The migration script needs the following flags:'), /ends mid-sentence/],
    ] as const) expect(fragment(l), l.title).toMatch(why);
  });
});

describe('gate: a named subject', () => {
  it('finds subjects by form and by noun', () => {
    expect(subjectOf('Run `cargo xtask dist` first')).toBe('`cargo xtask dist`');
    expect(subjectOf('Edit config/app.yaml, not the copy')).toMatch(/config\/app\.yaml/);
    expect(subjectOf('Pass --frozen-lockfile in CI')).toMatch(/--frozen-lockfile/);
    expect(subjectOf('Set MAX_WORKERS to the core count')).toBe('MAX_WORKERS');
    expect(subjectOf('Restart Redis after a config change')).toBe('Redis');
    expect(subjectOf('Regenerate snapshots after changing the renderer')).toBe('snapshots');
    expect(subjectOf('Migrations must run before the integration suite')).toBeTruthy();
  });

  it('rejects learnings that name nothing', () => {
    for (const l of [L('Do it like that again next time'), L('Keep doing this until everything is done'), L('Proceed carefully and thoroughly until completed'), L('Please be more careful with it')]) {
      expect(noSubject(l), l.title).toBeTruthy();
    }
    expect(noSubject(L('Check the logs before retrying'))).toBeNull();
  });
});

describe('gate: tool mechanics', () => {
  it('rejects the agent\'s own tool protocol', () => {
    for (const t of [
      'Edit of src/a.ts failed: String to replace not found in file. The second Edit worked.',
      'apply_patch failed: expected lines not found; re-read the file first',
      'Failed to find expected lines in web/index.html',
      'Error: String not found in file. Failed to apply edit.',
      "Failed to parse patch: Unexpected line found in update hunk: '@@'",
      "Invalid patch: The first line of the patch must be '*** Begin Patch'",
      'The command failed in sandbox: network access denied by the sandbox',
      'Permission to use Bash has been denied; ask the user',
      'This command requires approval under the current approval policy',
      '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>',
      'The agent ran Bash({"command": "ls -la", "description": "list files"})',
      'call {"call_id": "c1", "name": "shell", "arguments": "{}"}',
    ]) expect(toolMechanics(t), t).toBeTruthy();
  });

  it('keeps project errors and config snippets', () => {
    for (const t of [
      '`pytest -x` fails with ModuleNotFoundError: No module named yaml; run `pip install -e .[dev]`',
      'EACCES: permission denied on /var/log/app.log: run the service as the app user',
      'Set {"compilerOptions": {"strict": true}} in tsconfig.json',
      'A hunk of the diff view is folded by default in the review UI',
    ]) expect(toolMechanics(t), t).toBeNull();
  });
});

describe('gate: instruction text', () => {
  const agents = 'Always run the linter with `npm run lint -- --fix` before you hand back a change. Keep every public function documented with a short comment.';
  const msgs: TranscriptMessage[] = [
    { role: 'user', kind: 'text', text: `# AGENTS.md\n\n${agents}`, instruction: true },
    { role: 'user', kind: 'text', text: 'Please fix the flaky login test; the staging seed data changed yesterday.' },
  ];
  const ctx = gateContext(msgs);

  it('rejects a learning copied from an instruction file, in its title, text or evidence', () => {
    expect(instructionText(L('Always run the linter with npm run lint -- --fix before you hand back a change'), ctx)).toMatch(/title/);
    expect(instructionText(L('Lint before handing back', withEvidence('Lint fixes keep diffs small.', 'Keep every public function documented with a short comment.')), ctx)).toMatch(/evidence/);
    expect(checkLearning(L('Always run the linter with `npm run lint -- --fix` before you hand back a change.'), ctx)?.reason).toBe('instruction-text');
  });

  it('keeps what the human typed and what is only related', () => {
    expect(instructionText(L('Fix the flaky login test; the staging seed data changed yesterday'), ctx)).toBeNull();
    expect(instructionText(L('Lint with --fix so review diffs stay small'), ctx)).toBeNull();
    // The same words typed by the human too: theirs as well, kept.
    const both = gateContext([...msgs, { role: 'user', kind: 'text', text: 'Keep every public function documented with a short comment, please.' }]);
    expect(instructionText(L('Keep every public function documented with a short comment'), both)).toBeNull();
  });
});

describe('gate: checkLearning', () => {
  it('gives one reason per rejection and passes good learnings', () => {
    expect(checkLearning(L('Run `npm run db:migrate -- --env test` before the API tests', withEvidence('A fresh test database has no tables.', 'relation "orders" does not exist')), NONE)).toBeNull();
    expect(checkLearning(L('Do not finalize.'), NONE)?.reason).toBe('fragment');
    expect(checkLearning(L('Do that again next time, it was much better'), NONE)?.reason).toBe('no-subject');
    expect(checkLearning(L('`Edit` failed: String to replace not found'), NONE)?.reason).toBe('tool-mechanics');
    const withPath = gateContext([], ['/home/me/.codex/sessions/rollout-1.jsonl']);
    expect(checkLearning(L('Read /home/me/.codex/sessions/rollout-1.jsonl for the fix'), withPath)?.reason).toBe('transcript-path');
  });
});

describe('gate: duplicates by the compaction measure', () => {
  const existing = [
    { title: 'Procedural: Run the payment tests against the local Stripe mock', titleFromHeading: true, body: 'The payment tests need the local Stripe mock on port 12111; start it with `make stripe-mock` before `npm test -- payments`.' },
  ];

  it('rejects a restatement of an existing entry and a repeated title', () => {
    const dup = new DuplicateCheck(existing);
    expect(dup.check(L('Start the Stripe mock first', 'The payment tests need the local Stripe mock on port 12111; start it with `make stripe-mock` before running `npm test -- payments`.'))?.reason).toBe('duplicate');
    expect(dup.check(L('Run the payment tests against the local Stripe mock', 'Something else entirely about webhooks.'))?.detail).toMatch(/same title/);
  });

  it('keeps new learnings, a conflicting fact, and catches a repeat among the new ones', () => {
    const dup = new DuplicateCheck(existing);
    expect(dup.check(L('Seed the webhook secrets', 'Webhook tests read STRIPE_WEBHOOK_SECRET from .env.test; copy it from .env.example.'))).toBeNull();
    // Same words but another port: compaction keeps the two apart, so the gate does too.
    expect(dup.check(L('Stripe mock port', 'The payment tests need the local Stripe mock on port 12112; start it with `make stripe-mock` before `npm test -- payments`.'))).toBeNull();
    expect(dup.check(L('Webhook secret', 'Webhook tests read STRIPE_WEBHOOK_SECRET from .env.test; copy it from .env.example file.'))?.reason).toBe('duplicate');
  });
});

describe('learning: rule and evidence', () => {
  it('writes the evidence as a last quoted paragraph and splits it back', () => {
    const body = withEvidence('Use the npm scripts; yarn breaks the lockfile.', '  "No, don\'t use yarn here,\n we use npm"  ');
    expect(body).toBe('Use the npm scripts; yarn breaks the lockfile.\n\nEvidence: "No, don\'t use yarn here, we use npm"');
    expect(splitEvidence(body)).toEqual({ rule: 'Use the npm scripts; yarn breaks the lockfile.', evidence: ["No, don't use yarn here, we use npm"] });
    expect(withEvidence('x y z', '')).toBe('x y z');
  });

  it('the model\'s evidence field lands in the body', () => {
    const v = validateLearnings({ learnings: [{ scope: 'project', type: 'directive', title: 'Use npm', body: 'The repo has package-lock.json only.', evidence: "we always use npm in this repo", importance: 0.7, phase: 'implementation' }] }, ['project']);
    expect(v?.learnings[0].body).toBe('The repo has package-lock.json only.\n\nEvidence: "we always use npm in this repo"');
  });
});

describe('gate: self-contained titles and statements', () => {
  it('rejects a title that points back to an earlier message, and a question', () => {
    for (const t of ['This breaks the nightly export when run twice', 'It silently drops rows over the batch limit', 'That means the cache never warms up', "It's flaky on the ARM runners"]) {
      expect(noSubject(L(t)), t).toMatch(/refers back/);
    }
    expect(fragment(L('Could you rerun the benchmark with a warm cache?'))).toMatch(/question/);
  });

  it('keeps a demonstrative with its noun and an empty "it"', () => {
    for (const t of ['This repository pins Node 20 in .nvmrc', 'These endpoints require the X-Tenant header', 'This class owns the retry queue', 'It is safer to run migrations in a transaction', "It's best to restart the dev server after changing .env"]) {
      expect(noSubject(L(t)), t).toBeNull();
      expect(fragment(L(t)), t).toBeNull();
    }
  });
});
