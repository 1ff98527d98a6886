// Offline learnings a reader understands without the session: pronouns resolved or the learning
// dropped, "remember this" keeping what "this" is, titles cut only between words, and the same
// rule in other words recognised as a duplicate of what memory holds.

import { describe, expect, it } from 'vitest';
import { DuplicateCheck } from '../../src/extract/gate.js';
import { heuristicLearnings } from '../../src/extract/heuristic.js';
import { cleanTitle, shorten, validateLearnings } from '../../src/extract/learning.js';
import { antecedent, clauseTitle, danglingReference, standalone } from '../../src/extract/referents.js';
import type { TranscriptMessage } from '../../src/extract/transcript.js';

const human = (text: string): TranscriptMessage => ({ role: 'user', kind: 'text', text });
const said = (text: string): TranscriptMessage => ({ role: 'assistant', kind: 'text', text });
const ALL = ['project', 'corrective', 'interventions', 'observations'] as const;
const titles = (msgs: TranscriptMessage[]) => heuristicLearnings([said('Ready.'), ...msgs], [...ALL]).map((l) => l.title);

describe('standalone referents', () => {
  it('a rule\'s "it" becomes the noun phrase the message was about', () => {
    expect(titles([human('Can we rewrite the design record so it reads like the feature docs? Also don\'t give it a number and it needs no date in the file.')]))
      .toEqual(["Don't give the design record a number and it needs no date in the file."]);
  });

  it('"they"/"them" take a plural noun phrase; a sentence that only repeats the pronoun passes the search back', () => {
    expect(titles([human('The generated clients are checked in. Never edit them by hand.')])).toEqual(['Never edit the generated clients by hand.']);
    expect(standalone('Never put ticket numbers in it.', ['Can you redo the changelog entry?', 'Keep it short.'])).toBe('Never put ticket numbers in the changelog entry.');
  });

  it('a pronoun with nothing to resolve it from, a person, or an action is not kept', () => {
    expect(titles([human("Don't give it a version number.")])).toEqual([]);
    expect(titles([human('Ask him before merging the release branch.')])).toEqual([]);
    expect(titles([human('The deploy script is slow. Never do that without asking the release manager.')])).toEqual([]);
    // The nearest noun phrase disagrees in number: not clear what "them" is.
    expect(antecedent(['Look at the parser first.'], true)).toBeNull();
  });

  it('a pronoun whose referent is in the rule itself, or an empty "it", is left alone', () => {
    expect(danglingReference('Never commit the .env file because it holds the API keys.')).toBeNull();
    expect(danglingReference("It's best to run the linter before pushing.")).toBeNull();
    expect(danglingReference('Always make it clear in the PR which migration runs.')).toBeNull();
    expect(danglingReference("Don't give it a number")).toMatchObject({ word: 'it', plural: false, unresolvable: false });
  });
});

describe('"remember this" keeps what "this" is', () => {
  it('"remember that <clause>" is the rule itself, not a request about the sentence before', () => {
    expect(titles([human('Thanks for the fix to the importer. Remember that the cache keys include the tenant id.')]))
      .toEqual(['The cache keys include the tenant id.']);
  });

  it('"remember this: …" points forward', () => {
    expect(titles([human('Remember this: the release branch is cut every Thursday.')])).toEqual(['The release branch is cut every Thursday.']);
  });

  it('a request on its own line keeps the human\'s message just before it', () => {
    const ls = heuristicLearnings([said('ok'), human('Deploys to staging need the VPN up.'), human('Remember this.')], [...ALL]);
    expect(ls.map((l) => l.title)).toEqual(['Deploys to staging need the VPN up.']);
    expect(ls[0].body).toBe('Deploys to staging need the VPN up.\n\nEvidence: "Remember this."');
  });

  it('"X, that\'s why Y": the title is the rule Y with its reason; the body keeps every sentence asked for', () => {
    const ls = heuristicLearnings([said('ok'), human("Option 2 breaks because the build id changes on every retry, that's why we tag each image with the commit hash. Since that is stable. Could you add this to AGENTS.md so you remember it?")], [...ALL]);
    expect(ls.map((l) => l.title)).toEqual(['We tag each image with the commit hash because the build id changes on every retry']);
    expect(ls[0].body).toBe("Option 2 breaks because the build id changes on every retry, that's why we tag each image with the commit hash. Since that is stable.\n\nEvidence: \"Could you add this to AGENTS.md so you remember it?\"");
  });
});

describe('titles are cut between words', () => {
  const words = (s: string) => new Set(s.split(/\s+/));
  const wholeWords = (title: string, source: string) => title.replace(/\u2026$/, '').split(/\s+/).every((w) => words(source).has(w));

  it('a long title ends at a word (or a clause), with an ellipsis', () => {
    const long = `Set the webhook URL to https://hooks.example.internal/${'services/'.repeat(9)}deploy in the config`;
    const t = cleanTitle(long);
    expect(t.length).toBeLessThanOrEqual(90);
    expect(t.endsWith('\u2026')).toBe(true);
    expect(wholeWords(t, long)).toBe(true);
    const v = validateLearnings({ learnings: [{ scope: 'project', type: 'directive', title: 'Keep the request handlers thin and move validation, persistence and notification logic into the service layer modules', body: 'b c d', evidence: '', importance: 0.5, phase: 'x' }] }, ['project']);
    expect(v!.learnings[0].title).toBe('Keep the request handlers thin and move validation, persistence and notification logic\u2026');
  });

  it('a whole sentence or clause is preferred to a cut', () => {
    expect(shorten('Run the migrations before the API tests. Then seed the fixtures from the staging dump, every time you reset.', 60)).toBe('Run the migrations before the API tests.');
    expect(clauseTitle('Always run the schema migrations against the test database first; the API tests assume every table exists already', 90, () => true))
      .toBe('Always run the schema migrations against the test database first');
  });

  it('a rule too long for a title still gets one that ends on a whole word', () => {
    const rule = "Don't run the integration suite against https://staging.example.internal/clusters/shared-cluster-of-every-team";
    const [t] = titles([human(rule)]);
    expect(t.length).toBeLessThanOrEqual(90);
    expect(wholeWords(t, rule)).toBe(true);
  });
});

describe('the same rule in other words is a duplicate of what memory holds', () => {
  const existing = [{ title: 'Corrective: run migrations before the API tests', titleFromHeading: true, body: 'The API tests fail with `relation "orders" does not exist` on a fresh database.\nRun `npm run db:migrate` first; CI does this in its setup step.' }];
  const L = (title: string, body: string) => ({ title, body });

  it('a restatement, and the same command with narrower arguments, are duplicates', () => {
    const dup = new DuplicateCheck(existing, 'MEMORY.md');
    expect(dup.check(L('The API tests need the migrations on a fresh database; CI runs them in its setup step.', 'Remember that the API tests need the migrations on a fresh database; CI runs them in its setup step.'), 'MEMORY.md'))
      .toMatchObject({ reason: 'duplicate', detail: 'states the same rule as "run migrations before the API tests"' });
    expect(dup.check(L('Run `npm run db:migrate -- --env test` before `npm test -- checkout`', '`npm test -- checkout` failed with: relation "orders" does not exist\n\nWhat fixed it: `npm run db:migrate -- --env test`, then `npm test -- checkout` worked.'), 'proxy.md'))
      .toMatchObject({ reason: 'duplicate', detail: 'states the same rule as "run migrations before the API tests" in MEMORY.md' });
  });

  it('a rule about another thing, the opposite rule, another number or another command is kept', () => {
    const dup = new DuplicateCheck(existing);
    expect(dup.check(L('Run the migrations after deploying the API', 'Deploys apply the migrations in the release step.'))).toBeNull();
    expect(dup.check(L('Never run migrations before the API tests', 'The API tests create their own schema.'))).toBeNull();
    const ports = new DuplicateCheck([{ title: 'Start the Stripe mock on port 12111', titleFromHeading: true, body: 'The payment tests need the Stripe mock on port 12111.' }]);
    expect(ports.check(L('The payment tests need the Stripe mock', 'Start the Stripe mock on port 12112 before the payment tests.'))).toBeNull();
    const cmds = new DuplicateCheck([{ title: 'Run `npm test` before pushing', titleFromHeading: true, body: 'CI rejects a push whose tests fail.' }]);
    expect(cmds.check(L('Run `npm run lint` before pushing', 'CI rejects a push whose lint fails.'))).toBeNull();
    expect(cmds.check(L('Run the unit tests before pushing to the repository', 'Pushing with failing unit tests breaks CI for everyone.'))).toBeNull();
  });
});
