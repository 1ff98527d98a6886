// The `yaml` library, loaded on first use: it costs about 12 ms to load, and the hot paths
// (search, the index refresh) only need it for frontmatter the fast parser does not accept.

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const nodeRequire = createRequire(import.meta.url);
let lib: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  return (lib ??= nodeRequire('yaml') as typeof Yaml);
}
