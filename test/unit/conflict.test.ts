// The rule that keeps two nearly identical learnings apart when they state different facts
// (src/lifecycle/conflict.ts): numbers, versions, negations and names that stand in for another.
import { describe, expect, it } from 'vitest';
import { conflictBetween, factProfile, factText, textsConflict } from '../../src/lifecycle/conflict.js';

const kind = (a: string, b: string) => textsConflict(a, b)?.kind ?? null;

describe('conflictBetween: numbers and versions', () => {
  const cases: [string, string, string][] = [
    ['Use Node 18 for the build and the CI runners of this repository.', 'Use Node 20 for the build and the CI runners of this repository.', '18 vs 20'],
    ['The staging database listens on port 5432 behind the bastion host.', 'The staging database listens on port 6543 behind the bastion host.', '5432 vs 6543'],
    ['Pin the client library to v1.2.3 until the upstream fix ships.', 'Pin the client library to v1.3 until the upstream fix ships.', 'v1.2.3 vs v1.3'],
    ['The lambdas run on Python 3.11 in every region.', 'The lambdas run on Python 3.12 in every region.', '3.11 vs 3.12'],
    ['The freeze for the release starts on 2026-11-20 for every team.', 'The freeze for the release starts on 2026-12-04 for every team.', '2026-11-20 vs 2026-12-04'],
    ['Retry the upload 3 times before paging the on-call engineer.', 'Retry the upload 5 times before paging the on-call engineer.', '3 vs 5'],
    ['Deploy the workers to us-east-1 before the API servers.', 'Deploy the workers to eu-west-2 before the API servers.', 'us-east-1 vs eu-west-2'],
    ['Set the request timeout to 30s for the payment gateway calls.', 'Set the request timeout to 45s for the payment gateway calls.', '30s vs 45s'],
    ['Use Node 18 for the build, and Node 20 for the tests.', 'Use Node 20 for the build, and Node 18 for the tests.', '18, 20 vs 20, 18'],
  ];
  it.each(cases)('%s / %s', (a, b, said) => {
    const c = textsConflict(a, b);
    expect(c?.kind).toBe('number');
    expect(c?.reason).toContain(`differ in a number: ${said}`);
    expect(textsConflict(b, a)?.kind).toBe('number');
  });
  it('a number on one side only is a different fact too', () => {
    expect(kind('Use Node 18 or 20 for the build of the service.', 'Use Node 18 for the build of the service.')).toBe('number');
  });
  it('"v18" and "18" are the same version', () => {
    expect(kind('Use Node v18 for the build.', 'use node 18 for the build')).toBe(null);
  });
});

describe('conflictBetween: negation in several forms', () => {
  const base = 'use yarn to install packages in this repository';
  const negated = [
    'Never use yarn to install packages in this repository.',
    "Don't use yarn to install packages in this repository.",
    'Do not use yarn to install packages in this repository.',
    'Please don’t use yarn to install packages in this repository.',
    'Avoid: use yarn to install packages in this repository.',
    'Stop: use yarn to install packages in this repository.',
    "You can't use yarn to install packages in this repository.",
    'No use yarn to install packages in this repository.',
    'We no longer use yarn to install packages in this repository.',
  ];
  it.each(negated)('"%s" vs the plain statement', (n) => {
    const c = textsConflict(`Use yarn to install packages in this repository.`, n);
    expect(c?.kind).toBe('negation');
    expect(c?.reason).toMatch(/^negation: ".+" in one only$/);
    expect(kind(n, base)).toBe('negation');
  });
  it('two negated forms of the same statement agree', () => {
    expect(kind("Don't use yarn to install packages here.", 'Never use yarn to install packages here.')).toBe(null);
    expect(kind('Do not use yarn to install packages here.', "Don't use yarn to install packages here!")).toBe(null);
  });
  it('"not" inside a clause', () => {
    expect(kind('The cache is shared between the test workers.', 'The cache is not shared between the test workers.')).toBe('negation');
    expect(kind('Migrations run without a lock on the primary.', 'Migrations run with a lock on the primary.')).toBe('negation');
  });
});

describe('conflictBetween: one name in place of another', () => {
  const pairs: [string, string][] = [
    ['yarn', 'npm'], ['yarn', 'pnpm'], ['postgres', 'mysql'], ['main', 'master'], ['jest', 'vitest'], ['docker', 'podman'],
  ];
  it.each(pairs)('%s vs %s', (x, y) => {
    const c = textsConflict(`Use ${x} for everything in the monorepo and its CI pipeline.`, `Use ${y} for everything in the monorepo and its CI pipeline.`);
    expect(c?.kind).toBe('name');
    expect(c?.reason).toBe(`differ in a name: ${x} vs ${y}`);
  });
  it('branches, paths and code spans', () => {
    expect(kind('Always rebase feature branches on main before opening a pull request.', 'Always rebase feature branches on master before opening a pull request.')).toBe('name');
    expect(kind('The entry point of the worker is src/worker/index.ts in this repo.', 'The entry point of the worker is src/jobs/main.ts in this repo.')).toBe('name');
    expect(kind('Run `pnpm install --frozen-lockfile` before the build starts.', 'Run `npm ci` before the build starts.')).toBe('name');
    expect(kind('Store the deploy secrets in AWS Secrets Manager for production.', 'Store the deploy secrets in HashiCorp Vault for production.')).toBe('name');
  });
  it('the same words swapped round a negation', () => {
    expect(kind('Use yarn, not npm, for the frontend packages.', 'Use npm, not yarn, for the frontend packages.')).not.toBe(null);
    expect(kind("Don't use yarn for the frontend; use npm for it.", "Use yarn for the frontend; don't use npm for it.")).toBe('negation');
  });
});

describe('conflictBetween: true duplicates still merge', () => {
  const base = 'Run the integration tests against a fresh database before every release of the billing service.';
  const same = [
    base,
    'run the integration tests against a fresh database before every release of the billing service',
    'Run   the integration tests\nagainst a fresh database, before every release of the billing service!',
    'RUN THE INTEGRATION TESTS AGAINST A FRESH DATABASE BEFORE EVERY RELEASE OF THE BILLING SERVICE.',
    '- Run the *integration* tests against a **fresh** database before every release of the `billing` service.',
    'Run the integration test against a fresh database before each release of the billing service.',
    'Run the integration tests against a fresh database before every release of the billing service, so that broken migrations are caught early.',
    'Run the integration tests against a fresh database before every release of the billing service. Confirmed.',
  ];
  it.each(same)('%s', (t) => {
    expect(textsConflict(base, t)).toBe(null);
    expect(textsConflict(t, base)).toBe(null);
  });
  it('a reworded trailing clause', () => {
    expect(kind('Always run the linter before committing changes to the API, because CI is slow to report style errors.',
      'Always run the linter before committing changes to the API since CI takes a long time to report style errors.')).toBe(null);
    expect(kind('Keep the fixtures small so the suite stays under a minute on a laptop.',
      'Keep the fixtures small, which keeps the whole suite under a minute on a laptop.')).toBe(null);
  });
  it('same negation written two ways in a reworded clause', () => {
    expect(kind('Always run the linter before committing to avoid broken builds on the main pipeline.',
      "Always run the linter before committing so builds on the main pipeline don't break.")).toBe(null);
  });
});

describe('factText', () => {
  it('reads the heading title without the type word, and the body', () => {
    expect(factText({ title: 'Procedural: Use Node 18', body: '', titleFromHeading: true })).toBe('Use Node 18');
    expect(factText({ title: 'Pin versions', body: 'Node 18 for CI.', titleFromHeading: true })).toBe('Pin versions\nNode 18 for CI.');
    expect(factText({ title: 'Node 18 for CI.', body: 'Node 18 for CI.', titleFromHeading: false })).toBe('Node 18 for CI.');
  });
});

describe('conflictBetween: more variants', () => {
  it('version ranges, percentages, sizes and times', () => {
    expect(kind('Pin the client to ^1.2.3 in package.json for the web app.', 'Pin the client to ~1.2.3 in package.json for the web app.')).toBe('number');
    expect(kind('Roll the canary out to 5% of the traffic first.', 'Roll the canary out to 25% of the traffic first.')).toBe('number');
    expect(kind('Give the build container 4GB of memory on CI.', 'Give the build container 8GB of memory on CI.')).toBe('number');
    expect(kind('The nightly backup runs at 02:00 UTC on the primary.', 'The nightly backup runs at 03:30 UTC on the primary.')).toBe('number');
  });
  it('a name that ends in digits is a name', () => {
    expect(kind('Build the images with node18 as the base for every service.', 'Build the images with node20 as the base for every service.')).toBe('name');
    expect(kind('Store the artifacts in S3 with a lifecycle rule on the bucket.', 'Store the artifacts in GCS with a lifecycle rule on the bucket.')).toBe('name');
  });
  it('one capitalised name for two', () => {
    expect(kind('Run the deploy pipeline on CircleCI for every tagged release of the app.', 'Run the deploy pipeline on GitHub Actions for every tagged release of the app.')).toBe('name');
  });
  it('negation by "none", "without", "avoid", "stop"', () => {
    expect(kind('All of the tests need the database container running.', 'None of the tests need the database container running.')).toBe('negation');
    expect(kind('Start the API with the feature flags file loaded.', 'Start the API without the feature flags file loaded.')).toBe('negation');
    expect(kind('Avoid yarn to install packages in this repository.', 'Use yarn to install packages in this repository.')).toBe('negation');
    expect(kind('Stop using yarn to install packages in this repository.', 'Use yarn to install packages in this repository.')).toBe('negation');
  });
  it('the type word of a heading title is no difference', () => {
    const a = factText({ title: 'Procedural: Run the linter before pushing to the shared branch', body: '', titleFromHeading: true });
    const b = factText({ title: 'Directive: Run the linter before pushing to the shared branch', body: '', titleFromHeading: true });
    expect(textsConflict(a, b)).toBe(null);
  });
});

describe('conflictBetween: word endings are no difference', () => {
  const base = 'the deploy script for the staging cluster before the release train leaves on friday';
  it.each([['runs', 'run'], ['running', 'runs'], ['configured', 'configure'], ['used', 'uses'], ['using', 'use'], ['retries', 'retry'], ['fixes', 'fixed'], ['pinned', 'pins']])('%s / %s', (x, y) => {
    expect(textsConflict(`The team ${x} ${base}.`, `The team ${y} ${base}.`)).toBe(null);
  });
  it('but another word is', () => {
    expect(kind(`The team runs ${base}.`, `The team skips ${base}.`)).toBe('name');
  });
});

describe('conflictBetween with only: the same statement but for one change', () => {
  const only = (a: string, b: string) => conflictBetween(factProfile(a), factProfile(b), { only: true })?.kind ?? null;
  it('short statements', () => {
    expect(only('Use yarn for installs.', 'Use pnpm for installs.')).toBe('name');
    expect(only('Builds need 4 cores.', 'Builds need 8 cores.')).toBe('number');
    expect(only('Cache the lockfile.', "Don't cache the lockfile.")).toBe('negation');
    expect(only('Deploy to Heroku.', 'Deploy to AWS Elastic Beanstalk.')).toBe('name');
  });
  it('but not two statements that share a topic', () => {
    expect(only('Use Node 18 for the build of the web app.', 'Deploy with helm for the build of the web app.')).toBe(null);
    expect(only('Never cache the lockfile in CI.', 'Cache the node_modules folder in CI to save time.')).toBe(null);
    expect(only('Use yarn for installs.', 'Use yarn for installs and pnpm for the docs site.')).toBe(null);
  });
});
