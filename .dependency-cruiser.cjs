// The layering of src/, checked by `npm run lint:deps` (dependency-cruiser) in CI. Lowest first:
//
//   base          src/*.ts: errors, hashes, stdin, the package root, markdown quoting, child_process
//   secrets       finding and redacting credentials in text
//   vault         memory files on disk: paths, scopes, formats, reads, locked writes, config
//   index         .memory.db: schema, refresh, queries
//   engines       fsrs (scheduling math), llm (model providers), embeddings (vectors)
//   features      retrieve, lifecycle, extract, episodes, notes, lint, eval
//   render        what the CLI and the MCP server print: JSON shapes, prompt markdown, terminal text
//   services      one function per use case (search, context, add, …) that every front-end calls
//   integrations  git hooks and merges, agent hooks, watch, the MCP server
//   cli           the `mem` program
//
// A module may import its own layer and the layers below it, never one above; no import cycles.
// Inside `features` the folders may use each other (no cycles); inside `engines` only embeddings
// uses llm. docs/architecture.md explains each layer; keep the two in step.

const LAYERS = [
  ['base', '^src/[^/]+\\.ts$'],
  ['secrets', '^src/secrets/'],
  ['vault', '^src/vault/'],
  ['index', '^src/index/'],
  ['engines', '^src/(fsrs|llm|embeddings)/'],
  ['features', '^src/(retrieve|lifecycle|extract|episodes|notes|lint|eval)/'],
  ['render', '^src/render/'],
  ['services', '^src/services/'],
  ['integrations', '^src/integrations/'],
  ['cli', '^src/cli/'],
];

// One rule per layer: nothing it holds imports a layer above it.
const layerRules = LAYERS.slice(0, -1).map(([name, from], i) => ({
  name: `${name}-imports-no-higher-layer`,
  comment: `${name} may import ${LAYERS.slice(0, i + 1).map(([n]) => n).join(', ')} only (docs/architecture.md)`,
  severity: 'error',
  from: { path: from },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => p) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import cycle: one of its modules cannot be loaded, tested or understood without the others',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'fsrs-and-llm-stand-alone',
      comment: 'fsrs and llm use no other engine',
      severity: 'error',
      from: { path: '^src/(fsrs|llm)/' },
      to: { path: '^src/(fsrs|llm|embeddings)/', pathNot: '^src/$1/' },
    },
    {
      name: 'embeddings-use-llm-only',
      comment: 'of the engines, embeddings use llm (its fetch and errors) only',
      severity: 'error',
      from: { path: '^src/embeddings/' },
      to: { path: '^src/fsrs/' },
    },
    {
      name: 'no-unresolvable-import',
      comment: 'an import of src/ that does not resolve to a file',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true, path: '^\\.' },
    },
  ],
  options: {
    // TypeScript 7 has no compiler API for the cruiser to use; swc parses the sources.
    parser: 'swc',
    // Type-only imports count: a cycle or an upward import is one whether or not it is erased.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    // `./x.js` in the sources names `./x.ts`.
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'], conditionNames: ['import', 'require', 'node', 'default'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
