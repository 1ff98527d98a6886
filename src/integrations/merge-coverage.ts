// Which files git merges with `mem merge-driver`: one list of patterns, written into
// `.gitattributes` by the setup and matched by `mem resolve` and `mem doctor`, so the three never
// disagree about what a memory file is.

/**
 * The patterns, in gitattributes syntax, relative to the vault root (where `.gitattributes` is
 * written). A pattern without a slash matches the name in every folder (`.mem/…/MEMORY.md` too).
 * Files under `memory/` may hold entries or be plain notes: the driver merges the ones that hold
 * entries by id and hands plain notes to git's own text merge, so they merge exactly as without
 * it. Typed notes (`.mem/patterns`, `.mem/episodes`) merge by their fields and sections.
 */
export const DRIVER_PATTERNS = ['MEMORY.md', 'institutional.md', 'proxy*.md', 'memory/**/*.md', '.mem/patterns/*.md', '.mem/episodes/*.md'] as const;

/** The `.gitattributes` lines for the driver. */
export const GITATTRIBUTES_LINES: readonly string[] = DRIVER_PATTERNS.map((p) => `${p} merge=mem`);

/** A gitattributes glob as a regex over a `/` path: `*` within a name, `**\/` any folders (or none). */
function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('**/', i)) {
      re += '(?:[^/]+/)*';
      i += 2;
    } else if (glob[i] === '*') re += '[^/]*';
    else if (glob[i] === '?') re += '[^/]';
    else re += glob[i].replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // No slash: the name in any folder; with one: from the root of the attributes file. Either case,
  // as git matches on a case-insensitive file system (core.ignorecase).
  return glob.includes('/') ? new RegExp(`^${re}$`, 'i') : new RegExp(`(?:^|/)${re}$`, 'i');
}

const MATCHERS = DRIVER_PATTERNS.map(globRegex);

/** Whether the merge driver covers `rel`, a path from the vault root with `/`. */
export function driverCovers(rel: string): boolean {
  return MATCHERS.some((m) => m.test(rel));
}

/**
 * What kind of merge a covered file gets, from its path (from the repository's top, where the
 * vault may sit in a subfolder): a typed note by its fields, anything else by entry id.
 */
export function mergeKind(rel: string): 'pattern' | 'episode' | 'entries' {
  if (/(?:^|\/)\.mem\/patterns\/[^/]+\.md$/i.test(rel)) return 'pattern';
  if (/(?:^|\/)\.mem\/episodes\/[^/]+\.md$/i.test(rel)) return 'episode';
  return 'entries';
}
