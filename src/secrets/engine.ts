// secretlint's core and its recommended rule preset, as one module. The build writes it to its
// own file (dist/secrets-engine.cjs), so the CLI's bundle, which every command reads, does not
// carry it: only a command that writes loads it.

export { lintSource } from '@secretlint/core';
export { creator } from '@secretlint/secretlint-rule-preset-recommend';
export { secretLintProfiler } from '@secretlint/profiler';
