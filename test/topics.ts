// Two topics for segmentation tests: a database migration (eight turns), then a CSS bug that
// shares no word with it. Tests take the first six database turns where a shorter session does.

export const DB_TURNS = [
  'The database migration fails on the orders table with a missing column error in postgres.',
  'The migration for the orders table adds the column after the index; postgres needs the column first.',
  'Can you reorder the migration so the orders column exists before the postgres index is created?',
  'Done: the migration now creates the orders column, then the index; postgres migrates cleanly.',
  'Run the orders migration against the test database and check postgres accepts it.',
  'The orders migration ran on the test database; postgres reports no missing column.',
  'Does the rollback of the orders migration drop the column and the postgres index too?',
  'Yes: the down migration drops the postgres index first, then the orders column.',
];

export const CSS_TURNS = [
  'Now something else: the navbar dropdown menu renders behind the hero banner on mobile Safari browsers.',
  'The dropdown menu needs a higher z-index than the hero banner; Safari also clips overflow on the navbar.',
  'Set the navbar dropdown z-index above the banner and remove overflow hidden for Safari.',
  'The navbar dropdown now shows above the hero banner in Safari on mobile.',
];
